//! One run to export, loaded from its folders: the shards of a sharded run (in one folder or
//! several) and the sessions of a resumed run merged, the latest record of each trial, every
//! trial's trace, its wall time where `timings*.jsonl` recorded one, and the manifests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clawrun_agents::trace::{Event, read_trace};
use clawrun_report::run_folder::{self, Warn};
use clawrun_report::{Status, Timings, TrialRecord};
use serde_json::Value;

use crate::error::ExportError;

/// One trial: its journal record, where its trace is and its wall time. The trace is read
/// when a format asks for it ([`Trial::events`]), one trial at a time, so an export's memory
/// does not grow with the run.
#[derive(Clone, Debug)]
pub struct Trial {
    /// The latest journal record.
    pub record: TrialRecord,
    /// The run folder holding it.
    pub folder: PathBuf,
    /// Wall-clock microseconds over its attempts (`timings*.jsonl`), when recorded.
    pub wall_us: Option<u64>,
    /// blake3 of the trace's bytes (hex): the trial's ids in an export derive from it, so two
    /// trials that played out differently never share one.
    pub trace_hash: String,
}

/// A run ready to export.
#[derive(Clone, Debug)]
pub struct ExportRun {
    /// A stable id of the run: blake3 of its settings (the manifest without shard, trial
    /// count, task list and suite) and of its trials' traces, so the same run, sharded or
    /// resumed or not, has one id; hex, 32 digits.
    pub id: String,
    /// The manifest's settings (the first manifest by folder and name), `null` without one.
    pub manifest: Value,
    /// The manifests' names, in folder then name order (`run.json`, `run.shard-0-of-2.json`).
    pub manifest_names: Vec<String>,
    /// The trials, by task id then trial index.
    pub trials: Vec<Trial>,
    /// When the earliest session started (UTC, RFC 3339), when recorded.
    pub started: Option<String>,
}

impl ExportRun {
    /// Loads the run in `folders` (one folder, or the folders of one sharded run); damaged
    /// journal lines go to `warn`.
    pub fn load(folders: &[PathBuf], warn: Warn<'_>) -> Result<ExportRun, ExportError> {
        let arms = run_folder::arms_of(folders, warn)?;
        if let [first, other, ..] = arms.as_slice() {
            return Err(ExportError::NotOneRun {
                first: first.folders[0].display().to_string(),
                other: other.folders[0].display().to_string(),
            });
        }
        let Some(arm) = arms.into_iter().next() else {
            return Err(ExportError::Empty {
                folder: String::new(),
            });
        };
        let timings = run_folder::timings(folders, warn)?;
        let latest = latest_per_trial(run_folder::load_sourced(folders, warn)?)?;
        if latest.is_empty() {
            return Err(ExportError::Empty {
                folder: folders[0].display().to_string(),
            });
        }
        let trials = latest
            .into_values()
            .map(|(folder, record)| trial(folder, record, &timings))
            .collect::<Result<Vec<_>, _>>()?;
        let manifest = arm
            .manifests
            .first()
            .map_or(Value::Null, |(_, m)| run_folder::settings_of(m));
        let mut id = blake3::Hasher::new();
        id.update(arm.key.as_bytes());
        for t in &trials {
            id.update(b"\n");
            id.update(t.trace_hash.as_bytes());
        }
        Ok(ExportRun {
            id: id.finalize().to_hex()[..32].to_string(),
            manifest,
            manifest_names: arm.manifests.iter().map(|(n, _)| n.clone()).collect(),
            trials,
            started: timings.first_started,
        })
    }

    /// The agent, as the manifest (else the first record) names it.
    pub fn agent(&self) -> &str {
        self.manifest["agent"]
            .as_str()
            .unwrap_or(&self.trials[0].record.agent)
    }

    /// The clawrun version that made the run (`unknown` without a manifest).
    pub fn clawrun_version(&self) -> &str {
        self.manifest["clawrun_version"]
            .as_str()
            .unwrap_or("unknown")
    }
}

/// The record of each trial over every journal: a scored record beats an infrastructure error
/// (the trial was retried); two different scored records are a conflict.
type Latest = BTreeMap<(String, u32), (PathBuf, TrialRecord)>;

/// Merges the journals' latest records into one per trial.
fn latest_per_trial(
    sourced: Vec<(PathBuf, clawrun_report::Sourced)>,
) -> Result<Latest, ExportError> {
    let mut out: Latest = BTreeMap::new();
    let mut sources: BTreeMap<(String, u32), String> = BTreeMap::new();
    for (folder, s) in sourced {
        let key = (s.record.task_id.clone(), s.record.trial);
        match out.get(&key) {
            None => {}
            Some((_, old)) if *old == s.record => continue,
            Some((_, old)) if old.status == Status::Scored && s.record.status == Status::Scored => {
                return Err(ExportError::Conflict {
                    key: s.record.key(),
                    first: sources[&key].clone(),
                    second: s.source,
                });
            }
            Some((_, old)) if old.status == Status::Scored => continue,
            Some(_) => {}
        }
        sources.insert(key.clone(), s.source);
        out.insert(key, (folder, s.record));
    }
    Ok(out)
}

/// A trial whose trace is on disk, whole: its hash is the recorded one (checked when the
/// trace is read), else the bytes' (runs before hashes were recorded).
fn trial(folder: PathBuf, record: TrialRecord, timings: &Timings) -> Result<Trial, ExportError> {
    let trace_hash = match &record.trace_hash {
        Some(h) if record.trace_present(&folder) => h.clone(),
        _ => {
            let bytes = read_bytes(&folder, &record)?;
            clawrun_report::trace_file::trace_hash(&bytes)
        }
    };
    let wall_us = timings.trial_us(&record.task_id, record.trial);
    Ok(Trial {
        record,
        folder,
        wall_us,
        trace_hash,
    })
}

/// The trace error of `record` in `folder`.
fn trace_error(folder: &Path, record: &TrialRecord, why: String) -> ExportError {
    ExportError::Trace {
        key: record.key(),
        location: folder.join(record.trace_location()).display().to_string(),
        why,
    }
}

/// The bytes of a trial's trace, checked against its recorded hash.
fn read_bytes(folder: &Path, record: &TrialRecord) -> Result<Vec<u8>, ExportError> {
    record
        .trace_bytes(folder)
        .map_err(|e| trace_error(folder, record, e.to_string()))
}

impl Trial {
    /// The trial's trace, read now.
    pub fn events(&self) -> Result<Vec<Event>, ExportError> {
        let bytes = read_bytes(&self.folder, &self.record)?;
        read_trace(bytes.as_slice())
            .map_err(|e| trace_error(&self.folder, &self.record, e.to_string()))
    }
}
