//! Captured stdout / stderr with a cap: past the cap bytes are counted, not kept, and the
//! captured text ends with a marker saying how much was cut. The guest never sees an error.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi_io::poll::Pollable;
use wasmtime_wasi_io::streams::{OutputStream, StreamError};

/// Largest write permit handed to the guest at once.
const PERMIT: usize = 64 * 1024;

/// Which of a program's two output streams a write went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// The order in which a program's kept output reached its two streams, as runs of (stream,
/// bytes): what lets a caller that merges them (`2>&1`) interleave them as a pipe would.
#[derive(Clone, Debug, Default)]
pub struct WriteOrder(Arc<Mutex<Vec<(Stream, u64)>>>);

impl WriteOrder {
    fn record(&self, stream: Stream, bytes: u64) {
        let mut runs = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match runs.last_mut() {
            Some((last, n)) if *last == stream => *n += bytes,
            _ => runs.push((stream, bytes)),
        }
    }

    /// The runs so far.
    pub fn runs(&self) -> Vec<(Stream, u64)> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// An in-memory output pipe that keeps at most `cap` bytes.
#[derive(Clone, Debug)]
pub struct CappedOutput {
    inner: Arc<Mutex<Captured>>,
    order: Option<(WriteOrder, Stream)>,
}

#[derive(Debug)]
struct Captured {
    data: Vec<u8>,
    cap: usize,
    cut: u64,
}

impl CappedOutput {
    /// A pipe keeping at most `cap` bytes.
    pub fn new(cap: usize) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Captured {
                data: Vec::new(),
                cap,
                cut: 0,
            })),
            order: None,
        }
    }

    /// A pipe keeping at most `cap` bytes that records its kept writes as `stream` in `order`.
    pub fn with_order(cap: usize, order: &WriteOrder, stream: Stream) -> Self {
        Self {
            order: Some((order.clone(), stream)),
            ..Self::new(cap)
        }
    }

    fn push(&self, bytes: &[u8]) {
        let mut c = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let room = c.cap.saturating_sub(c.data.len());
        let keep = room.min(bytes.len());
        c.data.extend_from_slice(&bytes[..keep]);
        c.cut += (bytes.len() - keep) as u64;
        if let Some((order, stream)) = &self.order
            && keep > 0
        {
            order.record(*stream, keep as u64);
        }
    }

    /// Bytes that did not fit under the cap.
    pub fn cut_bytes(&self) -> u64 {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).cut
    }

    /// The captured bytes, followed by a truncation marker if anything was cut.
    pub fn contents(&self) -> Vec<u8> {
        let c = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = c.data.clone();
        if c.cut > 0 {
            if out.last().is_some_and(|&b| b != b'\n') {
                out.push(b'\n');
            }
            out.extend_from_slice(
                format!("[clawrun: output truncated, {} more bytes cut]\n", c.cut).as_bytes(),
            );
        }
        out
    }
}

impl IsTerminal for CappedOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CappedOutput {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn tokio::io::AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

#[async_trait::async_trait]
impl Pollable for CappedOutput {
    async fn ready(&mut self) {}
}

#[async_trait::async_trait]
impl OutputStream for CappedOutput {
    fn write(&mut self, bytes: Bytes) -> Result<(), StreamError> {
        self.push(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), StreamError> {
        Ok(())
    }

    fn check_write(&mut self) -> Result<usize, StreamError> {
        Ok(PERMIT)
    }
}

impl tokio::io::AsyncWrite for CappedOutput {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.push(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::{CappedOutput, Stream, WriteOrder};

    #[test]
    fn the_order_of_kept_writes_is_recorded_in_runs() {
        let order = WriteOrder::default();
        let out = CappedOutput::with_order(6, &order, Stream::Stdout);
        let err = CappedOutput::with_order(100, &order, Stream::Stderr);
        out.push(b"ab");
        out.push(b"c");
        err.push(b"oops\n");
        out.push(b"defgh"); // only "def" fits
        out.push(b"ij"); // cut entirely: not a run
        err.push(b"!");
        assert_eq!(
            order.runs(),
            vec![
                (Stream::Stdout, 3),
                (Stream::Stderr, 5),
                (Stream::Stdout, 3),
                (Stream::Stderr, 1)
            ]
        );
    }

    #[test]
    fn keeps_cap_and_marks_the_cut() {
        let out = CappedOutput::new(4);
        out.push(b"abcdef");
        out.push(b"gh");
        assert_eq!(out.cut_bytes(), 4);
        assert_eq!(
            String::from_utf8(out.contents()).unwrap(),
            "abcd\n[clawrun: output truncated, 4 more bytes cut]\n"
        );
        let small = CappedOutput::new(10);
        small.push(b"hi\n");
        assert_eq!(small.contents(), b"hi\n");
    }
}
