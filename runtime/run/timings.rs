//! `timings.jsonl` (`timings.shard-I-of-N.jsonl` per shard): the wall-clock time of each trial
//! attempt and of each session, beside the journal. Wall time never enters traces, journals,
//! hashes or scores; only the report's totals read this file.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clawrun_report::{TimingLine, TrialRecord};

use super::shard::Shard;

/// The open timings file, appended to.
pub struct TimingsFile {
    /// The file.
    file: File,
    /// Its path, for errors.
    path: PathBuf,
}

impl TimingsFile {
    /// Opens (creating) the run folder's timings file for this invocation's shard.
    pub fn open(out: &Path, shard: Option<Shard>) -> Result<TimingsFile> {
        let path = out.join(match shard {
            Some(s) => format!("timings.shard-{}-of-{}.jsonl", s.index, s.count),
            None => "timings.jsonl".to_string(),
        });
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        Ok(TimingsFile { file, path })
    }

    /// Records one finished attempt of `record`'s trial.
    pub fn trial(&mut self, record: &TrialRecord, wall_ms: u64) -> Result<()> {
        self.write(&TimingLine::Trial {
            task_id: record.task_id.clone(),
            trial: record.trial,
            wall_ms,
        })
    }

    /// Records the session's end: its wall time and the attempts it finished.
    pub fn session(&mut self, wall_ms: u64, trials: usize) -> Result<()> {
        self.write(&TimingLine::Session {
            wall_ms,
            trials: trials as u32,
        })
    }

    /// Appends one line (not fsynced: a lost line loses a wall time, never a result).
    fn write(&mut self, line: &TimingLine) -> Result<()> {
        writeln!(self.file, "{}", line.to_line())
            .with_context(|| format!("appending to {}", self.path.display()))
    }
}
