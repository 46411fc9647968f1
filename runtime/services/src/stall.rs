//! A connection that fails with `TimedOut` once it has made no progress (no byte read or
//! written) for a while, so a client that goes quiet cannot hold a connection forever.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// `inner`, failing any read or write that has waited `limit` since the last progress.
pub struct StallTimeout<S> {
    inner: S,
    limit: Duration,
    sleep: Pin<Box<Sleep>>,
    armed: bool,
}

impl<S> StallTimeout<S> {
    /// Wraps `inner`; a stall of `limit` ends it.
    pub fn new(inner: S, limit: Duration) -> Self {
        Self {
            inner,
            limit,
            sleep: Box::pin(tokio::time::sleep(limit)),
            armed: false,
        }
    }

    /// The inner operation is pending: start the stall clock if it is not running, and fail
    /// once it has run out.
    fn stalled<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        if !self.armed {
            self.sleep.as_mut().reset(Instant::now() + self.limit);
            self.armed = true;
        }
        match self.sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "connection stalled",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// The inner operation finished: progress (or an error) stops the stall clock.
    fn progressed<T>(&mut self, result: T) -> Poll<T> {
        self.armed = false;
        Poll::Ready(result)
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for StallTimeout<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.stalled(cx),
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for StallTimeout<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.stalled(cx),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.stalled(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_shutdown(cx) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.stalled(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(r) => this.progressed(r),
            Poll::Pending => this.stalled(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn a_quiet_peer_times_out_and_data_is_passed_through() {
        let (a, mut b) = tokio::io::duplex(64);
        let mut a = StallTimeout::new(a, Duration::from_millis(50));
        b.write_all(b"xy").await.unwrap();
        let mut buf = [0u8; 8];
        assert_eq!(a.read(&mut buf).await.unwrap(), 2);
        assert_eq!(&buf[..2], b"xy");
        // Then silence: the read fails with TimedOut (however long that takes).
        let err = a.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
    }
}
