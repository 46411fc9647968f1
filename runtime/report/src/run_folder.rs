//! A run folder on disk, as its readers (`report`, `export`, `trace`, `replay`) load it: its
//! journals (`journal.jsonl`, the shards' `journal.shard-I-of-N.jsonl`), the latest record of
//! each trial (a resumed or retried trial's later record supersedes), its wall times
//! (`timings*.jsonl`), its manifests (`run.json`, `run.shard-I-of-N.json`) and, over several
//! folders, the arms: folders that are one run (shards) or runs to compare.
//!
//! What a crash damaged (a torn last line, lines that are not records) is skipped and handed to
//! the caller as a [`Warning`] to name; everything else that goes wrong is a [`RunFolderError`]
//! naming the file.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{self, BufReader};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::ReportError;
use crate::header::RunHeader;
use crate::journal_lines::{Damage, JournalLines, unparsable};
use crate::record::{JournalReader, Sourced, TrialRecord};
use crate::timing::Timings;

/// A run folder could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RunFolderError {
    /// The folder holds no journal.
    #[error("{}: no journal.jsonl (not a run folder?)", folder.display())]
    NoJournal {
        /// The folder.
        folder: PathBuf,
    },
    /// A file or folder could not be read.
    #[error("reading {}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A manifest is not a JSON object.
    #[error(
        "{}: not a run manifest ({why}): restore it, or move it away to read the run without its settings",
        path.display()
    )]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A journal or timings file could not be read as one.
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// Something skipped while reading a run folder, for the caller to name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Warning {
    /// A damaged part of a journal (a crash): its records are not read.
    Journal {
        /// The journal.
        journal: String,
        /// What is damaged.
        damage: Damage,
    },
    /// A line of a timings file that is not a timing line (its wall time is not counted).
    Timing(String),
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::Journal { journal, damage } => {
                write!(f, "{}; skipped", damage.describe(journal))
            }
            Warning::Timing(what) => {
                write!(f, "{what}; skipped (its wall time is not counted)")
            }
        }
    }
}

/// Where warnings go (`clawrun` prints them on stderr).
pub type Warn<'a> = &'a mut dyn FnMut(Warning);

/// An I/O error on `path`.
fn io_at(path: &Path) -> impl FnOnce(io::Error) -> RunFolderError + '_ {
    move |source| RunFolderError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The run folder's files whose names start with `prefix` and end in `.jsonl`, sorted.
fn files_named(run: &Path, prefix: &str) -> Result<Vec<PathBuf>, RunFolderError> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(run)
        .map_err(io_at(run))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(".jsonl"))
        })
        .collect();
    out.sort();
    Ok(out)
}

/// How the file that keeps the lines a crash damaged, moved out of a journal, ends
/// (`journal.damaged.jsonl`, `journal.shard-0-of-2.damaged.jsonl`): kept for people, never read
/// as a journal.
pub const DAMAGED_SUFFIX: &str = ".damaged.jsonl";

/// Whether `name` is the file name of a journal: `journal.jsonl` or a shard's
/// `journal.shard-I-of-N.jsonl`, not the lines set aside from one ([`DAMAGED_SUFFIX`]).
pub fn is_journal_name(name: &str) -> bool {
    name.starts_with("journal") && name.ends_with(".jsonl") && !name.ends_with(DAMAGED_SUFFIX)
}

/// The journals of a run folder: `journal.jsonl` and the shards' `journal.shard-*.jsonl`.
pub fn journals(run: &Path) -> Result<Vec<PathBuf>, RunFolderError> {
    let mut out = files_named(run, "journal")?;
    out.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_journal_name)
    });
    if out.is_empty() {
        return Err(RunFolderError::NoJournal {
            folder: run.to_path_buf(),
        });
    }
    Ok(out)
}

/// The wall times recorded in the run folders (`timings.jsonl`, `timings.shard-*.jsonl`).
pub fn timings(runs: &[PathBuf], warn: Warn<'_>) -> Result<Timings, RunFolderError> {
    let mut out = Timings::default();
    for run in runs {
        for path in files_named(run, "timings")? {
            let file = File::open(&path).map_err(io_at(&path))?;
            for skipped in out.read(file, &path.display().to_string())? {
                warn(Warning::Timing(skipped));
            }
        }
    }
    Ok(out)
}

/// The latest record of each trial in each journal of `runs` (a record written later, by a
/// resumed or retried trial, supersedes), read one at a time: a first pass notes which line
/// holds each trial's latest record, so only those line numbers stay in memory. Each record
/// comes with its run folder.
pub fn latest_records(
    runs: &[PathBuf],
    warn: Warn<'_>,
) -> Result<impl Iterator<Item = Result<(PathBuf, Sourced), RunFolderError>> + use<>, RunFolderError>
{
    /// The part of a record that names its trial.
    #[derive(serde::Deserialize)]
    struct Key {
        task_id: String,
        trial: u32,
    }
    let mut plan = Vec::new();
    for run in runs {
        for path in journals(run)? {
            let file = File::open(&path).map_err(io_at(&path))?;
            let mut latest: BTreeMap<String, BTreeMap<u32, usize>> = BTreeMap::new();
            let mut lines = JournalLines::new(BufReader::new(file));
            let mut damage = Vec::new();
            while let Some(line) = lines.next_line().map_err(io_at(&path))? {
                match serde_json::from_str::<Key>(line.text) {
                    Ok(key) => {
                        latest
                            .entry(key.task_id)
                            .or_default()
                            .insert(key.trial, line.number);
                    }
                    Err(e) => damage.push(unparsable(&line, &e)),
                }
            }
            damage.extend(lines.torn().cloned());
            // What a crash damaged is named; the intact records are read.
            for d in damage {
                warn(Warning::Journal {
                    journal: path.display().to_string(),
                    damage: d,
                });
            }
            let keep: BTreeSet<usize> =
                latest.into_values().flat_map(|t| t.into_values()).collect();
            plan.push((run.clone(), path, keep));
        }
    }
    Ok(plan.into_iter().flat_map(|(run, path, keep)| {
        let name = path.display().to_string();
        let reader = File::open(&path)
            .map_err(io_at(&path))
            .map(|f| JournalReader::new(BufReader::new(f), &name));
        let records: Box<dyn Iterator<Item = Result<Sourced, RunFolderError>>> = match reader {
            Ok(mut reader) => Box::new(std::iter::from_fn(move || {
                loop {
                    match reader.next()? {
                        Ok(_) if !keep.contains(&reader.line()) => continue,
                        other => return Some(other.map_err(RunFolderError::from)),
                    }
                }
            })),
            Err(e) => Box::new(std::iter::once(Err(e))),
        };
        records.map(move |r| r.map(|s| (run.clone(), s)))
    }))
}

/// Every journal's records, the latest per trial within each journal, with their run folders.
pub fn load_sourced(
    runs: &[PathBuf],
    warn: Warn<'_>,
) -> Result<Vec<(PathBuf, Sourced)>, RunFolderError> {
    latest_records(runs, warn)?.collect()
}

/// Every record of `runs` (the latest per trial and journal).
pub fn load_runs(runs: &[PathBuf], warn: Warn<'_>) -> Result<Vec<TrialRecord>, RunFolderError> {
    Ok(load_sourced(runs, warn)?
        .into_iter()
        .map(|(_, s)| s.record)
        .collect())
}

/// The manifest at `path`, if there is one: a JSON object.
pub fn read_manifest(path: &Path) -> Result<Option<Value>, RunFolderError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_at(path)(e)),
    };
    let bad = |why: String| RunFolderError::Manifest {
        path: path.to_path_buf(),
        why,
    };
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
    if !value.is_object() {
        return Err(bad("expected a JSON object".into()));
    }
    Ok(Some(value))
}

/// The manifests of run folder `run` (`run.json`, `run.shard-*.json`) as (name, JSON), sorted
/// by name; none when the folder does not exist.
pub fn manifests(run: &Path) -> Result<Vec<(String, Value)>, RunFolderError> {
    let entries = match std::fs::read_dir(run) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_at(run)(e)),
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n == "run.json" || (n.starts_with("run.shard-") && n.ends_with(".json")))
        .collect();
    names.sort();
    let mut found = Vec::new();
    for name in names {
        if let Some(v) = read_manifest(&run.join(&name))? {
            found.push((name, v));
        }
    }
    Ok(found)
}

/// The shard a manifest's name says it is (`run.shard-I-of-N.json` -> `(I, N)`, with
/// `I < N`); `None` for `run.json` and any other name.
pub fn shard_of_manifest(name: &str) -> Option<(u32, u32)> {
    let (i, n) = name
        .strip_prefix("run.shard-")?
        .strip_suffix(".json")?
        .split_once("-of-")?;
    let (i, n): (u32, u32) = (i.parse().ok()?, n.parse().ok()?);
    (i < n).then_some((i, n))
}

/// One arm: the run folders that are one run (shards, or one folder) and their headers.
#[derive(Clone, Debug)]
pub struct Arm {
    /// What sets it apart: the manifest's settings (agent, seed, faults, judge, models, ...).
    pub key: String,
    /// The agent, as the manifest or the records name it.
    pub agent: String,
    /// Its folders, in the order given.
    pub folders: Vec<PathBuf>,
    /// One header per folder.
    pub headers: Vec<RunHeader>,
    /// The manifests of its folders, (name, JSON) each, in folder then name order.
    pub manifests: Vec<(String, Value)>,
    /// The shards its folders hold (`(index, count)`, from `run.shard-I-of-N.json`); empty for
    /// an unsharded run, which is an arm of its own.
    pub shards: BTreeSet<(u32, u32)>,
}

/// The manifest fields that do not set a run apart: a shard's index, the trial count (a run
/// extended with more trials), the task list and where the suite was.
pub const NOT_SETTINGS: [&str; 4] = ["shard", "trials", "tasks", "suite"];

/// The settings of manifest `m` that set a run apart (it without [`NOT_SETTINGS`]).
pub fn settings_of(m: &Value) -> Value {
    let mut settings = m.clone();
    if let Value::Object(map) = &mut settings {
        for k in NOT_SETTINGS {
            map.remove(k);
        }
    }
    settings
}

/// Groups the folders into arms: folders whose manifests agree on every setting are one run
/// (shards, or a run split over folders); a folder without a manifest is keyed by the agents
/// of its records.
pub fn arms_of(runs: &[PathBuf], warn: Warn<'_>) -> Result<Vec<Arm>, RunFolderError> {
    let mut arms: Vec<Arm> = Vec::new();
    for run in runs {
        let found = manifests(run)?;
        let mut header = RunHeader::from_manifests(&run.display().to_string(), &found);
        if let Some(started) = timings(std::slice::from_ref(run), warn)?.first_started {
            header.text.push_str(&format!(", started {started}"));
        }
        let (key, agent) = match found.first() {
            Some((_, m)) => {
                let agent = m["agent"].as_str().unwrap_or("?").to_string();
                (settings_of(m).to_string(), agent)
            }
            None => {
                let mut agents: Vec<String> = load_runs(std::slice::from_ref(run), warn)?
                    .into_iter()
                    .map(|r| r.agent)
                    .collect();
                agents.sort();
                agents.dedup();
                let agent = agents.join(", ");
                (format!("records of {agent}"), agent)
            }
        };
        // Folders are one run only when they hold other shards of one sharded run (the same
        // settings and shard count, no shard twice); any other folder is an arm of its own,
        // named by its folder when its agent is another arm's too.
        let shards: BTreeSet<(u32, u32)> = found
            .iter()
            .filter_map(|(name, _)| shard_of_manifest(name))
            .collect();
        let joins = |a: &Arm| {
            a.key == key
                && !shards.is_empty()
                && !a.shards.is_empty()
                && a.shards
                    .iter()
                    .all(|(_, n)| shards.iter().all(|(_, m)| n == m))
                && a.shards.is_disjoint(&shards)
        };
        match arms.iter_mut().find(|a| joins(a)) {
            Some(arm) => {
                arm.folders.push(run.clone());
                arm.headers.push(header);
                arm.manifests.extend(found);
                arm.shards.extend(shards);
            }
            None => arms.push(Arm {
                key,
                agent,
                folders: vec![run.clone()],
                headers: vec![header],
                manifests: found,
                shards,
            }),
        }
    }
    Ok(arms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_manifest_names_are_parsed_and_others_are_not_shards() {
        assert_eq!(shard_of_manifest("run.shard-1-of-3.json"), Some((1, 3)));
        assert_eq!(shard_of_manifest("run.shard-3-of-3.json"), None);
        assert_eq!(shard_of_manifest("run.json"), None);
        assert_eq!(shard_of_manifest("run.shard-x-of-3.json"), None);
    }

    #[test]
    fn a_folder_without_a_journal_is_named_and_a_bad_manifest_too() {
        let dir = tempfile::tempdir().unwrap();
        let e = journals(dir.path()).unwrap_err();
        assert!(e.to_string().contains("no journal.jsonl"), "{e}");
        std::fs::write(dir.path().join("run.json"), "[1]").unwrap();
        let e = manifests(dir.path()).unwrap_err();
        assert!(
            e.to_string().contains("run.json: not a run manifest"),
            "{e}"
        );
    }

    #[test]
    fn lines_set_aside_from_a_journal_are_not_read_as_one() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "journal.jsonl",
            "journal.damaged.jsonl",
            "journal.shard-0-of-2.jsonl",
            "journal.shard-0-of-2.damaged.jsonl",
        ] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let names: Vec<String> = journals(dir.path())
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["journal.jsonl", "journal.shard-0-of-2.jsonl"]);
    }

    #[test]
    fn the_latest_record_of_a_trial_wins_and_damage_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let line = |trial: u32, turns: u32| {
            format!(
                r#"{{"task_id":"t","category":"c","group":"general","trial":{trial},"seed":1,"agent":"oracle","status":"scored","error":null,"outcome":"final_answer","turns":{turns},"user_rounds":0,"input_tokens":0,"output_tokens":0,"root_hash":"r","task_hash":"h","trace":"x","verdict":null}}"#
            )
        };
        let text = format!("{}\n{}\n{}\n{{torn", line(0, 1), line(1, 1), line(0, 2));
        std::fs::write(dir.path().join("journal.jsonl"), text).unwrap();
        let mut warnings = Vec::new();
        let records = load_runs(&[dir.path().to_path_buf()], &mut |w| warnings.push(w)).unwrap();
        let turns: Vec<(u32, u32)> = records.iter().map(|r| (r.trial, r.turns)).collect();
        assert_eq!(turns, [(1, 1), (0, 2)]);
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].to_string().ends_with("; skipped"),
            "{}",
            warnings[0]
        );
    }
}
