//! One line of a run's `journal.jsonl`: a finished trial, scored, or failed for infrastructure
//! reasons or because of the task's content.

use std::io::BufRead;

use clawrun_agents::trace::Outcome;
use clawrun_judge::Verdict;
use serde::{Deserialize, Serialize};

use crate::error::ReportError;

pub use clawrun_task::Group;

/// Whether a trial counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The trial ran and was judged.
    Scored,
    /// The model API failed after retries: kept out of every score, counted separately.
    InfraError,
    /// The task's own content could not be run or judged (a judge file that cannot be
    /// placed, say; `error` says why): kept out of every score, counted separately.
    TaskError,
}

/// One line of `journal.jsonl` (fields serialise in this order).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// The task id, e.g. `T002_email_triage`.
    pub task_id: String,
    /// The task's category.
    pub category: String,
    /// The task's group.
    pub group: Group,
    /// The trial index, from 0.
    pub trial: u32,
    /// The trial's seed.
    pub seed: u64,
    /// The agent, e.g. `oracle` or `openai:gpt-5`.
    pub agent: String,
    /// Whether the trial counts.
    pub status: Status,
    /// The infrastructure or agent error, if any.
    pub error: Option<String>,
    /// Why Execution stopped.
    pub outcome: Outcome,
    /// Assistant turns taken.
    pub turns: u32,
    /// Simulated-user rounds.
    pub user_rounds: u32,
    /// Assistant turns served from the response cache (`--cache`) instead of the model;
    /// absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_turns: u32,
    /// Prompt tokens spent.
    pub input_tokens: u64,
    /// Completion tokens spent.
    pub output_tokens: u64,
    /// The workspace's root hash at the end.
    pub root_hash: String,
    /// blake3 of the task's files (hex).
    pub task_hash: String,
    /// The trial's `trace.jsonl`, relative to the run folder (e.g.
    /// `T002_email_triage/0/trace.jsonl`).
    pub trace: String,
    /// The judge's verdict (`None` for infrastructure and task errors).
    pub verdict: Option<Verdict>,
    /// The sandbox limits the trial hit (`vfs_bytes`, `fuel`, ...; see the trace's
    /// `trace_end`); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<String>,
}

/// Whether a count is zero (serde leaves such fields out).
pub(crate) fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

impl TrialRecord {
    /// `task_id/trial`, the trial's name in reports.
    pub fn key(&self) -> String {
        format!("{}/{}", self.task_id, self.trial)
    }

    /// Whether the trial counts towards scores.
    pub fn is_scored(&self) -> bool {
        self.status == Status::Scored
    }

    /// Whether the trial's verdict left rubric items unjudged (weight > 0 or an item without a
    /// score).
    pub fn has_unjudged(&self) -> bool {
        self.verdict.as_ref().is_some_and(|v| {
            v.unjudged_weight > 0.0 || v.items.iter().any(|item| item.score.is_none())
        })
    }

    /// The record as one journal line (JSON, no trailing newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a TrialRecord always serialises")
    }
}

/// A record and where it came from (`path:line`), for error messages when merging shards.
#[derive(Clone, Debug, PartialEq)]
pub struct Sourced {
    /// Where the record came from, e.g. `runs/a/journal.jsonl:3`.
    pub source: String,
    /// The record.
    pub record: TrialRecord,
}

/// Reads a journal; `name` labels its records (`name:line`). Blank lines are skipped.
pub fn read_journal(input: impl BufRead, name: &str) -> Result<Vec<Sourced>, ReportError> {
    let mut out = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| ReportError::Read {
            source_name: name.to_string(),
            message: e.to_string(),
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let record: TrialRecord = serde_json::from_str(&line).map_err(|e| ReportError::Parse {
            source_name: name.to_string(),
            line: i + 1,
            message: e.to_string(),
        })?;
        out.push(Sourced {
            source: format!("{name}:{}", i + 1),
            record,
        });
    }
    Ok(out)
}
