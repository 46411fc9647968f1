//! `clawrun fuzz` (ARCHITECTURE.md §10): a coverage-guided search for the perturbations that
//! break an agent, each failure shrunk to a minimal schedule and written as a reproducer.
//!
//! - [`schedule`]: perturbations (a fault kind at an exact call of an exact point) and their
//!   fault-plan files.
//! - [`mutate`]: seeded mutations over the points a trial called.
//! - [`observe`]: what a trial showed, the failure kinds against the unperturbed twin, the
//!   behaviour signature that guides the search.
//! - [`pool`]: the workers playing and judging trials.
//! - [`search`]: the search of one task; [`shrink`]: confirming and minimising a failure.
//! - [`reproduce`]: reproducer folders (plan file, run folders by `clawrun run`, checked) and
//!   `--regress`.
//! - [`report`]: `fuzz.json`, `report.md`, `index.html`, and each failure's page (rendered by
//!   `clawrun_report::render::html::failure`).

#![deny(missing_docs)]

pub mod mutate;
pub mod observe;
pub mod pool;
pub mod report;
pub mod reproduce;
pub mod schedule;
pub mod search;
pub mod shrink;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};

pub use self::observe::{FailureKind, Observation};
pub use self::reproduce::{RegressAgent, Regression, ReproMeta, Reproduction, regress};
pub use self::schedule::{Perturbation, Schedule};
pub use self::search::{Confirm, Finding, SearchConfig, TaskSearch};

use self::pool::Pool;
use clawrun_run::preflight::{self, Models, SetupError};
use clawrun_run::runner::{prepare_selection, with_cache};
use clawrun_run::trial_record::TrialContext;
use clawrun_run::{AgentSpec, RunOptions};
use clawrun_trial::Harness;
use clawrun_trial::grading::Grading;

/// What `clawrun fuzz` was asked: the run's settings (suite, tasks, agent, seed, out, jobs,
/// judge, grading) and the search's.
#[derive(Clone)]
pub struct FuzzOptions {
    /// Suite, task selection, agent, seed, output folder, workers, judge, grading. `faults`
    /// is ignored: the perturbations are the faults (a task's own `faults:` rules still apply).
    pub run: RunOptions,
    /// Budget, confirmation, shrinking.
    pub search: SearchConfig,
}

/// A failure written as a reproducer folder.
#[derive(Clone, Debug)]
pub struct Reproducer {
    /// The folder, relative to the fuzz output folder.
    pub dir: PathBuf,
    /// The finding.
    pub finding: Finding,
    /// Its metadata (`finding.json`).
    pub meta: ReproMeta,
    /// Playing it with `clawrun run`.
    pub reproduction: Reproduction,
}

/// A task's search and its reproducers.
#[derive(Clone, Debug)]
pub struct TaskFuzz {
    /// The search.
    pub search: TaskSearch,
    /// One per finding, in the order found.
    pub reproducers: Vec<Reproducer>,
}

/// What a fuzz session found.
#[derive(Clone, Debug)]
pub struct FuzzResult {
    /// The agent fuzzed.
    pub agent: String,
    /// The search seed.
    pub seed: u64,
    /// Per task, sorted by id.
    pub tasks: Vec<TaskFuzz>,
    /// Seconds the whole session took (searches, shrinking, reproducers).
    pub secs: f64,
    /// The output folder.
    pub out: PathBuf,
    /// Whether Ctrl-C ended the search early (what was found is still written).
    pub interrupted: bool,
}

impl FuzzResult {
    /// Failures found (distinct minimal schedules), all tasks.
    pub fn failures(&self) -> usize {
        self.tasks.iter().map(|t| t.reproducers.len()).sum()
    }

    /// Search trials played, all tasks.
    pub fn search_trials(&self) -> u64 {
        self.tasks.iter().map(|t| t.search.trials).sum()
    }
}

/// Fuzzes the tasks `options.run` selects with its agent; writes reproducers and reports into
/// `options.run.out`.
pub fn fuzz(options: &FuzzOptions) -> Result<FuzzResult> {
    let started = Instant::now();
    let run = &options.run;
    if let AgentSpec::Replay(_) = run.agent {
        return Err(SetupError::Usage(
            "--agent replay:RUN cannot be fuzzed: a recording cannot answer perturbations it \
             never met (fuzz the agent itself)"
                .into(),
        )
        .into());
    }
    let out = &run.out;
    if out.join(report::SUMMARY_FILE).exists() {
        return Err(SetupError::Usage(format!(
            "{} already holds a fuzz session ({}): choose another --out",
            out.display(),
            report::SUMMARY_FILE
        ))
        .into());
    }
    let prepared = prepare_selection(run, None)?;
    for s in &prepared.skipped {
        eprintln!("clawrun: skipping {}: {}", s.id, s.status);
    }
    if prepared.tasks.is_empty() {
        return Err(SetupError::Usage("nothing to fuzz: no runnable task selected".into()).into());
    }
    let harness = Harness::new(clawrun_sandbox::SandboxConfig::from_env());
    let agent = match &run.agent {
        AgentSpec::Model(m) => AgentSpec::Model(with_cache(m, run.cache)),
        other => other.clone(),
    };
    let judge = run.judge.as_ref().map(|m| with_cache(m, run.cache));
    let user_model = run.user_model.as_ref().map(|m| with_cache(m, run.cache));
    let models = Models {
        agent: match &agent {
            AgentSpec::Model(m) => Some(m),
            _ => None,
        },
        judge: judge.as_ref(),
        user_model: user_model.as_ref(),
    };
    preflight::check(&agent, &models, run.probe)?;
    let grading = Grading::resolve(run.grader, run.claw_eval.as_deref(), &run.suite)?;
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let scratch = out.join(".scratch");
    let cx = TrialContext {
        harness: &harness,
        agent: &agent,
        seed: options.search.seed,
        out: &scratch,
        judge: judge.as_ref(),
        user_model: user_model.as_ref(),
        max_tokens: run.max_tokens,
        score: &run.score,
        grading: &grading,
        recorded: None,
    };
    // The web the tasks reach, as `clawrun run` opens it (a recording goes to OUT/web/).
    let web = std::sync::Arc::new(
        clawrun_web::Web::open(&run.web, Some(&out.join("web")))
            .map_err(|e| SetupError::Usage(e.to_string()))?,
    );
    let tasks: Vec<clawrun_trial::TaskEnv> = prepared
        .tasks
        .into_iter()
        .map(|t| t.with_web(std::sync::Arc::clone(&web)))
        .collect();
    let tasks = &tasks;
    let searches = std::thread::scope(|scope| -> Result<Vec<TaskSearch>> {
        let pool = Pool::start(scope, run.jobs, &cx, tasks, scratch.clone())?;
        let mut searches = Vec::with_capacity(tasks.len());
        for index in 0..tasks.len() {
            if clawrun_run::runner::interrupted() {
                break;
            }
            run.progress.notice(&format!(
                "clawrun: fuzzing {} ({}/{})",
                tasks[index].id(),
                index + 1,
                tasks.len()
            ));
            searches.push(search::search_task(&pool, tasks, index, &options.search)?);
        }
        Ok(searches)
    })?;
    let _ = std::fs::remove_dir_all(&scratch);
    let interrupted = clawrun_run::runner::interrupted();
    // What was found is shrunk (as far as it got) and still written and played: each
    // reproducer is a short run.
    clawrun_run::runner::clear_interrupted();

    let mut results = Vec::with_capacity(searches.len());
    for search in searches {
        let reproducers = write_reproducers(options, &agent, &search)?;
        results.push(TaskFuzz {
            search,
            reproducers,
        });
    }
    let result = FuzzResult {
        agent: agent.describe(),
        seed: options.search.seed,
        tasks: results,
        secs: started.elapsed().as_secs_f64(),
        out: out.clone(),
        interrupted,
    };
    report::write(&result, options)?;
    Ok(result)
}

/// Writes each finding of `search` as a reproducer folder under `out/failures/`, plays it
/// with `clawrun run` and writes its page.
fn write_reproducers(
    options: &FuzzOptions,
    agent: &AgentSpec,
    search: &TaskSearch,
) -> Result<Vec<Reproducer>> {
    let out = &options.run.out;
    let seed = options.search.seed;
    let confirm = options.search.confirm;
    let mut written = Vec::with_capacity(search.findings.len());
    for (i, finding) in search.findings.iter().enumerate() {
        let rel =
            Path::new("failures").join(format!("{}-{:02}-{}", search.task_id, i + 1, finding.kind));
        let dir = out.join(&rel);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let plan_path = dir.join(reproduce::PLAN_FILE);
        let command = reproduce::command(
            &search.task_id,
            &plan_path,
            seed,
            &agent.describe(),
            confirm.of,
        );
        let lines = |s: &Schedule| s.perturbations().iter().map(|p| p.to_string()).collect();
        let meta = ReproMeta {
            task_id: search.task_id.clone(),
            agent: agent.describe(),
            kind: finding.kind,
            seed,
            confirm,
            schedule: lines(&finding.minimal),
            found: lines(&finding.found),
            twin: search.twin.summary(),
            trial: finding.observation.summary(),
            command: command.clone(),
        };
        let header = vec![
            format!(
                "clawrun fuzz reproducer: {} fails ({}) under these perturbations",
                search.task_id, finding.kind
            ),
            format!("agent: {}", meta.agent),
            format!("unperturbed twin: {}", meta.twin),
            format!("perturbed trial:  {}", meta.trial),
            format!("reproduce: {command}"),
        ];
        std::fs::write(&plan_path, finding.minimal.to_plan_file(seed, &header))
            .with_context(|| format!("writing {}", plan_path.display()))?;
        let meta_path = dir.join(reproduce::META_FILE);
        std::fs::write(&meta_path, serde_json::to_string_pretty(&meta)? + "\n")
            .with_context(|| format!("writing {}", meta_path.display()))?;
        let plan_abs = std::path::absolute(&plan_path)?;
        let mut base = options.run.clone();
        base.agent = agent.clone();
        let reproduction = reproduce::reproduce(
            &base,
            &search.task_id,
            &plan_abs,
            seed,
            (finding.kind, confirm),
            &dir,
        )?;
        report::write_failure_page(&dir, &meta, finding, &reproduction)?;
        written.push(Reproducer {
            dir: rel,
            finding: finding.clone(),
            meta,
            reproduction,
        });
    }
    Ok(written)
}
