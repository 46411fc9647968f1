//! The preview 1 descriptor table: small integers standing for stdio streams and for the
//! preview 2 descriptors of our filesystem host.

use std::collections::{BTreeMap, BTreeSet};

use wasmtime::component::Resource;
use wasmtime_wasi_io::streams::{DynInputStream, DynOutputStream};

use super::types::{Errno, Error, Fd as GuestFd};
use crate::fs::Descriptor;

/// What a preview 1 descriptor number stands for.
pub(crate) enum Fd {
    /// Standard input.
    Stdin(Resource<DynInputStream>),
    /// Standard output.
    Stdout(Resource<DynOutputStream>),
    /// Standard error.
    Stderr(Resource<DynOutputStream>),
    /// A directory; `preopen` is the path it was handed to the guest as, for preopens.
    Dir {
        /// The filesystem host's descriptor.
        desc: Resource<Descriptor>,
        /// The guest path of a preopened directory (`None` when opened with `path_open`).
        preopen: Option<String>,
    },
    /// A regular file.
    File(OpenFile),
}

/// A regular file opened by the guest, with the state preview 1 keeps beside it.
pub(crate) struct OpenFile {
    /// The filesystem host's descriptor.
    pub desc: Resource<Descriptor>,
    /// The current offset (`fd_read`, `fd_write`, `fd_seek`).
    pub position: u64,
    /// Writes go to the end of the file.
    pub append: bool,
    /// Reported back by `fd_fdstat_get` (reads and writes never block on the VFS anyway).
    pub nonblock: bool,
}

/// A borrowed handle to the same preview 2 resource (the table keeps the owning one).
pub(crate) fn borrow<T: 'static>(r: &Resource<T>) -> Resource<T> {
    Resource::new_borrow(r.rep())
}

/// The descriptor numbers in use; freed numbers are reused, lowest first, as POSIX does.
#[derive(Default)]
pub(crate) struct FdTable {
    used: BTreeMap<u32, Fd>,
    free: BTreeSet<u32>,
}

impl FdTable {
    /// Adds `fd` under the lowest free number.
    pub fn push(&mut self, fd: Fd) -> Result<u32, Error> {
        let n = match self.free.pop_first() {
            Some(n) => n,
            None => match self.used.last_key_value() {
                Some((&last, _)) => last.checked_add(1).ok_or(Errno::Nfile)?,
                None => 0,
            },
        };
        self.used.insert(n, fd);
        Ok(n)
    }

    /// The descriptor `fd`, or `badf`.
    pub fn get(&self, fd: GuestFd) -> Result<&Fd, Error> {
        self.used
            .get(&u32::from(fd))
            .ok_or_else(|| Errno::Badf.into())
    }

    /// The open file `fd`; `badf` for anything else.
    pub fn file(&mut self, fd: GuestFd) -> Result<&mut OpenFile, Error> {
        match self.used.get_mut(&u32::from(fd)) {
            Some(Fd::File(file)) => Ok(file),
            _ => Err(Errno::Badf.into()),
        }
    }

    /// The open file `fd` for a call that moves or reads its offset: `spipe` for stdio.
    pub fn seekable(&mut self, fd: GuestFd) -> Result<&mut OpenFile, Error> {
        match self.used.get_mut(&u32::from(fd)) {
            Some(Fd::File(file)) => Ok(file),
            Some(Fd::Stdin(_) | Fd::Stdout(_) | Fd::Stderr(_)) => Err(Errno::Spipe.into()),
            _ => Err(Errno::Badf.into()),
        }
    }

    /// The filesystem descriptor behind `fd` (a file or a directory); `badf` for stdio.
    pub fn desc(&self, fd: GuestFd) -> Result<Resource<Descriptor>, Error> {
        match self.get(fd)? {
            Fd::File(file) => Ok(borrow(&file.desc)),
            Fd::Dir { desc, .. } => Ok(borrow(desc)),
            _ => Err(Errno::Badf.into()),
        }
    }

    /// The filesystem descriptor of directory `fd`: `notdir` for a file, `badf` otherwise.
    pub fn dir(&self, fd: GuestFd) -> Result<Resource<Descriptor>, Error> {
        match self.get(fd)? {
            Fd::Dir { desc, .. } => Ok(borrow(desc)),
            Fd::File(_) => Err(Errno::Notdir.into()),
            _ => Err(Errno::Badf.into()),
        }
    }

    /// Takes `fd` out of the table (its number becomes free).
    pub fn remove(&mut self, fd: GuestFd) -> Result<Fd, Error> {
        let n = u32::from(fd);
        let removed = self.used.remove(&n).ok_or(Errno::Badf)?;
        self.free.insert(n);
        Ok(removed)
    }

    /// Puts `desc` under number `to`, which must be free (after `remove`).
    pub fn place(&mut self, to: u32, desc: Fd) {
        self.free.remove(&to);
        self.used.insert(to, desc);
    }

    /// Whether `fd` is in use.
    pub fn contains(&self, fd: GuestFd) -> bool {
        self.used.contains_key(&u32::from(fd))
    }
}
