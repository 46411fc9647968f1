//! `wasi:io` streams over VFS files: the hot path of `std::fs` guests.
//!
//! Reads see the file as it is at each read (other handles' writes included). Every read and
//! every write permit goes through the fault hook.

use bytes::Bytes;
use clawrun_vfs::Ino;
use wasmtime_wasi_io::poll::Pollable;
use wasmtime_wasi_io::streams::{InputStream, OutputStream, StreamError};

use super::error::StreamFsError;
use super::{ErrorCode, SharedFs};
use crate::fault::{FsFault, FsOp};

/// Largest chunk handed out per read, and the write permit (as wasmtime-wasi does).
const IO_CHUNK: usize = 64 * 1024;

fn failed(code: ErrorCode) -> StreamError {
    StreamError::LastOperationFailed(wasmtime::Error::new(StreamFsError(code)))
}

/// A guest's reading stream over a file.
pub struct FileInputStream {
    fs: SharedFs,
    ino: Ino,
    position: u64,
    path: String,
}

impl FileInputStream {
    /// Reads `ino` from `position`; `path` names it for the fault hook.
    pub fn new(fs: SharedFs, ino: Ino, position: u64, path: String) -> Self {
        fs.lock().vfs.retain(ino);
        Self {
            fs,
            ino,
            position,
            path,
        }
    }
}

impl Drop for FileInputStream {
    fn drop(&mut self) {
        self.fs.lock().vfs.release(self.ino);
    }
}

#[async_trait::async_trait]
impl Pollable for FileInputStream {
    async fn ready(&mut self) {}
}

#[async_trait::async_trait]
impl InputStream for FileInputStream {
    fn read(&mut self, size: usize) -> Result<Bytes, StreamError> {
        let mut state = self.fs.lock();
        state.enter(FsOp::Read, &self.path).map_err(failed)?;
        let data = state
            .vfs
            .read_to_vec(self.ino, self.position, size.min(IO_CHUNK))
            .map_err(|e| failed(e.into()))?;
        if data.is_empty() && size > 0 {
            return Err(StreamError::Closed);
        }
        self.position += data.len() as u64;
        Ok(Bytes::from(data))
    }

    fn skip(&mut self, nelem: usize) -> Result<usize, StreamError> {
        let mut state = self.fs.lock();
        state.enter(FsOp::Read, &self.path).map_err(failed)?;
        let len = state
            .vfs
            .metadata(self.ino)
            .map_err(|e| failed(e.into()))?
            .size;
        let n = len.saturating_sub(self.position).min(nelem as u64);
        if n == 0 && nelem > 0 {
            return Err(StreamError::Closed);
        }
        self.position += n;
        Ok(n as usize)
    }
}

/// A guest's writing stream over a file (at a position, or appending).
pub struct FileOutputStream {
    fs: SharedFs,
    ino: Ino,
    position: u64,
    append: bool,
    path: String,
    permit: usize,
}

impl FileOutputStream {
    /// Writes `ino` from `position`, or at its end when `append` is set.
    pub fn new(fs: SharedFs, ino: Ino, position: u64, append: bool, path: String) -> Self {
        fs.lock().vfs.retain(ino);
        Self {
            fs,
            ino,
            position,
            append,
            path,
            permit: IO_CHUNK,
        }
    }
}

impl Drop for FileOutputStream {
    fn drop(&mut self) {
        self.fs.lock().vfs.release(self.ino);
    }
}

#[async_trait::async_trait]
impl Pollable for FileOutputStream {
    async fn ready(&mut self) {}
}

#[async_trait::async_trait]
impl OutputStream for FileOutputStream {
    fn write(&mut self, bytes: Bytes) -> Result<(), StreamError> {
        if bytes.len() > self.permit {
            return Err(StreamError::trap("write beyond the permit of check-write"));
        }
        let mut state = self.fs.lock();
        if self.append {
            let len = state
                .vfs
                .append(self.ino, &bytes)
                .map_err(|e| failed(e.into()))?;
            self.position = len;
        } else {
            state
                .vfs
                .write(self.ino, self.position, &bytes)
                .map_err(|e| failed(e.into()))?;
            self.position += bytes.len() as u64;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StreamError> {
        Ok(())
    }

    fn check_write(&mut self) -> Result<usize, StreamError> {
        let mut state = self.fs.lock();
        self.permit = match state.enter(FsOp::Write, &self.path).map_err(failed)? {
            Some(FsFault::ShortWrite { max_bytes }) => max_bytes.clamp(1, IO_CHUNK),
            _ => IO_CHUNK,
        };
        Ok(self.permit)
    }
}
