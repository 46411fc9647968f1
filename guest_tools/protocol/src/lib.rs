//! Host <-> tool contract for clawrun guest tools (see `guest_tools/PROTOCOL.md`).
//!
//! A tool is a WASI command: it reads one JSON request envelope from stdin, runs, and writes one
//! JSON response envelope to stdout. This crate owns everything that is the same for every tool:
//!
//! - [`envelope`]: the request/response types and the [`run`] / [`run_mut`] entry points, so a
//!   tool's `main.rs` is one line;
//! - [`image`]: images a tool returns next to its text, base64-encoded;
//! - [`args`]: typed argument parsing with error messages that name the offending field;
//! - [`lenient`]: `deserialize_with` helpers that accept the loose JSON models actually send;
//! - [`path`]: resolving tool paths against `state.cwd`;
//! - [`output`]: the 30,000-character output cap;
//! - [`text`], [`fsutil`], [`walk`]: helpers shared by the file tools (binary detection,
//!   `cat -n` formatting, stable I/O error messages, deterministic directory walking).

#![warn(missing_docs)]

pub mod args;
pub mod envelope;
pub mod fsutil;
pub mod image;
pub mod lenient;
pub mod output;
pub mod path;
pub mod text;
pub mod walk;

pub use args::parse_args;
pub use envelope::{Request, Response, State, handle, handle_mut, run, run_mut};
pub use image::{Image, Output};
pub use output::{MAX_OUTPUT_CHARS, exit_line, truncate_counted, truncate_output};
pub use path::{ToolPath, normalize_lexically};
