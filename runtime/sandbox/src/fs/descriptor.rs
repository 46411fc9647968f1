//! The resources handed to guests: descriptors (open files and directories) and directory
//! entry streams.

use clawrun_vfs::{Ino, NodeKind};

use super::SharedFs;

/// What an open descriptor refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptorKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
}

/// A directory the guest may open, with its rights.
#[derive(Clone)]
pub struct Preopen {
    /// The directory's inode in the store's VFS.
    pub ino: Ino,
    /// The path the guest sees, e.g. `/workspace`.
    pub guest_path: String,
    /// Whether the guest may change anything below it.
    pub writable: bool,
    /// The filesystem it is on, when not the store's own (a shared read-only layer such as
    /// Python's standard library); `ino` is then an inode of that filesystem.
    pub fs: Option<SharedFs>,
}

impl std::fmt::Debug for Preopen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Preopen")
            .field("ino", &self.ino)
            .field("guest_path", &self.guest_path)
            .field("writable", &self.writable)
            .field("own_fs", &self.fs.is_some())
            .finish()
    }
}

/// An open file or directory of the guest (`wasi:filesystem/types.descriptor`).
pub struct Descriptor {
    pub(super) fs: SharedFs,
    pub(super) ino: Ino,
    pub(super) kind: DescriptorKind,
    /// Index of that preopen (renames and links across preopens are `cross-device`).
    pub(super) preopen: usize,
    /// Files: opened for reading.
    pub(super) read: bool,
    /// Files: opened for writing.
    pub(super) write: bool,
    /// Directories: entries below may be created, changed or removed.
    pub(super) mutate: bool,
    /// The synchronisation flags it was opened with (reported back by `get-flags`).
    pub(super) sync: super::bindings::wasi::filesystem::types::DescriptorFlags,
    /// Guest path at open time (fault points and messages).
    pub(super) path: String,
}

impl Descriptor {
    /// A descriptor for `preopen` (index `index` in the store's preopen list).
    pub(super) fn for_preopen(fs: &SharedFs, index: usize, preopen: &Preopen) -> Self {
        fs.lock().vfs.retain(preopen.ino);
        Self {
            fs: fs.clone(),
            ino: preopen.ino,
            kind: DescriptorKind::Directory,
            preopen: index,
            read: true,
            write: false,
            mutate: preopen.writable,
            sync: Default::default(),
            path: preopen.guest_path.clone(),
        }
    }

    /// The inode this descriptor refers to.
    pub fn ino(&self) -> Ino {
        self.ino
    }

    /// The guest path this descriptor was opened with.
    pub fn guest_path(&self) -> &str {
        &self.path
    }
}

impl Drop for Descriptor {
    fn drop(&mut self) {
        self.fs.lock().vfs.release(self.ino);
    }
}

/// A snapshot of a directory's entries being read by the guest.
pub struct DirEntryStream {
    pub(super) entries: std::vec::IntoIter<(String, NodeKind)>,
}
