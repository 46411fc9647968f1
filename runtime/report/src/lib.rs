//! Reports for clawrun runs (ARCHITECTURE.md §8–9): read `journal.jsonl` records (from one run or
//! several shards), compute per-task, per-category, per-group and overall figures — mean
//! score, unbiased Pass@k, Pass^k both ways, flip rate, bootstrap intervals over tasks — and
//! render them as a terminal table, JSON, Markdown or a self-contained HTML page with a trial
//! viewer.
//!
//! - [`compare`]: [`Comparison`], runs of different agents or settings side by side.
//! - [`prices`]: [`Prices`], the price table for costs; [`timing`]: wall times.
//! - [`header`]: [`RunHeader`], each run folder's settings for the report's header.
//! - [`record`]: one journal line ([`TrialRecord`]) and [`read_journal`].
//! - [`run_folder`]: a run folder's journals, latest records, timings, manifests and arms.
//! - [`stats`]: the estimators and the seeded bootstrap.
//! - [`summary`]: [`Summary::from_records`] and its parts.
//! - [`trace_file`]: where a trial's trace is in its run folder ([`TraceSpan`]) and reading it.
//! - [`view`]: [`TrialView`], what the HTML viewer shows for one trial.
//! - [`render`]: the output formats.
//!
//! Outputs depend only on their input: no clock, no hash-map order, fixed bootstrap seed.

#![warn(missing_docs)]

pub mod compare;
pub mod error;
pub mod header;
pub mod journal_lines;
pub mod prices;
pub mod record;
pub mod render;
pub mod run_folder;
pub mod stats;
pub mod summary;
pub mod timing;
pub mod trace_file;
pub mod view;

pub use self::compare::{ArmInput, Comparison};
pub use self::error::ReportError;
pub use self::header::RunHeader;
pub use self::journal_lines::{Damage, JournalLines};
pub use self::prices::Prices;
pub use self::record::{
    Group, JournalReader, Judgement, Sourced, Status, TrialRecord, read_journal,
};
pub use self::render::html::viewer::trial_script;
pub use self::render::html::{render_comparison_html, render_html};
pub use self::render::json::{
    render_comparison_json, render_json, write_comparison_json, write_json,
};
pub use self::render::markdown::{render_comparison_markdown, render_markdown};
pub use self::render::text::{render_comparison_text, render_text, render_text_width};
pub use self::run_folder::{Arm, RunFolderError, Warning};
pub use self::summary::{Aggregate, Estimate, Inputs, Summary, TaskSummary, Totals, TrialRows};
pub use self::timing::{TimingLine, Timings};
pub use self::trace_file::TraceSpan;
pub use self::view::TrialView;
