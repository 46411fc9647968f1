//! The [`Summary`] of a run (or of several shards' journals): per task, per category, per
//! group and overall.
//!
//! - [`merge`]: combining records, duplicates and consistency checks.
//! - [`task`]: one task's figures.
//! - [`aggregate`]: figures over a set of tasks with bootstrap intervals.

pub mod aggregate;
pub mod merge;
pub mod task;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::error::ReportError;
use crate::header::RunHeader;
use crate::record::{Group, Sourced};
use crate::stats::{BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED};

pub use self::aggregate::{Aggregate, Estimate};
pub use self::task::{TaskSummary, TrialScore};

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
    /// One header per run folder (set by the caller; empty from [`Summary::from_records`]).
    /// Shown by the text, Markdown and HTML outputs, not in the JSON.
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
        if k == Some(0) {
            return Err(ReportError::InvalidK);
        }
        let merged = merge::merge(records)?;
        let agents: BTreeSet<String> = merged
            .values()
            .flat_map(|t| t.scored.iter().chain(&t.infra))
            .map(|s| s.record.agent.clone())
            .collect();
        let largest = merged.values().map(|t| t.scored.len() as u32).max();
        let k = k.unwrap_or(largest.unwrap_or(1).max(1));
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
            runs: Vec::new(),
        })
    }

    /// The loud unjudged-items banner, when any scored trial left rubric items unjudged.
    pub fn unjudged_banner(&self) -> Option<String> {
        let o = &self.overall;
        (o.unjudged_trials > 0).then(|| {
            format!(
                "WARNING: UNJUDGED RUBRIC ITEMS in {} of {} trials ({} of {} tasks; unjudged weight {:.2} in all) \
                 -- their completion leaves those items out; configure a judge model and re-judge",
                o.unjudged_trials,
                o.trials,
                o.unjudged_tasks,
                o.tasks,
                o.unjudged_weight
            )
        })
    }

    /// Every warning a report shows: the unjudged banner, then tasks with fewer than k scored
    /// trials. (The infrastructure-error count is shown by every format on its own line.)
    pub fn warnings(&self) -> Vec<String> {
        let o = &self.overall;
        let mut out: Vec<String> = self.unjudged_banner().into_iter().collect();
        if o.tasks_with_k < o.tasks {
            out.push(format!(
                "{} of {} tasks have fewer than k={} scored trials and no Pass@{} / Pass^{} figures",
                o.tasks - o.tasks_with_k,
                o.tasks,
                self.k,
                self.k,
                self.k
            ));
        }
        out
    }
}
