//! One line of a run's `journal.jsonl`: a finished trial, scored, or failed for infrastructure
//! reasons or because of the task's content.

use std::io::BufRead;
use std::path::Path;

use clawrun_agents::trace::Outcome;
use clawrun_judge::Verdict;
use serde::{Deserialize, Serialize};

use crate::error::ReportError;
use crate::journal_lines::{Damage, JournalLines, unparsable};
use crate::trace_file::{TraceSpan, read_trace_bytes, trace_intact, trace_location};

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

/// How completely a scored trial's rubric could be judged (items that need an LLM judge stay
/// unjudged when none is configured).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Judgement {
    /// Every rubric item was judged.
    Full,
    /// Some items could not be judged: the score is over the checkable items only.
    Partial,
    /// No weighted item could be judged and no gate failed: the trial has no score at all (its
    /// recorded score, e.g. 0.2 from robustness alone, measures nothing) and is left out of
    /// every figure.
    Unjudged,
}

impl Judgement {
    /// `full`, `partial` or `unjudged`.
    pub fn as_str(self) -> &'static str {
        match self {
            Judgement::Full => "full",
            Judgement::Partial => "partial",
            Judgement::Unjudged => "unjudged",
        }
    }
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
    /// The part of `input_tokens` served from the provider's prompt cache; absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
    /// The workspace's root hash at the end.
    pub root_hash: String,
    /// blake3 of the task's files (hex).
    pub task_hash: String,
    /// The file holding the trial's trace, relative to the run folder: its worker's trace
    /// pack (`traces/0.jsonl`), or, without `trace_span`, a file of its own
    /// (`T002_email_triage/0/trace.jsonl`, as runs before trace packs wrote).
    pub trace: String,
    /// The bytes of `trace` that are this trial's trace; absent when the whole file is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_span: Option<TraceSpan>,
    /// blake3 of the trial's trace bytes (hex), checked whenever the trace is read back, so
    /// that bytes a crash left behind are never taken for the trial's trace; absent in runs
    /// made before it was recorded (their traces are checked by length only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_hash: Option<String>,
    /// The judge's verdict (`None` for infrastructure and task errors).
    pub verdict: Option<Verdict>,
    /// The grader that gave `verdict`: absent for clawrun's declarative and native rubric,
    /// `claw-eval` for a Claw-Eval checkout's own `grader.py`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grader: Option<String>,
    /// Under `--grader both`: clawrun's own verdict of the trial, beside the Claw-Eval
    /// grader's in `verdict`; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_verdict: Option<Verdict>,
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

    /// How completely the verdict could be judged (`None` without a verdict). A trial whose
    /// weighted items were all unjudged is still `Partial` when a gate failed: its score is 0
    /// whatever the unjudged items would say.
    pub fn judgement(&self) -> Option<Judgement> {
        let v = self.verdict.as_ref()?;
        if !self.has_unjudged() {
            return Some(Judgement::Full);
        }
        let judged_weight: f64 = v
            .items
            .iter()
            .filter(|i| i.weight > 0.0 && i.score.is_some())
            .map(|i| i.weight)
            .sum();
        let gate_failed = v.items.iter().any(|i| i.gate && i.passed == Some(false));
        Some(if judged_weight > 0.0 || gate_failed {
            Judgement::Partial
        } else {
            Judgement::Unjudged
        })
    }

    /// Whether the agent is a model (`openai:`, `anthropic:`, `openrouter:`), whose tokens
    /// cost money; the oracle, scripted, replayed and idle agents spend nothing.
    pub fn calls_a_model(&self) -> bool {
        ["openai:", "anthropic:", "openrouter:"]
            .iter()
            .any(|p| self.agent.starts_with(p))
    }

    /// The record reduced to what a [`Summary`](crate::Summary) reads: without its trace
    /// path and workspace hash, the rubric items that do not decide its
    /// [`judgement`](Self::judgement) and the text of those that do — unless it was graded
    /// both ways (the comparison quotes the items). Long runs are summarised from such records.
    pub fn for_summary(mut self) -> Self {
        self.trace = String::new();
        self.trace_span = None;
        self.root_hash = String::new();
        if self.native_verdict.is_some() {
            return self;
        }
        let fully_judged = !self.has_unjudged();
        if let Some(v) = &mut self.verdict {
            if fully_judged {
                v.items = Vec::new();
            } else {
                v.items.retain(|i| {
                    i.score.is_none() || i.weight > 0.0 || (i.gate && i.passed == Some(false))
                });
                for item in &mut v.items {
                    item.evidence = String::new();
                    item.check = String::new();
                }
                v.items.shrink_to_fit();
            }
        }
        self
    }

    /// The bytes of the trial's trace in run folder `run_dir`, checked against
    /// [`trace_hash`](Self::trace_hash) (an `InvalidData` error when they differ).
    pub fn trace_bytes(&self, run_dir: &Path) -> std::io::Result<Vec<u8>> {
        read_trace_bytes(
            run_dir,
            &self.trace,
            self.trace_span,
            self.trace_hash.as_deref(),
        )
    }

    /// Whether the trial's whole trace is in run folder `run_dir`, intact: the file holds
    /// the span, and the bytes have the recorded hash (read and hashed when one is recorded).
    pub fn trace_present(&self, run_dir: &Path) -> bool {
        trace_intact(
            run_dir,
            &self.trace,
            self.trace_span,
            self.trace_hash.as_deref(),
        )
    }

    /// Where the trial's trace is, for messages (`traces/0.jsonl bytes 120..4410`).
    pub fn trace_location(&self) -> String {
        trace_location(&self.trace, self.trace_span)
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

/// Reads every record of a journal (see [`JournalReader`]); lines that are not records are
/// skipped, and returned beside the records.
pub fn read_journal(
    input: impl BufRead,
    name: &str,
) -> Result<(Vec<Sourced>, Vec<Damage>), ReportError> {
    let mut reader = JournalReader::new(input, name);
    let records = (&mut reader).collect::<Result<Vec<_>, _>>()?;
    Ok((records, reader.damage()))
}

/// A journal's records one at a time, in constant memory. What a crash damaged (a torn last
/// line; lines that are not records, where unsynced bytes never reached the disk) is skipped
/// and kept in [`damage`](Self::damage), for the caller to name: the intact records are
/// still read.
pub struct JournalReader<R> {
    lines: JournalLines<R>,
    name: String,
    line: usize,
    damaged: Vec<Damage>,
}

impl<R: BufRead> JournalReader<R> {
    /// Reads `input`, labelling records `name:line`.
    pub fn new(input: R, name: &str) -> Self {
        JournalReader {
            lines: JournalLines::new(input),
            name: name.to_string(),
            line: 0,
            damaged: Vec::new(),
        }
    }

    /// The line (1-based) of the record returned last.
    pub fn line(&self) -> usize {
        self.line
    }

    /// What was skipped so far as damaged (with the torn last line, once reached).
    pub fn damage(&self) -> Vec<Damage> {
        let mut all = self.damaged.clone();
        all.extend(self.lines.torn().cloned());
        all
    }
}

impl<R: BufRead> Iterator for JournalReader<R> {
    type Item = Result<Sourced, ReportError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let line = match self.lines.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => return None,
                Err(e) => {
                    return Some(Err(ReportError::Read {
                        source_name: self.name.clone(),
                        message: e.to_string(),
                    }));
                }
            };
            match serde_json::from_str::<TrialRecord>(line.text) {
                Ok(record) => {
                    self.line = line.number;
                    return Some(Ok(Sourced {
                        source: format!("{}:{}", self.name, line.number),
                        record,
                    }));
                }
                Err(e) => {
                    let damage = unparsable(&line, &e);
                    self.damaged.push(damage);
                }
            }
        }
    }
}
