//! Trace packs: a run folder's `traces/NAME.jsonl`, one per worker, each trial's trace appended
//! with one write as a contiguous run of lines, so the file is itself a valid trace stream
//! (`trace_start` ... `trace_end`, then the next trial's). A record names its pack and the span
//! that is its trial's ([`TraceSpan`]). One file per worker instead of a folder and a file per
//! trial: creating two inodes per trial was over half of a short trial's time on ext4.
//!
//! Durability follows the journal's: packs are synced before each group of journal lines is
//! (see [`super::journal::Journal::sync_first`]), so a line on disk never names bytes that are
//! not. `--traces files` writes one file per trial instead ([`TraceLayout`]); readers take
//! either, as each record says where its trace is. On `--resume` a pack is cut back to the end
//! of the last whole trace a journal line names (the rest belongs to trials whose record was
//! lost, which run again).

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use clawrun_report::TraceSpan;

use super::shard::Shard;

/// The run folder's directory of trace packs.
pub const TRACES_DIR: &str = "traces";

/// One worker's trace pack, open for appending.
pub struct TracePack {
    /// The file, positioned at its end.
    file: Arc<File>,
    /// Its path relative to the run folder (`traces/0.jsonl`): what records name.
    rel: String,
    /// Its path.
    path: PathBuf,
    /// Its length: where the next trace starts.
    len: u64,
}

impl TracePack {
    /// Opens (creating) `run_dir/traces/NAME.jsonl` for appending after its first `keep` bytes
    /// at most (the bytes the journal names; see [`super::resume::Resume::pack_keep`]).
    pub fn open(run_dir: &Path, name: &str, keep: u64) -> Result<TracePack> {
        let rel = pack_path(name);
        let path = run_dir.join(&rel);
        std::fs::create_dir_all(run_dir.join(TRACES_DIR))
            .with_context(|| format!("creating {}", run_dir.join(TRACES_DIR).display()))?;
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        let len = file.metadata()?.len().min(keep);
        file.set_len(len)
            .with_context(|| format!("cutting {} to {len} bytes", path.display()))?;
        file.seek(SeekFrom::End(0))?;
        Ok(TracePack {
            file: Arc::new(file),
            rel,
            path,
            len,
        })
    }

    /// Appends one trial's trace (JSONL, ending in a newline) with one write; returns the
    /// pack's path relative to the run folder and the trace's span. A failed write is undone,
    /// so the pack never holds a torn trace that a later one follows.
    pub fn append(&mut self, trace: &[u8]) -> Result<(String, TraceSpan)> {
        let span = TraceSpan {
            offset: self.len,
            len: trace.len() as u64,
        };
        if let Err(e) = (&*self.file).write_all(trace) {
            let _ = self.file.set_len(self.len);
            let _ = (&*self.file).seek(SeekFrom::Start(self.len));
            return Err(e).with_context(|| format!("appending a trace to {}", self.rel));
        }
        self.len = span.end();
        super::crash::point("trace-written");
        Ok((self.rel.clone(), span))
    }

    /// The open file and its path, for the journal to sync before its lines (see
    /// [`super::journal::Journal::sync_first`]).
    pub fn file(&self) -> (PathBuf, Arc<File>) {
        (self.path.clone(), Arc::clone(&self.file))
    }
}

/// How a run lays out its traces (`--traces`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum TraceLayout {
    /// One pack per worker, `traces/W.jsonl` (the default: no file created per trial).
    #[default]
    Pack,
    /// One file per trial, `TASK/N/trace.jsonl` (for reading traces one by one, and the golden
    /// records, whose diffs are reviewed per trial).
    Files,
}

/// Where one worker writes its trials' traces.
pub enum PackWriter {
    /// Appended to the worker's pack.
    Pack(TracePack),
    /// Each trial's to `TASK/N/trace.jsonl` in this run folder.
    Files(PathBuf),
}

impl PackWriter {
    /// Worker `worker`'s writer in the layout `layout` for a run into `run_dir` (a shard's
    /// packs are its own); a pack keeps the first `keep(path)` bytes, the part the journal
    /// names (see [`super::resume::Resume::pack_keep`]).
    pub fn open(
        layout: TraceLayout,
        run_dir: &Path,
        shard: Option<Shard>,
        worker: usize,
        keep: impl Fn(&str) -> u64,
    ) -> Result<PackWriter> {
        Ok(match layout {
            TraceLayout::Pack => {
                let name = pack_name(shard, worker);
                PackWriter::Pack(TracePack::open(run_dir, &name, keep(&pack_path(&name)))?)
            }
            TraceLayout::Files => PackWriter::Files(run_dir.to_path_buf()),
        })
    }

    /// Writes the trace of trial `trial` of `task_id`; returns where it is, as the record
    /// names it (the file relative to the run folder, and the span in a pack).
    pub fn write(
        &mut self,
        task_id: &str,
        trial: u32,
        trace: &[u8],
    ) -> Result<(String, Option<TraceSpan>)> {
        match self {
            PackWriter::Pack(pack) => {
                let (rel, span) = pack.append(trace)?;
                Ok((rel, Some(span)))
            }
            PackWriter::Files(run_dir) => {
                let rel = format!("{task_id}/{trial}/trace.jsonl");
                let dir = run_dir.join(task_id).join(trial.to_string());
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
                std::fs::write(run_dir.join(&rel), trace)
                    .with_context(|| format!("writing {}", run_dir.join(&rel).display()))?;
                Ok((rel, None))
            }
        }
    }

    /// The pack's file, for the journal to sync before its lines; none for per-trial files
    /// (which, as before packs, the journal does not sync).
    pub fn pack_file(&self) -> Option<(PathBuf, Arc<File>)> {
        match self {
            PackWriter::Pack(pack) => Some(pack.file()),
            PackWriter::Files(_) => None,
        }
    }
}

/// The name of worker `worker`'s pack: `0`, `1`, ...; a shard's carry its place
/// (`shard-2-of-4.0`), so shards sharing a run folder never write the same pack.
pub fn pack_name(shard: Option<Shard>, worker: usize) -> String {
    match shard {
        Some(Shard { index, count }) => format!("shard-{index}-of-{count}.{worker}"),
        None => worker.to_string(),
    }
}

/// The path of pack `name` relative to the run folder: `traces/NAME.jsonl`.
pub fn pack_path(name: &str) -> String {
    format!("{TRACES_DIR}/{name}.jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traces_are_appended_as_spans_and_reopening_cuts_what_no_record_names() {
        let dir = tempfile::tempdir().unwrap();
        let mut pack = TracePack::open(dir.path(), "0", 0).unwrap();
        let (rel, a) = pack.append(b"{\"a\":1}\n").unwrap();
        let (_, b) = pack.append(b"{\"b\":2}\n{\"c\":3}\n").unwrap();
        assert_eq!(rel, "traces/0.jsonl");
        assert_eq!((a.offset, a.len, b.offset, b.len), (0, 8, 8, 16));
        let read =
            |span| clawrun_report::trace_file::read_trace_bytes(dir.path(), &rel, Some(span), None);
        assert_eq!(read(b).unwrap(), b"{\"b\":2}\n{\"c\":3}\n");
        drop(pack);

        // Only `a` reached the journal: `b` is cut and the next trace takes its place.
        let mut pack = TracePack::open(dir.path(), "0", a.end()).unwrap();
        let (_, c) = pack.append(b"{\"d\":4}\n").unwrap();
        assert_eq!(c.offset, 8);
        assert_eq!(
            std::fs::read(dir.path().join(&rel)).unwrap(),
            b"{\"a\":1}\n{\"d\":4}\n"
        );
        // Keeping more than the file holds never lengthens it.
        drop(pack);
        let pack = TracePack::open(dir.path(), "0", 1000).unwrap();
        assert_eq!(pack.len, 16);
    }

    #[test]
    fn shards_name_their_packs_apart() {
        assert_eq!(pack_name(None, 1), "1");
        assert_eq!(
            pack_name(Some(Shard { index: 2, count: 4 }), 0),
            "shard-2-of-4.0"
        );
    }
}
