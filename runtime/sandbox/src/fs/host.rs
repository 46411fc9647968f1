//! The generated `wasi:filesystem` host traits, implemented over the VFS.

use clawrun_vfs::{Ino, Metadata, NodeKind, Timestamp};
use wasmtime::component::Resource;
use wasmtime_wasi::p2::bindings::clocks::wall_clock::Datetime;
use wasmtime_wasi_io::streams::{DynInputStream, DynOutputStream};

use super::bindings::wasi::filesystem::{preopens, types};
use super::descriptor::DescriptorKind;
use super::error::{FsResult, StreamFsError};
use super::path::{Resolved, resolve};
use super::stream::{FileInputStream, FileOutputStream};
use super::{
    Descriptor, DirEntryStream, ErrorCode, FsError, FsState, SharedFs, WasiVfsView, display_path,
};
use crate::fault::{FsFault, FsOp};
use types::{
    Advice, DescriptorFlags, DescriptorStat, DescriptorType, DirectoryEntry, MetadataHashValue,
    NewTimestamp, OpenFlags, PathFlags,
};

/// Largest buffer returned by one positional `read`.
const MAX_READ: u64 = 1024 * 1024;

/// The synchronisation flags a descriptor keeps and reports back in `get-flags`. Every write
/// to the in-memory VFS is complete when the call returns, so all three hold trivially.
fn sync_flags() -> DescriptorFlags {
    DescriptorFlags::FILE_INTEGRITY_SYNC
        | DescriptorFlags::DATA_INTEGRITY_SYNC
        | DescriptorFlags::REQUESTED_WRITE_SYNC
}

/// The parent and name for a new entry at `path` (which `r` resolved and found missing). A
/// trailing `/` names a directory, so a missing final name with one is `no-entry` for calls
/// that create files or links (as `linkat`/`symlinkat` on Linux).
fn new_entry<'r>(r: &'r Resolved, path: &str) -> Result<(Ino, &'r str), ErrorCode> {
    let entry = r.entry(ErrorCode::Exist)?;
    if path.ends_with('/') {
        return Err(ErrorCode::NoEntry);
    }
    Ok(entry)
}

/// The fields of a descriptor a call needs, copied out so the table borrow ends.
#[derive(Clone)]
struct Desc {
    ino: Ino,
    kind: DescriptorKind,
    preopen: usize,
    read: bool,
    write: bool,
    mutate: bool,
    sync: DescriptorFlags,
    path: String,
    /// The filesystem the descriptor's preopen is on.
    fs: SharedFs,
}

impl Desc {
    fn dir(&self) -> Result<&Self, ErrorCode> {
        match self.kind {
            DescriptorKind::Directory => Ok(self),
            DescriptorKind::File => Err(ErrorCode::NotDirectory),
        }
    }

    fn file(&self) -> Result<&Self, ErrorCode> {
        match self.kind {
            DescriptorKind::File => Ok(self),
            DescriptorKind::Directory => Err(ErrorCode::IsDirectory),
        }
    }

    /// A directory whose entries may change.
    fn mutable_dir(&self) -> Result<&Self, ErrorCode> {
        let d = self.dir()?;
        if d.mutate {
            Ok(d)
        } else {
            Err(ErrorCode::ReadOnly)
        }
    }

    fn at(&self, rel: &str) -> String {
        display_path(&self.path, rel)
    }

    /// Runs `f` on the locked state of this descriptor's filesystem after the fault hook has
    /// had its say about `op` on `path`.
    fn with_fs<R>(
        &self,
        op: FsOp,
        path: &str,
        f: impl FnOnce(&mut FsState, Option<FsFault>) -> Result<R, ErrorCode>,
    ) -> FsResult<R> {
        let mut st = self.fs.lock();
        let fault = st.enter(op, path)?;
        Ok(f(&mut st, fault)?)
    }

    /// Resolves `path` from this directory; the directory itself is the boundary (`..` above
    /// it is `not-permitted`), as the WIT's path resolution rules make every handle a sandbox.
    fn resolve(&self, st: &FsState, path: &str, follow: bool) -> Result<Resolved, ErrorCode> {
        resolve(&st.vfs, self.ino, self.ino, path, follow)
    }
}

impl WasiVfsView<'_> {
    fn desc(&self, fd: &Resource<Descriptor>) -> FsResult<Desc> {
        let d = self.table.get(fd)?;
        Ok(Desc {
            ino: d.ino,
            kind: d.kind,
            preopen: d.preopen,
            read: d.read,
            write: d.write,
            mutate: d.mutate,
            sync: d.sync,
            path: d.path.clone(),
            fs: d.fs.clone(),
        })
    }

    fn push_descriptor(&mut self, d: Descriptor) -> FsResult<Resource<Descriptor>> {
        Ok(self.table.push(d)?)
    }
}

fn datetime(t: Timestamp) -> Datetime {
    Datetime {
        seconds: t.secs,
        nanoseconds: t.nanos,
    }
}

fn descriptor_type(kind: NodeKind) -> DescriptorType {
    match kind {
        NodeKind::File => DescriptorType::RegularFile,
        NodeKind::Directory => DescriptorType::Directory,
        NodeKind::Symlink => DescriptorType::SymbolicLink,
    }
}

fn stat(m: Metadata) -> DescriptorStat {
    DescriptorStat {
        type_: descriptor_type(m.kind),
        link_count: m.nlink,
        size: m.size,
        data_access_timestamp: Some(datetime(m.atime)),
        data_modification_timestamp: Some(datetime(m.mtime)),
        status_change_timestamp: Some(datetime(m.ctime)),
    }
}

/// A stable per-inode value: the same file gives the same hash, different files differ.
/// The metadata hash of `ino`; inodes of a shared read-only layer (`foreign`) hash apart from
/// the store's own, whose numbers they may repeat.
fn metadata_hash(ino: Ino, foreign: bool) -> MetadataHashValue {
    let context = if foreign {
        "clawrun metadata-hash v1 shared layer"
    } else {
        "clawrun metadata-hash v1"
    };
    let h = blake3::derive_key(context, &ino.0.to_le_bytes());
    MetadataHashValue {
        lower: u64::from_le_bytes(h[..8].try_into().expect("8 bytes")),
        upper: u64::from_le_bytes(h[8..16].try_into().expect("8 bytes")),
    }
}

fn new_timestamp(t: NewTimestamp, now: Timestamp) -> Option<Timestamp> {
    match t {
        NewTimestamp::NoChange => None,
        NewTimestamp::Now => Some(now),
        NewTimestamp::Timestamp(d) => Some(Timestamp {
            secs: d.seconds,
            nanos: d.nanoseconds,
        }),
    }
}

impl types::Host for WasiVfsView<'_> {
    fn convert_error_code(&mut self, err: FsError) -> wasmtime::Result<ErrorCode> {
        err.into_code()
    }

    fn filesystem_error_code(
        &mut self,
        err: Resource<wasmtime::Error>,
    ) -> wasmtime::Result<Option<ErrorCode>> {
        let err = self.table.get(&err)?;
        Ok(err.downcast_ref::<StreamFsError>().map(|e| e.0))
    }
}

impl types::HostDescriptor for WasiVfsView<'_> {
    fn read_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: u64,
    ) -> FsResult<Resource<DynInputStream>> {
        let d = self.desc(&fd)?;
        let f = d.file()?;
        if !f.read {
            return Err(ErrorCode::BadDescriptor.into());
        }
        let stream: DynInputStream = Box::new(FileInputStream::new(
            f.fs.clone(),
            f.ino,
            offset,
            f.path.clone(),
        ));
        Ok(self.table.push(stream)?)
    }

    fn write_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
        offset: u64,
    ) -> FsResult<Resource<DynOutputStream>> {
        let d = self.desc(&fd)?;
        let f = d.file()?;
        if !f.write {
            return Err(ErrorCode::BadDescriptor.into());
        }
        let stream: DynOutputStream = Box::new(FileOutputStream::new(
            f.fs.clone(),
            f.ino,
            offset,
            false,
            f.path.clone(),
        ));
        Ok(self.table.push(stream)?)
    }

    fn append_via_stream(
        &mut self,
        fd: Resource<Descriptor>,
    ) -> FsResult<Resource<DynOutputStream>> {
        let d = self.desc(&fd)?;
        let f = d.file()?;
        if !f.write {
            return Err(ErrorCode::BadDescriptor.into());
        }
        let stream: DynOutputStream = Box::new(FileOutputStream::new(
            f.fs.clone(),
            f.ino,
            0,
            true,
            f.path.clone(),
        ));
        Ok(self.table.push(stream)?)
    }

    fn advise(&mut self, fd: Resource<Descriptor>, _: u64, _: u64, _: Advice) -> FsResult<()> {
        let d = self.desc(&fd)?;
        d.file()?;
        d.with_fs(FsOp::Sync, &d.path, |_, _| Ok(()))
    }

    fn sync_data(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        let d = self.desc(&fd)?;
        d.with_fs(FsOp::Sync, &d.path, |_, _| Ok(()))
    }

    fn sync(&mut self, fd: Resource<Descriptor>) -> FsResult<()> {
        self.sync_data(fd)
    }

    fn get_flags(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorFlags> {
        let d = self.desc(&fd)?;
        d.with_fs(FsOp::Stat, &d.path, |_, _| Ok(()))?;
        let mut flags = d.sync;
        match d.kind {
            DescriptorKind::File => {
                if d.read {
                    flags |= DescriptorFlags::READ;
                }
                if d.write {
                    flags |= DescriptorFlags::WRITE;
                }
            }
            DescriptorKind::Directory => {
                flags |= DescriptorFlags::READ;
                if d.mutate {
                    flags |= DescriptorFlags::MUTATE_DIRECTORY;
                }
            }
        }
        Ok(flags)
    }

    fn get_type(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorType> {
        let d = self.desc(&fd)?;
        d.with_fs(FsOp::Stat, &d.path, |_, _| Ok(()))?;
        Ok(match d.kind {
            DescriptorKind::File => DescriptorType::RegularFile,
            DescriptorKind::Directory => DescriptorType::Directory,
        })
    }

    fn set_size(&mut self, fd: Resource<Descriptor>, size: u64) -> FsResult<()> {
        let d = self.desc(&fd)?;
        let f = d.file()?;
        if !f.write {
            // As ftruncate(2) on a descriptor not open for writing.
            return Err(ErrorCode::Invalid.into());
        }
        f.with_fs(FsOp::Truncate, &f.path, |st, _| {
            Ok(st.vfs.set_len(f.ino, size)?)
        })
    }

    fn set_times(
        &mut self,
        fd: Resource<Descriptor>,
        atime: NewTimestamp,
        mtime: NewTimestamp,
    ) -> FsResult<()> {
        let d = self.desc(&fd)?;
        if d.kind == DescriptorKind::File && !d.write {
            return Err(ErrorCode::BadDescriptor.into());
        }
        d.with_fs(FsOp::SetTimes, &d.path, |st, _| {
            let now = st.vfs.now();
            let (a, m) = (new_timestamp(atime, now), new_timestamp(mtime, now));
            Ok(st.vfs.set_times(d.ino, a, m)?)
        })
    }

    fn read(
        &mut self,
        fd: Resource<Descriptor>,
        len: u64,
        offset: u64,
    ) -> FsResult<(Vec<u8>, bool)> {
        let d = self.desc(&fd)?;
        let f = d.file()?;
        if !f.read {
            return Err(ErrorCode::BadDescriptor.into());
        }
        f.with_fs(FsOp::Read, &f.path, |st, _| {
            let data = st
                .vfs
                .read_to_vec(f.ino, offset, len.min(MAX_READ) as usize)?;
            let size = st.vfs.metadata(f.ino)?.size;
            let eof = offset.saturating_add(data.len() as u64) >= size;
            Ok((data, eof))
        })
    }

    fn write(&mut self, fd: Resource<Descriptor>, buf: Vec<u8>, offset: u64) -> FsResult<u64> {
        let d = self.desc(&fd)?;
        let f = d.file()?;
        if !f.write {
            return Err(ErrorCode::BadDescriptor.into());
        }
        f.with_fs(FsOp::Write, &f.path, |st, fault| {
            let n = match fault {
                Some(FsFault::ShortWrite { max_bytes }) => max_bytes.clamp(1, buf.len().max(1)),
                _ => buf.len(),
            }
            .min(buf.len());
            st.vfs.write(f.ino, offset, &buf[..n])?;
            Ok(n as u64)
        })
    }

    fn read_directory(&mut self, fd: Resource<Descriptor>) -> FsResult<Resource<DirEntryStream>> {
        let d = self.desc(&fd)?;
        let dir = d.dir()?;
        let entries = dir.with_fs(FsOp::ReadDir, &dir.path, |st, _| {
            Ok(st
                .vfs
                .read_dir(dir.ino)?
                .into_iter()
                .map(|(name, _, kind)| (name, kind))
                .collect::<Vec<_>>())
        })?;
        Ok(self.table.push(DirEntryStream {
            entries: entries.into_iter(),
        })?)
    }

    fn create_directory_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<()> {
        let d = self.desc(&fd)?;
        let dir = d.mutable_dir()?;
        dir.with_fs(FsOp::Mkdir, &dir.at(&path), |st, _| {
            let r = dir.resolve(st, &path, false)?;
            if r.ino.is_some() {
                return Err(ErrorCode::Exist);
            }
            let (parent, name) = r.entry(ErrorCode::Exist)?;
            st.vfs.create_dir(parent, name)?;
            Ok(())
        })
    }

    fn stat(&mut self, fd: Resource<Descriptor>) -> FsResult<DescriptorStat> {
        let d = self.desc(&fd)?;
        d.with_fs(FsOp::Stat, &d.path, |st, _| {
            Ok(stat(st.vfs.metadata(d.ino)?))
        })
    }

    fn stat_at(
        &mut self,
        fd: Resource<Descriptor>,
        flags: PathFlags,
        path: String,
    ) -> FsResult<DescriptorStat> {
        let d = self.desc(&fd)?;
        let dir = d.dir()?;
        dir.with_fs(FsOp::Stat, &dir.at(&path), |st, _| {
            let r = dir.resolve(st, &path, flags.contains(PathFlags::SYMLINK_FOLLOW))?;
            Ok(stat(st.vfs.metadata(r.existing()?)?))
        })
    }

    fn set_times_at(
        &mut self,
        fd: Resource<Descriptor>,
        flags: PathFlags,
        path: String,
        atime: NewTimestamp,
        mtime: NewTimestamp,
    ) -> FsResult<()> {
        let d = self.desc(&fd)?;
        let dir = d.mutable_dir()?;
        dir.with_fs(FsOp::SetTimes, &dir.at(&path), |st, _| {
            let r = dir.resolve(st, &path, flags.contains(PathFlags::SYMLINK_FOLLOW))?;
            let now = st.vfs.now();
            let (a, m) = (new_timestamp(atime, now), new_timestamp(mtime, now));
            Ok(st.vfs.set_times(r.existing()?, a, m)?)
        })
    }

    fn link_at(
        &mut self,
        fd: Resource<Descriptor>,
        old_flags: PathFlags,
        old_path: String,
        new_fd: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        let old = self.desc(&fd)?;
        let new = self.desc(&new_fd)?;
        let (old_dir, new_dir) = (old.mutable_dir()?, new.mutable_dir()?);
        if old_dir.preopen != new_dir.preopen {
            return Err(ErrorCode::CrossDevice.into());
        }
        new_dir.with_fs(FsOp::Link, &new_dir.at(&new_path), |st, _| {
            let src =
                old_dir.resolve(st, &old_path, old_flags.contains(PathFlags::SYMLINK_FOLLOW))?;
            let target = src.existing()?;
            if st.vfs.kind(target)? == NodeKind::Directory {
                return Err(ErrorCode::NotPermitted);
            }
            let dst = new_dir.resolve(st, &new_path, false)?;
            if dst.ino.is_some() {
                return Err(ErrorCode::Exist);
            }
            let (parent, name) = new_entry(&dst, &new_path)?;
            Ok(st.vfs.link(target, parent, name)?)
        })
    }

    fn open_at(
        &mut self,
        fd: Resource<Descriptor>,
        path_flags: PathFlags,
        path: String,
        oflags: OpenFlags,
        flags: DescriptorFlags,
    ) -> FsResult<Resource<Descriptor>> {
        let d = self.desc(&fd)?;
        let dir = d.dir()?;
        let create = oflags.contains(OpenFlags::CREATE);
        let truncate = oflags.contains(OpenFlags::TRUNCATE);
        let want_dir = oflags.contains(OpenFlags::DIRECTORY);
        if want_dir && (create || truncate || oflags.contains(OpenFlags::EXCLUSIVE)) {
            return Err(ErrorCode::Invalid.into());
        }
        let write = flags.contains(DescriptorFlags::WRITE);
        if (write || create || truncate) && !dir.mutate {
            return Err(ErrorCode::ReadOnly.into());
        }
        let guest_path = dir.at(&path);
        let exclusive = create && oflags.contains(OpenFlags::EXCLUSIVE);
        // O_CREAT|O_EXCL never follows a final symlink: an existing link is `exist` (POSIX).
        let follow = path_flags.contains(PathFlags::SYMLINK_FOLLOW) && !exclusive;
        let (ino, kind) = dir.with_fs(FsOp::Open, &guest_path, |st, _| {
            let r = dir.resolve(st, &path, follow)?;
            let ino = match r.ino {
                Some(ino) => {
                    if exclusive {
                        return Err(ErrorCode::Exist);
                    }
                    ino
                }
                None if create => {
                    let (parent, name) = r.entry(ErrorCode::Exist)?;
                    st.vfs.create_file(parent, name)?
                }
                None => return Err(ErrorCode::NoEntry),
            };
            let kind = match st.vfs.kind(ino)? {
                NodeKind::Symlink => return Err(ErrorCode::Loop),
                NodeKind::Directory => {
                    if write || truncate {
                        return Err(ErrorCode::IsDirectory);
                    }
                    DescriptorKind::Directory
                }
                NodeKind::File => {
                    if want_dir {
                        return Err(ErrorCode::NotDirectory);
                    }
                    if truncate {
                        st.vfs.set_len(ino, 0)?;
                    }
                    DescriptorKind::File
                }
            };
            st.vfs.retain(ino);
            Ok((ino, kind))
        })?;
        let read = flags.contains(DescriptorFlags::READ) || !write;
        self.push_descriptor(Descriptor {
            fs: dir.fs.clone(),
            ino,
            kind,
            preopen: dir.preopen,
            read,
            write: write && kind == DescriptorKind::File,
            mutate: dir.mutate,
            sync: flags & sync_flags(),
            path: guest_path,
        })
    }

    fn readlink_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<String> {
        let d = self.desc(&fd)?;
        let dir = d.dir()?;
        dir.with_fs(FsOp::Readlink, &dir.at(&path), |st, _| {
            let r = dir.resolve(st, &path, false)?;
            let ino = r.existing()?;
            if st.vfs.kind(ino)? != NodeKind::Symlink {
                return Err(ErrorCode::Invalid);
            }
            Ok(st.vfs.readlink(ino)?)
        })
    }

    fn remove_directory_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<()> {
        let d = self.desc(&fd)?;
        let dir = d.mutable_dir()?;
        dir.with_fs(FsOp::Rmdir, &dir.at(&path), |st, _| {
            let r = dir.resolve(st, &path, false)?;
            r.existing()?;
            let (parent, name) = r.entry(ErrorCode::Invalid)?;
            Ok(st.vfs.remove_dir(parent, name)?)
        })
    }

    fn rename_at(
        &mut self,
        fd: Resource<Descriptor>,
        old_path: String,
        new_fd: Resource<Descriptor>,
        new_path: String,
    ) -> FsResult<()> {
        let old = self.desc(&fd)?;
        let new = self.desc(&new_fd)?;
        let (old_dir, new_dir) = (old.mutable_dir()?, new.mutable_dir()?);
        if old_dir.preopen != new_dir.preopen {
            return Err(ErrorCode::CrossDevice.into());
        }
        old_dir.with_fs(FsOp::Rename, &old_dir.at(&old_path), |st, _| {
            let src = old_dir.resolve(st, &old_path, false)?;
            src.existing()?;
            let dst = new_dir.resolve(st, &new_path, false)?;
            let (from_dir, from) = src.entry(ErrorCode::Busy)?;
            let (to_dir, to) = dst.entry(ErrorCode::Busy)?;
            Ok(st.vfs.rename(from_dir, from, to_dir, to)?)
        })
    }

    fn symlink_at(
        &mut self,
        fd: Resource<Descriptor>,
        target: String,
        path: String,
    ) -> FsResult<()> {
        let d = self.desc(&fd)?;
        let dir = d.mutable_dir()?;
        dir.with_fs(FsOp::Symlink, &dir.at(&path), |st, _| {
            // The WIT: an absolute old-path is `not-permitted` (it could never be followed).
            if target.starts_with('/') {
                return Err(ErrorCode::NotPermitted);
            }
            let r = dir.resolve(st, &path, false)?;
            if r.ino.is_some() {
                return Err(ErrorCode::Exist);
            }
            let (parent, name) = new_entry(&r, &path)?;
            st.vfs.create_symlink(parent, name, &target)?;
            Ok(())
        })
    }

    fn unlink_file_at(&mut self, fd: Resource<Descriptor>, path: String) -> FsResult<()> {
        let d = self.desc(&fd)?;
        let dir = d.mutable_dir()?;
        dir.with_fs(FsOp::Unlink, &dir.at(&path), |st, _| {
            let r = dir.resolve(st, &path, false)?;
            r.existing()?;
            let (parent, name) = r.entry(ErrorCode::IsDirectory)?;
            Ok(st.vfs.unlink(parent, name)?)
        })
    }

    fn is_same_object(
        &mut self,
        fd: Resource<Descriptor>,
        other: Resource<Descriptor>,
    ) -> wasmtime::Result<bool> {
        let (a, b) = (self.table.get(&fd)?, self.table.get(&other)?);
        Ok(a.ino == b.ino && a.fs.same(&b.fs))
    }

    fn metadata_hash(&mut self, fd: Resource<Descriptor>) -> FsResult<MetadataHashValue> {
        let d = self.desc(&fd)?;
        let foreign = !d.fs.same(&self.ctx.fs);
        d.with_fs(FsOp::Stat, &d.path, |st, _| {
            st.vfs.metadata(d.ino)?;
            Ok(metadata_hash(d.ino, foreign))
        })
    }

    fn metadata_hash_at(
        &mut self,
        fd: Resource<Descriptor>,
        flags: PathFlags,
        path: String,
    ) -> FsResult<MetadataHashValue> {
        let d = self.desc(&fd)?;
        let dir = d.dir()?;
        let foreign = !dir.fs.same(&self.ctx.fs);
        dir.with_fs(FsOp::Stat, &dir.at(&path), |st, _| {
            let r = dir.resolve(st, &path, flags.contains(PathFlags::SYMLINK_FOLLOW))?;
            Ok(metadata_hash(r.existing()?, foreign))
        })
    }

    fn drop(&mut self, fd: Resource<Descriptor>) -> wasmtime::Result<()> {
        self.table.delete(fd)?;
        Ok(())
    }
}

impl types::HostDirectoryEntryStream for WasiVfsView<'_> {
    fn read_directory_entry(
        &mut self,
        stream: Resource<DirEntryStream>,
    ) -> FsResult<Option<DirectoryEntry>> {
        let s = self.table.get_mut(&stream)?;
        Ok(s.entries.next().map(|(name, kind)| DirectoryEntry {
            type_: descriptor_type(kind),
            name,
        }))
    }

    fn drop(&mut self, stream: Resource<DirEntryStream>) -> wasmtime::Result<()> {
        self.table.delete(stream)?;
        Ok(())
    }
}

impl preopens::Host for WasiVfsView<'_> {
    fn get_directories(&mut self) -> wasmtime::Result<Vec<(Resource<Descriptor>, String)>> {
        let mut out = Vec::with_capacity(self.ctx.preopens.len());
        for (index, p) in self.ctx.preopens.iter().enumerate() {
            let d = Descriptor::for_preopen(p.fs.as_ref().unwrap_or(&self.ctx.fs), index, p);
            out.push((self.table.push(d)?, p.guest_path.clone()));
        }
        Ok(out)
    }
}
