//! The worker pool: pending (task, trial) pairs are claimed by `-j` workers, each with its own
//! single-threaded async runtime; finished records are journaled by one writer thread in
//! completion order. Ctrl-C stops claiming new trials; what finished is in the journal.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

use anyhow::{Context, Result, anyhow};
use clawrun_agents::llm::{CacheMode, LlmClient, ModelConfig};
use clawrun_judge::ScoreConfig;
use clawrun_report::{Status, TrialRecord};

use super::agent_spec::AgentSpec;
pub use super::interrupt::{clear_interrupted, interrupted};
use super::journal::{Journal, latest};
use super::manifest::manifest_name;
use super::preflight::{self, Models, SetupError};
use super::progress::{Finished, Progress, Tally};
use super::selection::TaskFilter;
use super::shard::Shard;
use super::status::TaskStatus;
use super::trace_pack::{PackWriter, TraceLayout};
use super::trial_record::{TrialContext, Worker, run_and_record};
use clawrun_faults::{FaultPlan, PlanOptions, plan_from_cli};
use clawrun_trial::grading::{GraderChoice, Grading};
use clawrun_trial::{Harness, TaskEnv};
use clawrun_web::{Web, WebMode, WebOptions};

/// Everything `clawrun run` was asked to do.
#[derive(Clone)]
pub struct RunOptions {
    /// The suite root (the folder holding `tasks/`).
    pub suite: PathBuf,
    /// Task folders relative to the suite root, or task ids; empty = every task.
    pub tasks: Vec<String>,
    /// `--limit`, `--tags`, `--category`, `--group`, `--exclude` over those tasks.
    pub filter: TaskFilter,
    /// The agent.
    pub agent: AgentSpec,
    /// Trials per task.
    pub trials: u32,
    /// `--faults`: a preset, a plan file or `none`.
    pub faults: Option<String>,
    /// The run seed.
    pub seed: u64,
    /// The run folder.
    pub out: PathBuf,
    /// Workers.
    pub jobs: usize,
    /// This process's shard.
    pub shard: Option<Shard>,
    /// The Slurm array the shard's index came from (recorded in its manifest).
    pub slurm_array: Option<super::shard::SlurmArray>,
    /// Continue a run folder.
    pub resume: bool,
    /// With `resume`: continue although tasks changed or the clawrun version differs (see
    /// [`resume`](super::resume) for what it may override).
    pub force: bool,
    /// The LLM judge.
    pub judge: Option<ModelConfig>,
    /// The model playing simulated users from their persona (else their scripts).
    pub user_model: Option<ModelConfig>,
    /// Token limit per trial.
    pub max_tokens: Option<u64>,
    /// `--cache`: serve model responses (agent, judge, user model) from the on-disk response
    /// cache when present, keyed by the request and the trial seed; decides for every model
    /// of the run (default off: every request reaches the model).
    pub cache: bool,
    /// Bytes each trial may add to its filesystem (default: the task's `limits`, else
    /// [`clawrun_trial::setup::DiskLimits::default`]).
    pub disk_quota: Option<u64>,
    /// Inodes each trial may add (default: the task's, else the default).
    pub inode_quota: Option<u64>,
    /// Score weights and threshold.
    pub score: ScoreConfig,
    /// Immediate re-runs of a trial that hit an infrastructure error.
    pub infra_retries: u32,
    /// Who watches the run as it goes (a progress bar, notices); [`progress::silent`] for
    /// nobody.
    ///
    /// [`progress::silent`]: crate::progress::silent
    pub progress: Arc<dyn Progress>,
    /// Before the run folder is made, send each model endpoint a probe request (`GET
    /// /models`) and refuse to start when it cannot be reached or refuses the key.
    pub probe: bool,
    /// `--grader`: which grader judges the trials.
    pub grader: GraderChoice,
    /// `--claw-eval`: the Claw-Eval checkout whose graders are used (default: the suite, when
    /// it is one).
    pub claw_eval: Option<PathBuf>,
    /// `--web`, `--web-cassette`, `--web-allow`, `--web-search-url`: how `web_real` services
    /// and `curl` reach the web.
    pub web: WebOptions,
    /// `--traces`: one pack per worker or one file per trial.
    pub traces: TraceLayout,
}

impl RunOptions {
    /// One trial of every task in `suite` with `agent` into `out`: no faults, seed 0, one
    /// worker, no judge or user model, default scores, nobody watching. Callers adjust fields.
    pub fn new(suite: impl Into<PathBuf>, agent: AgentSpec, out: impl Into<PathBuf>) -> Self {
        RunOptions {
            suite: suite.into(),
            tasks: Vec::new(),
            filter: TaskFilter::default(),
            agent,
            trials: 1,
            faults: None,
            seed: 0,
            out: out.into(),
            jobs: 1,
            shard: None,
            slurm_array: None,
            resume: false,
            force: false,
            judge: None,
            user_model: None,
            max_tokens: None,
            cache: false,
            disk_quota: None,
            inode_quota: None,
            score: ScoreConfig::default(),
            infra_retries: 0,
            progress: crate::progress::silent(),
            probe: false,
            grader: GraderChoice::Auto,
            claw_eval: None,
            web: WebOptions::default(),
            traces: TraceLayout::Pack,
        }
    }

    /// The run's fault plan from `faults` (`None` for none), seeded with the run seed.
    pub fn fault_plan(&self) -> Result<Option<FaultPlan>> {
        match self.faults.as_deref() {
            None | Some("none") => Ok(None),
            Some(arg) => plan_from_cli(arg, &PlanOptions::from_env(self.seed))
                .map(Some)
                .map_err(|e| SetupError::Usage(e.to_string()).into()),
        }
    }
}

/// What a run left.
pub struct RunResult {
    /// The journal (its records: [`RunResult::records`]).
    pub journal: PathBuf,
    /// Trials in the journal (every session's), counted once each.
    pub trials: usize,
    /// Of those, the trials whose latest record is an infrastructure error.
    pub infra_errors: usize,
    /// Trials run by this invocation.
    pub ran: usize,
    /// Whether Ctrl-C stopped the run early.
    pub interrupted: bool,
    /// The selected tasks skipped as unsupported (also in `run.json`'s `skipped`).
    pub skipped: Vec<Skipped>,
    /// The run folder's writer lock, held until the result is dropped (the CLI writes the
    /// reports meanwhile).
    pub lock: super::lock::RunLock,
}

impl RunResult {
    /// Every record in the journal, the latest per trial, read from the journal (a long run
    /// holds none in memory).
    pub fn records(&self) -> Result<Vec<TrialRecord>> {
        let records = super::journal::read_journal(&self.journal)?;
        Ok(latest(records).into_values().collect())
    }
}

/// The task folders of the suite at `root` (see [`clawrun_task::Suite::discover`] for where
/// they are looked for). A suite without any is a usage error naming the layout.
pub fn suite_tasks(suite: &clawrun_task::Suite, root: &Path) -> Result<Vec<String>> {
    let all = suite
        .discover()
        .map_err(|e| SetupError::Usage(format!("reading the suite {}: {e}", root.display())))?;
    if all.is_empty() {
        let r = root.display();
        return Err(SetupError::Usage(format!(
            "{r}: no tasks found: a suite is a folder holding tasks/ID/task.yaml or \
             tasks/GROUP/ID/task.yaml (or ID/task.yaml, GROUP/ID/task.yaml without a tasks/ \
             folder); nothing deeper is searched (hint: pass --suite the folder that holds tasks/)"
        ))
        .into());
    }
    tracing::info!(
        "suite {}: {} task folders{}",
        root.display(),
        all.len(),
        if all.iter().any(|d| d.starts_with("tasks/")) {
            " under tasks/"
        } else {
            ""
        }
    );
    Ok(all)
}

/// The task folders of `all` (the suite's, relative to `suite`) that `wanted` names, sorted:
/// each a task folder, a folder of task folders (`tasks/general`) or a task id (its folder's
/// name); all of them when `wanted` is empty. A name matching nothing is a usage error, with
/// the ids it begins (`T00` -> `T002_email_triage, ...`) or the closest one
/// ("did you mean").
pub fn pick_tasks(all: &[String], wanted: &[String], suite: &Path) -> Result<Vec<String>> {
    if wanted.is_empty() {
        return Ok(all.to_vec());
    }
    let mut picked = Vec::new();
    for want in wanted {
        let want = want.trim_end_matches('/');
        let hits: Vec<&String> = all
            .iter()
            .filter(|d| {
                d.as_str() == want
                    || d.starts_with(&format!("{want}/"))
                    || d.rsplit('/').next() == Some(want)
            })
            .collect();
        if hits.is_empty() {
            return Err(SetupError::Usage(format!(
                "no task matches {want:?} in {}{} (give a task folder or task id; `clawrun list` \
                 shows them)",
                suite.display(),
                suggest_tasks(all, want)
            ))
            .into());
        }
        picked.extend(hits.into_iter().cloned());
    }
    picked.sort();
    picked.dedup();
    Ok(picked)
}

/// What a task name matching nothing may have meant: the ids it begins, else the closest id
/// or folder; `""` when nothing is near.
fn suggest_tasks(all: &[String], want: &str) -> String {
    let ids: Vec<&str> = all
        .iter()
        .map(|d| d.rsplit('/').next().unwrap_or(d))
        .collect();
    let lower = want.to_lowercase();
    let begun: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| id.to_lowercase().starts_with(&lower))
        .collect();
    match begun.as_slice() {
        [] => {}
        [one] => return format!(" (did you mean {one}?)"),
        many => {
            let shown = many.iter().take(3).copied().collect::<Vec<_>>().join(", ");
            let more = match many.len() {
                n if n > 3 => format!(" and {} more", n - 3),
                _ => String::new(),
            };
            return format!(
                " (ids beginning with it: {shown}{more}; give whole ids, or `--exclude` and the \
                 other filters to pick a set)"
            );
        }
    }
    // The folders holding tasks (`tasks/general`), then the ids and whole folders.
    let mut groups: Vec<&str> = all
        .iter()
        .filter_map(|d| d.rsplit_once('/').map(|(parent, _)| parent))
        .collect();
    groups.sort_unstable();
    groups.dedup();
    let candidates = ids
        .iter()
        .copied()
        .chain(groups)
        .chain(all.iter().map(String::as_str));
    clawrun_agents::spelling::did_you_mean(want, candidates)
}

/// A selected task that cannot run, and why.
#[derive(Clone, Debug)]
pub struct Skipped {
    /// The task id.
    pub id: String,
    /// The task folder, relative to the suite root.
    pub folder: String,
    /// Its status (unsupported, with the reason).
    pub status: TaskStatus,
}

/// The selected tasks: those prepared to run, and those skipped as unsupported.
pub struct Prepared {
    /// The tasks to run, sorted by id.
    pub tasks: Vec<TaskEnv>,
    /// The unsupported tasks, sorted by id.
    pub skipped: Vec<Skipped>,
}

/// The tasks `options` selects, prepared (unsupported ones left out: see
/// [`prepare_selection`]).
pub fn prepare_tasks(options: &RunOptions, plan: Option<&FaultPlan>) -> Result<Vec<TaskEnv>> {
    Ok(prepare_selection(options, plan)?.tasks)
}

/// The tasks `options` selects, prepared, except unsupported ones ([`TaskStatus`]), which are
/// returned with their reasons. Broken task files are one usage error naming each.
pub fn prepare_selection(options: &RunOptions, plan: Option<&FaultPlan>) -> Result<Prepared> {
    let suite = clawrun_task::Suite::open(&options.suite).map_err(|e| {
        SetupError::Usage(format!(
            "opening the task suite {}: {e}",
            options.suite.display()
        ))
    })?;
    let all = suite_tasks(&suite, &options.suite)?;
    let selected = pick_tasks(&all, &options.tasks, &options.suite)?;
    let selection = suite.load_selection(&selected);
    let mut errors: Vec<String> = selection.errors.iter().map(|e| e.to_string()).collect();
    let loaded_count = selection.tasks.len();
    // `--limit` takes what this run can score first: no judge or simulated user it lacks.
    let chosen = options.filter.apply_preferring(selection.tasks, |loaded| {
        if TaskStatus::of_missing_files(loaded).is_some() {
            return false;
        }
        match TaskStatus::before_setup(&loaded.task, options.web.mode()) {
            TaskStatus::Runnable => true,
            TaskStatus::NeedsJudge(_) => options.judge.is_some(),
            TaskStatus::NeedsUserModel { also_judge } => {
                options.user_model.is_some() && (options.judge.is_some() || !also_judge)
            }
            TaskStatus::Unsupported { .. } => false,
        }
    });
    if chosen.is_empty() && loaded_count > 0 && !options.filter.is_empty() {
        return Err(SetupError::Usage(format!(
            "no task of {} is selected by {} (`clawrun list` with the same filters shows the selection)",
            options.suite.display(),
            options.filter.describe()
        ))
        .into());
    }
    let mut envs = Vec::new();
    let mut skipped = Vec::new();
    for loaded in chosen {
        for w in &loaded.warnings {
            tracing::debug!("{w}");
        }
        let (id, folder) = (loaded.task.task_id.clone(), loaded.dir.clone());
        let status = TaskStatus::before_setup(&loaded.task, options.web.mode());
        if status.is_unsupported() {
            skipped.push(Skipped { id, folder, status });
            continue;
        }
        // A checkout's task without its media: refused before anything runs, naming the files
        // and the command that fetches them.
        if let Some(status) = TaskStatus::of_missing_files(&loaded) {
            skipped.push(Skipped { id, folder, status });
            continue;
        }
        let suite = loaded.suite().clone();
        match TaskEnv::prepare(loaded, plan) {
            Ok(mut env) => {
                env.disk.bytes = options.disk_quota.unwrap_or(env.disk.bytes);
                env.disk.inodes = options.inode_quota.unwrap_or(env.disk.inodes);
                envs.push(env);
            }
            Err(e) if clawrun_sandbox::tools::InstallationError::is(&e) => return Err(e),
            Err(e) => match TaskStatus::of_setup_error(&e, &suite) {
                Some(status) => skipped.push(Skipped { id, folder, status }),
                None => errors.push(format!("{e:#}")),
            },
        }
    }
    // Broken task files are input errors (exit status 2), reported all at once.
    if !errors.is_empty() {
        return Err(SetupError::Usage(errors.join("\n")).into());
    }
    envs.sort_by(|a, b| a.id().cmp(b.id()));
    skipped.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Prepared {
        tasks: envs,
        skipped,
    })
}

/// `config` with the run's cache setting.
pub fn with_cache(config: &ModelConfig, on: bool) -> ModelConfig {
    let mut config = config.clone();
    config.cache = if on { CacheMode::On } else { CacheMode::Off };
    config
}

/// Runs `options`.
pub fn run(options: &RunOptions) -> Result<RunResult> {
    let plan = options.fault_plan()?;
    let Prepared { tasks, skipped } = prepare_selection(options, plan.as_ref())?;
    for s in &skipped {
        options
            .progress
            .notice(&format!("clawrun: skipping {}: {}", s.id, s.status));
    }
    if tasks.is_empty() && !skipped.is_empty() {
        return Err(SetupError::Usage(format!(
            "nothing to run: every selected task ({}) is unsupported or needs the web or \
             fixtures (see above)",
            skipped.len()
        ))
        .into());
    }
    let harness = Harness::new(clawrun_sandbox::SandboxConfig::from_env());
    let agent = match &options.agent {
        AgentSpec::Model(m) => AgentSpec::Model(with_cache(m, options.cache)),
        other => other.clone(),
    };
    let user_model = options
        .user_model
        .as_ref()
        .map(|m| with_cache(m, options.cache));
    let judge_config = options.judge.as_ref().map(|m| with_cache(m, options.cache));
    let models = Models {
        agent: match &agent {
            AgentSpec::Model(m) => Some(m),
            _ => None,
        },
        judge: judge_config.as_ref(),
        user_model: user_model.as_ref(),
    };
    // Bad settings and dead endpoints are found before the run folder exists.
    let watched = preflight::check(&agent, &models, options.probe)?;
    let grading = Grading::resolve(options.grader, options.claw_eval.as_deref(), &options.suite)?;

    refuse_foreign_folder(&options.out)?;
    std::fs::create_dir_all(&options.out)
        .with_context(|| format!("creating the run folder {}", options.out.display()))?;
    // Held to the end of the run (reports included); released by the kernel on any exit.
    let lock = super::lock::RunLock::acquire(&options.out, options.shard)?;
    let journal_path = options.out.join(match options.shard {
        Some(s) => format!("journal.shard-{}-of-{}.jsonl", s.index, s.count),
        None => "journal.jsonl".to_string(),
    });
    if journal_path.exists() && !options.resume {
        return Err(SetupError::Usage(format!(
            "{} already holds a run: pass --resume to continue it, or choose another --out",
            options.out.display()
        ))
        .into());
    }
    // The web the tasks reach (a recording goes to the run folder's web/ unless named).
    let web = Arc::new(
        Web::open(&options.web, Some(&options.out.join("web")))
            .map_err(|e| SetupError::Usage(e.to_string()))?,
    );
    if matches!(web.mode(), WebMode::Live | WebMode::Record) && options.web.search.key.is_none() {
        options.progress.notice(
            "clawrun: note: SERP_DEV_KEY is not set: web searches answer 503 naming it (page \
             fetches work)",
        );
    }
    let tasks: Vec<TaskEnv> = tasks
        .into_iter()
        .map(|t| t.with_web(Arc::clone(&web)))
        .collect();
    // The configuration check (refusing another configuration) and run.json.
    let resume = super::resume::prepare(options, plan.as_ref(), &tasks, &journal_path)?;
    let manifest_path = options.out.join(manifest_name(options));
    super::manifest::record_skipped(&manifest_path, &skipped)?;
    super::manifest::record_cassette(&manifest_path, &web)?;
    let journal = Journal::open(&journal_path)?;
    let mut timings = super::timings::TimingsFile::open(&options.out, options.shard)?;
    let session_start = std::time::Instant::now();
    let session_started = std::time::SystemTime::now();

    // Pairs in a fixed order; the shard keeps its own; finished (scored) trials are skipped.
    let mut pending = Vec::new();
    let mut position = 0usize;
    for (t, task) in tasks.iter().enumerate() {
        for trial in 0..options.trials {
            let mine = options.shard.is_none_or(|s| s.owns(position));
            position += 1;
            let finished = resume.is_finished(task.id(), trial);
            if mine && !finished {
                pending.push((t, trial));
            }
        }
    }

    tracing::info!(
        "{} tasks x {} trials: {} to run on {} workers into {}",
        tasks.len(),
        options.trials,
        pending.len(),
        options.jobs.max(1).min(pending.len().max(1)),
        options.out.display()
    );
    // Set on the first error (or Ctrl-C): workers stop claiming trials.
    let stop = AtomicBool::new(interrupted());
    options.progress.start(pending.len());
    let _finished = Finished(options.progress.as_ref());
    let next = AtomicUsize::new(0);
    // Each finished attempt, its journal line (serialised by the worker, so the one writer
    // thread only writes) and its wall time (for timings.jsonl only). Bounded, so that a
    // writer held up (a sync of a slow disk) holds back the workers, not the run's memory.
    let (tx, rx) = mpsc::sync_channel::<Result<(TrialRecord, String, std::time::Duration)>>(QUEUED);
    let score = options.score;
    let cx = TrialContext {
        harness: &harness,
        agent: &agent,
        seed: options.seed,
        out: &options.out,
        judge: judge_config.as_ref(),
        user_model: user_model.as_ref(),
        max_tokens: options.max_tokens,
        score: &score,
        grading: &grading,
        recorded: None,
    };
    let jobs = options.jobs.max(1).min(pending.len().max(1));
    // One trace pack per worker (unless --traces files), cut back to what the journal names.
    let mut writers = Vec::with_capacity(jobs);
    for worker in 0..jobs {
        writers.push(PackWriter::open(
            options.traces,
            &options.out,
            options.shard,
            worker,
            |pack| resume.pack_keep(pack),
        )?);
    }
    // The journal syncs them before its lines.
    let mut journal = journal;
    journal.sync_first(writers.iter().filter_map(PackWriter::pack_file).collect());
    let mut ran = 0usize;
    let mut first_error = None;
    let mut tally = Tally::default();
    std::thread::scope(|scope| -> Result<()> {
        // Owned here, so that a writer error, which returns early, drops it: workers waiting
        // on the full queue then see the run end instead of waiting for ever.
        let rx = rx;
        for (worker, traces) in writers.into_iter().enumerate() {
            let tx = tx.clone();
            let (cx, tasks, pending, next, stop) = (&cx, &tasks, &pending, &next, &stop);
            // Named, so that profiles, panics and debuggers tell the workers apart.
            let named = std::thread::Builder::new().name(format!("trial-worker-{worker}"));
            named
                .spawn_scoped(scope, move || {
                    let rt = match worker_runtime() {
                        Ok(rt) => rt,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    };
                    let mut state = match Worker::new(cx, traces) {
                        Ok(state) => state,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    };
                    while !stop.load(Ordering::SeqCst) && !interrupted() {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(&(t, trial)) = pending.get(i) else {
                            break;
                        };
                        let task = &tasks[t];
                        for attempt in 0..=options.infra_retries {
                            let started = std::time::Instant::now();
                            let result =
                                run_and_record(&rt, cx, &mut state, task, trial).map(|r| {
                                    let line = r.to_line();
                                    (r, line, started.elapsed())
                                });
                            let infra =
                                matches!(&result, Ok((r, _, _)) if r.status == Status::InfraError);
                            if tx.send(result).is_err() {
                                return;
                            }
                            if !infra
                                || attempt == options.infra_retries
                                || stop.load(Ordering::SeqCst)
                                || interrupted()
                            {
                                break;
                            }
                        }
                    }
                })
                .map_err(|e| {
                    // The workers already started stop after their current trial.
                    stop.store(true, Ordering::SeqCst);
                    anyhow!("starting a trial worker thread: {e}")
                })?;
        }
        drop(tx);
        // Results are drained in batches by polling: a worker's send then never wakes this
        // thread (a futex call and a context switch per trial), and a batch's journal lines
        // and timing lines go out in one write each. A trial's line is written within
        // POLL of its end.
        let mut batch = Vec::new();
        loop {
            let disconnected = loop {
                match rx.try_recv() {
                    Ok(result) => batch.push(result),
                    Err(mpsc::TryRecvError::Empty) => break false,
                    Err(mpsc::TryRecvError::Disconnected) => break true,
                }
            };
            if batch.is_empty() {
                if disconnected {
                    break;
                }
                // Quiet workers (long trials): the lines waiting are synced meanwhile.
                journal.sync_if_due()?;
                std::thread::sleep(POLL);
                continue;
            }
            let mut lines = Vec::with_capacity(batch.len());
            for result in batch.drain(..) {
                match result {
                    Ok((record, line, wall)) => {
                        lines.push(line);
                        timings.trial(&record, wall);
                        tracing::debug!(
                            "{}: {:?}, score {}",
                            record.key(),
                            record.status,
                            record
                                .verdict
                                .as_ref()
                                .map_or("-".into(), |v| format!("{:.4}", v.scores.score))
                        );
                        ran += 1;
                        if record.status == Status::Scored {
                            // An unjudged trial has no score: neither a pass nor a failure.
                            if record.judgement() == Some(clawrun_report::Judgement::Unjudged) {
                                tally.unjudged += 1;
                            } else {
                                tally.scored += 1;
                                tally.passed += usize::from(
                                    record.verdict.as_ref().is_some_and(|v| v.scores.passed),
                                );
                            }
                        } else {
                            tally.errors += 1;
                        }
                    }
                    Err(e) => {
                        stop.store(true, Ordering::SeqCst);
                        if first_error.is_none() {
                            first_error = Some(e);
                        }
                    }
                }
            }
            // A web cassette being recorded is synced before any line naming a trial that
            // read it is written: unlike a trace, whose record keeps its hash and whose trial
            // runs again when it is lost, nothing would tell a finished trial whose answers a
            // power loss took from the cassette (its replay would find them missing).
            if let Some(cassette) = web.cassette()
                && let Some(len) = cassette.sync_appended()?
            {
                super::crash::synced(
                    &options.out,
                    &cassette.dir().join(clawrun_web::cassette::INDEX),
                    len,
                );
            }
            journal.append_lines(&lines)?;
            timings.flush()?;
            super::crash::point("timings-written");
            options.progress.advance(&tally);
            // A model endpoint that stopped answering ends the run (not every remaining
            // trial as an infrastructure error after its retries).
            if let Some(reason) = watched.iter().find_map(LlmClient::unreachable) {
                stop.store(true, Ordering::SeqCst);
                if first_error.is_none() {
                    first_error = Some(anyhow!(SetupError::Unreachable(reason)));
                }
            }
            if disconnected {
                break;
            }
        }
        Ok(())
    })?;
    journal.sync()?;
    if let Some(cassette) = web.cassette() {
        cassette.sync()?;
        super::manifest::record_cassette(&manifest_path, &web)?;
    }
    drop(_finished);
    timings.session(
        session_started,
        session_start.elapsed().as_millis() as u64,
        ran,
    )?;
    if let Some(e) = first_error {
        return Err(e.context(
            "the run stopped; finished trials are in the journal (continue with --resume)",
        ));
    }
    let statuses = super::journal::latest_statuses(&journal_path)?;
    let statuses = || statuses.values().flat_map(|trials| trials.values());
    Ok(RunResult {
        trials: statuses().count(),
        infra_errors: statuses().filter(|s| **s == Status::InfraError).count(),
        journal: journal_path,
        ran,
        interrupted: interrupted(),
        skipped,
        lock,
    })
}

/// Refuses an `--out` that holds files but no run (no manifest, journal or lock of clawrun's):
/// a run's files would be mixed into someone else's folder.
fn refuse_foreign_folder(out: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    let names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    let is_run_file = |n: &str| {
        n == "run.json"
            || n.starts_with(".clawrun")
            || (n.starts_with("run.shard-") && n.ends_with(".json"))
            || (n.starts_with("journal") && n.ends_with(".jsonl"))
    };
    if names.is_empty() || names.iter().any(|n| is_run_file(n)) {
        return Ok(());
    }
    let mut shown: Vec<&str> = names.iter().map(String::as_str).take(3).collect();
    shown.sort_unstable();
    Err(SetupError::Usage(format!(
        "--out {}: the folder is not empty ({}{}) and holds no run: choose a new or empty folder",
        out.display(),
        shown.join(", "),
        if names.len() > 3 { ", ..." } else { "" }
    ))
    .into())
}

/// Finished trials waiting for the journal writer at most.
const QUEUED: usize = 64;

/// How often the journal writer collects finished trials.
const POLL: std::time::Duration = std::time::Duration::from_millis(1);

/// A worker's own single-threaded async runtime (its model clients and timers live on it).
pub fn worker_runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow!("starting a worker: {e}"))
}
