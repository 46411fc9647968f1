//! Error plumbing between the VFS, the fault hook and WASI error codes.

use clawrun_vfs::VfsError;

use super::ErrorCode;
use crate::fault::FsErrno;

/// The trappable error type of our `wasi:filesystem/types` bindings: either a WASI error code
/// returned to the guest or a trap.
#[derive(Debug)]
pub struct FsError(wasmtime::Error);

impl FsError {
    /// The error code for the guest, or the trap.
    pub fn into_code(self) -> wasmtime::Result<ErrorCode> {
        match self.0.downcast_ref::<ErrorCode>() {
            Some(code) => Ok(*code),
            None => Err(self.0),
        }
    }
}

impl From<ErrorCode> for FsError {
    fn from(code: ErrorCode) -> Self {
        Self(wasmtime::Error::new(code))
    }
}

impl From<wasmtime::component::ResourceTableError> for FsError {
    fn from(e: wasmtime::component::ResourceTableError) -> Self {
        Self(wasmtime::Error::new(e))
    }
}

/// Result of a filesystem host call.
pub type FsResult<T> = Result<T, FsError>;

impl From<VfsError> for ErrorCode {
    fn from(e: VfsError) -> Self {
        match e {
            VfsError::NotFound => ErrorCode::NoEntry,
            VfsError::Exists => ErrorCode::Exist,
            VfsError::NotDir => ErrorCode::NotDirectory,
            VfsError::IsDir => ErrorCode::IsDirectory,
            VfsError::NotEmpty => ErrorCode::NotEmpty,
            VfsError::NoSpace => ErrorCode::InsufficientSpace,
            VfsError::InodeQuota => ErrorCode::Quota,
            VfsError::TooDeep => ErrorCode::NameTooLong,
            VfsError::InvalidName(name) if name.len() > 255 => ErrorCode::NameTooLong,
            VfsError::InvalidName(_) | VfsError::InvalidArgument(_) => ErrorCode::Invalid,
            VfsError::Loop => ErrorCode::Loop,
            VfsError::NonUtf8Name(_) => ErrorCode::IllegalByteSequence,
            VfsError::Host { .. } => ErrorCode::Io,
            VfsError::UnsafeSymlink { .. } => ErrorCode::NotPermitted,
        }
    }
}

impl From<FsErrno> for ErrorCode {
    fn from(e: FsErrno) -> Self {
        match e {
            FsErrno::Io => ErrorCode::Io,
            FsErrno::NoSpace => ErrorCode::InsufficientSpace,
            FsErrno::Access => ErrorCode::Access,
            FsErrno::ReadOnly => ErrorCode::ReadOnly,
            FsErrno::Busy => ErrorCode::Busy,
        }
    }
}

/// A filesystem error carried inside a stream error, so `filesystem-error-code` can recover it.
#[derive(Debug, Clone, Copy)]
pub struct StreamFsError(pub ErrorCode);

impl std::fmt::Display for StreamFsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "filesystem error: {:?}", self.0)
    }
}

impl std::error::Error for StreamFsError {}
