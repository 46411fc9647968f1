//! Seeded fault injection at the host-call boundary (ARCHITECTURE.md §6).
//!
//! - [`point`]: where — `service:<name><endpoint>`, `http:<host><path>`, `tool:<Name>`,
//!   `fs:<op>:<path>` — and the [`Call`] the injector is asked about.
//! - [`kind`]: what — 429/500/503, timeout, connection reset, latency (virtual), truncated or
//!   malformed body, prompt injection, duplicated or reordered records, EIO/ENOSPC/EACCES,
//!   short write; [`response`]: their bytes on the wire; [`content`]: the injection corpus and
//!   the record edits.
//! - [`rule`]: point globs, request filters, weighted kinds, probability or exact calls,
//!   `max_count`; [`plan`]: ordered rules plus a seed, first matching rule that fires wins.
//! - [`decide`]: every decision is a pure function of (seed, rule index, point, the point's
//!   call counter), through blake3; no RNG state, so a replay injects the same faults.
//! - [`injector`]: the counters, `max_count`, the virtual clock and the [`FaultEvent`]s;
//!   [`fs`]: the shared handle that is also the sandbox's filesystem fault hook; [`http`]:
//!   faults on guests' outgoing HTTP, in front of the router that answers.
//! - [`preset`]: `claw-eval`, Claw-Eval's error-injection middleware.
//! - [`spec`] / [`load`]: plans from a task's `faults:` section, plan files and `--faults`,
//!   with errors naming file, field path and line:column ([`PlanError`]).

#![deny(missing_docs)]
// A plan error is the task loader's `Diagnostic` by value (file, field, message, hint: past
// clippy's 128-byte mark), returned once per plan on a cold path; boxing it would only make
// callers unwrap it.
#![allow(clippy::result_large_err)]

pub mod content;
pub mod decide;
pub mod error;
pub mod fs;
pub mod http;
pub mod injector;
pub mod kind;
pub mod load;
pub mod plan;
pub mod point;
pub mod preset;
pub mod response;
pub mod rule;
pub mod spec;
pub mod yaml;

pub use self::decide::trial_seed;
pub use self::error::{PlanError, Pos};
pub use self::fs::SharedInjector;
pub use self::http::FaultyRouter;
pub use self::injector::{FaultEvent, FaultInjector};
pub use self::kind::{FaultKind, KindSpec};
pub use self::load::{plan_from_cli, plan_from_file, plan_from_yaml};
pub use self::plan::{Fault, FaultPlan};
pub use self::point::{Call, Category};
pub use self::response::InjectedResponse;
pub use self::rule::{Rule, RuleError, Trigger};
pub use self::spec::{FaultsSection, PlanOptions, PlanSource};
