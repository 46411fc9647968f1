//! The configuration check: `--resume` (and a shard starting next to its siblings) compares
//! this invocation with the run folder's [`manifest`](super::manifest) (`run.json`) and with
//! the journal's records, so that one run folder never mixes trials of two configurations,
//! and decides which trials are finished.
//!
//! What a resume may change:
//!
//! - **Freely**: `-j`, the progress bar, the suite's location; more `--trials` or more tasks
//!   (the run is extended; `run.json` keeps every task's hash and the largest trial count).
//!   Not for shards: their split of the (task, trial) pairs depends on both, so every shard of
//!   a run keeps the same tasks and `--trials`.
//! - **With `--force`**: a task whose files changed (its hash differs) — its finished trials are
//!   run again; the old records stay in the journal, superseded by the new ones, and
//!   `run.json` lists the override under `overrides`; another clawrun version with the same
//!   trace version (also listed).
//! - **Never**: the agent, the seed, the fault plan (`--faults`, the plan file's contents,
//!   `ERROR_RATE`), the judge, the user model, `--max-tokens`, `--cache`, the score settings, the trace
//!   version, and the shard layout of the folder. Records of another configuration cannot be
//!   told apart in the report; such a run continues in another `--out`.
//!
//! A scored trial whose trace is gone or damaged (its file, or the part of its trace pack it
//! names, missing or not of the blake3 its record keeps) is run again (with a note on stderr).

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use anyhow::Result;
use clawrun_report::{Status, TraceSpan, trace_file};
use serde_json::{Map, Value, json};

use super::journal::{RecordHead, scan_heads};
use super::manifest::{
    at, manifest, manifest_name, merge_into, read_manifest, sibling_manifests, write_manifest,
};
use super::runner::RunOptions;
use clawrun_faults::{FaultPlan, trial_seed};
use clawrun_trial::TaskEnv;

/// What this invocation found in its run folder.
#[derive(Debug, Default)]
pub struct Resume {
    /// (task, trial) pairs whose latest record is scored, for the task as it is now, with
    /// the trace on disk.
    finished: BTreeSet<(String, u32)>,
    /// The end of the last trace the journal names in each trace pack, by the pack's path in
    /// the run folder (`traces/0.jsonl`): what a reopened pack keeps.
    pack_ends: BTreeMap<String, u64>,
}

impl Resume {
    /// The bytes to keep of the trace pack at `rel` (relative to the run folder).
    pub fn pack_keep(&self, rel: &str) -> u64 {
        self.pack_ends.get(rel).copied().unwrap_or(0)
    }

    /// Whether trial `trial` of `task` is done and is skipped.
    pub fn is_finished(&self, task: &str, trial: u32) -> bool {
        self.finished.contains(&(task.to_string(), trial))
    }
}

/// One difference between what the run folder holds and this invocation.
struct Mismatch {
    /// The field (`seed`, `faults`, `tasks.T002_email_triage`, ...).
    field: String,
    /// Where the recorded value is (`run.json`, `journal.jsonl:12`).
    source: String,
    /// The recorded value, for people.
    recorded: String,
    /// This invocation's value, for people.
    given: String,
    /// Whether `--force` may override it.
    forceable: bool,
    /// What to do.
    hint: String,
}

/// The configuration fields compared, each with the flag that sets it.
const FIELDS: &[(&str, Option<&str>)] = &[
    ("agent", Some("--agent")),
    ("seed", Some("--seed")),
    ("judge", Some("--judge")),
    ("user_model", Some("--user-model")),
    ("max_tokens", Some("--max-tokens")),
    ("cache", Some("--cache")),
    ("models.agent.temperature", Some("--temperature")),
    ("models.agent.base_url", Some("--base-url")),
    ("models.agent.max_tokens", None),
    ("models.agent.images", None),
    ("models.proxy", Some("--model")),
    ("models.judge.temperature", None),
    ("models.judge.base_url", None),
    ("models.judge.max_tokens", None),
    ("models.judge.images", None),
    ("models.user_model.temperature", None),
    ("models.user_model.base_url", None),
    ("models.user_model.max_tokens", None),
    ("models.user_model.images", None),
    ("disk_quota", Some("--disk-quota")),
    ("inode_quota", Some("--inode-quota")),
    ("score.pass_threshold", Some("--pass-threshold")),
    ("score.completion_weight", None),
    ("score.robustness_weight", None),
    ("trace_version", None),
    ("grader.choice", Some("--grader")),
    ("grader.checkout", Some("--claw-eval")),
    ("web.mode", Some("--web")),
];

/// Checks this invocation against the run folder (`--resume`: its own manifest and journal;
/// always: the manifests of other shards in the folder), writes the merged manifest, and
/// returns the finished trials. Refuses a mismatch with every differing field, both values
/// and what to do.
pub fn prepare(
    options: &RunOptions,
    plan: Option<&FaultPlan>,
    tasks: &[TaskEnv],
    journal_path: &Path,
) -> Result<Resume> {
    let mut current = manifest(options, plan, tasks);
    // In replay the cassette's content decides every web answer: compared on resume.
    if options.web.mode() == clawrun_web::WebMode::Replay
        && let Some(cassette) = tasks.first().and_then(|t| t.web.cassette())
    {
        current["web"]["cassette_hash"] = json!(cassette.hash());
    }
    let own_name = manifest_name(options);
    let own_path = options.out.join(&own_name);
    let mut mismatches = Vec::new();
    let mut notes = Vec::new();

    let recorded = if options.resume {
        read_manifest(&own_path)?
    } else {
        None
    };
    if let Some(old) = &recorded {
        compare(
            old,
            &current,
            &own_name,
            options.shard.is_some(),
            &mut mismatches,
            &mut notes,
        );
    }
    for (name, other) in sibling_manifests(&options.out, &own_name)? {
        if let Some(m) = shard_layout(&other, &current, &name) {
            mismatches.push(m);
            continue;
        }
        compare(&other, &current, &name, true, &mut mismatches, &mut notes);
    }

    // The latest record of each trial with its journal line (from 1), read one line at a time.
    let mut latest: BTreeMap<(String, u32), (usize, RecordHead)> = BTreeMap::new();
    // Every span a record names (superseded records included), by pack: each is checked, and
    // a pack keeps up to the end of the last whole, intact trace (the rest — traces of trials
    // whose record was lost, bytes a crash damaged — is cut, and those trials run again).
    let mut spans = PackSpans::new();
    if options.resume {
        scan_heads(journal_path, |line, head| {
            if let Some(span) = head.trace_span {
                spans.entry(head.trace.clone()).or_default().push((
                    line,
                    span,
                    head.trace_hash.clone(),
                ));
            }
            latest.insert((head.task_id.clone(), head.trial), (line, head));
        })?;
    }
    let (pack_ends, intact) = check_packs(&options.out, &spans);
    let journal_name = file_name(journal_path);
    if options.resume && recorded.is_none() && !latest.is_empty() {
        notes.push(format!(
            "{own_name} is missing: checking the configuration against the records of {journal_name} only"
        ));
    }
    let accepted = recorded.as_ref().and_then(|r| r.get("tasks"));
    check_records(
        options,
        tasks,
        &latest,
        &journal_name,
        accepted,
        &mut mismatches,
    );

    // One complaint per field: run.json's comes first, then the journal's.
    let mut seen = BTreeSet::new();
    mismatches.retain(|m| seen.insert(m.field.clone()));
    let blocking: Vec<&Mismatch> = mismatches
        .iter()
        .filter(|m| !(m.forceable && options.force))
        .collect();
    for n in &notes {
        eprintln!("clawrun: note: {n}");
    }
    if !blocking.is_empty() {
        let lines: Vec<String> = blocking.iter().map(|m| describe(m)).collect();
        // The invocation conflicts with the run folder: a usage error (exit status 2).
        return Err(super::preflight::SetupError::Usage(format!(
            "cannot continue the run in {}: it holds trials of another configuration\n  {}",
            options.out.display(),
            lines.join("\n  ")
        ))
        .into());
    }

    // Overrides (all forced by now) are kept in the manifest.
    let mut overrides: Vec<Value> = recorded
        .as_ref()
        .and_then(|o| o.get("overrides"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for m in &mismatches {
        eprintln!(
            "clawrun: --force: {}: the run used {}, now {}{}",
            m.field,
            m.recorded,
            m.given,
            if m.field.starts_with("tasks.") {
                "; its finished trials run again (the old records stay in the journal, superseded)"
            } else {
                ""
            }
        );
        overrides.push(json!({"field": m.field, "was": m.recorded, "now": m.given}));
    }
    if let Some(old) = &recorded {
        merge_into(&mut current, old);
    }
    if !overrides.is_empty() {
        current["overrides"] = Value::Array(overrides);
    }
    write_manifest(&own_path, &current)?;

    let mut finished = BTreeSet::new();
    let hashes: BTreeMap<&str, String> = tasks
        .iter()
        .map(|t| (t.id(), t.loaded.hash_hex()))
        .collect();
    for ((task, trial), (line, record)) in &latest {
        let Some(hash) = hashes.get(task.as_str()) else {
            continue;
        };
        if record.status != Status::Scored || *trial >= options.trials || *hash != record.task_hash
        {
            continue;
        }
        let whole = match record.trace_span {
            Some(_) => intact.contains(line),
            None => trace_file::trace_intact(
                &options.out,
                &record.trace,
                None,
                record.trace_hash.as_deref(),
            ),
        };
        if !whole {
            let location = trace_file::trace_location(&record.trace, record.trace_span);
            eprintln!(
                "clawrun: note: {} is missing or damaged: running trial {task}/{trial} again",
                options.out.join(location).display()
            );
            continue;
        }
        finished.insert((task.clone(), *trial));
    }
    Ok(Resume {
        finished,
        pack_ends,
    })
}

/// The spans a journal names, by trace pack: (journal line, span, the trace's blake3 if kept).
type PackSpans = BTreeMap<String, Vec<(usize, TraceSpan, Option<String>)>>;

/// Checks every span the journal names in each trace pack under `out`: the span is inside the
/// file and, when the record keeps its hash, its bytes have that hash. Returns, by pack, the
/// end of the last intact span (what a reopened pack keeps), and the journal lines whose
/// trace is intact.
fn check_packs(out: &Path, spans: &PackSpans) -> (BTreeMap<String, u64>, BTreeSet<usize>) {
    let mut ends = BTreeMap::new();
    let mut intact = BTreeSet::new();
    for (pack, spans) in spans {
        let Ok(path) = trace_file::inside(out, pack) else {
            eprintln!(
                "clawrun: warning: the journal names `{pack}` as a trace pack, which is not a \
                 file of the run folder; its trials run again"
            );
            continue;
        };
        let Ok(mut file) = File::open(&path) else {
            continue;
        };
        let len = file.metadata().map_or(0, |m| m.len());
        let mut buf = Vec::new();
        for (line, span, hash) in spans {
            if span.end() > len || span.offset.checked_add(span.len).is_none() {
                continue;
            }
            let ok = match hash {
                None => true,
                Some(hash) => {
                    buf.resize(span.len as usize, 0);
                    file.seek(SeekFrom::Start(span.offset))
                        .and_then(|_| file.read_exact(&mut buf))
                        .is_ok()
                        && trace_file::trace_hash(&buf) == *hash
                }
            };
            if ok {
                intact.insert(*line);
                let end = ends.entry(pack.clone()).or_insert(0);
                *end = span.end().max(*end);
            }
        }
    }
    (ends, intact)
}

/// A refusal when `other` (another manifest in the folder) is laid out in other shards than
/// this invocation.
fn shard_layout(other: &Value, current: &Value, name: &str) -> Option<Mismatch> {
    let count = |v: &Value| {
        v.get("shard")
            .and_then(Value::as_str)
            .and_then(|s| s.split_once('/'))
            .map(|(_, n)| n.to_string())
    };
    let (theirs, ours) = (count(other), count(current));
    if theirs == ours {
        return None;
    }
    let show = |c: &Option<String>| match c {
        Some(n) => format!("{n} shards"),
        None => "unsharded".to_string(),
    };
    Some(Mismatch {
        field: "shard".into(),
        source: name.into(),
        recorded: show(&theirs),
        given: show(&ours),
        forceable: false,
        hint: match theirs {
            Some(n) => format!(
                "a run folder holds one run: pass --shards {n} (or --shard I/{n}) like its other shards, or choose another --out"
            ),
            None => {
                "a run folder holds one run: run without --shard, or choose another --out".into()
            }
        },
    })
}

/// Adds the differences between the `recorded` manifest (file `name`) and `current`;
/// `sharded`: the split depends on the task set and the trial count, which must then agree.
fn compare(
    recorded: &Value,
    current: &Value,
    name: &str,
    sharded: bool,
    out: &mut Vec<Mismatch>,
    notes: &mut Vec<String>,
) {
    let mut unrecorded = Vec::new();
    // `grader: null` is how the default was recorded: compared as the default.
    let mut recorded = recorded.clone();
    if let Some(grader) = super::manifest::grader_of(&recorded) {
        recorded["grader"] = grader;
    }
    let recorded = &recorded;
    for (field, flag) in FIELDS {
        let (Some(old), Some(new)) = (at(recorded, field), at(current, field)) else {
            unrecorded.push(format!("`{field}`"));
            continue;
        };
        if old != new {
            let hint = match flag {
                Some(flag) if old == &Value::Bool(true) => format!(
                    "pass {flag} to continue this run, or choose another --out for a new one"
                ),
                Some(flag) if old.is_null() || old == &Value::Bool(false) || old == "none" => format!(
                    "leave out {flag} to continue this run, or choose another --out for a new one"
                ),
                Some(flag) => format!(
                    "pass {flag} {} to continue this run, or choose another --out for a new one",
                    show(old)
                ),
                None if field.starts_with("models.") => "give the --model-config settings this run began with (run.json `models`), or choose another --out for a new one".into(),
                None if *field == "trace_version" => "finish this run with the clawrun that started it, or choose another --out for a new one".into(),
                None => "continue this run with its score settings, or choose another --out for a new one".into(),
            };
            out.push(Mismatch {
                field: field.to_string(),
                source: name.into(),
                recorded: show(old),
                given: show(new),
                forceable: false,
                hint,
            });
        }
    }
    if recorded.get("fault_plan").is_none() {
        unrecorded.push("`fault_plan` (only the --faults text is compared)".into());
    }
    if !unrecorded.is_empty() {
        notes.push(format!(
            "{name} was written by an older clawrun and does not record {}; not checked",
            unrecorded.join(", ")
        ));
    }
    faults(recorded, current, name, out);
    cassette(recorded, current, name, out);
    if let (Some(old), Some(new)) = (
        at(recorded, "clawrun_version"),
        at(current, "clawrun_version"),
    ) && old != new
    {
        out.push(Mismatch {
            field: "clawrun_version".into(),
            source: name.into(),
            recorded: show(old),
            given: show(new),
            forceable: true,
            hint: "finish the run with the clawrun that started it, choose another --out, or pass \
                   --force to continue with this build (the trace version is the same; run.json \
                   lists the override)"
                .into(),
        });
    }
    let empty = Map::new();
    let old_tasks = recorded
        .get("tasks")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let new_tasks = current
        .get("tasks")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (id, new) in new_tasks {
        if let Some(old) = old_tasks.get(id)
            && old != new
        {
            out.push(task_changed(id, name, &show(old), &show(new)));
        }
    }
    if sharded {
        let (old_ids, new_ids): (Vec<&String>, Vec<&String>) =
            (old_tasks.keys().collect(), new_tasks.keys().collect());
        if old_ids != new_ids {
            out.push(Mismatch {
                field: "tasks".into(),
                source: name.into(),
                recorded: list(&old_ids),
                given: list(&new_ids),
                forceable: false,
                hint: "a shard's (task, trial) pairs depend on the whole selection: give every \
                       shard of the run the same TASKS, or choose another --out"
                    .into(),
            });
        }
        if let (Some(old), Some(new)) = (at(recorded, "trials"), at(current, "trials"))
            && old != new
        {
            out.push(Mismatch {
                field: "trials".into(),
                source: name.into(),
                recorded: show(old),
                given: show(new),
                forceable: false,
                hint: format!(
                    "a shard's (task, trial) pairs depend on the trial count: pass --trials {} \
                     like the run's other shards, or choose another --out",
                    show(old)
                ),
            });
        }
    }
}

/// The fault plan: the same plan (by hash) under any spelling is fine; another plan is not.
fn faults(recorded: &Value, current: &Value, name: &str, out: &mut Vec<Mismatch>) {
    let spec = |v: &Value| show(v.get("faults").unwrap_or(&Value::Null));
    let (old_spec, new_spec) = (spec(recorded), spec(current));
    let differs = match (recorded.get("fault_plan"), current.get("fault_plan")) {
        (Some(old), Some(new)) => old != new,
        _ => old_spec != new_spec,
    };
    if !differs {
        return;
    }
    let with_plan = |spec: &str, v: &Value| match v.get("fault_plan").and_then(Value::as_str) {
        Some(h) => format!("{spec} (plan {})", trace_file::short_hash(h)),
        None => spec.to_string(),
    };
    let hint = if old_spec == new_spec {
        "the plan file's contents or ERROR_RATE changed since the run started: restore them to \
         continue this run, or choose another --out for a new one"
            .to_string()
    } else {
        format!(
            "pass --faults {old_spec} to continue this run, or choose another --out for a new one"
        )
    };
    out.push(Mismatch {
        field: "faults".into(),
        source: name.into(),
        recorded: with_plan(&old_spec, recorded),
        given: with_plan(&new_spec, current),
        forceable: false,
        hint,
    });
}

/// The cassette a replay answers from: the same content (by hash) wherever it lies; another
/// content is another web.
fn cassette(recorded: &Value, current: &Value, name: &str, out: &mut Vec<Mismatch>) {
    fn replayed(v: &Value) -> Option<&str> {
        (at(v, "web.mode").and_then(Value::as_str) == Some("replay"))
            .then(|| at(v, "web.cassette_hash").and_then(Value::as_str))
            .flatten()
    }
    let (Some(old), Some(new)) = (replayed(recorded), replayed(current)) else {
        return;
    };
    if old == new {
        return;
    }
    let path = at(recorded, "web.cassette").map_or_else(|| "none".into(), show);
    out.push(Mismatch {
        field: "web.cassette_hash".into(),
        source: name.into(),
        recorded: format!(
            "the cassette {path} (content {})",
            trace_file::short_hash(old)
        ),
        given: format!("a cassette of content {}", trace_file::short_hash(new)),
        forceable: false,
        hint: format!(
            "pass --web-cassette {path} (the cassette this run replays, unchanged) to continue \
             this run, or choose another --out for a new one"
        ),
    });
}

/// A task whose hash changed since its trials ran.
fn task_changed(id: &str, source: &str, old: &str, new: &str) -> Mismatch {
    Mismatch {
        field: format!("tasks.{id}"),
        source: source.into(),
        recorded: format!("task hash {}", trace_file::short_hash(old)),
        given: format!("task hash {}", trace_file::short_hash(new)),
        forceable: true,
        hint: "the task's files changed since its trials ran: restore them, leave the task out, \
               choose another --out, or pass --force to run its finished trials again (the old \
               records stay in the journal, superseded)"
            .into(),
    }
}

/// Checks the journal's latest records: the agent, the trial seeds and the task hashes. A
/// record of another task hash is no mismatch when the manifest already holds the task's
/// current hash (`accepted`: an earlier `--force` took the change; the record is superseded
/// and its trial runs again).
fn check_records(
    options: &RunOptions,
    tasks: &[TaskEnv],
    latest: &BTreeMap<(String, u32), (usize, RecordHead)>,
    journal: &str,
    accepted: Option<&Value>,
    out: &mut Vec<Mismatch>,
) {
    let agent = options.agent.describe();
    let hashes: BTreeMap<&str, String> = tasks
        .iter()
        .map(|t| (t.id(), t.loaded.hash_hex()))
        .collect();
    for ((task, trial), (line, r)) in latest {
        let source = format!("{journal}:{line}");
        if r.agent != agent {
            out.push(Mismatch {
                field: "agent".into(),
                source: format!("{source}, trial {task}/{trial}"),
                recorded: r.agent.clone(),
                given: agent.clone(),
                forceable: false,
                hint: format!(
                    "pass --agent {} to continue this run, or choose another --out for a new one",
                    r.agent
                ),
            });
        }
        let expected = trial_seed(options.seed, task, *trial);
        if r.seed != expected {
            out.push(Mismatch {
                field: "seed".into(),
                source: format!("{source}, trial {task}/{trial}"),
                recorded: format!("trial seed {}", r.seed),
                given: format!("--seed {} (trial seed {expected})", options.seed),
                forceable: false,
                hint: "pass the --seed the run was started with to continue it, or choose \
                       another --out for a new run"
                    .into(),
            });
        }
        if let Some(hash) = hashes.get(task.as_str())
            && *hash != r.task_hash
            && accepted
                .and_then(|a| a.get(task.as_str()))
                .and_then(Value::as_str)
                != Some(hash.as_str())
        {
            out.push(task_changed(task, &source, &r.task_hash, hash));
        }
    }
}

/// One line of the refusal.
fn describe(m: &Mismatch) -> String {
    format!(
        "{}: the run used {} ({}), this invocation {} (hint: {})",
        m.field, m.recorded, m.source, m.given, m.hint
    )
}

/// A value for people: `none` for null, strings bare.
fn show(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// A list of task ids for people (at most 5 shown).
fn list(ids: &[&String]) -> String {
    let shown: Vec<&str> = ids.iter().take(5).map(|s| s.as_str()).collect();
    let more = ids.len().saturating_sub(5);
    if more > 0 {
        format!(
            "{} tasks ({}, ... {more} more)",
            ids.len(),
            shown.join(", ")
        )
    } else {
        format!("{} tasks ({})", ids.len(), shown.join(", "))
    }
}

/// The file name of `path`, for messages.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}
