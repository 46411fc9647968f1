//! `run.json` (`run.shard-I-of-N.json` per shard): what a run was asked — the agent, the seed,
//! the fault plan and its hash, the judge, the user model, the model settings, the limits, the score settings,
//! the task hashes, the versions — read, merged on `--resume`, and written atomically (shards
//! read each other's).

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clawrun_agents::llm::ModelConfig;
use clawrun_judge::ScoreConfig;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::model_settings::describe_settings;
use super::preflight::SetupError;
use super::runner::RunOptions;
use clawrun_faults::FaultPlan;
use clawrun_trial::TaskEnv;

/// A run's manifest as its readers (`replay`, `judge`) need it: typed, with clawrun's
/// defaults where a manifest written by an older clawrun lacks a field.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct RunMeta {
    /// The agent, as the run describes it (`oracle`, `cmd:codex`, ...).
    pub agent: String,
    /// The suite, as the run was given it.
    pub suite: Option<String>,
    /// The run seed.
    pub seed: u64,
    /// `--faults` as given.
    pub faults: Option<String>,
    /// The score settings.
    pub score: ScoreConfig,
    /// `--grader` and `--claw-eval` (`None`: the default, no checkout named).
    pub grader: Option<GraderMeta>,
    /// How the run reached the web.
    pub web: WebMeta,
}

/// A manifest's `grader`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct GraderMeta {
    /// `auto`, `claw-eval`, `clawrun` or `both`.
    pub choice: Option<String>,
    /// The Claw-Eval checkout named.
    pub checkout: Option<PathBuf>,
}

/// A manifest's `web`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct WebMeta {
    /// `off`, `live`, `record` or `replay` (`None` before the web existed: off).
    pub mode: Option<String>,
    /// The cassette, as the run named it.
    pub cassette: Option<PathBuf>,
    /// The cassette's content hash when the run ended (or began, in replay).
    pub cassette_hash: Option<String>,
}

impl RunMeta {
    /// The typed view of manifest `doc` (read from `name`); a field of the wrong type is an
    /// error naming it.
    pub fn of(doc: &Value, name: &str) -> Result<RunMeta> {
        serde_json::from_value(doc.clone()).map_err(|e| {
            anyhow!("{name}: {e} (restore the run's manifest, or move it away to use the defaults)")
        })
    }
}

/// The name of this invocation's manifest in the run folder.
pub fn manifest_name(options: &RunOptions) -> String {
    match options.shard {
        Some(s) => format!("run.shard-{}-of-{}.json", s.index, s.count),
        None => "run.json".to_string(),
    }
}

/// The manifest (`run.json`) of this invocation: what it was asked, the fault plan's hash,
/// the task hashes, the versions.
pub fn manifest(options: &RunOptions, plan: Option<&FaultPlan>, tasks: &[TaskEnv]) -> Value {
    let task_hashes: Map<String, Value> = tasks
        .iter()
        .map(|t| (t.id().to_string(), json!(t.loaded.hash_hex())))
        .collect();
    let plan_hash = plan.map(|p| {
        let bytes = serde_json::to_vec(p).expect("a fault plan always serialises");
        blake3::hash(&bytes).to_hex().to_string()
    });
    json!({
        "clawrun_version": env!("CARGO_PKG_VERSION"),
        "trace_version": clawrun_agents::trace::TRACE_VERSION,
        "agent": options.agent.describe(),
        "suite": options.suite.display().to_string(),
        "trials": options.trials,
        "seed": options.seed,
        "faults": options.faults,
        "fault_plan": plan_hash,
        "shard": options.shard.map(|s| s.to_string()),
        "slurm_array": options.slurm_array,
        "judge": options.judge.as_ref().map(ModelConfig::describe),
        "user_model": options.user_model.as_ref().map(ModelConfig::describe),
        "max_tokens": options.max_tokens,
        "cache": options.cache,
        "models": {
            "agent": describe_settings(match &options.agent {
                super::AgentSpec::Model(m) => Some(m),
                super::AgentSpec::Command(c) => match &c.model {
                    clawrun_external::command::ProxyModel::Model(m) => Some(m),
                    _ => None,
                },
                _ => None,
            }),
            // The model behind an agent program's proxy (`--model`).
            "proxy": match &options.agent {
                super::AgentSpec::Command(c) => Some(c.model.describe()),
                _ => None,
            },
            "judge": describe_settings(options.judge.as_ref()),
            "user_model": describe_settings(options.user_model.as_ref()),
        },
        "disk_quota": options.disk_quota,
        "inode_quota": options.inode_quota,
        "score": {
            "completion_weight": options.score.completion_weight,
            "robustness_weight": options.score.robustness_weight,
            "pass_threshold": options.score.pass_threshold,
        },
        "tasks": task_hashes,
        "grader": grader(options),
        "web": {
            "mode": options.web.mode().as_str(),
            "cassette": options.web.cassette.as_ref().map(|p| p.display().to_string()),
        },
    })
}

/// The grading settings (`--grader`, `--claw-eval`), always written (a resume checks them:
/// they decide every score). Manifests written before 2026-11-28 hold `null` for the default;
/// [`grader_of`] reads that as the default.
fn grader(options: &RunOptions) -> Value {
    json!({
        "choice": options.grader.as_str(),
        "checkout": options.claw_eval.as_ref().map(|p| p.display().to_string()),
    })
}

/// The grading settings a manifest records: its `grader`, with `null` (what clawrun wrote for
/// the default, `auto` without `--claw-eval`) read as that default; `None` when the manifest
/// predates the field.
pub fn grader_of(manifest: &Value) -> Option<Value> {
    match manifest.get("grader")? {
        Value::Null => Some(json!({"choice": "auto", "checkout": null})),
        other => Some(other.clone()),
    }
}

/// The manifest at `path`, if there is one.
pub fn read_manifest(path: &Path) -> Result<Option<Value>> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
        anyhow!(
            "{}: not a run manifest ({e}): restore it, or move it away to resume checking only the journal's records",
            path.display()
        )
    })?;
    if !value.is_object() {
        bail!(
            "{}: not a run manifest (expected a JSON object): restore it, or move it away to resume checking only the journal's records",
            path.display()
        );
    }
    Ok(Some(value))
}

/// The other manifests in the run folder (`run.json`, `run.shard-*.json`), sorted by name.
pub fn sibling_manifests(out: &Path, own: &str) -> Result<Vec<(String, Value)>> {
    let entries = match std::fs::read_dir(out) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", out.display())),
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| {
            n != own && (n == "run.json" || (n.starts_with("run.shard-") && n.ends_with(".json")))
        })
        .collect();
    names.sort();
    let mut out_list = Vec::new();
    for name in names {
        if let Some(v) = read_manifest(&out.join(&name))? {
            out_list.push((name, v));
        }
    }
    Ok(out_list)
}

/// Folds the recorded manifest into `current`: every task hash ever recorded (this
/// invocation's win), the largest trial count, and the run's own spelling of the same fault
/// plan (`claw-eval` with `ERROR_RATE=0.5` stays `claw-eval:0.5` if the run began so), so
/// `run.json` describes the whole journal.
pub fn merge_into(current: &mut Value, recorded: &Value) {
    if recorded.get("fault_plan") == current.get("fault_plan")
        && let Some(spec) = recorded.get("faults")
    {
        current["faults"] = spec.clone();
    }
    if let (Some(old), Some(new)) = (
        recorded.get("tasks").and_then(Value::as_object),
        current.get_mut("tasks").and_then(Value::as_object_mut),
    ) {
        for (id, hash) in old {
            new.entry(id.clone()).or_insert_with(|| hash.clone());
        }
    }
    let old_trials = recorded.get("trials").and_then(Value::as_u64).unwrap_or(0);
    let new_trials = current.get("trials").and_then(Value::as_u64).unwrap_or(0);
    current["trials"] = json!(old_trials.max(new_trials));
}

/// Writes the manifest atomically (a whole file or none: shards read each other's).
pub fn write_manifest(path: &Path, doc: &Value) -> Result<()> {
    let tmp: PathBuf = path.with_extension("json.tmp");
    // Synced before the rename, so that a power loss leaves the old manifest or the new one.
    let bytes = serde_json::to_vec_pretty(doc)?;
    File::create(&tmp)
        .and_then(|mut f| f.write_all(&bytes).and_then(|()| f.sync_data()))
        .and_then(|()| std::fs::rename(&tmp, path))
        .with_context(|| format!("writing {}", path.display()))?;
    super::crash::point("manifest-written");
    Ok(())
}

/// Whether `dir` is a suite holding the task `task_id`.
fn holds_task(dir: &Path, task_id: &str) -> bool {
    dir.is_dir()
        && clawrun_task::Suite::open(dir)
            .ok()
            .and_then(|suite| suite.find(task_id).ok().flatten())
            .is_some()
}

/// The suite a recorded run is replayed or judged against: `--suite`, else the suite recorded
/// in the manifest as is when absolute; a relative one is tried against the current
/// directory, then against the run folder's parent (the first that holds `task_id` wins).
pub fn resolve_suite(
    given: Option<PathBuf>,
    recorded: Option<&str>,
    run: &Path,
    task_id: &str,
) -> Result<PathBuf> {
    if let Some(suite) = given {
        return Ok(suite);
    }
    let Some(recorded) = recorded else {
        return Err(SetupError::Usage(
            "pass --suite DIR (run.json does not name the suite)".into(),
        )
        .into());
    };
    let recorded = PathBuf::from(recorded);
    if recorded.is_absolute() {
        return Ok(recorded);
    }
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let run_abs = std::path::absolute(run).unwrap_or_else(|_| run.to_path_buf());
    let parent = run_abs.parent().unwrap_or(&run_abs).to_path_buf();
    let tries = [cwd.join(&recorded), parent.join(&recorded)];
    if let Some(found) = tries.iter().find(|dir| holds_task(dir, task_id)) {
        return Ok(found.clone());
    }
    Err(SetupError::Usage(format!(
        "{}: the run recorded the suite as {:?}, relative to the folder it was started from; \
         no task {task_id:?} was found relative to the current directory ({}) nor relative \
         to the run folder's parent ({}): pass --suite DIR",
        run.display(),
        recorded.display().to_string(),
        tries[0].display(),
        tries[1].display()
    ))
    .into())
}

/// The value at a dotted path (`score.pass_threshold`).
pub fn at<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

/// Adds `skipped` to the manifest at `path` (written by [`super::resume::prepare`]): the
/// selected tasks this invocation left out as unsupported, as `[{id, folder, status, reason}]`
/// sorted by id (an empty list when none).
/// Records the run's cassette in its manifest: `web.cassette_hash` (its content hash) and
/// `web.recordings` (its entries), as they are now.
pub fn record_cassette(path: &Path, web: &clawrun_web::Web) -> Result<()> {
    let Some(cassette) = web.cassette() else {
        return Ok(());
    };
    let mut doc = read_manifest(path)?
        .with_context(|| format!("{} vanished after it was written", path.display()))?;
    doc["web"]["cassette"] = json!(cassette.dir().display().to_string());
    doc["web"]["cassette_hash"] = json!(cassette.hash());
    doc["web"]["recordings"] = json!(cassette.len());
    write_manifest(path, &doc)
}

/// Records in the manifest at `path` the tasks the run skipped, with why.
pub fn record_skipped(path: &Path, skipped: &[super::runner::Skipped]) -> Result<()> {
    let mut doc = read_manifest(path)?
        .with_context(|| format!("{} vanished after it was written", path.display()))?;
    let list: Vec<Value> = skipped
        .iter()
        .map(|s| {
            json!({
                "id": s.id,
                "folder": s.folder,
                "status": s.status.label(),
                "reason": s.status.reason(),
            })
        })
        .collect();
    doc["skipped"] = Value::Array(list);
    write_manifest(path, &doc)
}

#[cfg(test)]
mod run_meta_tests {
    use super::*;

    #[test]
    fn a_manifest_reads_typed_with_defaults_for_what_an_older_one_lacks() {
        let old = json!({"agent": "oracle", "seed": 7, "faults": "none", "suite": "."});
        let meta = RunMeta::of(&old, "run.json").unwrap();
        assert_eq!(meta.seed, 7);
        assert_eq!(meta.score, ScoreConfig::default());
        assert_eq!(meta.grader, None);
        assert_eq!(meta.web.mode, None);
        let new = json!({
            "seed": 1, "score": {"pass_threshold": 0.9}, "grader": null,
            "web": {"mode": "replay", "cassette": "runs/a/web", "cassette_hash": "ab"},
        });
        let meta = RunMeta::of(&new, "run.json").unwrap();
        assert_eq!(meta.score.pass_threshold, 0.9);
        assert_eq!(meta.score.completion_weight, 0.8);
        assert_eq!(meta.web.cassette.as_deref(), Some(Path::new("runs/a/web")));
        let err = RunMeta::of(&json!({"seed": "x"}), "runs/a/run.json").unwrap_err();
        assert!(err.to_string().starts_with("runs/a/run.json: "), "{err}");
    }
}
