//! Platform shims for the few operations whose std API differs between native
//! Unix and WASI on stable Rust.
//!
//! * Positional I/O: natively `std::os::unix::fs::FileExt`. On WASI,
//!   `std::os::wasi::fs::FileExt` is nightly-only (`wasi_ext`), so we call the
//!   POSIX `pread`/`pwrite` that wasi-libc (linked into every Rust WASI
//!   program) exports, on the fd from the stable `std::os::fd::AsRawFd`. On
//!   wasip1 these lower to `fd_pread`/`fd_pwrite`; on wasip2 to the
//!   positional `descriptor.read`/`descriptor.write` (via wasi-libc or the
//!   preview1 adapter). Like native pread, they do not move the file cursor.
//! * Symlinks: natively `std::os::unix::fs::symlink`. On WASI,
//!   `std::os::wasi::fs::symlink_path` is nightly-only, but the deprecated yet
//!   stable `std::fs::soft_link` works on WASI (it is std's generic symlink).

use std::fs::File;
use std::io;
use std::path::Path;

#[cfg(unix)]
pub fn pread(f: &File, buf: &mut [u8], off: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, off)
}

#[cfg(unix)]
pub fn pwrite(f: &File, buf: &[u8], off: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::write_at(f, buf, off)
}

#[cfg(target_os = "wasi")]
mod wasi_libc {
    unsafe extern "C" {
        // wasi-libc: ssize_t pread(int, void *, size_t, off_t) with off_t = long long.
        pub fn pread(fd: i32, buf: *mut u8, n: usize, off: i64) -> isize;
        pub fn pwrite(fd: i32, buf: *const u8, n: usize, off: i64) -> isize;
    }
}

#[cfg(target_os = "wasi")]
pub fn pread(f: &File, buf: &mut [u8], off: u64) -> io::Result<usize> {
    use std::os::fd::AsRawFd;
    let off = i64::try_from(off).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: buf is a valid writable slice of buf.len() bytes; fd is owned by `f`.
    let r = unsafe { wasi_libc::pread(f.as_raw_fd(), buf.as_mut_ptr(), buf.len(), off) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

#[cfg(target_os = "wasi")]
pub fn pwrite(f: &File, buf: &[u8], off: u64) -> io::Result<usize> {
    use std::os::fd::AsRawFd;
    let off = i64::try_from(off).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: buf is a valid readable slice of buf.len() bytes; fd is owned by `f`.
    let r = unsafe { wasi_libc::pwrite(f.as_raw_fd(), buf.as_ptr(), buf.len(), off) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

#[cfg(not(any(unix, target_os = "wasi")))]
pub fn pread(_f: &File, _buf: &mut [u8], _off: u64) -> io::Result<usize> {
    Err(io::ErrorKind::Unsupported.into())
}

#[cfg(not(any(unix, target_os = "wasi")))]
pub fn pwrite(_f: &File, _buf: &[u8], _off: u64) -> io::Result<usize> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Whether this target has a stable symlink-creation API.
pub const HAS_SYMLINK: bool = cfg!(any(unix, target_os = "wasi"));

/// Create a symlink at `link` whose target text is `target`.
pub fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(target_os = "wasi")]
    {
        #[allow(deprecated)]
        std::fs::soft_link(target, link)
    }
    #[cfg(not(any(unix, target_os = "wasi")))]
    {
        let _ = (target, link);
        Err(io::ErrorKind::Unsupported.into())
    }
}

/// Full positional read (loops on short reads) of `len` bytes at `off`.
pub fn pread_exact(f: &File, len: usize, off: u64) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len];
    let mut done = 0;
    while done < len {
        let n = pread(f, &mut buf[done..], off + done as u64)?;
        if n == 0 {
            break;
        }
        done += n;
    }
    buf.truncate(done);
    Ok(buf)
}

/// Full positional write (loops on short writes).
pub fn pwrite_all(f: &File, data: &[u8], off: u64) -> io::Result<()> {
    let mut done = 0;
    while done < data.len() {
        let n = pwrite(f, &data[done..], off + done as u64)?;
        if n == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        done += n;
    }
    Ok(())
}
