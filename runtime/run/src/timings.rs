//! `timings.jsonl` (`timings.shard-I-of-N.jsonl` per shard): the wall-clock time of each trial
//! attempt and of each session, beside the journal. Wall time never enters traces, journals,
//! hashes or scores; only the report's totals read this file.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use clawrun_report::{JournalLines, TimingLine, TrialRecord};

use super::shard::Shard;

/// The open timings file, appended to.
pub struct TimingsFile {
    /// The file.
    file: File,
    /// Its path, for errors.
    path: PathBuf,
    /// Trial lines not written yet ([`TimingsFile::flush`] writes them).
    pending: String,
}

impl TimingsFile {
    /// Opens (creating) the run folder's timings file for this invocation's shard, cutting a
    /// torn last line (a run killed mid-write) so that the lines appended now start on a
    /// line of their own.
    pub fn open(out: &Path, shard: Option<Shard>) -> Result<TimingsFile> {
        let path = out.join(match shard {
            Some(s) => format!("timings.shard-{}-of-{}.jsonl", s.index, s.count),
            None => "timings.jsonl".to_string(),
        });
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        let mut lines = JournalLines::new(BufReader::new(&file));
        while lines
            .next_line()
            .with_context(|| format!("reading {}", path.display()))?
            .is_some()
        {}
        if lines.torn().is_some() {
            file.set_len(lines.complete_len())
                .with_context(|| format!("cutting the torn last line of {}", path.display()))?;
        }
        Ok(TimingsFile {
            file,
            path,
            pending: String::new(),
        })
    }

    /// Records one finished attempt of `record`'s trial, which took `wall` (written by the
    /// next [`flush`](Self::flush)).
    pub fn trial(&mut self, record: &TrialRecord, wall: Duration) {
        let line = TimingLine::Trial {
            task_id: record.task_id.clone(),
            trial: record.trial,
            wall_ms: wall.as_millis() as u64,
            wall_us: Some(wall.as_micros() as u64),
        };
        self.pending.push_str(&line.to_line());
        self.pending.push('\n');
    }

    /// Writes the trial lines recorded since the last flush, with one write.
    pub fn flush(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        self.file
            .write_all(pending.as_bytes())
            .with_context(|| format!("appending to {}", self.path.display()))
    }

    /// Records the session's end: when it started, its wall time and the attempts it finished.
    pub fn session(&mut self, started: SystemTime, wall_ms: u64, trials: usize) -> Result<()> {
        self.flush()?;
        self.write(&TimingLine::Session {
            wall_ms,
            trials: trials as u32,
            started: Some(utc_timestamp(started)),
        })
    }

    /// Appends one line with one write (not fsynced: a lost line loses a wall time, never a
    /// result).
    fn write(&mut self, line: &TimingLine) -> Result<()> {
        let mut text = line.to_line();
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .with_context(|| format!("appending to {}", self.path.display()))
    }
}

/// `time` as RFC 3339 UTC to the second, e.g. `2026-11-25T19:30:12Z`.
pub fn utc_timestamp(time: SystemTime) -> String {
    let secs = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (y, m, d) = clawrun_services::time::civil_from_days(secs.div_euclid(86_400));
    let t = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_cut_before_lines_are_appended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("timings.jsonl");
        let whole = TimingLine::Trial {
            task_id: "T".into(),
            trial: 0,
            wall_ms: 1,
            wall_us: Some(1500),
        }
        .to_line();
        // A run killed (or a power lost) in the middle of its second line.
        std::fs::write(&path, format!("{whole}\n{}", &whole[..whole.len() / 2])).unwrap();
        let line = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/journal_line.json"
        ))
        .unwrap();
        let record: TrialRecord = serde_json::from_str(line.trim_end()).unwrap();
        let mut timings = TimingsFile::open(dir.path(), None).unwrap();
        timings.trial(&record, Duration::from_micros(2500));
        timings.flush().unwrap();
        let mut read = clawrun_report::Timings::default();
        let skipped = read
            .read(std::fs::File::open(&path).unwrap(), "timings.jsonl")
            .unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 2);
        assert_eq!(read.trial_us(&record.task_id, record.trial), Some(2500));
    }

    #[test]
    fn timestamps_are_utc_rfc3339() {
        let t = UNIX_EPOCH + std::time::Duration::from_secs(1_795_635_012);
        assert_eq!(utc_timestamp(t), "2026-11-25T19:30:12Z");
        assert_eq!(utc_timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }
}
