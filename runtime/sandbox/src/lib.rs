//! The sandbox: one wasmtime engine per process running WASI programs over the VFS.
//!
//! Components are compiled once (cached on disk, see [`cache`]) and pre-instantiated; each run
//! gets a fresh store with its own VFS view, capped stdio, virtual clocks, seeded random, fuel
//! and a memory limit. Sockets are denied and outgoing HTTP goes to an in-process router
//! ([`http`]); the filesystem and monotonic clock are our own hosts
//! shadowing wasmtime-wasi's (see [`fs`] and [`clock`]). wasip1 command modules run on our own
//! preview 1 host (`p1`), which translates each call into calls on those hosts.

#![deny(missing_docs)]

pub mod cache;
pub mod clock;
mod compile_notice;
pub mod door;
pub mod error;
pub mod fs;
pub mod http;
pub mod media;
pub mod output;
pub(crate) mod p1;
pub mod process;
pub mod program;
pub mod python;
pub mod random;
/// The filesystem fault hook (from `clawrun-hostcall`).
pub use clawrun_hostcall::fault;
mod run;
mod state;
pub mod tools;

pub(crate) use self::run::{prepare_store, start_epoch_ticker};
pub(crate) use self::state::StoreData;

pub use self::error::SandboxError;
pub use self::run::{
    DEFAULT_DEADLINE, DEFAULT_FUEL, DEFAULT_MAX_MEMORY, DEFAULT_OUTPUT_CAP, Mount, Program,
    RunConfig, RunOutcome, Sandbox, SandboxConfig, Status, backstop_override, trial_backstop,
};
