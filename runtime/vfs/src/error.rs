//! Error type shared by every VFS operation.

/// Why a VFS operation failed.
#[derive(thiserror::Error, Debug)]
pub enum VfsError {
    /// The inode or name does not exist.
    #[error("no such file or directory")]
    NotFound,
    /// The name is already taken.
    #[error("file exists")]
    Exists,
    /// A directory was required.
    #[error("not a directory")]
    NotDir,
    /// A non-directory was required.
    #[error("is a directory")]
    IsDir,
    /// The directory still has entries.
    #[error("directory not empty")]
    NotEmpty,
    /// The byte quota (or the maximum file size) would be exceeded.
    #[error("no space left on device")]
    NoSpace,
    /// The inode quota would be exceeded.
    #[error("inode quota exceeded")]
    InodeQuota,
    /// Directories would nest deeper than the quota's depth limit.
    #[error("directories nested too deeply")]
    TooDeep,
    /// The name is empty, too long, `.`, `..`, or contains `/` or NUL.
    #[error("invalid file name {0:?}")]
    InvalidName(String),
    /// The operation does not make sense for these arguments.
    #[error("invalid argument: {0}")]
    InvalidArgument(&'static str),
    /// Too many symbolic links were followed while resolving a path.
    #[error("too many levels of symbolic links")]
    Loop,
    /// A host filesystem operation failed during import or export.
    #[error("host file {path:?}: {source}")]
    Host {
        /// Path relative to the host directory.
        path: String,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A symlink that a host reader following it could be led out of the exported directory by
    /// (an absolute target, or one climbing above the directory); nothing was exported.
    #[error(
        "refusing to write back symlink {path:?} -> {target:?}: {why}; remove or change it, \
         nothing was written"
    )]
    UnsafeSymlink {
        /// Path of the link relative to the exported directory.
        path: String,
        /// Its target, verbatim.
        target: String,
        /// Why following it on the host is unsafe.
        why: &'static str,
    },
    /// A host file name is not valid UTF-8 (lossy form shown).
    #[error("host file name is not valid utf-8: {0:?}")]
    NonUtf8Name(String),
}

/// Result type of VFS operations.
pub type Result<T, E = VfsError> = std::result::Result<T, E>;

impl VfsError {
    /// Builds a [`VfsError::Host`] for `path` (relative to the host directory).
    pub(crate) fn host(path: &str, source: std::io::Error) -> Self {
        Self::Host {
            path: path.to_owned(),
            source,
        }
    }
}
