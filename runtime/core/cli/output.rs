//! Standard output for the commands, so that a reader that goes away early
//! (`clawrun list | head -1`) ends the command quietly.
//!
//! Rust ignores SIGPIPE, so writing to a closed pipe fails with EPIPE, and `println!` panics on
//! it. Commands print through [`outln!`](crate::cli::output::outln) and
//! [`out!`](crate::cli::output::out), which turn EPIPE on stdout into [`StdoutClosed`];
//! [`crate::cli::main`] then exits with status 0 and prints nothing, as ripgrep does. (We do not
//! restore SIGPIPE's default action, coreutils' way of dying by the signal: clawrun also writes to
//! pipes and sockets of its own — services, model APIs, guests — where a vanished peer is an
//! error to handle, not a reason to die. Only stdout going away is quiet; every other broken
//! pipe stays an error.)

use std::fmt;
use std::io::{self, Write};

/// Standard output was closed by its reader: the command stops quietly (exit status 0).
#[derive(Debug)]
pub struct StdoutClosed;

impl fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("standard output was closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// A failed write to stdout as the command's error: [`StdoutClosed`] for a broken pipe.
fn stdout_error(e: io::Error) -> anyhow::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        anyhow::Error::new(StdoutClosed)
    } else {
        anyhow::Error::new(e).context("writing to standard output")
    }
}

/// Writes `args` to stdout (what [`out!`] expands to).
pub fn write_fmt(args: fmt::Arguments<'_>) -> anyhow::Result<()> {
    io::stdout().lock().write_fmt(args).map_err(stdout_error)
}

/// Writes `bytes` to stdout and flushes.
pub fn write_bytes(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

/// Writes to stdout with `write` (through the locked handle) and flushes.
pub fn write_with(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(stdout_error)
}

/// Flushes stdout.
pub fn flush() -> anyhow::Result<()> {
    io::stdout().lock().flush().map_err(stdout_error)
}

/// Writes a line to stderr; a closed stderr is ignored (diagnostics must not panic either).
pub fn error_line(args: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

/// Like `print!`, returning `anyhow::Result<()>` ([`StdoutClosed`] when the reader went away).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::output::write_fmt(format_args!($($arg)*))
    };
}

/// Like `println!`, returning `anyhow::Result<()>` ([`StdoutClosed`] when the reader went
/// away).
macro_rules! outln {
    () => {
        $crate::cli::output::write_fmt(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::output::write_fmt(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};
