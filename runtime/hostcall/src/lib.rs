//! The host-call vocabulary of clawrun's sandbox (ARCHITECTURE.md §1, §4, §6): what the fault
//! injector and the mock services need to meet a guest at the host-call boundary, without
//! wasmtime.
//!
//! - [`fault`]: the filesystem fault hook every `wasi:filesystem` host call asks first.
//! - [`http`]: a guest's outgoing HTTP request, fully buffered, and the in-process
//!   [`http::HttpRouter`] that answers it.
//! - [`clock`]: the [`clock::VirtualClock`], time that only moves when a guest sleeps or the
//!   host advances it.
//!
//! The sandbox (root crate, `sandbox/`) implements wasmtime's and WASI's traits over these
//! types; `clawrun-faults` and `clawrun-services` depend on this crate only, so they build and
//! test without wasmtime.

#![deny(missing_docs)]

pub mod clock;
pub mod fault;
pub mod http;
