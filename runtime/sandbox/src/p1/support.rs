//! What the preview 1 calls share: the standard descriptors, copies to and from guest memory
//! (iovecs, string lists), descriptor lookups and writes, and the rights and stats of stdio
//! and preopens.

use wasmtime::component::Resource;
use wasmtime_wasi::cli::WasiCliView;
use wasmtime_wasi::p2::bindings::cli::{stderr::Host as _, stdin::Host as _, stdout::Host as _};
use wasmtime_wasi_io::streams::DynOutputStream;
use wiggle::{GuestMemory, GuestPtr};

use super::convert;
use super::fds::{Fd, FdTable, OpenFile, borrow};
use super::types::{self, Errno, Error};
use crate::fs::bindings::wasi::filesystem::preopens::Host as _;
use crate::fs::bindings::wasi::filesystem::types::{self as fs, HostDescriptor};
use crate::fs::{Descriptor, HasWasiVfs};
use crate::state::StoreData;

/// The preview 1 calls' results: an errno, or a trap.
pub(super) type Result<T, E = Error> = std::result::Result<T, E>;

/// Opens descriptors 0, 1 and 2 on the store's stdio and 3.. on its preopens, in order.
pub(crate) fn open_standard_fds(data: &mut StoreData) -> wasmtime::Result<()> {
    let stdin = data.cli().get_stdin()?;
    let stdout = data.cli().get_stdout()?;
    let stderr = data.cli().get_stderr()?;
    let preopens = data.vfs_view().get_directories()?;
    let mut fds = FdTable::default();
    let standard = [Fd::Stdin(stdin), Fd::Stdout(stdout), Fd::Stderr(stderr)];
    let dirs = preopens.into_iter().map(|(desc, path)| Fd::Dir {
        desc,
        preopen: Some(path),
    });
    for fd in standard.into_iter().chain(dirs) {
        fds.push(fd)
            .map_err(|_| wasmtime::format_err!("too many preopened directories"))?;
    }
    data.p1.fds = fds;
    Ok(())
}

/// Turns a host failure into a trap.
pub(super) fn trap(e: wasmtime::Error) -> Error {
    Error::trap(e)
}

/// Copies `bytes` into guest memory at `ptr`; returns the address just past them.
pub(super) fn write_bytes(
    memory: &mut GuestMemory<'_>,
    ptr: GuestPtr<u8>,
    bytes: &[u8],
) -> Result<GuestPtr<u8>> {
    let len = u32::try_from(bytes.len())?;
    memory.copy_from_slice(bytes, ptr.as_array(len))?;
    Ok(ptr.add(len)?)
}

/// Writes `items` as preview 1 lays out argv and environ: a pointer per item into `buf`,
/// where the items follow each other, each ending in a NUL.
pub(super) fn write_string_list<'a>(
    memory: &mut GuestMemory<'_>,
    mut ptrs: GuestPtr<GuestPtr<u8>>,
    mut buf: GuestPtr<u8>,
    items: impl Iterator<Item = Vec<&'a [u8]>>,
) -> Result<()> {
    for parts in items {
        memory.write(ptrs, buf)?;
        ptrs = ptrs.add(1)?;
        for part in parts {
            buf = write_bytes(memory, buf, part)?;
        }
        buf = write_bytes(memory, buf, b"\0")?;
    }
    Ok(())
}

/// (count, bytes with NULs) of a string list.
pub(super) fn list_sizes<'a>(
    items: impl Iterator<Item = Vec<&'a [u8]>>,
) -> Result<(types::Size, types::Size)> {
    let mut count: usize = 0;
    let mut bytes: usize = 0;
    for parts in items {
        count += 1;
        bytes += parts.iter().map(|p| p.len()).sum::<usize>() + 1;
    }
    Ok((u32::try_from(count)?, u32::try_from(bytes)?))
}

impl StoreData {
    /// Charges `bytes` of host copying to this call's budget (`nomem` past it), so one call
    /// cannot make the host copy unbounded memory.
    pub(super) fn charge(&mut self, bytes: u64) -> Result<()> {
        let bytes = usize::try_from(bytes).map_err(|_| Errno::Nomem)?;
        self.p1.hostcall_fuel = self
            .p1
            .hostcall_fuel
            .checked_sub(bytes)
            .ok_or(Errno::Nomem)?;
        Ok(())
    }

    /// The guest buffers of `iovs`, charged to the call's budget.
    pub(super) fn iovecs(
        &mut self,
        memory: &GuestMemory<'_>,
        iovs: GuestPtr<[types::Iovec]>,
    ) -> Result<Vec<GuestPtr<[u8]>>> {
        self.charge(u64::from(iovs.len()) * 8)?;
        let mut out = Vec::new();
        for iov in iovs.iter() {
            let iov = memory.read(iov?)?;
            if iov.buf_len > 0 {
                self.charge(u64::from(iov.buf_len))?;
                out.push(iov.buf.as_array(iov.buf_len));
            }
        }
        Ok(out)
    }

    /// The bytes of the guest buffers of `ciovs`, concatenated and charged to the budget.
    pub(super) fn gather(
        &mut self,
        memory: &GuestMemory<'_>,
        ciovs: GuestPtr<[types::Ciovec]>,
    ) -> Result<Vec<u8>> {
        self.charge(u64::from(ciovs.len()) * 8)?;
        let mut out = Vec::new();
        for ciov in ciovs.iter() {
            let ciov = memory.read(ciov?)?;
            if ciov.buf_len > 0 {
                self.charge(u64::from(ciov.buf_len))?;
                out.extend_from_slice(&memory.as_cow(ciov.buf.as_array(ciov.buf_len))?);
            }
        }
        Ok(out)
    }

    /// Copies `bytes` into the buffers `iovs`, in order; returns how many were placed.
    pub(super) fn scatter(
        memory: &mut GuestMemory<'_>,
        iovs: &[GuestPtr<[u8]>],
        bytes: &[u8],
    ) -> Result<u32> {
        let mut rest = bytes;
        for iov in iovs {
            if rest.is_empty() {
                break;
            }
            let n = rest.len().min(iov.len() as usize);
            let target = iov.get_range(0..n as u32).ok_or(Errno::Fault)?;
            memory.copy_from_slice(&rest[..n], target)?;
            rest = &rest[n..];
        }
        Ok(u32::try_from(bytes.len() - rest.len())?)
    }

    /// Directory `fd` and the guest path `path` a `path_*` call names.
    pub(super) fn dir_path(
        &mut self,
        memory: &GuestMemory<'_>,
        fd: types::Fd,
        path: GuestPtr<str>,
    ) -> Result<(Resource<Descriptor>, String)> {
        let dir = self.p1.fds.dir(fd)?;
        Ok((dir, self.string(memory, path)?))
    }

    /// A guest string, charged to the budget.
    pub(super) fn string(
        &mut self,
        memory: &GuestMemory<'_>,
        ptr: GuestPtr<str>,
    ) -> Result<String> {
        self.charge(u64::from(ptr.len()))?;
        Ok(memory.as_cow_str(ptr)?.into_owned())
    }

    /// Reads up to `len` bytes of file `desc` at `offset`.
    pub(super) fn read_file(
        &mut self,
        desc: Resource<Descriptor>,
        len: usize,
        offset: u64,
    ) -> Result<Vec<u8>> {
        let (bytes, _eof) = self.vfs_view().read(desc, len as u64, offset)?;
        Ok(bytes)
    }

    /// Writes `bytes` to an output stream; returns how many it took.
    pub(super) fn write_stream(
        &mut self,
        stream: &Resource<DynOutputStream>,
        bytes: &[u8],
    ) -> Result<usize> {
        let stream = self.table.get_mut(stream)?;
        let mut written = 0;
        while written < bytes.len() {
            let permit = stream.check_write()?;
            if permit == 0 {
                break;
            }
            let n = permit.min(bytes.len() - written);
            stream.write(bytes::Bytes::copy_from_slice(&bytes[written..written + n]))?;
            written += n;
        }
        stream.flush()?;
        Ok(written)
    }

    /// `fd_write` (at the current offset) and `fd_pwrite` (at `at`).
    pub(super) fn write_fd(
        &mut self,
        memory: &GuestMemory<'_>,
        fd: types::Fd,
        ciovs: types::CiovecArray,
        at: Option<u64>,
    ) -> Result<types::Size> {
        // The descriptor first: a write of nothing to a bad descriptor is still `badf`.
        let stream = match self.p1.fds.get(fd)? {
            Fd::Stdout(s) | Fd::Stderr(s) if at.is_none() => Some(borrow(s)),
            Fd::Stdout(_) | Fd::Stderr(_) | Fd::Stdin(_) if at.is_some() => {
                return Err(Errno::Spipe.into());
            }
            Fd::File(_) => None,
            _ => return Err(Errno::Badf.into()),
        };
        let bytes = self.gather(memory, ciovs)?;
        if let Some(stream) = stream {
            return Ok(u32::try_from(self.write_stream(&stream, &bytes)?)?);
        }
        let file = self.p1.fds.file(fd)?;
        let (desc, append, position) = (borrow(&file.desc), file.append, file.position);
        if bytes.is_empty() {
            // Nothing moves, but a descriptor not open for writing is still `badf`.
            let flags = self.vfs_view().get_flags(desc)?;
            if !flags.contains(fs::DescriptorFlags::WRITE) {
                return Err(Errno::Badf.into());
            }
            return Ok(0);
        }
        let offset = if append {
            self.vfs_view().stat(borrow(&desc))?.size
        } else {
            at.unwrap_or(position)
        };
        let n = self.vfs_view().write(desc, bytes, offset)?;
        if at.is_none() {
            self.p1.fds.file(fd)?.position = offset.checked_add(n).ok_or(Errno::Overflow)?;
        }
        Ok(u32::try_from(n)?)
    }

    /// The preview 1 stat of filesystem descriptor `desc`.
    pub(super) fn stat_desc(&mut self, desc: Resource<Descriptor>) -> Result<types::Filestat> {
        let stat = self.vfs_view().stat(borrow(&desc))?;
        let hash = self.vfs_view().metadata_hash(desc)?;
        convert::filestat(stat, hash.lower)
    }

    /// Closes the preview 2 resource behind a removed descriptor.
    pub(super) fn drop_fd(&mut self, fd: Fd) -> Result<()> {
        match fd {
            Fd::Stdin(stream) => self.table.delete(stream).map(drop)?,
            Fd::Stdout(stream) | Fd::Stderr(stream) => self.table.delete(stream).map(drop)?,
            Fd::File(OpenFile { desc, .. }) | Fd::Dir { desc, .. } => {
                HostDescriptor::drop(&mut self.vfs_view(), desc).map_err(trap)?
            }
        }
        Ok(())
    }
}

/// Rights of a preopened directory, as most userlands expect them.
pub(super) fn preopen_rights() -> (types::Rights, types::Rights) {
    use types::Rights as R;
    let base = R::PATH_CREATE_DIRECTORY
        | R::PATH_CREATE_FILE
        | R::PATH_LINK_SOURCE
        | R::PATH_LINK_TARGET
        | R::PATH_OPEN
        | R::FD_READDIR
        | R::PATH_READLINK
        | R::PATH_RENAME_SOURCE
        | R::PATH_RENAME_TARGET
        | R::PATH_SYMLINK
        | R::PATH_REMOVE_DIRECTORY
        | R::PATH_UNLINK_FILE
        | R::PATH_FILESTAT_GET
        | R::PATH_FILESTAT_SET_TIMES
        | R::FD_FILESTAT_GET
        | R::FD_FILESTAT_SET_TIMES;
    let inheriting = base
        | R::FD_DATASYNC
        | R::FD_READ
        | R::FD_SEEK
        | R::FD_FDSTAT_SET_FLAGS
        | R::FD_SYNC
        | R::FD_TELL
        | R::FD_WRITE
        | R::FD_ADVISE
        | R::FD_ALLOCATE
        | R::FD_FILESTAT_GET
        | R::FD_FILESTAT_SET_SIZE
        | R::FD_FILESTAT_SET_TIMES
        | R::POLL_FD_READWRITE;
    (base, inheriting)
}

/// The fdstat of a stdio descriptor: no type, no flags, reading or writing only.
pub(super) fn stdio_fdstat(rights: types::Rights) -> types::Fdstat {
    types::Fdstat {
        fs_filetype: types::Filetype::Unknown,
        fs_flags: types::Fdflags::empty(),
        fs_rights_base: rights,
        fs_rights_inheriting: rights,
    }
}

/// The stat of a stdio descriptor: no type, no size, no times.
pub(super) fn stdio_filestat() -> types::Filestat {
    types::Filestat {
        dev: 0,
        ino: 0,
        filetype: types::Filetype::Unknown,
        nlink: 0,
        size: 0,
        atim: 0,
        mtim: 0,
        ctim: 0,
    }
}
