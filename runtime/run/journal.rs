//! `journal.jsonl`: one line per finished trial, appended and fsynced, so a run killed at any
//! moment resumes from exactly the trials that finished. A torn last line (the process died
//! mid-write) is dropped on reading and cut off before appending.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clawrun_report::TrialRecord;

/// An open journal.
pub struct Journal {
    /// The file, positioned at its end.
    file: File,
    /// Its path, for errors.
    path: PathBuf,
}

/// Reads every complete record of the journal at `path` (none if it does not exist); returns
/// them with the byte length of the complete lines.
pub fn read_journal(path: &Path) -> Result<(Vec<TrialRecord>, u64)> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut reader = BufReader::new(file);
    let mut records = Vec::new();
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
        let record: TrialRecord = serde_json::from_str(line.trim_end()).with_context(|| {
            format!(
                "{}:{number}: not a trial record (the journal is damaged; move the line away and run again with --resume)",
                path.display()
            )
        })?;
        records.push(record);
        good += n as u64;
    }
    Ok((records, good))
}

impl Journal {
    /// Opens (creating) the journal at `path` for appending, cutting a torn last line.
    pub fn open(path: &Path) -> Result<(Journal, Vec<TrialRecord>)> {
        let (records, good) = read_journal(path)?;
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        file.set_len(good)?;
        file.seek(SeekFrom::End(0))?;
        Ok((
            Journal {
                file,
                path: path.to_path_buf(),
            },
            records,
        ))
    }

    /// Appends `record` as one line and fsyncs.
    pub fn append(&mut self, record: &TrialRecord) -> Result<()> {
        let mut line = serde_json::to_vec(record)?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("appending to {}", self.path.display()))
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
        let (mut journal, records) = Journal::open(&path).unwrap();
        assert_eq!(records.len(), 1);
        journal.append(&records[0]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{whole}\n{whole}\n"));
    }
}
