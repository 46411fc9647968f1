//! The [`Vfs`] inode table and its namespace operations.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt,
    sync::Arc,
};

use imbl::OrdMap;

use crate::{
    content::FileContent,
    error::{Result, VfsError},
    node::{
        DIR_MODE, DirData, FILE_MODE, Ino, Inode, Metadata, Name, NodeData, NodeKind, SYMLINK_MODE,
        Timestamp, validate_name,
    },
    quota::{Quota, Refusals, Usage},
};

/// Inode number of the root directory.
const ROOT: Ino = Ino(1);

/// A persistent in-memory filesystem; cloning and forking are O(1).
#[derive(Clone)]
pub struct Vfs {
    /// The inode table.
    pub(crate) inodes: OrdMap<Ino, Arc<Inode>>,
    /// Next inode number to allocate.
    pub(crate) next_ino: u64,
    /// Virtual clock used to stamp mutations.
    pub(crate) now: Timestamp,
    /// Resource limits.
    pub(crate) quota: Quota,
    /// Resource usage.
    pub(crate) usage: Usage,
    /// Operations the quota refused.
    pub(crate) refused: Refusals,
    /// Open-handle counts (not hashed, not forked).
    pub(crate) open: BTreeMap<Ino, u32>,
    /// Unlinked inodes kept alive by open handles.
    pub(crate) orphans: BTreeSet<Ino>,
}

impl Default for Vfs {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Vfs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Vfs")
            .field("inodes", &self.usage.inodes)
            .field("bytes", &self.usage.bytes)
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl Vfs {
    /// An empty filesystem with unlimited quota and the clock at the epoch.
    pub fn new() -> Self {
        Self::with_quota(Quota::default())
    }

    /// An empty filesystem with the given quota.
    pub fn with_quota(quota: Quota) -> Self {
        let now = Timestamp::default();
        let root = DirData {
            entries: OrdMap::new(),
            parent: ROOT,
            name: "".into(),
        };
        let mut inodes = OrdMap::new();
        inodes.insert(
            ROOT,
            Arc::new(Inode::new(
                NodeData::Dir(root),
                DIR_MODE,
                2,
                now,
                Vec::new(),
            )),
        );
        Self {
            inodes,
            next_ino: ROOT.0 + 1,
            now,
            quota,
            usage: Usage {
                bytes: 0,
                inodes: 1,
            },
            refused: Refusals::default(),
            open: BTreeMap::new(),
            orphans: BTreeSet::new(),
        }
    }

    /// Replaces the quota; usage above the new limits only blocks further growth.
    pub fn set_quota(&mut self, quota: Quota) {
        self.quota = quota;
    }

    /// Current resource usage.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// The quota in force.
    pub fn quota(&self) -> Quota {
        self.quota
    }

    /// How many operations the quota has refused so far (this filesystem and its origins).
    pub fn refusals(&self) -> Refusals {
        self.refused
    }

    /// Sets the virtual clock used to stamp subsequent mutations.
    pub fn set_now(&mut self, now: Timestamp) {
        self.now = now;
    }

    /// The virtual clock.
    pub fn now(&self) -> Timestamp {
        self.now
    }

    /// An independent copy without open handles or orphans; O(1) when there are no orphans.
    pub fn fork(&self) -> Vfs {
        let mut fork = Vfs {
            inodes: self.inodes.clone(),
            next_ino: self.next_ino,
            now: self.now,
            quota: self.quota,
            usage: self.usage,
            refused: self.refused,
            open: BTreeMap::new(),
            orphans: BTreeSet::new(),
        };
        for &ino in &self.orphans {
            fork.remove_inode(ino);
        }
        fork
    }

    /// The root directory.
    pub fn root(&self) -> Ino {
        ROOT
    }

    /// Whether `ino` is live (linked, or an open orphan).
    pub fn exists(&self, ino: Ino) -> bool {
        self.inodes.contains_key(&ino)
    }

    /// Attributes of `ino`.
    pub fn metadata(&self, ino: Ino) -> Result<Metadata> {
        let node = self.node(ino)?;
        Ok(Metadata {
            ino,
            kind: node.kind(),
            size: node.size(),
            mode: node.mode,
            nlink: node.nlink,
            atime: node.atime,
            mtime: node.mtime,
            ctime: node.ctime,
        })
    }

    /// Kind of `ino`.
    pub fn kind(&self, ino: Ino) -> Result<NodeKind> {
        Ok(self.node(ino)?.kind())
    }

    /// Parent of directory `dir` (the root is its own parent).
    pub fn parent(&self, dir: Ino) -> Result<Ino> {
        Ok(self.dir(dir)?.parent)
    }

    /// Looks up one name in `dir` without following symlinks.
    pub fn lookup(&self, dir: Ino, name: &str) -> Result<Ino> {
        let entries = &self.dir(dir)?.entries;
        validate_name(name)?;
        entries.get(name).map(|e| e.ino).ok_or(VfsError::NotFound)
    }

    /// Entries of `dir` sorted by name bytes.
    pub fn read_dir(&self, dir: Ino) -> Result<Vec<(String, Ino, NodeKind)>> {
        Ok(self
            .dir(dir)?
            .entries
            .iter()
            .map(|(name, e)| (name.to_string(), e.ino, e.kind))
            .collect())
    }

    /// Creates an empty regular file (mode 0o644).
    pub fn create_file(&mut self, dir: Ino, name: &str) -> Result<Ino> {
        let data = NodeData::File(FileContent::default());
        self.create_node(dir, name, data, FILE_MODE)
    }

    /// Creates an empty directory (mode 0o755).
    pub fn create_dir(&mut self, dir: Ino, name: &str) -> Result<Ino> {
        let data = NodeData::Dir(DirData {
            entries: OrdMap::new(),
            parent: dir,
            name: name.into(),
        });
        self.create_node(dir, name, data, DIR_MODE)
    }

    /// Creates a symlink (mode 0o777) whose target is stored verbatim.
    pub fn create_symlink(&mut self, dir: Ino, name: &str, target: &str) -> Result<Ino> {
        if target.contains('\0') {
            return Err(VfsError::InvalidArgument("symlink target contains NUL"));
        }
        self.create_node(dir, name, NodeData::Symlink(target.into()), SYMLINK_MODE)
    }

    /// Adds a hard link `dir/name` to the file or symlink `target`.
    pub fn link(&mut self, target: Ino, dir: Ino, name: &str) -> Result<()> {
        let node = self.node(target)?;
        if node.as_dir().is_some() {
            return Err(VfsError::InvalidArgument("cannot hard-link a directory"));
        }
        if node.nlink == 0 {
            return Err(VfsError::NotFound);
        }
        let entry = node.entry(target);
        let entries = &self.dir(dir)?.entries;
        validate_name(name)?;
        if entries.contains_key(name) {
            return Err(VfsError::Exists);
        }
        let name: Name = name.into();
        self.dir_mut(dir).entries.insert(name.clone(), entry);
        let now = self.now;
        let node = self.node_mut(target);
        node.nlink += 1;
        node.parents.push((dir, name));
        node.ctime = now;
        self.touch_dir(dir);
        Ok(())
    }

    /// Removes the file or symlink entry `dir/name` (`IsDir` for directories).
    pub fn unlink(&mut self, dir: Ino, name: &str) -> Result<()> {
        let child = self.lookup(dir, name)?;
        if self.inode(child).as_dir().is_some() {
            return Err(VfsError::IsDir);
        }
        self.dir_mut(dir).entries.remove(name);
        self.detach(dir, name, child);
        self.touch_dir(dir);
        Ok(())
    }

    /// Removes the empty directory `dir/name`.
    pub fn remove_dir(&mut self, dir: Ino, name: &str) -> Result<()> {
        let child = self.lookup(dir, name)?;
        let child_dir = self.inode(child).as_dir().ok_or(VfsError::NotDir)?;
        if !child_dir.entries.is_empty() {
            return Err(VfsError::NotEmpty);
        }
        self.dir_mut(dir).entries.remove(name);
        self.node_mut(dir).nlink -= 1;
        self.remove_inode(child);
        self.touch_dir(dir);
        Ok(())
    }

    /// POSIX `rename(2)` of `from_dir/from` to `to_dir/to`.
    pub fn rename(&mut self, from_dir: Ino, from: &str, to_dir: Ino, to: &str) -> Result<()> {
        self.dir(from_dir)?;
        self.dir(to_dir)?;
        validate_name(from)?;
        validate_name(to)?;
        let src = self.lookup(from_dir, from)?;
        let src_is_dir = self.inode(src).as_dir().is_some();
        let dst = self.dir(to_dir)?.entries.get(to).map(|e| e.ino);
        if dst == Some(src) {
            return Ok(());
        }
        if src_is_dir && self.is_ancestor(src, to_dir) {
            return Err(VfsError::InvalidArgument(
                "cannot move a directory into its own subtree",
            ));
        }
        if src_is_dir && from_dir != to_dir && self.quota.max_depth != u32::MAX {
            let height = self.dir_height(src, self.quota.max_depth);
            self.check_depth(to_dir, height)?;
        }
        let dst = match dst {
            Some(dst) => {
                let dst_dir = self.inode(dst).as_dir();
                match (src_is_dir, dst_dir) {
                    (true, None) => return Err(VfsError::NotDir),
                    (false, Some(_)) => return Err(VfsError::IsDir),
                    (true, Some(d)) if !d.entries.is_empty() => return Err(VfsError::NotEmpty),
                    _ => Some((dst, dst_dir.is_some())),
                }
            }
            None => None,
        };

        let Some(entry) = self.dir_mut(from_dir).entries.remove(from) else {
            unreachable!("the source entry was just looked up");
        };
        match dst {
            Some((dst, true)) => {
                self.node_mut(to_dir).nlink -= 1;
                self.remove_inode(dst);
            }
            Some((dst, false)) => self.detach(to_dir, to, dst),
            None => {}
        }
        let to_name: Name = to.into();
        self.dir_mut(to_dir).entries.insert(to_name.clone(), entry);
        let now = self.now;
        let node = self.node_mut(src);
        node.ctime = now;
        match &mut node.data {
            NodeData::Dir(d) => {
                d.parent = to_dir;
                d.name = to_name;
            }
            _ => {
                let link = node
                    .parents
                    .iter_mut()
                    .find(|(p, n)| *p == from_dir && **n == *from);
                if let Some(link) = link {
                    *link = (to_dir, to_name);
                }
            }
        }
        if src_is_dir && from_dir != to_dir {
            self.node_mut(from_dir).nlink -= 1;
            self.node_mut(to_dir).nlink += 1;
        }
        self.touch_dir(from_dir);
        if to_dir != from_dir {
            self.touch_dir(to_dir);
        }
        Ok(())
    }

    /// Counts one more open handle on `ino` (ignored if `ino` is gone).
    pub fn retain(&mut self, ino: Ino) {
        if self.exists(ino) {
            let count = self.open.entry(ino).or_insert(0);
            *count = count.saturating_add(1);
        }
    }

    /// Drops one open handle on `ino`; frees it if it was the last handle on an orphan.
    pub fn release(&mut self, ino: Ino) {
        let Some(count) = self.open.get_mut(&ino) else {
            return;
        };
        *count -= 1;
        if *count == 0 {
            self.open.remove(&ino);
            if self.orphans.remove(&ino) {
                self.remove_inode(ino);
            }
        }
    }

    /// Whether `ancestor` is `dir` or one of its ancestor directories.
    pub fn is_ancestor(&self, ancestor: Ino, dir: Ino) -> bool {
        let mut cur = dir;
        loop {
            if cur == ancestor {
                return true;
            }
            match self.inodes.get(&cur).and_then(|n| n.as_dir()) {
                Some(d) if d.parent != cur => cur = d.parent,
                _ => return false,
            }
        }
    }

    /// The live inode `ino`, or `NotFound`.
    pub(crate) fn node(&self, ino: Ino) -> Result<&Inode> {
        self.inodes
            .get(&ino)
            .map(|n| &**n)
            .ok_or(VfsError::NotFound)
    }

    /// An inode that must exist by the table invariants.
    pub(crate) fn inode(&self, ino: Ino) -> &Inode {
        match self.inodes.get(&ino) {
            Some(node) => node,
            None => panic!("vfs invariant violated: dangling inode {ino}"),
        }
    }

    /// Mutable access to an inode that must exist (copied if shared with a fork).
    pub(crate) fn node_mut(&mut self, ino: Ino) -> &mut Inode {
        match self.inodes.get_mut(&ino) {
            Some(node) => Arc::make_mut(node),
            None => panic!("vfs invariant violated: dangling inode {ino}"),
        }
    }

    /// The directory `ino`, or `NotFound` / `NotDir`.
    pub(crate) fn dir(&self, ino: Ino) -> Result<&DirData> {
        self.node(ino)?.as_dir().ok_or(VfsError::NotDir)
    }

    /// Mutable access to a directory that must exist.
    pub(crate) fn dir_mut(&mut self, ino: Ino) -> &mut DirData {
        match &mut self.node_mut(ino).data {
            NodeData::Dir(d) => d,
            _ => panic!("vfs invariant violated: inode {ino} is not a directory"),
        }
    }

    /// Fails with `NoSpace` if growing a node from `old` to `new` bytes exceeds the quota.
    pub(crate) fn check_bytes(&mut self, old: u64, new: u64) -> Result<()> {
        if new > old {
            let total = self.usage.bytes.checked_add(new - old);
            if total.is_none_or(|t| t > self.quota.max_bytes) {
                return Err(self.refuse(VfsError::NoSpace));
            }
        }
        Ok(())
    }

    /// Fails with `InodeQuota` if `count` more inodes exceed the quota.
    pub(crate) fn check_inodes(&mut self, count: u64) -> Result<()> {
        let total = self.usage.inodes.checked_add(count);
        if count > 0 && total.is_none_or(|t| t > self.quota.max_inodes) {
            return Err(self.refuse(VfsError::InodeQuota));
        }
        Ok(())
    }

    /// Fails with `TooDeep` if a directory of height `height` (1 for an empty one) placed in
    /// directory `dir` would nest deeper than the quota allows.
    pub(crate) fn check_depth(&mut self, dir: Ino, height: u32) -> Result<()> {
        let limit = self.quota.max_depth;
        if limit == u32::MAX {
            return Ok(());
        }
        // Walk up at most `limit` levels: the cost is bounded by the limit, not the tree.
        let mut depth = height;
        let mut cur = dir;
        while depth <= limit {
            match self.inodes.get(&cur).and_then(|n| n.as_dir()) {
                Some(d) if d.parent != cur => {
                    depth += 1;
                    cur = d.parent;
                }
                _ => return Ok(()),
            }
        }
        Err(self.refuse(VfsError::TooDeep))
    }

    /// Counts a refusal of the quota and returns its error.
    fn refuse(&mut self, e: VfsError) -> VfsError {
        match e {
            VfsError::NoSpace => self.refused.bytes += 1,
            VfsError::InodeQuota => self.refused.inodes += 1,
            VfsError::TooDeep => self.refused.depth += 1,
            _ => {}
        }
        e
    }

    /// The height of directory `dir` (1 when it has no subdirectory), counted no further than
    /// `cap` levels.
    fn dir_height(&self, dir: Ino, cap: u32) -> u32 {
        let mut best = 1;
        let mut stack = vec![(dir, 1u32)];
        while let Some((ino, h)) = stack.pop() {
            best = best.max(h);
            if h > cap {
                return best;
            }
            if let Some(d) = self.inodes.get(&ino).and_then(|n| n.as_dir()) {
                stack.extend(
                    d.entries
                        .values()
                        .filter(|e| e.kind == NodeKind::Directory)
                        .map(|e| (e.ino, h + 1)),
                );
            }
        }
        best
    }

    /// Records a byte usage change of a node from `old` to `new`.
    pub(crate) fn account_bytes(&mut self, old: u64, new: u64) {
        self.usage.bytes = self.usage.bytes - old + new;
    }

    /// Stamps a changed directory and invalidates its hash chain.
    pub(crate) fn touch_dir(&mut self, dir: Ino) {
        let now = self.now;
        let node = self.node_mut(dir);
        node.mtime = now;
        node.ctime = now;
        self.invalidate(dir);
    }

    /// Inserts a new node named `name` into `dir`.
    fn create_node(&mut self, dir: Ino, name: &str, data: NodeData, mode: u32) -> Result<Ino> {
        let entries = &self.dir(dir)?.entries;
        validate_name(name)?;
        if entries.contains_key(name) {
            return Err(VfsError::Exists);
        }
        self.check_inodes(1)?;
        let is_dir = matches!(data, NodeData::Dir(_));
        if is_dir {
            self.check_depth(dir, 1)?;
        }
        let name: Name = name.into();
        let (nlink, parents) = if is_dir {
            (2, Vec::new())
        } else {
            (1, vec![(dir, name.clone())])
        };
        let inode = Inode::new(data, mode, nlink, self.now, parents);
        let bytes = inode.size();
        self.check_bytes(0, bytes)?;

        let ino = Ino(self.next_ino);
        self.next_ino += 1;
        let entry = inode.entry(ino);
        self.inodes.insert(ino, Arc::new(inode));
        self.usage.inodes += 1;
        self.usage.bytes += bytes;
        self.dir_mut(dir).entries.insert(name, entry);
        if is_dir {
            self.node_mut(dir).nlink += 1;
        }
        self.touch_dir(dir);
        Ok(ino)
    }

    /// Drops the link `dir/name` to the non-directory `child`, freeing or orphaning it at zero.
    fn detach(&mut self, dir: Ino, name: &str, child: Ino) {
        let now = self.now;
        let node = self.node_mut(child);
        if let Some(pos) = node
            .parents
            .iter()
            .position(|(p, n)| *p == dir && **n == *name)
        {
            node.parents.swap_remove(pos);
        }
        node.nlink -= 1;
        node.ctime = now;
        if node.nlink == 0 {
            if self.open.contains_key(&child) {
                self.orphans.insert(child);
            } else {
                self.remove_inode(child);
            }
        }
    }

    /// Removes an inode from the table and releases its usage.
    fn remove_inode(&mut self, ino: Ino) {
        if let Some(node) = self.inodes.remove(&ino) {
            self.usage.bytes -= node.size();
            self.usage.inodes -= 1;
        }
        self.orphans.remove(&ino);
    }
}
