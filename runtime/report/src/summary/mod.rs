//! The [`Summary`] of a run (or of several shards' journals): per task, per category, per
//! group and overall.
//!
//! - [`merge`]: combining records, duplicates and consistency checks.
//! - [`task`]: one task's figures.
//! - [`aggregate`]: figures over a set of tasks with bootstrap intervals.
//! - [`totals`]: tokens, wall time and cost.

pub mod aggregate;
pub mod graders;
pub mod merge;
pub mod task;
pub mod totals;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::ReportError;
use crate::header::RunHeader;
use crate::prices::Prices;
use crate::record::{Group, Sourced};
use crate::stats::{BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED};
use crate::timing::Timings;

pub use self::aggregate::{Aggregate, Estimate};
pub use self::graders::{Disagreement, GraderAgreement};
pub use self::task::{TaskSummary, TrialScore};
pub use self::totals::{Totals, TotalsSum};

/// What a summary reads besides the journal records, and which per-trial rows it keeps.
#[derive(Clone, Debug, Default)]
pub struct Inputs<'a> {
    /// The runs' wall times (`timings.jsonl`), empty when none were recorded.
    pub timings: Timings,
    /// The price table, when the user gave one.
    pub prices: Option<&'a Prices>,
    /// The scored trials each task lists in [`TaskSummary::trials`].
    pub trial_rows: TrialRows,
}

/// Which scored trials a task's summary lists ([`TaskSummary::trials`]); every figure is
/// computed over all of them either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TrialRows {
    /// Every one (the JSON report): memory grows with the run, ~80 bytes per trial.
    #[default]
    All,
    /// The first `n` in trial order (the text, Markdown and HTML reports show 24): memory
    /// independent of the run's length.
    First(usize),
}

/// How the intervals were computed (reported alongside them).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BootstrapInfo {
    /// Resamples per interval.
    pub resamples: usize,
    /// The PRNG seed.
    pub seed: u64,
    /// The interval's coverage.
    pub level: f64,
}

/// Everything a report shows, built from journal records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The k of Pass@k and Pass^k.
    pub k: u32,
    /// How the intervals were computed.
    pub bootstrap: BootstrapInfo,
    /// The agents seen, sorted.
    pub agents: Vec<String>,
    /// Per task, sorted by task id.
    pub tasks: Vec<TaskSummary>,
    /// Per category, sorted by name.
    pub categories: Vec<Aggregate>,
    /// Per group, in group order (general, multimodal, multi-turn).
    pub groups: Vec<Aggregate>,
    /// Over every task.
    pub overall: Aggregate,
    /// Wall-clock milliseconds of the runs' `clawrun run` sessions, summed (`None` when none
    /// were recorded). Shards that ran at once add up, so this is machine time.
    pub run_wall_ms: Option<u64>,
    /// The `clawrun run` sessions recorded.
    pub sessions: u32,
    /// Whether a price table was given (costs are shown only then).
    pub priced: bool,
    /// Claw-Eval's grader against clawrun's rubric, when trials were graded both ways
    /// (`--grader both`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub graders: Option<GraderAgreement>,
    /// One header per run folder (set by the caller; empty from [`Summary::from_records`]).
    /// Shown by the text, Markdown and HTML outputs; the JSON names their folders only.
    #[serde(skip)]
    pub runs: Vec<RunHeader>,
}

impl Summary {
    /// Builds the summary of `records` (from one or more journals; see [`merge::merge`] for
    /// how duplicates are treated). `k` defaults to the largest number of scored trials any
    /// task has (at least 1); tasks with fewer than k scored trials have no Pass@k figures.
    pub fn from_records(
        records: impl IntoIterator<Item = Sourced>,
        k: Option<u32>,
    ) -> Result<Summary, ReportError> {
        Summary::from_records_with(records, k, &Inputs::default())
    }

    /// [`Summary::from_records`] with wall times and a price table.
    pub fn from_records_with(
        records: impl IntoIterator<Item = Sourced>,
        k: Option<u32>,
        inputs: &Inputs<'_>,
    ) -> Result<Summary, ReportError> {
        if k == Some(0) {
            return Err(ReportError::InvalidK);
        }
        let merge::Merged {
            tasks: merged,
            agents,
            ..
        } = merge::merge(records, inputs)?;
        let k = k.unwrap_or_else(|| default_k(&merged));
        let tasks: Vec<TaskSummary> = merged
            .iter()
            .map(|(id, recs)| TaskSummary::build(id, recs, k))
            .collect();
        let mut by_category: BTreeMap<&str, Vec<&TaskSummary>> = BTreeMap::new();
        let mut by_group: BTreeMap<Group, Vec<&TaskSummary>> = BTreeMap::new();
        for t in &tasks {
            by_category.entry(&t.category).or_default().push(t);
            by_group.entry(t.group).or_default().push(t);
        }
        let categories = by_category
            .iter()
            .map(|(name, ts)| Aggregate::of(name, ts))
            .collect();
        let groups = by_group
            .iter()
            .map(|(g, ts)| Aggregate::of(g.as_str(), ts))
            .collect();
        let overall = Aggregate::of("overall", &tasks.iter().collect::<Vec<_>>());
        let graders = GraderAgreement::of(merged.values());
        Ok(Summary {
            k,
            bootstrap: BootstrapInfo {
                resamples: BOOTSTRAP_RESAMPLES,
                seed: BOOTSTRAP_SEED,
                level: 0.95,
            },
            agents: agents.into_iter().collect(),
            tasks,
            categories,
            groups,
            overall,
            run_wall_ms: (inputs.timings.sessions > 0).then_some(inputs.timings.session_ms),
            sessions: inputs.timings.sessions,
            priced: inputs.prices.is_some(),
            graders,
            runs: Vec::new(),
        })
    }

    /// The k a summary of `records` gets when none is given: the largest number of counted
    /// trials any task has (at least 1).
    pub fn default_k(records: impl IntoIterator<Item = Sourced>) -> Result<u32, ReportError> {
        let inputs = Inputs {
            trial_rows: TrialRows::First(0),
            ..Inputs::default()
        };
        Ok(default_k(&merge::merge(records, &inputs)?.tasks))
    }

    /// The note on trials a judge model is needed for, when any scored trial could not be
    /// scored fully: what was not measured, and the command that measures it.
    pub fn unjudged_banner(&self) -> Option<String> {
        let o = &self.overall;
        if o.unjudged_trials + o.partly_judged_trials == 0 {
            return None;
        }
        let finished = o.trials + o.unjudged_trials;
        let mut parts = Vec::new();
        if o.unjudged_trials > 0 {
            parts.push(format!(
                "{} of {finished} trials have no score yet (every weighted rubric item needs an \
                 LLM judge; left out of the figures)",
                o.unjudged_trials
            ));
        }
        if o.partly_judged_trials > 0 {
            parts.push(format!(
                "{} of {finished} are scored over their checkable items only (marked ~)",
                o.partly_judged_trials
            ));
        }
        // A run that had a judge still lacks these verdicts: its answers failed or were not
        // usable (each item's evidence says which); otherwise one is missing.
        let judges: Vec<&str> = self
            .runs
            .iter()
            .filter_map(|r| r.judge.as_deref())
            .collect();
        let advice = if judges.is_empty() {
            "add a judge with `clawrun judge RUN --judge MODEL` (or `--judge MODEL` on `clawrun \
             run`)"
                .to_string()
        } else {
            format!(
                "the judge ({}) gave no usable verdict for those items (each item's evidence \
                 says why, in the trial viewer or `clawrun trace`); judge them again with \
                 `clawrun judge RUN --judge MODEL`",
                judges.join(", ")
            )
        };
        Some(format!(
            "NEEDS A JUDGE: {}, in {} of {} tasks (unjudged weight {:.2}); {advice}",
            parts.join(" and "),
            o.unjudged_tasks,
            o.tasks,
            o.unjudged_weight
        ))
    }

    /// Every warning a report shows: the unjudged banner, then tasks with fewer than k scored
    /// trials. (The infrastructure-error count is shown by every format on its own line.)
    pub fn warnings(&self) -> Vec<String> {
        let o = &self.overall;
        let mut out: Vec<String> = self.unjudged_banner().into_iter().collect();
        let unscored = o.tasks - o.scored_tasks;
        if unscored > 0 {
            let ids: Vec<&str> = self
                .tasks
                .iter()
                .filter(|t| t.n == 0)
                .map(|t| t.task_id.as_str())
                .collect();
            out.push(format!(
                "{unscored} of {} tasks have no counted trial (all unjudged or errors) and no figures: {}",
                o.tasks,
                ids.join(", ")
            ));
        }
        if o.tasks_with_k < o.scored_tasks {
            out.push(format!(
                "{} of {} scored tasks have fewer than k={} counted trials and no Pass@{} / Pass^{} figures",
                o.scored_tasks - o.tasks_with_k,
                o.scored_tasks,
                self.k,
                self.k,
                self.k
            ));
        }
        out
    }
}

/// The largest number of counted (not unjudged) trials any task has, at least 1.
fn default_k(merged: &BTreeMap<String, merge::TaskRecords>) -> u32 {
    merged
        .values()
        .map(|t| t.counted.n)
        .max()
        .unwrap_or(1)
        .max(1)
}
