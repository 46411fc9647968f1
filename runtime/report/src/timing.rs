//! `timings.jsonl` (`timings.shard-I-of-N.jsonl` per shard): the wall-clock time of every trial
//! attempt and of every `clawrun run` session, written beside the journal. Wall time is kept
//! out of traces, journals, hashes and scores (those stay byte-identical across identical
//! runs); only the report's totals read it.

use std::collections::BTreeMap;
use std::io::{BufReader, Read};

use serde::{Deserialize, Serialize};

use crate::error::ReportError;
use crate::journal_lines::JournalLines;

/// One line of `timings.jsonl`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TimingLine {
    /// One attempt of a trial (an infrastructure error retried gives several lines).
    Trial {
        /// The task id.
        task_id: String,
        /// The trial index.
        trial: u32,
        /// Milliseconds from the attempt's start to its journal record (judging included),
        /// truncated.
        wall_ms: u64,
        /// The same in microseconds (absent in files of older runs: then `wall_ms` x 1000).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wall_us: Option<u64>,
    },
    /// One `clawrun run` invocation (a resumed run has several).
    Session {
        /// Milliseconds from the run's start to its end.
        wall_ms: u64,
        /// Trial attempts it finished.
        trials: u32,
        /// When it started, UTC (`2026-11-25T19:30:12Z`); absent in files of older runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        started: Option<String>,
    },
}

impl TimingLine {
    /// The line as JSON (no trailing newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a timing line always serialises")
    }
}

/// The wall times of one or more run folders.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timings {
    /// Per task and trial: microseconds summed over its attempts.
    pub trials: BTreeMap<String, BTreeMap<u32, u64>>,
    /// Milliseconds summed over the sessions.
    pub session_ms: u64,
    /// Sessions seen.
    pub sessions: u32,
    /// The earliest session start recorded (UTC, RFC 3339).
    pub first_started: Option<String>,
}

impl Timings {
    /// Adds the lines of one timings file, read one at a time; `name` labels what is skipped
    /// (`name:line`). Lines that are not timing lines (a torn last line, bytes a crash
    /// damaged) are skipped and returned: a lost line loses a wall time, never a result.
    pub fn read(&mut self, input: impl Read, name: &str) -> Result<Vec<String>, ReportError> {
        let mut lines = JournalLines::new(BufReader::new(input));
        let mut skipped = Vec::new();
        while let Some(line) = lines.next_line().map_err(|e| ReportError::Read {
            source_name: name.to_string(),
            message: e.to_string(),
        })? {
            match serde_json::from_str::<TimingLine>(line.text) {
                Ok(parsed) => self.add(parsed),
                Err(e) => skipped.push(format!("{name}:{}: not a timing line ({e})", line.number)),
            }
        }
        Ok(skipped)
    }

    /// Adds one line.
    pub fn add(&mut self, line: TimingLine) {
        match line {
            TimingLine::Trial {
                task_id,
                trial,
                wall_ms,
                wall_us,
            } => {
                let total = self
                    .trials
                    .entry(task_id)
                    .or_default()
                    .entry(trial)
                    .or_default();
                // timings.jsonl is input: its sums stop at the largest count.
                *total = total.saturating_add(wall_us.unwrap_or(wall_ms.saturating_mul(1000)));
            }
            TimingLine::Session {
                wall_ms, started, ..
            } => {
                self.session_ms = self.session_ms.saturating_add(wall_ms);
                self.sessions += 1;
                if let Some(s) = started
                    && self.first_started.as_ref().is_none_or(|f| s < *f)
                {
                    self.first_started = Some(s);
                }
            }
        }
    }

    /// Whether nothing was read (runs made before timings existed).
    pub fn is_empty(&self) -> bool {
        self.trials.is_empty() && self.sessions == 0
    }

    /// The wall time of a trial in microseconds, if recorded.
    pub fn trial_us(&self, task_id: &str, trial: u32) -> Option<u64> {
        self.trials.get(task_id)?.get(&trial).copied()
    }

    /// The wall time of a trial in milliseconds (rounded), if recorded.
    pub fn trial_ms(&self, task_id: &str, trial: u32) -> Option<u64> {
        self.trial_us(task_id, trial)
            .map(crate::summary::totals::round_to_ms)
    }
}
