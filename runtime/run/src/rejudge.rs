//! Re-judging a finished run (`clawrun judge RUN --judge MODEL`): each scored trial's evidence
//! is rebuilt from its trace ([`clawrun_trial::recorded`]) and judged again with the judge model
//! ([`clawrun_judge::rejudge_with_log`]); no agent, tool or service runs again. The records,
//! traces and diffs go to a new run folder whose journal holds the new verdicts and whose
//! `run.json` is the source run's with the new judge and a `rejudged` section. The source run
//! is only read.
//!
//! What re-judging cannot see: the trace keeps no files, so deterministic checks of the final
//! filesystem keep the run's results, and `llm_judge` items that show files (`file:PATH`) are
//! unjudged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use anyhow::{Context, Result, anyhow};
use clawrun_agents::Complete;
use clawrun_agents::llm::{LlmClient, ModelConfig};
use clawrun_agents::trace::{EventKind, read_trace};
use clawrun_judge::ScoreConfig;
use clawrun_report::{Status, TrialRecord, trace_file};
use clawrun_task::{Check, EvidenceSource as Source, LoadedTask};
use serde_json::{Value, json};

use super::AgentSpec;
use super::interrupt::interrupted;
use super::journal::{Journal, read_journal, run_journals};
use super::manifest::{RunMeta, merge_into, sibling_manifests, write_manifest};
use super::model_settings::describe_settings;
use super::preflight::{self, Models, SetupError};
use super::progress::{Finished, Progress, Tally};
use super::runner::with_cache;
use super::trace_pack::TRACES_DIR;
use clawrun_trial::recorded::evidence_from_trace;

/// What `clawrun judge` was asked.
pub struct RejudgeOptions {
    /// The finished run folder (shards are merged).
    pub source: PathBuf,
    /// The new run folder.
    pub out: PathBuf,
    /// The suite holding the run's tasks.
    pub suite: PathBuf,
    /// The judge model.
    pub judge: ModelConfig,
    /// Serve the judge's answers from the response cache when present (keyed by the request
    /// and the trial seed, as in `clawrun run --cache`).
    pub cache: bool,
    /// Trials judged at once.
    pub jobs: usize,
    /// Replace a run already in `out`.
    pub force: bool,
    /// Ask the judge's endpoint once before the folder is made.
    pub probe: bool,
    /// Who watches the re-judging as it goes.
    pub progress: std::sync::Arc<dyn Progress>,
}

/// What a re-judge did.
pub struct RejudgeResult {
    /// Every record of the new run (the latest per trial).
    pub records: Vec<TrialRecord>,
    /// Trials judged again (the others were not scored and are copied).
    pub judged: usize,
    /// Judge calls that failed; their items are unjudged.
    pub failed_calls: usize,
    /// `llm_judge` items left unjudged because they show files the trace does not keep.
    pub without_files: usize,
    /// Scored trials whose trace could not be read (`TASK/N: why`): recorded as
    /// infrastructure errors, not judged.
    pub damaged: Vec<String>,
    /// Whether Ctrl-C stopped it early.
    pub interrupted: bool,
}

/// The default new folder: `RUN-judged-<judge>` beside the run, or the next free
/// `RUN-judged-<judge>-<i>`.
pub fn default_out(source: &Path, judge: &ModelConfig) -> PathBuf {
    let slug = judge.describe().replace(['/', ':', '\\'], "_");
    let base = match source.file_name() {
        Some(name) => source.with_file_name(format!("{}-judged-{slug}", name.to_string_lossy())),
        None => {
            let abs = std::path::absolute(source).unwrap_or_else(|_| source.to_path_buf());
            let name = abs
                .file_name()
                .map_or_else(|| "run".into(), |n| n.to_string_lossy().into_owned());
            abs.with_file_name(format!("{name}-judged-{slug}"))
        }
    };
    let mut out = base.clone();
    let mut i = 2;
    while out.exists() {
        out = PathBuf::from(format!("{}-{i}", base.display()));
        i += 1;
    }
    out
}

/// One trial's outcome.
struct Rejudged {
    /// The new record.
    record: TrialRecord,
    /// Whether it was judged again.
    judged: bool,
    /// Its failed judge calls.
    failed_calls: usize,
    /// Its file-showing `llm_judge` items.
    without_files: usize,
    /// Why its trace could not be read, when it could not (it was not judged).
    damaged: Option<String>,
}

/// What every worker shares.
struct Shared<'a> {
    options: &'a RejudgeOptions,
    tasks: &'a BTreeMap<String, LoadedTask>,
    judge: &'a LlmClient,
    score: ScoreConfig,
}

/// Re-judges `options.source` into `options.out`.
pub fn rejudge(options: &RejudgeOptions) -> Result<RejudgeResult> {
    let source = &options.source;
    let journals = run_journals(source);
    let manifests = sibling_manifests(source, "")?;
    if journals.is_empty() || manifests.is_empty() {
        return Err(SetupError::Usage(format!(
            "{}: not a run folder (no journal.jsonl and run.json): give the --out folder of a finished `clawrun run`",
            source.display()
        ))
        .into());
    }
    let mut latest: BTreeMap<(String, u32), TrialRecord> = BTreeMap::new();
    for path in &journals {
        for r in read_journal(path)? {
            latest.insert((r.task_id.clone(), r.trial), r);
        }
    }
    if latest.is_empty() {
        return Err(
            SetupError::Usage(format!("{}: the run holds no trials", source.display())).into(),
        );
    }
    // Re-judging replaces verdicts with clawrun's rubric's: never for trials a Claw-Eval
    // grader scored, whose verdict would silently change graders.
    let by_grader: Vec<String> = latest
        .values()
        .filter(|r| r.grader.is_some())
        .map(TrialRecord::key)
        .collect();
    if !by_grader.is_empty() {
        return Err(SetupError::Usage(format!(
            "{}: {} trial(s) were graded by Claw-Eval's grader.py (e.g. {}), which `clawrun judge` \
             does not re-run yet: run the trials again with `clawrun run --judge MODEL` instead",
            source.display(),
            by_grader.len(),
            by_grader[0]
        ))
        .into());
    }
    let tasks = load_tasks(&options.suite, latest.values())?;

    let judge_config = with_cache(&options.judge, options.cache);
    // A missing key or a dead endpoint is found before the new folder exists.
    let watched = preflight::check(
        &AgentSpec::Oracle,
        &Models {
            agent: None,
            judge: Some(&judge_config),
            user_model: None,
        },
        options.probe,
    )?;
    let judge = LlmClient::new(judge_config.clone())
        .map_err(|e| SetupError::Usage(format!("--judge {}: {e}", judge_config.describe())))?;

    prepare_out(options)?;
    copy_trace_packs(source, &options.out)?;
    copy_timings(source, &options.out)?;
    let run_json = manifest(&manifests, options, &judge_config);
    write_manifest(&options.out.join("run.json"), &run_json)?;
    let mut journal = Journal::open(&options.out.join("journal.jsonl"))?;
    let shared = Shared {
        options,
        tasks: &tasks,
        judge: &judge,
        score: RunMeta::of(&run_json, "run.json")?.score,
    };

    let work: Vec<&TrialRecord> = latest.values().collect();
    let scored = work.iter().filter(|r| r.status == Status::Scored).count();
    tracing::info!(
        "judging {scored} scored trials of {} with {} into {}",
        source.display(),
        judge_config.describe(),
        options.out.display()
    );
    options.progress.start(scored);
    let finished = Finished(options.progress.as_ref());
    let mut tally = Tally::default();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(interrupted());
    let (tx, rx) = mpsc::channel::<Result<Rejudged>>();
    let jobs = options.jobs.max(1).min(work.len());
    let mut result = RejudgeResult {
        records: Vec::new(),
        judged: 0,
        failed_calls: 0,
        without_files: 0,
        damaged: Vec::new(),
        interrupted: false,
    };
    let mut first_error = None;
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (shared, work, next, stop) = (&shared, &work, &next, &stop);
            scope.spawn(move || {
                let rt = match super::runner::worker_runtime() {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                while !stop.load(Ordering::SeqCst) && !interrupted() {
                    let Some(record) = work.get(next.fetch_add(1, Ordering::SeqCst)) else {
                        break;
                    };
                    if tx.send(rejudge_one(&rt, shared, record)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        for outcome in rx {
            match outcome.and_then(|r| journal.append(&r.record).map(|()| r)) {
                Ok(r) => {
                    if r.judged {
                        tally.scored += 1;
                        tally.passed +=
                            usize::from(r.record.verdict.as_ref().is_some_and(|v| v.scores.passed));
                        options.progress.advance(&tally);
                    } else if r.damaged.is_some() {
                        tally.errors += 1;
                        options.progress.advance(&tally);
                    }
                    result.judged += usize::from(r.judged);
                    result.failed_calls += r.failed_calls;
                    result.without_files += r.without_files;
                    result.damaged.extend(r.damaged);
                    result.records.push(r.record);
                    if let Some(reason) = watched.iter().find_map(LlmClient::unreachable) {
                        stop.store(true, Ordering::SeqCst);
                        first_error.get_or_insert_with(|| anyhow!(SetupError::Unreachable(reason)));
                    }
                }
                Err(e) => {
                    stop.store(true, Ordering::SeqCst);
                    first_error.get_or_insert(e);
                }
            }
        }
    });
    drop(finished);
    if let Some(e) = first_error {
        return Err(e.context(format!(
            "re-judging stopped; {} is incomplete (run the command again with --force --out {})",
            options.out.display(),
            options.out.display()
        )));
    }
    result.interrupted = interrupted();
    result
        .records
        .sort_by(|a, b| (&a.task_id, a.trial).cmp(&(&b.task_id, b.trial)));
    Ok(result)
}

/// Copies one trial's files and, when it was scored, judges it again from its trace.
fn rejudge_one(
    rt: &tokio::runtime::Runtime,
    shared: &Shared<'_>,
    record: &TrialRecord,
) -> Result<Rejudged> {
    let o = shared.options;
    copy_trial_files(&o.source, &o.out, record)?;
    let (Status::Scored, Some(recorded)) = (record.status, &record.verdict) else {
        // Not scored (an infrastructure or task error): nothing to judge; kept as it was.
        return Ok(Rejudged {
            record: record.clone(),
            judged: false,
            failed_calls: 0,
            without_files: 0,
            damaged: None,
        });
    };
    let key = record.key();
    let task = shared.tasks.get(&record.task_id).ok_or_else(|| {
        anyhow!("{key}: the task is not loaded (a bug: every scored trial's task is)")
    })?;
    let path = o.source.join(record.trace_location());
    let events = match recorded_events(&o.source, record) {
        Ok(events) => events,
        // A damaged or missing trace (a crash, a folder copied in part): this trial cannot be
        // judged; the others are. Its record says why and stays out of every score.
        Err(why) => {
            let why = format!("{}: {why}", path.display());
            return Ok(Rejudged {
                record: TrialRecord {
                    status: Status::InfraError,
                    verdict: None,
                    error: Some(format!(
                        "not judged: the trace cannot be read ({why}); `clawrun run --resume \
                         --out {}` with the run's options runs the trial again, then judge again",
                        o.source.display()
                    )),
                    ..record.clone()
                },
                judged: false,
                failed_calls: 0,
                without_files: 0,
                damaged: Some(format!("{key}: {why}")),
            });
        }
    };
    let evidence = evidence_from_trace(&events, &task.task.prompt.text)
        .map_err(|e| SetupError::Usage(format!("{}: {e}", path.display())))?;
    // The judge's cached answers are keyed by the trial seed, as in the run.
    let model = shared.judge.for_sample(record.seed);
    let (verdict, log) = rt
        .block_on(clawrun_judge::rejudge_with_log(
            &task.task,
            &evidence,
            recorded,
            Some(&model as &dyn Complete),
            &shared.score,
        ))
        .map_err(|e| {
            SetupError::Usage(format!(
                "{key}: {e} (task hash {}, the run recorded {})",
                short(&task.hash_hex()),
                short(&record.task_hash)
            ))
        })?;
    tracing::debug!(
        "{key}: score {:.4} -> {:.4}",
        recorded.scores.score,
        verdict.scores.score
    );
    Ok(Rejudged {
        record: TrialRecord {
            verdict: Some(verdict),
            ..record.clone()
        },
        judged: true,
        failed_calls: log.calls.iter().filter(|c| c.error.is_some()).count(),
        without_files: file_items(&task.task),
        damaged: None,
    })
}

/// The events of `record`'s trace in run folder `source`, checked to be that trial's (its
/// recorded blake3, else its `trace_start`); why not, for people.
fn recorded_events(
    source: &Path,
    record: &TrialRecord,
) -> std::result::Result<Vec<clawrun_agents::trace::Event>, String> {
    let bytes = record.trace_bytes(source).map_err(|e| e.to_string())?;
    let events = read_trace(bytes.as_slice()).map_err(|e| e.to_string())?;
    match events.first().map(|e| &e.kind) {
        Some(EventKind::TraceStart {
            task_id,
            trial,
            seed,
            ..
        }) if *task_id == record.task_id && *trial == record.trial && *seed == record.seed => {
            Ok(events)
        }
        _ => Err(format!(
            "not the trace of trial {} with seed {} (its trace_start differs)",
            record.key(),
            record.seed
        )),
    }
}

/// The first 12 characters of a hash (a journal's text: cut at a character).
fn short(hash: &str) -> &str {
    trace_file::short_hash(hash)
}

/// The `llm_judge` items of `task` that show files to the judge.
fn file_items(task: &clawrun_task::Task) -> usize {
    task.scoring_components
        .iter()
        .map(|c| &c.check)
        .chain(task.rubric.iter().map(|r| &r.check))
        .filter(|c| {
            matches!(c, Check::LlmJudge { evidence, .. }
                if evidence.iter().any(|s| matches!(s, Source::File(_))))
        })
        .count()
}

/// Loads the tasks of the scored trials from `suite`, each as the run judged it: a task
/// missing from the suite or changed since the run (another task hash) is a usage error
/// naming them all.
fn load_tasks<'a>(
    suite_root: &Path,
    records: impl Iterator<Item = &'a TrialRecord>,
) -> Result<BTreeMap<String, LoadedTask>> {
    let mut wanted: BTreeMap<&str, &str> = BTreeMap::new();
    for r in records.filter(|r| r.status == Status::Scored) {
        wanted.insert(&r.task_id, &r.task_hash);
    }
    let suite = clawrun_task::Suite::open(suite_root).map_err(|e| {
        SetupError::Usage(format!(
            "opening the task suite {}: {e}",
            suite_root.display()
        ))
    })?;
    let mut problems = Vec::new();
    let mut folders = Vec::new();
    for id in wanted.keys() {
        match suite.find(id) {
            Ok(Some(folder)) => folders.push(folder),
            Ok(None) => problems.push(format!(
                "task {id} of the run is not in the suite {} (pass --suite the folder holding the run's tasks)",
                suite_root.display()
            )),
            Err(e) => problems.push(e.to_string()),
        }
    }
    let selection = suite.load_selection(&folders);
    problems.extend(selection.errors.iter().map(ToString::to_string));
    let mut tasks = BTreeMap::new();
    for loaded in selection.tasks {
        let id = loaded.task.task_id.clone();
        match wanted.get(id.as_str()) {
            Some(&hash) if hash != loaded.hash_hex() => problems.push(format!(
                "{}: the task changed since the run (task hash {}, the run recorded {}): judging needs the rubric the run used; restore the task's files",
                loaded.file(),
                short(&loaded.hash_hex()),
                short(hash)
            )),
            _ => {
                tasks.insert(id, loaded);
            }
        }
    }
    if !problems.is_empty() {
        return Err(SetupError::Usage(problems.join("\n")).into());
    }
    Ok(tasks)
}

/// Checks `out`: never the source run; a run already there is replaced only with `force`
/// (its journals, manifests and reports are removed first).
fn prepare_out(o: &RejudgeOptions) -> Result<()> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(&o.out, &o.source) {
        return Err(SetupError::Usage(format!(
            "--out {} is the run being judged, which is never changed: choose another --out",
            o.out.display()
        ))
        .into());
    }
    let held: Vec<PathBuf> = std::fs::read_dir(&o.out)
        .map(|entries| {
            let mut held: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                        (n.starts_with("journal") && n.ends_with(".jsonl"))
                            || (n.starts_with("timings") && n.ends_with(".jsonl"))
                            || (n.starts_with("run.") && n.ends_with(".json"))
                    })
                })
                .collect();
            held.sort();
            held
        })
        .unwrap_or_default();
    if let Some(first) = held.first() {
        if !o.force {
            return Err(SetupError::Usage(format!(
                "{} already holds a run ({}): pass --force to replace it, or choose another --out",
                o.out.display(),
                first.display()
            ))
            .into());
        }
        for path in held
            .iter()
            .chain([&o.out.join("report.html"), &o.out.join("report.md")])
        {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e).with_context(|| format!("removing {}", path.display())),
            }
        }
    }
    std::fs::create_dir_all(&o.out)
        .with_context(|| format!("creating the run folder {}", o.out.display()))
}

/// The new run's manifest: the source run's (shards merged) with the new judge and where it
/// came from.
fn manifest(manifests: &[(String, Value)], o: &RejudgeOptions, judge: &ModelConfig) -> Value {
    let mut doc = manifests[0].1.clone();
    for (_, other) in &manifests[1..] {
        merge_into(&mut doc, other);
    }
    let source_judge = doc.get("judge").cloned().unwrap_or(Value::Null);
    doc["shard"] = Value::Null;
    doc["judge"] = json!(judge.describe());
    if !doc.get("models").is_some_and(Value::is_object) {
        doc["models"] = json!({});
    }
    doc["models"]["judge"] = describe_settings(Some(judge));
    doc["rejudged"] = json!({
        "source": o.source.display().to_string(),
        "source_judge": source_judge,
        "clawrun_version": env!("CARGO_PKG_VERSION"),
        "cache": o.cache,
    });
    doc
}

/// Copies the trace packs of run folder `source` (`traces/*.jsonl`) to `out`: the new records
/// name the same packs and spans.
fn copy_trace_packs(source: &Path, out: &Path) -> Result<()> {
    copy_files(&source.join(TRACES_DIR), &out.join(TRACES_DIR))
}

/// Copies the source run's wall-clock timings (`timings*.jsonl`): the judged run's trials are
/// the source's plays, so their wall times are too (the judging's own time is not a trial's).
fn copy_timings(source: &Path, out: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(source) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("timings") && name.ends_with(".jsonl") {
            std::fs::copy(entry.path(), out.join(&*name))
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Copies the files of `record`'s trial folder (a trace of its own in runs before trace packs,
/// the diff) from `source` to `out`.
fn copy_trial_files(source: &Path, out: &Path, record: &TrialRecord) -> Result<()> {
    let rel = Path::new(&record.task_id).join(record.trial.to_string());
    copy_files(&source.join(&rel), &out.join(&rel))
}

/// Copies the files (not the folders) of folder `from` into `to`, creating it; nothing when
/// `from` does not exist.
fn copy_files(from: &Path, to: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", from.display()))?;
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            std::fs::copy(entry.path(), to.join(entry.file_name()))
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}
