//! The fault hook at the filesystem host-call boundary.
//!
//! Every `wasi:filesystem` host call asks the store's [`FsFaultHook`] first. The seeded fault
//! injector (`runtime/faults`) implements it; a hook that returns `None` lets the call proceed.

/// A filesystem operation, as named in fault points (`fs:<op>:<path>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FsOp {
    /// `open-at` (and the preopen handles themselves).
    Open,
    /// Reads: `read`, `read-via-stream` reads.
    Read,
    /// Writes: `write`, `write-via-stream` / `append-via-stream` writes.
    Write,
    /// Metadata queries: `stat`, `stat-at`, `get-type`, `get-flags`, `metadata-hash*`.
    Stat,
    /// `read-directory` and reading its entries.
    ReadDir,
    /// `create-directory-at`.
    Mkdir,
    /// `remove-directory-at`.
    Rmdir,
    /// `unlink-file-at`.
    Unlink,
    /// `rename-at`.
    Rename,
    /// `symlink-at`.
    Symlink,
    /// `link-at`.
    Link,
    /// `readlink-at`.
    Readlink,
    /// `set-size`.
    Truncate,
    /// `set-times`, `set-times-at`.
    SetTimes,
    /// `sync`, `sync-data`, `advise`.
    Sync,
}

impl FsOp {
    /// The op's name in fault points, e.g. `open` in `fs:open:/workspace/*`.
    pub fn name(self) -> &'static str {
        match self {
            FsOp::Open => "open",
            FsOp::Read => "read",
            FsOp::Write => "write",
            FsOp::Stat => "stat",
            FsOp::ReadDir => "readdir",
            FsOp::Mkdir => "mkdir",
            FsOp::Rmdir => "rmdir",
            FsOp::Unlink => "unlink",
            FsOp::Rename => "rename",
            FsOp::Symlink => "symlink",
            FsOp::Link => "link",
            FsOp::Readlink => "readlink",
            FsOp::Truncate => "truncate",
            FsOp::SetTimes => "utimes",
            FsOp::Sync => "sync",
        }
    }
}

impl std::fmt::Display for FsOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One filesystem host call, as the hook sees it.
#[derive(Clone, Copy, Debug)]
pub struct FsCall<'a> {
    /// What the guest is doing.
    pub op: FsOp,
    /// The absolute guest path it is doing it to (lexically normalised).
    pub path: &'a str,
}

/// An error a fault can make a filesystem call return.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FsErrno {
    /// EIO.
    Io,
    /// ENOSPC.
    NoSpace,
    /// EACCES.
    Access,
    /// EROFS.
    ReadOnly,
    /// EBUSY.
    Busy,
}

/// What an injected filesystem fault does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FsFault {
    /// The call fails with this error.
    Error(FsErrno),
    /// A write accepts at most this many bytes (at least one).
    ShortWrite {
        /// Upper bound on the bytes the write takes.
        max_bytes: usize,
    },
}

/// Decides, per filesystem host call, whether to inject a fault.
pub trait FsFaultHook: Send {
    /// Called before the call runs; `None` lets it proceed untouched.
    fn on_call(&mut self, call: &FsCall<'_>) -> Option<FsFault>;
}

/// The hook that never injects anything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFaults;

impl FsFaultHook for NoFaults {
    fn on_call(&mut self, _call: &FsCall<'_>) -> Option<FsFault> {
        None
    }
}

impl<F> FsFaultHook for F
where
    F: FnMut(&FsCall<'_>) -> Option<FsFault> + Send,
{
    fn on_call(&mut self, call: &FsCall<'_>) -> Option<FsFault> {
        self(call)
    }
}
