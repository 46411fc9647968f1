//! Path-based helpers for host-side code (task setup, judges, tests).
//!
//! Paths are absolute (`/a/b`) or relative to the root; empty components and `.` are ignored,
//! `..` at the root stays at the root, and a trailing `/` requires a directory. Symlinks are
//! followed with relative targets resolved from the link's directory and absolute targets
//! from the VFS root, at most [`MAX_SYMLINKS`] times per resolution.

use crate::{
    error::{Result, VfsError},
    node::{Ino, NodeData, NodeKind},
    tree::Vfs,
};

/// Maximum number of symlinks followed while resolving one path.
const MAX_SYMLINKS: usize = 40;

/// Splits `path` into the part before its last component and that component, ignoring
/// trailing slashes (`"/a/b/"` gives `("/a", "b")`, `"b"` gives `("", "b")`).
fn split_last(path: &str) -> (&str, &str) {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
        None => ("", trimmed),
    }
}

/// Refuses `.` and `..` as a component of a path that must name its place literally.
fn validate_component(name: &str) -> Result<()> {
    match name {
        "." | ".." => Err(VfsError::InvalidName(name.to_owned())),
        _ => Ok(()),
    }
}

/// Pushes the components of `path` onto `stack` so that they pop in order; a trailing slash
/// becomes a final `.` (forcing a directory).
fn push_components(stack: &mut Vec<String>, path: &str) {
    let has_name = path.split('/').any(|c| !c.is_empty());
    if has_name && path.ends_with('/') {
        stack.push(".".to_owned());
    }
    stack.extend(
        path.rsplit('/')
            .filter(|c| !c.is_empty())
            .map(str::to_owned),
    );
}

impl Vfs {
    /// Resolves `path`, following symlinks including the final component.
    pub fn resolve(&self, path: &str) -> Result<Ino> {
        self.resolve_at(self.root(), path, true)
    }

    /// Resolves `path`, following symlinks except in the final component.
    pub fn resolve_nofollow(&self, path: &str) -> Result<Ino> {
        self.resolve_at(self.root(), path, false)
    }

    /// [`Vfs::resolve`] that spends one of `steps` per path component visited (symlink
    /// targets included) and fails with `InvalidArgument` when they run out: host-side work
    /// over a tree a guest shaped stays bounded.
    pub fn resolve_metered(&self, path: &str, steps: &mut u64) -> Result<Ino> {
        self.resolve_with(self.root(), path, true, steps)
    }

    /// Reads the whole regular file at `path`.
    pub fn read_file(&self, path: &str) -> Result<Vec<u8>> {
        let file = self.resolve(path)?;
        self.read_to_vec(file, 0, usize::MAX)
    }

    /// Creates or truncates the file at `path` (its parent must exist) and writes `data`.
    pub fn write_file(&mut self, path: &str, data: &[u8]) -> Result<Ino> {
        let (parent, name) = split_last(path);
        if path.ends_with('/') || matches!(name, "" | "." | "..") {
            return Err(match self.kind(self.resolve(path)?)? {
                NodeKind::Directory => VfsError::IsDir,
                _ => VfsError::NotDir,
            });
        }
        let parent = self.resolve(parent)?;
        match self.resolve_at(parent, name, true) {
            Ok(file) => {
                self.replace_content(file, data)?;
                Ok(file)
            }
            Err(VfsError::NotFound) if self.lookup(parent, name).is_err() => {
                self.check_inodes(1)?;
                self.check_bytes(0, data.len() as u64)?;
                let file = self.create_file(parent, name)?;
                self.replace_content(file, data)?;
                Ok(file)
            }
            Err(e) => Err(e),
        }
    }

    /// Creates `path` and any missing ancestors; returns the final directory.
    pub fn create_dir_all(&mut self, path: &str) -> Result<Ino> {
        let snapshot = self.clone();
        let result = self.create_dir_all_inner(path);
        if result.is_err() {
            *self = snapshot;
        }
        result
    }

    /// Removes the file, symlink or whole directory tree at `path` (not following it).
    pub fn remove_all(&mut self, path: &str) -> Result<()> {
        let (parent, name) = split_last(path);
        match name {
            "" => {
                return Err(VfsError::InvalidArgument(
                    "cannot remove the root directory",
                ));
            }
            "." | ".." => return Err(VfsError::InvalidArgument("cannot remove . or ..")),
            _ => {}
        }
        let parent = self.resolve(parent)?;
        self.remove_entry(parent, name)
    }

    /// Writes `data` at absolute `path` without following any symlink: a component on the way
    /// that is not a directory (a file, a symlink) is replaced by an empty directory, and
    /// whatever is at the final name (a file, a symlink, a directory tree) is replaced by the
    /// new file. For files the guest must not have shaped (the Judge phase's files): nothing
    /// a guest left on the path can redirect the write.
    pub fn replace_file(&mut self, path: &str, data: &[u8]) -> Result<Ino> {
        let names: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
        let Some((last, dirs)) = names.split_last() else {
            return Err(VfsError::InvalidArgument(
                "cannot replace the root directory",
            ));
        };
        let mut cur = self.root();
        for &name in dirs.iter().chain(std::iter::once(last)) {
            validate_component(name)?;
        }
        for &name in dirs {
            cur = match self.lookup(cur, name) {
                Ok(child) if self.kind(child)? == NodeKind::Directory => child,
                Ok(_) => {
                    self.unlink(cur, name)?;
                    self.create_dir(cur, name)?
                }
                Err(VfsError::NotFound) => self.create_dir(cur, name)?,
                Err(e) => return Err(e),
            };
        }
        match self.lookup(cur, last) {
            Ok(_) => self.remove_entry(cur, last)?,
            Err(VfsError::NotFound) => {}
            Err(e) => return Err(e),
        }
        let file = self.create_file(cur, last)?;
        self.replace_content(file, data)?;
        Ok(file)
    }

    /// Removes the entry `name` of directory `parent` (a file, a symlink or a whole directory
    /// tree), not following it.
    pub fn remove_entry(&mut self, parent: Ino, name: &str) -> Result<()> {
        let top = self.lookup(parent, name)?;
        if self.kind(top)? != NodeKind::Directory {
            return self.unlink(parent, name);
        }
        // Post-order removal with an explicit stack: (dir, name, children already queued).
        let mut stack = vec![(parent, name.to_owned(), false)];
        while let Some((dir, name, expanded)) = stack.pop() {
            let ino = self.lookup(dir, &name)?;
            match self.node(ino)?.as_dir() {
                Some(d) if !expanded => {
                    let children: Vec<_> = d.entries.keys().map(|k| k.to_string()).collect();
                    stack.push((dir, name, true));
                    stack.extend(children.into_iter().map(|child| (ino, child, false)));
                }
                Some(_) => self.remove_dir(dir, &name)?,
                None => self.unlink(dir, &name)?,
            }
        }
        Ok(())
    }

    /// Every path below the directory at `path`, depth-first with sorted entries, as absolute
    /// paths; symlinks are listed, not followed.
    pub fn walk(&self, path: &str) -> Result<Vec<(String, Ino, NodeKind)>> {
        let start = self.resolve(path)?;
        self.dir(start)?;
        let base = self.path_of_dir(start);
        let mut out = Vec::new();
        self.walk_from(start, &base, &mut out);
        Ok(out)
    }

    /// Appends every path below directory `dir` (whose absolute path is `base`) to `out`.
    pub(crate) fn walk_from(&self, dir: Ino, base: &str, out: &mut Vec<(String, Ino, NodeKind)>) {
        let mut stack = Vec::new();
        self.push_children(dir, base.trim_end_matches('/'), &mut stack);
        while let Some((path, ino, kind)) = stack.pop() {
            if kind == NodeKind::Directory {
                self.push_children(ino, &path, &mut stack);
            }
            out.push((path, ino, kind));
        }
    }

    /// Pushes the entries of `dir` onto `stack` so that they pop in sorted order.
    fn push_children(&self, dir: Ino, prefix: &str, stack: &mut Vec<(String, Ino, NodeKind)>) {
        if let Some(d) = self.inode(dir).as_dir() {
            let mark = stack.len();
            stack.extend(
                d.entries
                    .iter()
                    .map(|(name, e)| (format!("{prefix}/{name}"), e.ino, e.kind)),
            );
            stack[mark..].reverse();
        }
    }

    /// Resolves `path` starting at directory `start` (absolute paths start at the root).
    pub(crate) fn resolve_at(&self, start: Ino, path: &str, follow_last: bool) -> Result<Ino> {
        let mut unlimited = u64::MAX;
        self.resolve_with(start, path, follow_last, &mut unlimited)
    }

    /// [`Vfs::resolve_at`] spending one of `steps` per component.
    fn resolve_with(
        &self,
        start: Ino,
        path: &str,
        follow_last: bool,
        steps: &mut u64,
    ) -> Result<Ino> {
        let mut cur = if path.starts_with('/') {
            self.root()
        } else {
            start
        };
        let mut stack = Vec::new();
        push_components(&mut stack, path);
        let mut links = 0;
        while let Some(comp) = stack.pop() {
            *steps = steps.checked_sub(1).ok_or(VfsError::InvalidArgument(
                "path resolution budget exhausted",
            ))?;
            let dir = self.dir(cur)?;
            match comp.as_str() {
                "." => {}
                ".." => cur = dir.parent,
                name => {
                    let child = self.lookup(cur, name)?;
                    let NodeData::Symlink(target) = &self.inode(child).data else {
                        cur = child;
                        continue;
                    };
                    if !stack.is_empty() || follow_last {
                        links += 1;
                        if links > MAX_SYMLINKS {
                            return Err(VfsError::Loop);
                        }
                        if target.is_empty() {
                            return Err(VfsError::NotFound);
                        }
                        if target.starts_with('/') {
                            cur = self.root();
                        }
                        push_components(&mut stack, target);
                    } else {
                        cur = child;
                    }
                }
            }
        }
        Ok(cur)
    }

    /// The absolute path of directory `dir` (`/` for the root).
    pub(crate) fn path_of_dir(&self, dir: Ino) -> String {
        let mut names = Vec::new();
        let mut cur = dir;
        while let Some(d) = self.inodes.get(&cur).and_then(|n| n.as_dir()) {
            if d.parent == cur {
                break;
            }
            names.push(d.name.clone());
            cur = d.parent;
        }
        names.reverse();
        format!("/{}", names.join("/"))
    }

    /// [`Vfs::create_dir_all`] without rollback.
    fn create_dir_all_inner(&mut self, path: &str) -> Result<Ino> {
        let mut cur = self.root();
        let mut stack = Vec::new();
        push_components(&mut stack, path);
        while let Some(comp) = stack.pop() {
            let dir = self.dir(cur)?;
            match comp.as_str() {
                "." => {}
                ".." => cur = dir.parent,
                name => match self.lookup(cur, name) {
                    Ok(_) => {
                        let target = self.resolve_at(cur, name, true)?;
                        if self.kind(target)? != NodeKind::Directory {
                            return Err(if stack.is_empty() {
                                VfsError::Exists
                            } else {
                                VfsError::NotDir
                            });
                        }
                        cur = target;
                    }
                    Err(VfsError::NotFound) => cur = self.create_dir(cur, name)?,
                    Err(e) => return Err(e),
                },
            }
        }
        Ok(cur)
    }
}
