//! The media tool: `ReadMedia` on videos (Claw-Eval's semantics, [`readmedia`]), `ffprobe`
//! and an `ffmpeg` subset ([`commands`]), decoding inside the sandbox with FFmpeg's libraries
//! built for WASI ([`ff`]).
//!
//! One component serves them all: with no arguments it is the `ReadMedia` tool of
//! `guest_tools/PROTOCOL.md` (JSON request on stdin, response on stdout); with arguments
//! `ffprobe ...` or `ffmpeg ...` it is that command (its output on stdout/stderr, its exit
//! status); `readmedia JSON` prints the server's answer with the frames as PNG in base64.
//! The command-line parsing, the probe writers and ReadMedia's rules build natively (their
//! unit tests); the decoding builds for wasm32 only.

#![warn(missing_docs)]

pub mod cli;
pub mod encode;
pub mod limits;
pub mod probe;
pub mod pyjson;
pub mod readmedia;
pub mod sync;
pub mod time;

#[cfg(target_family = "wasm")]
pub mod commands;
#[cfg(target_family = "wasm")]
pub mod extract;
#[cfg(target_family = "wasm")]
pub mod ff;
