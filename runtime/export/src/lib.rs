//! clawrun runs in the tools evaluators already use (ARCHITECTURE.md §1; README "Exporting
//! runs"): one run — its shards and resumed sessions merged, the latest record of each trial —
//! written as
//!
//! - [`inspect`]: an Inspect AI log (`.eval`, a zip) with one sample per task and an epoch
//!   per trial;
//! - [`atif`]: Harbor's Agent Trajectory Interchange Format, one trajectory per trial;
//! - [`otel`]: OTLP/JSON spans following the OpenTelemetry GenAI semantic conventions, a trace
//!   per trial ([`otel::send_all`] posts them to a collector).
//!
//! [`ExportRun::load`] reads the run folders; [`trial::TrialTrace`] walks one trace into the
//! steps every format maps. Exports depend only on the run's files: no clock, no hash-map
//! order, no host path, so the same run exported twice is byte-identical.

#![deny(missing_docs)]

pub mod atif;
pub mod error;
pub mod inspect;
pub mod otel;
pub mod run;
pub mod time;
pub mod trial;

pub use self::error::ExportError;
pub use self::run::{ExportRun, Trial};
