//! `journal.jsonl`: one line per finished trial, written as the trial finishes (the run's
//! writer collects finished trials every millisecond and writes each batch with one write),
//! so a run killed at any moment (`kill -9` included: written lines are in the kernel's
//! cache) resumes from the trials that finished, less at most the last millisecond's, which
//! run again. Lines are synced to disk in groups ([`SYNC_EVERY`] lines or
//! [`SYNC_AFTER`], whichever comes first, and when the run ends), not one by one: a power loss
//! can lose the last group, whose trials a `--resume` then runs again. What a crash leaves is
//! read past, never stopped at (`clawrun_report::journal_lines`): a torn last line (the
//! process died mid-write) is dropped on reading and cut off before appending; lines that are
//! not records (a power loss zeroed unsynced bytes) are skipped with a warning, and
//! [`Journal::open`] moves them to [`damaged_path`]. The trace packs the lines name are synced
//! first ([`Journal::sync_first`]), and each record keeps its trace's blake3, so a line whose
//! trace did not reach the disk is found out on resume (see [`super::resume`]). A web cassette
//! being recorded is synced before lines are even written (`runner.rs`).

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clawrun_report::journal_lines::{Damage, JournalLines, unparsable};
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
    first: Vec<(PathBuf, Arc<File>)>,
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
    /// blake3 of its trace bytes, when recorded.
    #[serde(default)]
    pub trace_hash: Option<String>,
}

/// What a scan of a journal found besides its records.
#[derive(Debug, Default)]
pub struct Scan {
    /// The byte length of the complete lines (where a torn last line starts).
    pub complete_len: u64,
    /// Lines that are not records and the torn last line, in file order.
    pub damage: Vec<Damage>,
}

impl Scan {
    /// Says on stderr what was skipped of the journal at `path` (nothing when intact).
    pub fn note(&self, path: &Path) {
        for d in &self.damage {
            eprintln!(
                "clawrun: warning: {}; skipped",
                d.describe(&path.display().to_string())
            );
        }
    }
}

/// Parses each complete line of the journal at `path` (none if it does not exist) as `T`, one
/// at a time, giving its line number (from 1) and the value to `each`. Lines that are not
/// records (damaged by a crash) and a torn last line are skipped and returned in the
/// [`Scan`].
fn scan<T: serde::de::DeserializeOwned>(
    path: &Path,
    mut each: impl FnMut(usize, T),
) -> Result<Scan> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Scan::default()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut lines = JournalLines::new(BufReader::new(file));
    let mut damage = Vec::new();
    while let Some(line) = lines
        .next_line()
        .with_context(|| format!("reading {}", path.display()))?
    {
        match serde_json::from_str::<T>(line.text) {
            Ok(value) => each(line.number, value),
            Err(e) => damage.push(unparsable(&line, &e)),
        }
    }
    damage.extend(lines.torn().cloned());
    Ok(Scan {
        complete_len: lines.complete_len(),
        damage,
    })
}

/// Reads every record of the journal at `path` (none if it does not exist); what is damaged
/// is skipped with a warning on stderr.
pub fn read_journal(path: &Path) -> Result<Vec<TrialRecord>> {
    let mut records = Vec::new();
    scan(path, |_, record| records.push(record))?.note(path);
    Ok(records)
}

/// The [`RecordHead`] of every complete line of the journal at `path`, one at a time, with
/// its line number (from 1); damaged lines are skipped and returned in the [`Scan`]. Memory
/// does not grow with the journal.
pub fn scan_heads(path: &Path, each: impl FnMut(usize, RecordHead)) -> Result<Scan> {
    scan(path, each)
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

/// The file beside journal `path` that keeps the lines a repair took out of it
/// (`journal.damaged.jsonl`, `journal.shard-0-of-2.damaged.jsonl`); no reader takes it for a
/// journal ([`clawrun_report::run_folder::is_journal_name`]).
pub fn damaged_path(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(
        "{stem}{}",
        clawrun_report::run_folder::DAMAGED_SUFFIX
    ))
}

/// Takes the damaged lines of the journal at `path` out of it: they are appended, as found,
/// to [`damaged_path`] (nothing is lost), and the journal is rewritten without them (through
/// a temporary file and a rename, so that a crash meanwhile leaves one of the two whole).
fn repair(path: &Path, damage: &[Damage]) -> Result<()> {
    let bad: BTreeMap<u64, u64> = damage.iter().map(|d| (d.offset, d.len)).collect();
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let (mut kept, mut taken) = (Vec::with_capacity(bytes.len()), Vec::new());
    let mut at = 0usize;
    for (&offset, &len) in &bad {
        let (offset, end) = (offset as usize, (offset + len) as usize);
        kept.extend_from_slice(&bytes[at..offset]);
        taken.extend_from_slice(&bytes[offset..end]);
        if taken.last() != Some(&b'\n') {
            taken.push(b'\n');
        }
        at = end;
    }
    kept.extend_from_slice(&bytes[at..]);
    let side = damaged_path(path);
    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&side)
        .with_context(|| format!("opening {}", side.display()))?;
    out.write_all(&taken)
        .and_then(|()| out.sync_data())
        .with_context(|| format!("writing {}", side.display()))?;
    let tmp = path.with_extension("jsonl.tmp");
    let mut file = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    file.write_all(&kept)
        .and_then(|()| file.sync_data())
        .and_then(|()| std::fs::rename(&tmp, path))
        .with_context(|| format!("rewriting {}", path.display()))?;
    Ok(())
}

impl Journal {
    /// Opens (creating) the journal at `path` for appending. What a crash damaged is repaired
    /// first, saying so on stderr: a torn last line is cut off; lines that are not records
    /// (after a power loss) are moved to [`damaged_path`]. Their trials run again.
    pub fn open(path: &Path) -> Result<Journal> {
        let scan = scan_heads(path, |_, _| {})?;
        scan.note(path);
        let torn_only = scan.damage.iter().all(|d| d.offset >= scan.complete_len);
        if !torn_only {
            let lines: Vec<Damage> = scan
                .damage
                .iter()
                .filter(|d| d.offset < scan.complete_len)
                .cloned()
                .collect();
            repair(path, &lines)?;
            eprintln!(
                "clawrun: note: {} damaged line(s) of {} moved to {}; their trials run again",
                lines.len(),
                path.display(),
                damaged_path(path).display()
            );
        }
        let good = if torn_only {
            scan.complete_len
        } else {
            scan_heads(path, |_, _| {})?.complete_len
        };
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
    pub fn sync_first(&mut self, files: Vec<(PathBuf, Arc<File>)>) {
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
        super::crash::point("journal-written");
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
        let out = self.path.parent().unwrap_or(Path::new(""));
        for (path, file) in &self.first {
            file.sync_data()
                .with_context(|| format!("syncing {}", path.display()))?;
            super::crash::synced(out, path, file.metadata().map_or(0, |m| m.len()));
        }
        super::crash::point("packs-synced");
        self.file
            .sync_data()
            .with_context(|| format!("syncing {}", self.path.display()))?;
        super::crash::synced(out, &self.path, self.file.metadata().map_or(0, |m| m.len()));
        super::crash::point("journal-synced");
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
                .is_some_and(clawrun_report::run_folder::is_journal_name)
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
            "/../../tests/fixtures/journal_line.json"
        ))
        .unwrap();
        let whole = whole.trim_end();
        std::fs::write(&path, format!("{whole}\n{}", &whole[..whole.len() / 2])).unwrap();
        let mut journal = Journal::open(&path).unwrap();
        let records = read_journal(&path).unwrap();
        assert_eq!(records.len(), 1);
        journal.append(&records[0]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, format!("{whole}\n{whole}\n"));
    }

    #[test]
    fn a_run_folders_journals_leave_out_the_lines_set_aside_from_them() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("journal.jsonl");
        for path in [journal.clone(), damaged_path(&journal)] {
            std::fs::write(path, "").unwrap();
        }
        assert_eq!(
            damaged_path(&journal),
            dir.path().join("journal.damaged.jsonl")
        );
        assert_eq!(run_journals(dir.path()), [journal]);
    }

    #[test]
    fn lines_are_synced_in_groups_and_when_the_journal_closes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let line = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/journal_line.json"
        ))
        .unwrap();
        let record: TrialRecord = serde_json::from_str(line.trim_end()).unwrap();
        let mut journal = Journal::open(&path).unwrap();
        for _ in 0..SYNC_EVERY - 1 {
            journal.append(&record).unwrap();
        }
        // Written at once (a killed process loses none), synced as a group.
        assert_eq!(read_journal(&path).unwrap().len(), SYNC_EVERY - 1);
        assert_eq!(journal.unsynced, SYNC_EVERY - 1);
        journal.append(&record).unwrap();
        assert_eq!(journal.unsynced, 0, "a full group is synced");
        journal.append(&record).unwrap();
        assert_eq!(journal.unsynced, 1);
        drop(journal);
        assert_eq!(read_journal(&path).unwrap().len(), SYNC_EVERY + 1);
    }
}
