//! `journal.jsonl`: one line per finished trial, written as the trial finishes (the run's
//! writer collects finished trials every millisecond and writes each batch with one write),
//! so a run killed at any moment (`kill -9` included: written lines are in the kernel's
//! cache) resumes from the trials that finished, less at most the last millisecond's, which
//! run again. Lines are synced to disk in groups ([`SYNC_EVERY`] lines or
//! [`SYNC_AFTER`], whichever comes first, and when the run ends), not one by one: a power loss
//! can lose the last group, whose trials a `--resume` then runs again. A torn last line (the
//! process died mid-write) is dropped on reading and cut off before appending. The trace packs
//! the lines name are synced first ([`Journal::sync_first`]).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clawrun_report::{Status, TraceSpan, TrialRecord};

/// Lines written between two syncs at most.
pub const SYNC_EVERY: usize = 64;
/// Time between the first unsynced line and its sync at most.
pub const SYNC_AFTER: Duration = Duration::from_millis(200);

/// An open journal.
pub struct Journal {
    /// The file, positioned at its end.
    file: File,
    /// Its path, for errors.
    path: PathBuf,
    /// Lines written since the last sync, and when the first of them was.
    unsynced: usize,
    since: Instant,
    /// Files synced before each group of lines: the trace packs the lines name.
    first: Vec<Arc<File>>,
}

/// What the run itself reads of a journal line: the trial, its status and what `--resume`
/// checks. The rest of a record is skipped when parsed.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct RecordHead {
    /// The task.
    pub task_id: String,
    /// The trial index.
    pub trial: u32,
    /// Its status.
    pub status: Status,
    /// The agent that ran it.
    pub agent: String,
    /// Its trial seed.
    pub seed: u64,
    /// The task's hash when it ran.
    pub task_hash: String,
    /// The file of its trace, relative to the run folder.
    pub trace: String,
    /// The span of `trace` that is its trace, when `trace` is a pack.
    #[serde(default)]
    pub trace_span: Option<TraceSpan>,
}

/// Reads the complete lines of the journal at `path` one at a time (none if it does not
/// exist), giving each non-blank line's number (from 1) and its text to `each`; returns the
/// byte length of the complete lines. A torn last line (no newline) is left out.
fn scan_lines(path: &Path, mut each: impl FnMut(usize, &str) -> Result<()>) -> Result<u64> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut reader = BufReader::new(file);
    let mut good = 0u64;
    let mut line = String::new();
    let mut number = 0;
    loop {
        line.clear();
        let n = reader
            .read_line(&mut line)
            .with_context(|| format!("reading {}", path.display()))?;
        if n == 0 || !line.ends_with('\n') {
            break;
        }
        number += 1;
        // Blank lines (a hand-edited journal) are skipped, as the report's reader does.
        if !line.trim().is_empty() {
            each(number, line.trim_end())?;
        }
        good += n as u64;
    }
    Ok(good)
}

/// `line` (number `number` of the journal at `path`) parsed as `T`, or an error saying the
/// journal is damaged and what to do.
fn parse_line<T: serde::de::DeserializeOwned>(path: &Path, number: usize, line: &str) -> Result<T> {
    serde_json::from_str(line).with_context(|| {
        format!(
            "{}:{number}: not a trial record (the journal is damaged; move the line away and run again with --resume)",
            path.display()
        )
    })
}

/// Reads every complete record of the journal at `path` (none if it does not exist); returns
/// them with the byte length of the complete lines.
pub fn read_journal(path: &Path) -> Result<(Vec<TrialRecord>, u64)> {
    let mut records = Vec::new();
    let good = scan_lines(path, |number, line| {
        records.push(parse_line(path, number, line)?);
        Ok(())
    })?;
    Ok((records, good))
}

/// The [`RecordHead`] of every complete line of the journal at `path`, one at a time, with
/// its line number (from 1); returns the byte length of the complete lines. Memory does not
/// grow with the journal.
pub fn scan_heads(path: &Path, mut each: impl FnMut(usize, RecordHead)) -> Result<u64> {
    scan_lines(path, |number, line| {
        each(number, parse_line(path, number, line)?);
        Ok(())
    })
}

/// The latest status of each trial in the journal at `path` (a later record of a trial
/// supersedes), by task and trial, read one line at a time.
pub fn latest_statuses(path: &Path) -> Result<BTreeMap<String, BTreeMap<u32, Status>>> {
    let mut out: BTreeMap<String, BTreeMap<u32, Status>> = BTreeMap::new();
    scan_heads(path, |_, head| {
        out.entry(head.task_id)
            .or_default()
            .insert(head.trial, head.status);
    })?;
    Ok(out)
}

impl Journal {
    /// Opens (creating) the journal at `path` for appending, cutting a torn last line (every
    /// complete line must be a record).
    pub fn open(path: &Path) -> Result<Journal> {
        let good = scan_heads(path, |_, _| {})?;
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        file.set_len(good)?;
        file.seek(SeekFrom::End(0))?;
        Ok(Journal {
            file,
            path: path.to_path_buf(),
            unsynced: 0,
            since: Instant::now(),
            first: Vec::new(),
        })
    }

    /// Syncs `files` (the run's trace packs) before each group of lines, so that no line on
    /// disk names trace bytes that are not.
    pub fn sync_first(&mut self, files: Vec<Arc<File>>) {
        self.first = files;
    }

    /// Appends `record` as one line; syncs when the group is full or old enough.
    pub fn append(&mut self, record: &TrialRecord) -> Result<()> {
        self.append_line(&record.to_line())
    }

    /// Appends a record already serialised as one line ([`TrialRecord::to_line`]) with one
    /// write; syncs when the group is full or old enough.
    pub fn append_line(&mut self, record_line: &str) -> Result<()> {
        self.append_lines(&[record_line])
    }

    /// Appends records already serialised as lines, all with one write; syncs when the group
    /// is full or old enough.
    pub fn append_lines(&mut self, record_lines: &[impl AsRef<str>]) -> Result<()> {
        if record_lines.is_empty() {
            return Ok(());
        }
        let len = record_lines.iter().map(|l| l.as_ref().len() + 1).sum();
        let mut bytes = Vec::with_capacity(len);
        for line in record_lines {
            bytes.extend_from_slice(line.as_ref().as_bytes());
            bytes.push(b'\n');
        }
        self.file
            .write_all(&bytes)
            .with_context(|| format!("appending to {}", self.path.display()))?;
        if self.unsynced == 0 {
            self.since = Instant::now();
        }
        self.unsynced += record_lines.len();
        if self.unsynced >= SYNC_EVERY || self.since.elapsed() >= SYNC_AFTER {
            self.sync()?;
        }
        Ok(())
    }

    /// Syncs the lines written since the last sync (nothing to do when there are none).
    pub fn sync(&mut self) -> Result<()> {
        if self.unsynced == 0 {
            return Ok(());
        }
        for file in &self.first {
            file.sync_data()
                .with_context(|| format!("syncing a trace pack of {}", self.path.display()))?;
        }
        self.file
            .sync_data()
            .with_context(|| format!("syncing {}", self.path.display()))?;
        self.unsynced = 0;
        Ok(())
    }

    /// Syncs when lines have waited [`SYNC_AFTER`] (for a writer that is otherwise idle).
    pub fn sync_if_due(&mut self) -> Result<()> {
        if self.unsynced > 0 && self.since.elapsed() >= SYNC_AFTER {
            self.sync()?;
        }
        Ok(())
    }
}

impl Drop for Journal {
    /// The last group is synced when the journal is closed, whatever ended the run.
    fn drop(&mut self) {
        let _ = self.sync();
    }
}

/// The journals of the run folder `dir` (`journal.jsonl` and the shards'
/// `journal.shard-I-of-N.jsonl`), sorted by name; none when `dir` cannot be read.
pub fn run_journals(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("journal") && n.ends_with(".jsonl"))
        })
        .collect();
    out.sort();
    out
}

/// The latest record per (task, trial): infra errors are superseded by a later attempt.
pub fn latest(records: Vec<TrialRecord>) -> BTreeMap<(String, u32), TrialRecord> {
    let mut out = BTreeMap::new();
    for r in records {
        out.insert((r.task_id.clone(), r.trial), r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_dropped_and_cut_before_appending() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let whole = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/journal_line.json"
        ))
        .unwrap();
        let whole = whole.trim_end();
        std::fs::write(&path, format!("{whole}\n{}", &whole[..whole.len() / 2])).unwrap();
        let mut journal = Journal::open(&path).unwrap();
        let (records, _) = read_journal(&path).unwrap();
        assert_eq!(records.len(), 1);
        journal.append(&records[0]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{whole}\n{whole}\n"));
    }

    #[test]
    fn lines_are_synced_in_groups_and_when_the_journal_closes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let line = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/journal_line.json"
        ))
        .unwrap();
        let record: TrialRecord = serde_json::from_str(line.trim_end()).unwrap();
        let mut journal = Journal::open(&path).unwrap();
        for _ in 0..SYNC_EVERY - 1 {
            journal.append(&record).unwrap();
        }
        // Written at once (a killed process loses none), synced as a group.
        assert_eq!(read_journal(&path).unwrap().0.len(), SYNC_EVERY - 1);
        assert_eq!(journal.unsynced, SYNC_EVERY - 1);
        journal.append(&record).unwrap();
        assert_eq!(journal.unsynced, 0, "a full group is synced");
        journal.append(&record).unwrap();
        assert_eq!(journal.unsynced, 1);
        drop(journal);
        assert_eq!(read_journal(&path).unwrap().0.len(), SYNC_EVERY + 1);
    }
}
