//! Import from and export to host directories through `cap-std` capabilities.
//!
//! Only the given [`cap_std::fs::Dir`] handles are used; no ambient paths are touched. Host
//! symlinks are copied as symlinks and never followed.

use std::io::{self, Read, Write};

use cap_std::fs::Dir;

use crate::{
    diff::{Change, ChangeKind},
    error::{Result, VfsError},
    node::{FILE_MODE, Ino, NodeData, NodeKind},
    quota::Usage,
    tree::Vfs,
};

/// Mode of imported files with any execute bit set on the host.
const EXEC_MODE: u32 = 0o755;

impl Vfs {
    /// Recursively copies the contents of `host` into directory `into`, in sorted name order.
    ///
    /// Existing directories are merged into; any other name collision fails with `Exists`.
    /// On error nothing is imported. Returns the usage added.
    pub fn import_dir(&mut self, into: Ino, host: &Dir) -> Result<Usage> {
        self.dir(into)?;
        let before = self.usage;
        let snapshot = self.clone();
        if let Err(e) = self.import_level(into, host, "") {
            *self = snapshot;
            return Err(e);
        }
        Ok(Usage {
            bytes: self.usage.bytes - before.bytes,
            inodes: self.usage.inodes - before.inodes,
        })
    }

    /// Writes the subtree of directory `from` into `host`, replacing conflicting entries but
    /// not deleting extra ones.
    pub fn export_dir(&self, from: Ino, host: &Dir) -> Result<()> {
        self.dir(from)?;
        let mut nodes = Vec::new();
        self.walk_from(from, "", &mut nodes);
        let mut dir_modes = Vec::new();
        for (path, ino, _) in nodes {
            let rel = &path[1..];
            self.export_node(ino, rel, host, &mut dir_modes)?;
        }
        apply_dir_modes(host, &dir_modes)
    }

    /// Checks that a host program could safely follow every symlink below directory `dir` once
    /// exported: none has an absolute target or one that climbs above `dir`, judged both
    /// lexically and through the symlinks it passes on the way. A link that was already unsafe
    /// in `before` (the same subtree before the run, e.g. imported from the host as it was) is
    /// tolerated; one that is new, changed or made unsafe by other changes is not. Fails with
    /// the first unsafe link in sorted path order ([`VfsError::UnsafeSymlink`]).
    pub fn check_exportable(&self, dir: Ino, before: Option<(&Vfs, Ino)>) -> Result<()> {
        self.dir(dir)?;
        let mut nodes = Vec::new();
        self.walk_from(dir, "", &mut nodes);
        for (path, ino, kind) in nodes {
            if kind != NodeKind::Symlink {
                continue;
            }
            let target = self.readlink(ino)?;
            let rel = &path[1..];
            let parent = self.parent_of_entry(dir, rel)?;
            let Some(why) = self.link_escapes(dir, parent, &target) else {
                continue;
            };
            let was_unsafe = before
                .is_some_and(|(old, old_dir)| old.unsafe_link_at(old_dir, rel, &target).is_some());
            if !was_unsafe {
                return Err(VfsError::UnsafeSymlink {
                    path: rel.to_owned(),
                    target,
                    why,
                });
            }
        }
        Ok(())
    }

    /// Why the symlink at `rel` below `dir`, if it exists with `target`, could lead out of `dir`.
    fn unsafe_link_at(&self, dir: Ino, rel: &str, target: &str) -> Option<&'static str> {
        let parent = self.parent_of_entry(dir, rel).ok()?;
        let name = rel.rsplit('/').next()?;
        let link = self.lookup(parent, name).ok()?;
        if self.kind(link).ok()? != NodeKind::Symlink || self.readlink(link).ok()? != target {
            return None;
        }
        self.link_escapes(dir, parent, target)
    }

    /// The directory holding entry `rel` (a path below `dir` with no symlinks in it).
    fn parent_of_entry(&self, dir: Ino, rel: &str) -> Result<Ino> {
        let mut cur = dir;
        let mut comps: Vec<&str> = rel.split('/').collect();
        comps.pop();
        for c in comps {
            cur = self.lookup(cur, c)?;
        }
        Ok(cur)
    }

    /// Why following `target` from directory `from` could leave `root`, if it could. Missing
    /// components are judged lexically (the host may create them later), existing symlinks on
    /// the way are followed, as the host kernel would.
    fn link_escapes(&self, root: Ino, from: Ino, target: &str) -> Option<&'static str> {
        const MAX_LINKS: usize = 40;
        if target.starts_with('/') {
            return Some("its target is absolute");
        }
        // The directories walked so far below `root`: an inode while it exists in the VFS,
        // `None` once the path went through a missing or non-directory name.
        let mut stack: Vec<Option<Ino>> = Vec::new();
        let mut cur = from;
        while cur != root {
            stack.push(Some(cur));
            cur = self.parent(cur).ok()?;
        }
        stack.reverse();
        let mut pending: std::collections::VecDeque<String> = target
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .map(str::to_owned)
            .collect();
        let mut links = 0;
        while let Some(comp) = pending.pop_front() {
            if comp == ".." {
                if stack.pop().is_none() {
                    return Some("its target climbs above the written-back directory");
                }
                continue;
            }
            let here = match stack.last() {
                Some(top) => *top,
                None => Some(root),
            };
            let child = here.and_then(|d| self.lookup(d, &comp).ok());
            match child.map(|c| (c, self.kind(c))) {
                Some((c, Ok(NodeKind::Symlink))) => {
                    links += 1;
                    if links > MAX_LINKS {
                        // A loop: the host refuses to follow it (ELOOP).
                        return None;
                    }
                    let inner = self.readlink(c).ok()?;
                    if inner.starts_with('/') {
                        return Some("its target passes through a symlink with an absolute target");
                    }
                    for (i, c) in inner
                        .split('/')
                        .filter(|c| !c.is_empty() && *c != ".")
                        .enumerate()
                    {
                        pending.insert(i, c.to_owned());
                    }
                }
                Some((c, Ok(NodeKind::Directory))) => stack.push(Some(c)),
                _ => stack.push(None),
            }
        }
        None
    }

    /// Applies `diff(base, current)` below `subtree` to `host`, which mirrors that subtree.
    ///
    /// Nothing is written unless [`Vfs::check_exportable`] accepts the subtree of `current`
    /// (with `base` as what was there before).
    /// Removed paths are deleted first, then added and modified paths are written parents
    /// first. Returns the applied changes with paths relative to the subtree (e.g. `a.txt`).
    pub fn export_changes(
        base: &mut Vfs,
        current: &mut Vfs,
        subtree: &str,
        host: &Dir,
    ) -> Result<Vec<Change>> {
        let mut prefix = String::new();
        for comp in subtree.split('/').filter(|c| !c.is_empty() && *c != ".") {
            if comp == ".." {
                return Err(VfsError::InvalidArgument("subtree must not contain .."));
            }
            prefix.push('/');
            prefix.push_str(comp);
        }
        let top = if prefix.is_empty() { "/" } else { &prefix };
        let before = base.resolve_nofollow(top).ok();
        current.check_exportable(
            current.resolve_nofollow(top)?,
            before.map(|ino| (&*base, ino)),
        )?;
        prefix.push('/');
        let changes: Vec<Change> = Vfs::diff(base, current)
            .into_iter()
            .filter_map(|c| {
                let rel = c.path.strip_prefix(&prefix).filter(|rel| !rel.is_empty())?;
                Some(Change {
                    path: rel.to_owned(),
                    kind: c.kind,
                })
            })
            .collect();

        for c in changes.iter().filter(|c| c.kind == ChangeKind::Removed) {
            remove_host_entry(host, &c.path)?;
        }
        let mut dir_modes = Vec::new();
        for c in changes.iter().filter(|c| c.kind != ChangeKind::Removed) {
            let ino = current.resolve_nofollow(&format!("{prefix}{}", c.path))?;
            current.export_node(ino, &c.path, host, &mut dir_modes)?;
        }
        apply_dir_modes(host, &dir_modes)?;
        Ok(changes)
    }

    /// Imports the entries of `host` (at `rel` below the import root) into directory `into`.
    fn import_level(&mut self, into: Ino, host: &Dir, rel: &str) -> Result<()> {
        let mut names = Vec::new();
        for entry in host.entries().map_err(|e| VfsError::host(rel, e))? {
            let name = entry.map_err(|e| VfsError::host(rel, e))?.file_name();
            match name.into_string() {
                Ok(name) if name == "." || name == ".." => {}
                Ok(name) => names.push(name),
                Err(raw) => {
                    return Err(VfsError::NonUtf8Name(join(rel, &raw.to_string_lossy())));
                }
            }
        }
        names.sort_unstable();
        for name in names {
            let path = join(rel, &name);
            let err = |e| VfsError::host(&path, e);
            let meta = host.symlink_metadata(&name).map_err(err)?;
            let file_type = meta.file_type();
            if file_type.is_symlink() {
                let target = host.read_link_contents(&name).map_err(err)?;
                let target = target.into_os_string().into_string().map_err(|_| {
                    err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "symlink target is not valid utf-8",
                    ))
                })?;
                self.create_symlink(into, &name, &target)?;
            } else if file_type.is_dir() {
                let dir = match self.lookup(into, &name) {
                    Ok(existing) if self.kind(existing)? == NodeKind::Directory => existing,
                    Ok(_) => return Err(VfsError::Exists),
                    Err(VfsError::NotFound) => self.create_dir(into, &name)?,
                    Err(e) => return Err(e),
                };
                let sub = host.open_dir(&name).map_err(err)?;
                self.import_level(dir, &sub, &path)?;
            } else if file_type.is_file() {
                let mut file = host.open(&name).map_err(err)?;
                if !file.metadata().map_err(err)?.is_file() {
                    return Err(err(io::Error::other("file changed type during import")));
                }
                let ino = self.create_file(into, &name)?;
                let mode = if host_mode(&meta) & 0o111 != 0 {
                    EXEC_MODE
                } else {
                    FILE_MODE
                };
                self.set_mode(ino, mode)?;
                let mut buf = vec![0; crate::CHUNK_SIZE];
                loop {
                    let n = match file.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                        Err(e) => return Err(err(e)),
                    };
                    self.append(ino, &buf[..n])?;
                }
            } else {
                return Err(err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "unsupported file type (fifo, socket or device)",
                )));
            }
        }
        Ok(())
    }

    /// Writes node `ino` to `rel` in `host`, replacing whatever is there unless both are dirs.
    /// Directory modes are collected in `dir_modes` to be applied once children exist.
    fn export_node(
        &self,
        ino: Ino,
        rel: &str,
        host: &Dir,
        dir_modes: &mut Vec<(String, u32)>,
    ) -> Result<()> {
        let err = |e| VfsError::host(rel, e);
        let node = self.node(ino)?;
        let existing = match host.symlink_metadata(rel) {
            Ok(meta) => Some(meta.file_type()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(err(e)),
        };
        match &node.data {
            NodeData::Dir(_) => {
                if existing.is_some_and(|t| !t.is_dir()) {
                    host.remove_file(rel).map_err(err)?;
                }
                if !existing.is_some_and(|t| t.is_dir()) {
                    host.create_dir(rel).map_err(err)?;
                }
                dir_modes.push((rel.to_owned(), node.mode));
            }
            NodeData::File(content) => {
                if existing.is_some() {
                    remove_host_entry(host, rel)?;
                }
                let mut file = host.create(rel).map_err(err)?;
                for chunk in content.chunks() {
                    file.write_all(chunk.data()).map_err(err)?;
                }
                set_host_mode(host, rel, node.mode).map_err(err)?;
            }
            NodeData::Symlink(target) => {
                if existing.is_some() {
                    remove_host_entry(host, rel)?;
                }
                symlink(host, target, rel).map_err(err)?;
            }
        }
        Ok(())
    }
}

/// `rel/name`, or `name` at the top level.
fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() {
        name.to_owned()
    } else {
        format!("{rel}/{name}")
    }
}

/// Deletes the file, symlink or directory tree at `rel`; a missing entry is not an error.
fn remove_host_entry(host: &Dir, rel: &str) -> Result<()> {
    let err = |e| VfsError::host(rel, e);
    let result = match host.symlink_metadata(rel) {
        Ok(meta) if meta.is_dir() => host.remove_dir_all(rel),
        Ok(_) => host.remove_file(rel),
        Err(e) => Err(e),
    };
    match result {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(err(e)),
        _ => Ok(()),
    }
}

/// Applies collected directory modes, deepest first.
fn apply_dir_modes(host: &Dir, dir_modes: &[(String, u32)]) -> Result<()> {
    for (rel, mode) in dir_modes.iter().rev() {
        set_host_mode(host, rel, *mode).map_err(|e| VfsError::host(rel, e))?;
    }
    Ok(())
}

/// The permission bits of a host entry (0 where not supported).
#[cfg(unix)]
fn host_mode(meta: &cap_std::fs::Metadata) -> u32 {
    use cap_std::fs::PermissionsExt;
    meta.permissions().mode()
}

/// The permission bits of a host entry (0 where not supported).
#[cfg(not(unix))]
fn host_mode(_meta: &cap_std::fs::Metadata) -> u32 {
    0
}

/// Sets the permission bits of the host entry at `rel`.
#[cfg(unix)]
fn set_host_mode(host: &Dir, rel: &str, mode: u32) -> io::Result<()> {
    use cap_std::fs::{Permissions, PermissionsExt};
    host.set_permissions(rel, Permissions::from_mode(mode & 0o7777))
}

/// Sets the permission bits of the host entry at `rel` (no-op where not supported).
#[cfg(not(unix))]
fn set_host_mode(_host: &Dir, _rel: &str, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// Creates a symlink at `rel` whose target is stored verbatim (never resolved).
#[cfg(not(windows))]
fn symlink(host: &Dir, target: &str, rel: &str) -> io::Result<()> {
    host.symlink_contents(target, rel)
}

/// Creates a symlink at `rel` whose target is stored verbatim (never resolved).
#[cfg(windows)]
fn symlink(host: &Dir, target: &str, rel: &str) -> io::Result<()> {
    host.symlink_file(target, rel)
}
