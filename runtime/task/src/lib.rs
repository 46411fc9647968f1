//! clawrun-task: Claw-Eval's `task.yaml` — the model, the loader and validation with precise
//! errors (ARCHITECTURE.md §2 step 1), plus clawrun's extensions.
//!
//! - [`model`]: [`Task`] and its parts; [`check`]: the [`Check`] catalog; [`oracle`]: reference
//!   steps; [`user_script`]: the scripted simulated user; [`service`]: `services:` and
//!   `tool_endpoints:` entries (shared with `clawrun::services`); [`yaml`]: the positioned node
//!   tree (shared with `clawrun::faults`).
//! - [`Task::from_yaml`] reads text: YAML syntax, typed reading (scalars as their source text,
//!   unknown fields as warnings), then validation. [`Suite`] finds and loads task folders
//!   through a `cap_std` capability, checks every file a task references, hashes them, and
//!   reads them for Setup and Judge. A `clawrun.yaml` [`sidecar`] next to a task.yaml holds
//!   clawrun's extensions, so Claw-Eval's task.yaml stays byte-identical.
//! - Every problem is a [`Diagnostic`]:
//!   `tasks/T002/task.yaml:12:5: scoring_components[0].check.min_calls: expected an integer, found "two" (hint: ...)`.
//!
//! See `README.md` in this crate for the extension formats.

#![warn(missing_docs)]

pub mod bounds;
pub mod check;
mod check_read;
pub mod epoch;
pub mod error;
pub mod ids;
pub mod load;
pub mod loaded;
pub mod model;
mod model_read;
pub mod oracle;
pub mod paths;
mod read;
mod refs;
pub mod service;
pub mod sidecar;
mod source;
pub mod suite;
pub mod user_script;
mod validate;
pub mod yaml;

pub use check::{Check, EvidenceSource, Matcher, NumberSource, RowSelector, TextField};
pub use epoch::{DEFAULT_EPOCH, EpochError, parse_epoch};
pub use error::{Diagnostic, Error, FileError, FileProblem, Severity};
pub use ids::{MAX_TASK_ID_LEN, task_id_problem};
pub use load::{Parsed, node_at, parse_yaml};
pub use loaded::LoadedTask;
pub use model::{
    Environment, ExpectedAction, Group, Prompt, RubricItem, SafetyCheck, SafetyKind,
    ScoringComponent, SystemTool, Task, TaskLimits, TaskTool, UserAgent,
};
pub use oracle::{Oracle, OracleCall, OracleStep};
pub use read::did_you_mean;
pub use refs::{MissingFile, is_path_var};
pub use service::{ServiceSpec, TaskServices, ToolEndpoint};
pub use sidecar::{SIDECAR_FIELDS, SIDECAR_FILE, Sidecar};
pub use suite::{Selection, Suite, TASK_FILE};
pub use user_script::{ScriptedReply, ScriptedUser, UserRule, UserScript};
