//! Inodes and the small value types describing them.

use std::{fmt, sync::Arc};

use imbl::OrdMap;

use crate::{
    content::FileContent,
    error::{Result, VfsError},
};

/// Stable inode number, allocated from a per-[`crate::Vfs`] counter (the root is `Ino(1)`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Ino(pub u64);

impl fmt::Display for Ino {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The kind of a node.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum NodeKind {
    /// Regular file.
    File,
    /// Directory.
    Directory,
    /// Symbolic link.
    Symlink,
}

impl NodeKind {
    /// The kind byte used in directory hashes.
    pub(crate) fn hash_byte(self) -> u8 {
        match self {
            Self::File => 0,
            Self::Directory => 1,
            Self::Symlink => 2,
        }
    }
}

/// Virtual time since the Unix epoch.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Timestamp {
    /// Whole seconds.
    pub secs: u64,
    /// Nanoseconds within the second.
    pub nanos: u32,
}

impl Timestamp {
    /// Builds a timestamp from seconds and nanoseconds.
    pub const fn new(secs: u64, nanos: u32) -> Self {
        Self { secs, nanos }
    }
}

/// A snapshot of a node's attributes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Metadata {
    /// Inode number.
    pub ino: Ino,
    /// Node kind.
    pub kind: NodeKind,
    /// File length, symlink target length, or 0 for directories.
    pub size: u64,
    /// Permission bits (`0o7777` mask).
    pub mode: u32,
    /// Hard link count (directories: 2 + number of subdirectories; open orphans: 0).
    pub nlink: u64,
    /// Last access time (only changed by [`crate::Vfs::set_times`]).
    pub atime: Timestamp,
    /// Last content modification time.
    pub mtime: Timestamp,
    /// Last status change time.
    pub ctime: Timestamp,
}

/// Default mode of new files.
pub(crate) const FILE_MODE: u32 = 0o644;
/// Default mode of new directories.
pub(crate) const DIR_MODE: u32 = 0o755;
/// Mode of new symlinks.
pub(crate) const SYMLINK_MODE: u32 = 0o777;
/// Bits of a mode that are stored.
pub(crate) const MODE_MASK: u32 = 0o7777;
/// Maximum length of a name in bytes.
const MAX_NAME_LEN: usize = 255;

/// A directory entry name (cheap to clone).
pub(crate) type Name = Arc<str>;

/// A directory entry: the child inode plus a mirror of the attributes its parent hashes.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// The child inode.
    pub ino: Ino,
    /// The child's kind (never changes for an inode).
    pub kind: NodeKind,
    /// The child's mode, kept equal to the inode's.
    pub mode: u32,
    /// Cached child hash; when `Some`, it equals the child's current hash.
    pub hash: Option<blake3::Hash>,
}

/// Directory payload.
#[derive(Clone, Debug)]
pub(crate) struct DirData {
    /// Entries sorted by name bytes.
    pub entries: OrdMap<Name, Entry>,
    /// Parent directory (the root is its own parent).
    pub parent: Ino,
    /// Name of this directory in its parent (empty for the root).
    pub name: Name,
}

/// Kind-specific payload of an inode.
#[derive(Clone, Debug)]
pub(crate) enum NodeData {
    /// Regular file content.
    File(FileContent),
    /// Directory entries.
    Dir(DirData),
    /// Symlink target, stored verbatim.
    Symlink(Arc<str>),
}

/// One inode of the table.
#[derive(Clone, Debug)]
pub(crate) struct Inode {
    /// Kind-specific payload.
    pub data: NodeData,
    /// Permission bits.
    pub mode: u32,
    /// Link count as reported by [`Metadata::nlink`].
    pub nlink: u64,
    /// Access time.
    pub atime: Timestamp,
    /// Modification time.
    pub mtime: Timestamp,
    /// Status change time.
    pub ctime: Timestamp,
    /// Cached content hash; `None` implies that neither any ancestor nor any entry naming
    /// this inode has a cached hash.
    pub hash: Option<blake3::Hash>,
    /// `(directory, name)` links to this file or symlink (empty for directories, whose single
    /// link is stored in [`DirData`]).
    pub parents: Vec<(Ino, Name)>,
}

impl Inode {
    /// A fresh inode stamped with `now`.
    pub fn new(
        data: NodeData,
        mode: u32,
        nlink: u64,
        now: Timestamp,
        parents: Vec<(Ino, Name)>,
    ) -> Self {
        Self {
            data,
            mode,
            nlink,
            atime: now,
            mtime: now,
            ctime: now,
            hash: None,
            parents,
        }
    }

    /// The node kind.
    pub fn kind(&self) -> NodeKind {
        match self.data {
            NodeData::File(_) => NodeKind::File,
            NodeData::Dir(_) => NodeKind::Directory,
            NodeData::Symlink(_) => NodeKind::Symlink,
        }
    }

    /// A directory entry mirroring this inode (numbered `ino`).
    pub fn entry(&self, ino: Ino) -> Entry {
        Entry {
            ino,
            kind: self.kind(),
            mode: self.mode,
            hash: self.hash,
        }
    }

    /// Bytes charged to the quota for this node.
    pub fn size(&self) -> u64 {
        match &self.data {
            NodeData::File(content) => content.len(),
            NodeData::Dir(_) => 0,
            NodeData::Symlink(target) => target.len() as u64,
        }
    }

    /// The directory payload, if this is a directory.
    pub fn as_dir(&self) -> Option<&DirData> {
        match &self.data {
            NodeData::Dir(dir) => Some(dir),
            _ => None,
        }
    }
}

/// Checks that `name` is a single valid path component.
pub(crate) fn validate_name(name: &str) -> Result<()> {
    let valid = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name != "."
        && name != ".."
        && !name.bytes().any(|b| b == b'/' || b == 0);
    if valid {
        Ok(())
    } else {
        Err(VfsError::InvalidName(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for bad in ["", ".", "..", "a/b", "a\0b", &"x".repeat(256)] {
            assert!(matches!(validate_name(bad), Err(VfsError::InvalidName(n)) if n == bad));
        }
        for good in ["a", "...", ".hidden", "é", &"x".repeat(255)] {
            validate_name(good).unwrap();
        }
    }
}
