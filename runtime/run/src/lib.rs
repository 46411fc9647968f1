//! Runs (ARCHITECTURE.md §9): tasks × trials on a worker pool, each finished trial appended to an
//! journal synced in groups, traces in one pack per worker, `--resume`, `--shard`, and the report at the end.
//!
//! - [`agent_spec`]: `--agent` and how an agent is built per trial.
//! - [`claw_eval_media`]: `clawrun setup claw-eval-media`: a checkout's files that Claw-Eval
//!   keeps in its Hugging Face dataset, downloaded (resumable, verified by hash).
//! - [`completeness`]: whether a run folder holds every trial (each shard) it was asked for.
//! - [`crash`]: the crash-safety tests' hooks (crash points, a log of syncs).
//! - [`journal`]: `journal.jsonl`: what a crash damaged is named, set aside, run again.
//! - [`lock`]: one writer per run folder (or shard).
//! - [`manifest`]: `run.json`, what a run was asked.
//! - [`model_settings`]: `--model-config` and the agent's model flags.
//! - [`preflight`]: the checks before a run folder is made (files, keys, a probe request).
//! - [`rejudge`]: `clawrun judge`, a finished run judged again from its traces.
//! - [`resume`]: the configuration check of `--resume`, and which trials are finished.
//! - [`selection`]: `--limit`, `--tags`, `--category`, `--group`, `--exclude`.
//! - [`shard`]: the deterministic (task, trial) split.
//! - [`status`]: what a task needs to run (runnable, needs-judge, needs-user-model,
//!   needs-web, needs-fixtures, unsupported), from the task alone.
//! - [`runner`]: the pool of workers, the journal writer, records.
//! - [`progress`]: what a run tells whoever watches it (the CLI's bar and notices).
//! - [`interrupt`]: Ctrl-C: finish the trials in flight, then stop.
//! - [`timings`]: `timings.jsonl`, wall times kept out of traces and journals.
//! - [`trace_pack`]: `traces/W.jsonl`, each worker's traces, one span per trial.
//! - [`trial_record`]: one trial end to end (run, judge, files, record).

#![deny(missing_docs)]

pub mod agent_spec;
pub mod claw_eval_media;
pub mod completeness;
pub mod crash;
pub mod interrupt;
pub mod journal;
pub mod lock;
pub mod manifest;
pub mod model_settings;
pub mod preflight;
pub mod progress;
pub mod rejudge;
pub mod resume;
pub mod runner;
pub mod selection;
pub mod shard;
pub mod status;
pub mod timings;
pub mod trace_pack;
pub mod trial_record;

pub use self::agent_spec::AgentSpec;
pub use self::runner::{RunOptions, RunResult, run};
pub use self::shard::{Shard, ShardError};
