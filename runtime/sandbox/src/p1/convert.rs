//! Conversions between preview 1 values and the preview 2 filesystem host's.

use wasmtime_wasi::p2::bindings::clocks::wall_clock::Datetime;
use wasmtime_wasi_io::streams::StreamError;
use wiggle::GuestError;

use super::types::{self, Errno, Error};
use crate::fs::bindings::wasi::filesystem::types as fs;
use crate::fs::{ErrorCode, FsError};

impl From<ErrorCode> for Errno {
    fn from(code: ErrorCode) -> Self {
        match code {
            ErrorCode::Access => Errno::Acces,
            ErrorCode::WouldBlock => Errno::Again,
            ErrorCode::Already => Errno::Already,
            ErrorCode::BadDescriptor => Errno::Badf,
            ErrorCode::Busy => Errno::Busy,
            ErrorCode::Deadlock => Errno::Deadlk,
            ErrorCode::Quota => Errno::Dquot,
            ErrorCode::Exist => Errno::Exist,
            ErrorCode::FileTooLarge => Errno::Fbig,
            ErrorCode::IllegalByteSequence => Errno::Ilseq,
            ErrorCode::InProgress => Errno::Inprogress,
            ErrorCode::Interrupted => Errno::Intr,
            ErrorCode::Invalid => Errno::Inval,
            ErrorCode::Io => Errno::Io,
            ErrorCode::IsDirectory => Errno::Isdir,
            ErrorCode::Loop => Errno::Loop,
            ErrorCode::TooManyLinks => Errno::Mlink,
            ErrorCode::MessageSize => Errno::Msgsize,
            ErrorCode::NameTooLong => Errno::Nametoolong,
            ErrorCode::NoDevice => Errno::Nodev,
            ErrorCode::NoEntry => Errno::Noent,
            ErrorCode::NoLock => Errno::Nolck,
            ErrorCode::InsufficientMemory => Errno::Nomem,
            ErrorCode::InsufficientSpace => Errno::Nospc,
            ErrorCode::NotDirectory => Errno::Notdir,
            ErrorCode::NotEmpty => Errno::Notempty,
            ErrorCode::NotRecoverable => Errno::Notrecoverable,
            ErrorCode::Unsupported => Errno::Notsup,
            ErrorCode::NoTty => Errno::Notty,
            ErrorCode::NoSuchDevice => Errno::Nxio,
            ErrorCode::Overflow => Errno::Overflow,
            ErrorCode::NotPermitted => Errno::Perm,
            ErrorCode::Pipe => Errno::Pipe,
            ErrorCode::ReadOnly => Errno::Rofs,
            ErrorCode::InvalidSeek => Errno::Spipe,
            ErrorCode::TextFileBusy => Errno::Txtbsy,
            ErrorCode::CrossDevice => Errno::Xdev,
        }
    }
}

impl From<ErrorCode> for Error {
    fn from(code: ErrorCode) -> Self {
        Errno::from(code).into()
    }
}

impl From<FsError> for Error {
    fn from(err: FsError) -> Self {
        match err.into_code() {
            Ok(code) => code.into(),
            Err(trap) => Error::trap(trap),
        }
    }
}

impl From<StreamError> for Error {
    fn from(err: StreamError) -> Self {
        match err {
            StreamError::Closed => Errno::Io.into(),
            StreamError::LastOperationFailed(_) => Errno::Io.into(),
            StreamError::Trap(e) => Error::trap(e),
        }
    }
}

impl From<std::num::TryFromIntError> for Error {
    fn from(_: std::num::TryFromIntError) -> Self {
        Errno::Overflow.into()
    }
}

impl From<wasmtime::component::ResourceTableError> for Error {
    fn from(err: wasmtime::component::ResourceTableError) -> Self {
        Error::trap(err.into())
    }
}

impl From<GuestError> for Error {
    /// As preview 1 says: misaligned or out-of-bounds pointers trap; bad flag or enum values
    /// are `inval`.
    fn from(err: GuestError) -> Self {
        match err {
            GuestError::InvalidFlagValue { .. } | GuestError::InvalidEnumValue { .. } => {
                Errno::Inval.into()
            }
            GuestError::PtrOverflow
            | GuestError::PtrOutOfBounds { .. }
            | GuestError::PtrNotAligned { .. } => Error::trap(err.into()),
            GuestError::InvalidUtf8 { .. } => Errno::Ilseq.into(),
            GuestError::TryFromIntError { .. } => Errno::Overflow.into(),
            GuestError::SliceLengthsDiffer => Errno::Fault.into(),
            GuestError::InFunc { err, .. } => Error::from(*err),
        }
    }
}

/// The preview 1 file type of a filesystem descriptor type.
pub(super) fn filetype(ty: fs::DescriptorType) -> types::Filetype {
    match ty {
        fs::DescriptorType::RegularFile => types::Filetype::RegularFile,
        fs::DescriptorType::Directory => types::Filetype::Directory,
        fs::DescriptorType::BlockDevice => types::Filetype::BlockDevice,
        fs::DescriptorType::CharacterDevice => types::Filetype::CharacterDevice,
        fs::DescriptorType::SymbolicLink => types::Filetype::SymbolicLink,
        fs::DescriptorType::Fifo | fs::DescriptorType::Socket | fs::DescriptorType::Unknown => {
            types::Filetype::Unknown
        }
    }
}

/// Nanoseconds since the Unix epoch of a timestamp (0 when absent).
fn nanos(t: Option<Datetime>) -> Result<types::Timestamp, Error> {
    let Some(t) = t else { return Ok(0) };
    t.seconds
        .checked_mul(1_000_000_000)
        .and_then(|ns| ns.checked_add(u64::from(t.nanoseconds)))
        .ok_or_else(|| Errno::Overflow.into())
}

/// A preview 1 `filestat` from the filesystem host's stat and metadata hash.
pub(super) fn filestat(stat: fs::DescriptorStat, ino: u64) -> Result<types::Filestat, Error> {
    Ok(types::Filestat {
        dev: 1,
        ino,
        filetype: filetype(stat.type_),
        nlink: stat.link_count,
        size: stat.size,
        atim: nanos(stat.data_access_timestamp)?,
        mtim: nanos(stat.data_modification_timestamp)?,
        ctim: nanos(stat.status_change_timestamp)?,
    })
}

/// The filesystem host's new access and modification times from preview 1's values and
/// `fst_flags`.
pub(super) fn new_times(
    atim: types::Timestamp,
    mtim: types::Timestamp,
    flags: types::Fstflags,
) -> Result<(fs::NewTimestamp, fs::NewTimestamp), Error> {
    Ok((
        new_timestamp(
            flags.contains(types::Fstflags::ATIM),
            flags.contains(types::Fstflags::ATIM_NOW),
            atim,
        )?,
        new_timestamp(
            flags.contains(types::Fstflags::MTIM),
            flags.contains(types::Fstflags::MTIM_NOW),
            mtim,
        )?,
    ))
}

/// The filesystem host's new timestamp from a preview 1 `set` / `now` pair of flags.
fn new_timestamp(set: bool, now: bool, ts: types::Timestamp) -> Result<fs::NewTimestamp, Error> {
    match (set, now) {
        (true, true) => Err(Errno::Inval.into()),
        (true, false) => Ok(fs::NewTimestamp::Timestamp(Datetime {
            seconds: ts / 1_000_000_000,
            nanoseconds: (ts % 1_000_000_000) as u32,
        })),
        (false, true) => Ok(fs::NewTimestamp::Now),
        (false, false) => Ok(fs::NewTimestamp::NoChange),
    }
}

/// Path resolution flags: whether the last component's symlink is followed.
pub(super) fn path_flags(flags: types::Lookupflags) -> fs::PathFlags {
    if flags.contains(types::Lookupflags::SYMLINK_FOLLOW) {
        fs::PathFlags::SYMLINK_FOLLOW
    } else {
        fs::PathFlags::empty()
    }
}

/// The filesystem host's open flags from preview 1's.
pub(super) fn open_flags(flags: types::Oflags) -> fs::OpenFlags {
    let mut out = fs::OpenFlags::empty();
    for (p1, p2) in [
        (types::Oflags::CREAT, fs::OpenFlags::CREATE),
        (types::Oflags::DIRECTORY, fs::OpenFlags::DIRECTORY),
        (types::Oflags::EXCL, fs::OpenFlags::EXCLUSIVE),
        (types::Oflags::TRUNC, fs::OpenFlags::TRUNCATE),
    ] {
        if flags.contains(p1) {
            out |= p2;
        }
    }
    out
}

/// The filesystem host's descriptor flags for a `path_open` with these rights and fd flags.
pub(super) fn descriptor_flags(
    rights: types::Rights,
    fdflags: types::Fdflags,
) -> fs::DescriptorFlags {
    let mut out = fs::DescriptorFlags::empty();
    for (on, flag) in [
        (
            rights.contains(types::Rights::FD_READ),
            fs::DescriptorFlags::READ,
        ),
        (
            rights.contains(types::Rights::FD_WRITE),
            fs::DescriptorFlags::WRITE,
        ),
        (
            fdflags.contains(types::Fdflags::SYNC),
            fs::DescriptorFlags::FILE_INTEGRITY_SYNC,
        ),
        (
            fdflags.contains(types::Fdflags::DSYNC),
            fs::DescriptorFlags::DATA_INTEGRITY_SYNC,
        ),
        (
            fdflags.contains(types::Fdflags::RSYNC),
            fs::DescriptorFlags::REQUESTED_WRITE_SYNC,
        ),
    ] {
        if on {
            out |= flag;
        }
    }
    out
}

/// The filesystem host's advice.
pub(super) fn advice(advice: types::Advice) -> fs::Advice {
    match advice {
        types::Advice::Normal => fs::Advice::Normal,
        types::Advice::Sequential => fs::Advice::Sequential,
        types::Advice::Random => fs::Advice::Random,
        types::Advice::Willneed => fs::Advice::WillNeed,
        types::Advice::Dontneed => fs::Advice::DontNeed,
        types::Advice::Noreuse => fs::Advice::NoReuse,
    }
}
