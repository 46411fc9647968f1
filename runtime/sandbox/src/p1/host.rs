//! `wasi_snapshot_preview1`, implemented on a store's data in terms of the sandbox's
//! preview 2 hosts (see the module docs of [`super`]).

use wasmtime::component::Resource;
use wasmtime_wasi::cli::WasiCliView;
use wasmtime_wasi::p2::bindings::cli::environment::Host as _;
use wasmtime_wasi::p2::bindings::random::random::Host as _;
use wasmtime_wasi_io::streams::StreamError;
use wiggle::{GuestMemory, GuestPtr};

use super::convert;
use super::fds::{Fd, OpenFile, borrow};
use super::support::*;
use super::types::{self, Errno};
use super::wasi_snapshot_preview1::WasiSnapshotPreview1;
use crate::fs::bindings::wasi::filesystem::types::{
    self as fs, HostDescriptor, HostDirectoryEntryStream,
};
use crate::fs::{Descriptor, HasWasiVfs};
use crate::state::StoreData;

/// Exit statuses `proc_exit` passes on as they are (a shell's range).
const MAX_EXIT_STATUS: u32 = 255;

impl WasiSnapshotPreview1 for StoreData {
    fn set_hostcall_fuel(&mut self, fuel: usize) {
        self.p1.hostcall_fuel = fuel;
    }

    fn args_get(
        &mut self,
        memory: &mut GuestMemory<'_>,
        argv: GuestPtr<GuestPtr<u8>>,
        argv_buf: GuestPtr<u8>,
    ) -> Result<()> {
        let args = self.cli().get_arguments().map_err(trap)?;
        write_string_list(
            memory,
            argv,
            argv_buf,
            args.iter().map(|a| vec![a.as_bytes()]),
        )
    }

    fn args_sizes_get(&mut self, _: &mut GuestMemory<'_>) -> Result<(types::Size, types::Size)> {
        let args = self.cli().get_arguments().map_err(trap)?;
        list_sizes(args.iter().map(|a| vec![a.as_bytes()]))
    }

    fn environ_get(
        &mut self,
        memory: &mut GuestMemory<'_>,
        environ: GuestPtr<GuestPtr<u8>>,
        environ_buf: GuestPtr<u8>,
    ) -> Result<()> {
        let env = self.cli().get_environment().map_err(trap)?;
        let items = env
            .iter()
            .map(|(k, v)| vec![k.as_bytes(), b"=".as_slice(), v.as_bytes()]);
        write_string_list(memory, environ, environ_buf, items)
    }

    fn environ_sizes_get(&mut self, _: &mut GuestMemory<'_>) -> Result<(types::Size, types::Size)> {
        let env = self.cli().get_environment().map_err(trap)?;
        list_sizes(
            env.iter()
                .map(|(k, v)| vec![k.as_bytes(), b"=".as_slice(), v.as_bytes()]),
        )
    }

    fn clock_res_get(
        &mut self,
        _: &mut GuestMemory<'_>,
        id: types::Clockid,
    ) -> Result<types::Timestamp> {
        match id {
            types::Clockid::Realtime | types::Clockid::Monotonic => Ok(1),
            types::Clockid::ProcessCputimeId | types::Clockid::ThreadCputimeId => {
                Err(Errno::Badf.into())
            }
        }
    }

    fn clock_time_get(
        &mut self,
        _: &mut GuestMemory<'_>,
        id: types::Clockid,
        _precision: types::Timestamp,
    ) -> Result<types::Timestamp> {
        match id {
            types::Clockid::Realtime => Ok(u64::try_from(self.clock.wall().as_nanos())?),
            types::Clockid::Monotonic => Ok(self.clock.monotonic_now()),
            types::Clockid::ProcessCputimeId | types::Clockid::ThreadCputimeId => {
                Err(Errno::Badf.into())
            }
        }
    }

    fn fd_advise(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        offset: types::Filesize,
        len: types::Filesize,
        advice: types::Advice,
    ) -> Result<()> {
        let desc = borrow(&self.p1.fds.file(fd)?.desc);
        Ok(self
            .vfs_view()
            .advise(desc, offset, len, convert::advice(advice))?)
    }

    fn fd_allocate(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        _offset: types::Filesize,
        _len: types::Filesize,
    ) -> Result<()> {
        self.p1.fds.file(fd)?;
        Err(Errno::Notsup.into())
    }

    fn fd_close(&mut self, _: &mut GuestMemory<'_>, fd: types::Fd) -> Result<()> {
        let removed = self.p1.fds.remove(fd)?;
        self.drop_fd(removed)
    }

    fn fd_datasync(&mut self, _: &mut GuestMemory<'_>, fd: types::Fd) -> Result<()> {
        let desc = borrow(&self.p1.fds.file(fd)?.desc);
        Ok(self.vfs_view().sync_data(desc)?)
    }

    fn fd_fdstat_get(&mut self, _: &mut GuestMemory<'_>, fd: types::Fd) -> Result<types::Fdstat> {
        let (desc, append, nonblock) = match self.p1.fds.get(fd)? {
            Fd::Stdin(_) => return Ok(stdio_fdstat(types::Rights::FD_READ)),
            Fd::Stdout(_) | Fd::Stderr(_) => return Ok(stdio_fdstat(types::Rights::FD_WRITE)),
            Fd::Dir {
                preopen: Some(_), ..
            } => {
                let (base, inheriting) = preopen_rights();
                return Ok(types::Fdstat {
                    fs_filetype: types::Filetype::Directory,
                    fs_flags: types::Fdflags::empty(),
                    fs_rights_base: base,
                    fs_rights_inheriting: inheriting,
                });
            }
            Fd::Dir { desc, .. } => (borrow(desc), false, false),
            Fd::File(file) => (borrow(&file.desc), file.append, file.nonblock),
        };
        let flags = self.vfs_view().get_flags(borrow(&desc))?;
        let filetype = convert::filetype(self.vfs_view().get_type(desc)?);
        let mut rights = types::Rights::all();
        if filetype == types::Filetype::Directory {
            rights &= !(types::Rights::FD_SEEK
                | types::Rights::FD_FILESTAT_SET_SIZE
                | types::Rights::PATH_FILESTAT_SET_SIZE);
        }
        if !flags.contains(fs::DescriptorFlags::READ) {
            rights &= !(types::Rights::FD_READ | types::Rights::FD_READDIR);
        }
        if !flags.contains(fs::DescriptorFlags::WRITE) {
            rights &= !types::Rights::FD_WRITE;
        }
        let mut fs_flags = types::Fdflags::empty();
        for (on, flag) in [
            (
                flags.contains(fs::DescriptorFlags::DATA_INTEGRITY_SYNC),
                types::Fdflags::DSYNC,
            ),
            (
                flags.contains(fs::DescriptorFlags::REQUESTED_WRITE_SYNC),
                types::Fdflags::RSYNC,
            ),
            (
                flags.contains(fs::DescriptorFlags::FILE_INTEGRITY_SYNC),
                types::Fdflags::SYNC,
            ),
            (append, types::Fdflags::APPEND),
            (nonblock, types::Fdflags::NONBLOCK),
        ] {
            if on {
                fs_flags |= flag;
            }
        }
        Ok(types::Fdstat {
            fs_filetype: filetype,
            fs_flags,
            fs_rights_base: rights,
            fs_rights_inheriting: rights,
        })
    }

    fn fd_fdstat_set_flags(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        flags: types::Fdflags,
    ) -> Result<()> {
        let file = self.p1.fds.file(fd)?;
        // Only APPEND and NONBLOCK can change after open.
        if flags.intersects(types::Fdflags::DSYNC | types::Fdflags::SYNC | types::Fdflags::RSYNC) {
            return Err(Errno::Inval.into());
        }
        file.append = flags.contains(types::Fdflags::APPEND);
        file.nonblock = flags.contains(types::Fdflags::NONBLOCK);
        Ok(())
    }

    fn fd_fdstat_set_rights(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        _base: types::Rights,
        _inheriting: types::Rights,
    ) -> Result<()> {
        self.p1.fds.get(fd)?;
        Err(Errno::Notsup.into())
    }

    fn fd_filestat_get(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
    ) -> Result<types::Filestat> {
        match self.p1.fds.get(fd)? {
            Fd::Stdin(_) | Fd::Stdout(_) | Fd::Stderr(_) => Ok(stdio_filestat()),
            Fd::File(_) | Fd::Dir { .. } => {
                let desc = self.p1.fds.desc(fd)?;
                self.stat_desc(desc)
            }
        }
    }

    fn fd_filestat_set_size(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        size: types::Filesize,
    ) -> Result<()> {
        let desc = borrow(&self.p1.fds.file(fd)?.desc);
        Ok(self.vfs_view().set_size(desc, size)?)
    }

    fn fd_filestat_set_times(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        atim: types::Timestamp,
        mtim: types::Timestamp,
        flags: types::Fstflags,
    ) -> Result<()> {
        let (atim, mtim) = convert::new_times(atim, mtim, flags)?;
        let desc = self.p1.fds.desc(fd)?;
        Ok(self.vfs_view().set_times(desc, atim, mtim)?)
    }

    fn fd_read(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        iovs: types::IovecArray,
    ) -> Result<types::Size> {
        enum Source {
            Stdin(Resource<wasmtime_wasi_io::streams::DynInputStream>),
            File(Resource<Descriptor>, u64),
        }
        let source = match self.p1.fds.get(fd)? {
            Fd::Stdin(s) => Source::Stdin(borrow(s)),
            Fd::File(file) => Source::File(borrow(&file.desc), file.position),
            // As read(2) on Linux.
            Fd::Dir { .. } => return Err(Errno::Isdir.into()),
            Fd::Stdout(_) | Fd::Stderr(_) => return Err(Errno::Badf.into()),
        };
        let iovs = self.iovecs(memory, iovs)?;
        let want: usize = iovs.iter().map(|iov| iov.len() as usize).sum();
        let bytes = match source {
            Source::Stdin(stream) => match self.table.get_mut(&stream)?.read(want) {
                Ok(bytes) => bytes.to_vec(),
                Err(StreamError::Closed) => Vec::new(),
                Err(e) => return Err(e.into()),
            },
            Source::File(desc, position) => {
                let bytes = self.read_file(desc, want, position)?;
                self.p1.fds.file(fd)?.position = position + bytes.len() as u64;
                bytes
            }
        };
        Self::scatter(memory, &iovs, &bytes)
    }

    fn fd_pread(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        iovs: types::IovecArray,
        offset: types::Filesize,
    ) -> Result<types::Size> {
        if let Fd::Dir { .. } = self.p1.fds.get(fd)? {
            return Err(Errno::Isdir.into());
        }
        let desc = borrow(&self.p1.fds.seekable(fd)?.desc);
        let iovs = self.iovecs(memory, iovs)?;
        let want: usize = iovs.iter().map(|iov| iov.len() as usize).sum();
        let bytes = self.read_file(desc, want, offset)?;
        Self::scatter(memory, &iovs, &bytes)
    }

    fn fd_write(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        ciovs: types::CiovecArray,
    ) -> Result<types::Size> {
        self.write_fd(memory, fd, ciovs, None)
    }

    fn fd_pwrite(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        ciovs: types::CiovecArray,
        offset: types::Filesize,
    ) -> Result<types::Size> {
        self.write_fd(memory, fd, ciovs, Some(offset))
    }

    fn fd_prestat_get(&mut self, _: &mut GuestMemory<'_>, fd: types::Fd) -> Result<types::Prestat> {
        match self.p1.fds.get(fd)? {
            Fd::Dir {
                preopen: Some(path),
                ..
            } => Ok(types::Prestat::Dir(types::PrestatDir {
                pr_name_len: u32::try_from(path.len())?,
            })),
            _ => Err(Errno::Badf.into()),
        }
    }

    fn fd_prestat_dir_name(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        path: GuestPtr<u8>,
        path_max_len: types::Size,
    ) -> Result<()> {
        match self.p1.fds.get(fd)? {
            Fd::Dir {
                preopen: Some(name),
                ..
            } => {
                if name.len() > path_max_len as usize {
                    return Err(Errno::Nametoolong.into());
                }
                let name = name.clone();
                write_bytes(memory, path, name.as_bytes())?;
                Ok(())
            }
            _ => Err(Errno::Notdir.into()),
        }
    }

    fn fd_renumber(
        &mut self,
        _: &mut GuestMemory<'_>,
        from: types::Fd,
        to: types::Fd,
    ) -> Result<()> {
        if !self.p1.fds.contains(from) || !self.p1.fds.contains(to) {
            return Err(Errno::Badf.into());
        }
        if u32::from(from) == u32::from(to) {
            return Ok(());
        }
        let replaced = self.p1.fds.remove(to)?;
        self.drop_fd(replaced)?;
        let moved = self.p1.fds.remove(from)?;
        self.p1.fds.place(u32::from(to), moved);
        Ok(())
    }

    fn fd_seek(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        offset: types::Filedelta,
        whence: types::Whence,
    ) -> Result<types::Filesize> {
        let file = self.p1.fds.seekable(fd)?;
        let (desc, position) = (borrow(&file.desc), file.position);
        let new = match whence {
            types::Whence::Set => u64::try_from(offset).map_err(|_| Errno::Inval)?,
            types::Whence::Cur => position.checked_add_signed(offset).ok_or(Errno::Inval)?,
            types::Whence::End => {
                let size = self.vfs_view().stat(desc)?.size;
                size.checked_add_signed(offset).ok_or(Errno::Inval)?
            }
        };
        self.p1.fds.seekable(fd)?.position = new;
        Ok(new)
    }

    fn fd_sync(&mut self, _: &mut GuestMemory<'_>, fd: types::Fd) -> Result<()> {
        let desc = borrow(&self.p1.fds.file(fd)?.desc);
        Ok(self.vfs_view().sync(desc)?)
    }

    fn fd_tell(&mut self, _: &mut GuestMemory<'_>, fd: types::Fd) -> Result<types::Filesize> {
        Ok(self.p1.fds.seekable(fd)?.position)
    }

    fn fd_readdir(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        buf: GuestPtr<u8>,
        buf_len: types::Size,
        cookie: types::Dircookie,
    ) -> Result<types::Size> {
        let dir = match self.p1.fds.get(fd)? {
            Fd::Dir { desc, .. } => borrow(desc),
            _ => return Err(Errno::Badf.into()),
        };
        let own = self.vfs_view().metadata_hash(borrow(&dir))?.lower;
        let mut entries = vec![
            (".".to_string(), types::Filetype::Directory, own),
            ("..".to_string(), types::Filetype::Directory, own),
        ];
        let stream = self.vfs_view().read_directory(borrow(&dir))?;
        loop {
            let next = self.vfs_view().read_directory_entry(borrow(&stream));
            let entry = match next {
                Ok(Some(entry)) => entry,
                Ok(None) => break,
                Err(e) => {
                    HostDirectoryEntryStream::drop(&mut self.vfs_view(), stream).map_err(trap)?;
                    return Err(e.into());
                }
            };
            let ino = self
                .vfs_view()
                .metadata_hash_at(borrow(&dir), fs::PathFlags::empty(), entry.name.clone())?
                .lower;
            entries.push((entry.name, convert::filetype(entry.type_), ino));
        }
        HostDirectoryEntryStream::drop(&mut self.vfs_view(), stream).map_err(trap)?;

        // Entries as preview 1 lays them out (a 24-byte dirent, then the name), cut off where
        // the buffer ends; a full buffer tells the guest to call again from its last cookie.
        let start = usize::try_from(cookie).map_err(|_| Errno::Overflow)?;
        let mut out = Vec::new();
        for (i, (name, filetype, ino)) in entries.into_iter().enumerate().skip(start) {
            if out.len() >= buf_len as usize {
                break;
            }
            let namlen = u32::try_from(name.len())?;
            out.extend_from_slice(&(i as u64 + 1).to_le_bytes());
            out.extend_from_slice(&ino.to_le_bytes());
            out.extend_from_slice(&namlen.to_le_bytes());
            out.extend_from_slice(&[filetype as u8, 0, 0, 0]);
            out.extend_from_slice(name.as_bytes());
        }
        out.truncate(buf_len as usize);
        write_bytes(memory, buf, &out)?;
        Ok(u32::try_from(out.len())?)
    }

    fn path_create_directory(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        path: GuestPtr<str>,
    ) -> Result<()> {
        let (dir, path) = self.dir_path(memory, fd, path)?;
        Ok(self.vfs_view().create_directory_at(dir, path)?)
    }

    fn path_filestat_get(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        flags: types::Lookupflags,
        path: GuestPtr<str>,
    ) -> Result<types::Filestat> {
        let (dir, path) = self.dir_path(memory, fd, path)?;
        let flags = convert::path_flags(flags);
        let stat = self.vfs_view().stat_at(borrow(&dir), flags, path.clone())?;
        let hash = self.vfs_view().metadata_hash_at(dir, flags, path)?;
        convert::filestat(stat, hash.lower)
    }

    fn path_filestat_set_times(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        flags: types::Lookupflags,
        path: GuestPtr<str>,
        atim: types::Timestamp,
        mtim: types::Timestamp,
        fst_flags: types::Fstflags,
    ) -> Result<()> {
        let (atim, mtim) = convert::new_times(atim, mtim, fst_flags)?;
        let (dir, path) = self.dir_path(memory, fd, path)?;
        Ok(self
            .vfs_view()
            .set_times_at(dir, convert::path_flags(flags), path, atim, mtim)?)
    }

    fn path_link(
        &mut self,
        memory: &mut GuestMemory<'_>,
        src_fd: types::Fd,
        src_flags: types::Lookupflags,
        src_path: GuestPtr<str>,
        target_fd: types::Fd,
        target_path: GuestPtr<str>,
    ) -> Result<()> {
        let src = self.p1.fds.dir(src_fd)?;
        let target = self.p1.fds.dir(target_fd)?;
        let src_path = self.string(memory, src_path)?;
        let target_path = self.string(memory, target_path)?;
        Ok(self.vfs_view().link_at(
            src,
            convert::path_flags(src_flags),
            src_path,
            target,
            target_path,
        )?)
    }

    fn path_open(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        dirflags: types::Lookupflags,
        path: GuestPtr<str>,
        oflags: types::Oflags,
        rights: types::Rights,
        _inheriting: types::Rights,
        fdflags: types::Fdflags,
    ) -> Result<types::Fd> {
        let (dir, path) = self.dir_path(memory, fd, path)?;
        let desc = self.vfs_view().open_at(
            dir,
            convert::path_flags(dirflags),
            path,
            convert::open_flags(oflags),
            convert::descriptor_flags(rights, fdflags),
        )?;
        let opened = match self.vfs_view().get_type(borrow(&desc)) {
            Ok(fs::DescriptorType::Directory) => Fd::Dir {
                desc,
                preopen: None,
            },
            Ok(_) => Fd::File(OpenFile {
                desc,
                position: 0,
                append: fdflags.contains(types::Fdflags::APPEND),
                nonblock: fdflags.contains(types::Fdflags::NONBLOCK),
            }),
            Err(e) => {
                HostDescriptor::drop(&mut self.vfs_view(), desc).map_err(trap)?;
                return Err(e.into());
            }
        };
        Ok(self.p1.fds.push(opened)?.into())
    }

    fn path_readlink(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        path: GuestPtr<str>,
        buf: GuestPtr<u8>,
        buf_len: types::Size,
    ) -> Result<types::Size> {
        let (dir, path) = self.dir_path(memory, fd, path)?;
        let mut target = self.vfs_view().readlink_at(dir, path)?.into_bytes();
        target.truncate(buf_len as usize);
        write_bytes(memory, buf, &target)?;
        Ok(u32::try_from(target.len())?)
    }

    fn path_remove_directory(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        path: GuestPtr<str>,
    ) -> Result<()> {
        let (dir, path) = self.dir_path(memory, fd, path)?;
        Ok(self.vfs_view().remove_directory_at(dir, path)?)
    }

    fn path_rename(
        &mut self,
        memory: &mut GuestMemory<'_>,
        src_fd: types::Fd,
        src_path: GuestPtr<str>,
        dest_fd: types::Fd,
        dest_path: GuestPtr<str>,
    ) -> Result<()> {
        let src = self.p1.fds.dir(src_fd)?;
        let dest = self.p1.fds.dir(dest_fd)?;
        let src_path = self.string(memory, src_path)?;
        let dest_path = self.string(memory, dest_path)?;
        Ok(self.vfs_view().rename_at(src, src_path, dest, dest_path)?)
    }

    fn path_symlink(
        &mut self,
        memory: &mut GuestMemory<'_>,
        old_path: GuestPtr<str>,
        fd: types::Fd,
        new_path: GuestPtr<str>,
    ) -> Result<()> {
        let dir = self.p1.fds.dir(fd)?;
        let old_path = self.string(memory, old_path)?;
        let new_path = self.string(memory, new_path)?;
        Ok(self.vfs_view().symlink_at(dir, old_path, new_path)?)
    }

    fn path_unlink_file(
        &mut self,
        memory: &mut GuestMemory<'_>,
        fd: types::Fd,
        path: GuestPtr<str>,
    ) -> Result<()> {
        let (dir, path) = self.dir_path(memory, fd, path)?;
        Ok(self.vfs_view().unlink_file_at(dir, path)?)
    }

    fn poll_oneoff(
        &mut self,
        memory: &mut GuestMemory<'_>,
        subs: GuestPtr<types::Subscription>,
        events: GuestPtr<types::Event>,
        nsubscriptions: types::Size,
    ) -> Result<types::Size> {
        super::poll::poll_oneoff(self, memory, subs, events, nsubscriptions)
    }

    fn proc_exit(&mut self, _: &mut GuestMemory<'_>, status: types::Exitcode) -> wasmtime::Error {
        if status > MAX_EXIT_STATUS {
            return wasmtime::format_err!(
                "proc_exit({status}): exit statuses above {MAX_EXIT_STATUS} do not exist"
            );
        }
        wasmtime_wasi::I32Exit(status as i32).into()
    }

    fn proc_raise(&mut self, _: &mut GuestMemory<'_>, _sig: types::Signal) -> Result<()> {
        Err(Errno::Notsup.into())
    }

    fn sched_yield(&mut self, _: &mut GuestMemory<'_>) -> Result<()> {
        Ok(())
    }

    fn random_get(
        &mut self,
        memory: &mut GuestMemory<'_>,
        buf: GuestPtr<u8>,
        buf_len: types::Size,
    ) -> Result<()> {
        self.charge(u64::from(buf_len))?;
        let bytes = self
            .wasi
            .random()
            .get_random_bytes(u64::from(buf_len))
            .map_err(trap)?;
        write_bytes(memory, buf, &bytes)?;
        Ok(())
    }

    fn sock_accept(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        _flags: types::Fdflags,
    ) -> Result<types::Fd> {
        self.p1.fds.get(fd)?;
        Err(Errno::Notsock.into())
    }

    fn sock_recv(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        _ri_data: types::IovecArray,
        _ri_flags: types::Riflags,
    ) -> Result<(types::Size, types::Roflags)> {
        self.p1.fds.get(fd)?;
        Err(Errno::Notsock.into())
    }

    fn sock_send(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        _si_data: types::CiovecArray,
        _si_flags: types::Siflags,
    ) -> Result<types::Size> {
        self.p1.fds.get(fd)?;
        Err(Errno::Notsock.into())
    }

    fn sock_shutdown(
        &mut self,
        _: &mut GuestMemory<'_>,
        fd: types::Fd,
        _how: types::Sdflags,
    ) -> Result<()> {
        self.p1.fds.get(fd)?;
        Err(Errno::Notsock.into())
    }
}
