//! One trial end to end: build the agent (and simulated user), run the trial, write its trace
//! and diff, judge it, and make the journal record. A run's workers, `clawrun replay` and
//! `clawrun validate` all play and judge a trial through [`run_and_record`].

use std::path::Path;

use anyhow::{Context, Result, anyhow};

use clawrun_agents::llm::{LlmClient, ModelConfig};
use clawrun_agents::trace::Event;
use clawrun_judge::ScoreConfig;
use clawrun_report::TrialRecord;

use super::agent_spec::AgentSpec;
use super::trace_pack::PackWriter;
use clawrun_external::command::TrialPlace;
use clawrun_sandbox::tools::InstallationError;
use clawrun_trial::execution::not_started;
use clawrun_trial::grading::Grading;
use clawrun_trial::judgement::{Judged, Judging};
use clawrun_trial::{
    Harness, Limits, LlmUser, ReplayUser, SimulatedUser, TaskEnv, TrialInputs, TrialOutput,
};
use clawrun_vfs::ChangeKind;

/// What every trial of a run shares.
pub struct TrialContext<'a> {
    /// Engine and tools.
    pub harness: &'a Harness,
    /// The agent.
    pub agent: &'a AgentSpec,
    /// The run seed.
    pub seed: u64,
    /// The run folder.
    pub out: &'a Path,
    /// The LLM judge's model, if any.
    pub judge: Option<&'a ModelConfig>,
    /// The model playing simulated users that have no script, if any.
    pub user_model: Option<&'a ModelConfig>,
    /// Token limit per trial.
    pub max_tokens: Option<u64>,
    /// Score weights and threshold.
    pub score: &'a ScoreConfig,
    /// Which grader judges each task.
    pub grading: &'a Grading,
    /// The recorded run a replay plays (an agent program's model answers come from it).
    pub recorded: Option<&'a super::agent_spec::RecordedRun>,
}

impl TrialContext<'_> {
    /// How `worker` judges this run's trials.
    pub fn judging<'a>(&'a self, worker: &'a Worker) -> Judging<'a> {
        Judging {
            grading: self.grading,
            judge: worker.judge(),
            score: self.score,
        }
    }
}

/// What one worker keeps across its trials: the model clients (agent, judge, simulated user),
/// made once and used by all its trials, each sampling with its own seed (one connection pool
/// and one certificate store per endpoint and worker; their requests run on the process's model-HTTP
/// runtime, `clawrun_agents::llm`'s, so a client may serve any runtime), and
/// the trace pack its trials' traces go to.
pub struct Worker {
    agent: Option<LlmClient>,
    judge: Option<LlmClient>,
    user: Option<LlmClient>,
    traces: PackWriter,
    /// The JSONL of the trace being written, reused from trial to trial.
    trace_buffer: Vec<u8>,
}

impl Worker {
    /// A worker with the clients of `cx`'s models, writing traces to `traces`.
    pub fn new(cx: &TrialContext<'_>, traces: PackWriter) -> Result<Self> {
        let client = |flag: &str, config: &ModelConfig| {
            LlmClient::new(config.clone()).map_err(|e| anyhow!("{flag} {}: {e}", config.describe()))
        };
        Ok(Self {
            agent: match cx.agent {
                AgentSpec::Model(config) => Some(client("--agent", config)?),
                _ => None,
            },
            judge: cx.judge.map(|c| client("--judge", c)).transpose()?,
            user: cx
                .user_model
                .map(|c| client("--user-model", c))
                .transpose()?,
            traces,
            trace_buffer: Vec::new(),
        })
    }

    /// The judge's client, if the run has a judge.
    pub fn judge(&self) -> Option<&LlmClient> {
        self.judge.as_ref()
    }
}

/// Runs, judges and records trial `trial` of `task` on `worker`.
pub fn run_and_record(
    rt: &tokio::runtime::Runtime,
    cx: &TrialContext<'_>,
    worker: &mut Worker,
    task: &TaskEnv,
    trial: u32,
) -> Result<TrialRecord> {
    let output = play(rt, cx, worker, task, trial, None)?;
    let dir = cx.out.join(task.id()).join(trial.to_string());
    output.write_trace_jsonl(&mut worker.trace_buffer);
    let (trace, trace_span) = worker
        .traces
        .write(task.id(), trial, &worker.trace_buffer)?;
    write_changes(task, &output, &dir)?;
    let Judged {
        status,
        error,
        verdict,
        grader,
        native_verdict,
    } = cx.judging(worker).judge(rt, task, trial, &output, &dir)?;
    Ok(TrialRecord {
        task_id: task.id().to_string(),
        category: task.loaded.task.category.clone().unwrap_or_default(),
        group: task.loaded.task.group,
        trial,
        seed: output.seed,
        agent: cx.agent.describe(),
        status,
        error,
        outcome: output.outcome,
        turns: output.turns,
        user_rounds: output.user_rounds,
        cached_turns: output.cached_turns,
        input_tokens: output.usage.input_tokens,
        output_tokens: output.usage.output_tokens,
        cached_input_tokens: output.usage.cached_input_tokens,
        root_hash: output.root_hash.clone(),
        task_hash: task.loaded.hash_hex(),
        trace,
        trace_span,
        trace_hash: Some(clawrun_report::trace_file::trace_hash(&worker.trace_buffer)),
        verdict,
        grader,
        native_verdict,
        limits: output.limits.clone(),
    })
}

/// Plays trial `trial` of `task` on `worker` (under `plan` instead of the task's fault plan,
/// with a census of the points called, when given): a trial that cannot start is a task error
/// whose trace says why.
pub fn play(
    rt: &tokio::runtime::Runtime,
    cx: &TrialContext<'_>,
    worker: &Worker,
    task: &TaskEnv,
    trial: u32,
    plan: Option<&clawrun_faults::FaultPlan>,
) -> Result<TrialOutput> {
    match start_and_run(rt, cx, worker, task, trial, plan) {
        Ok(output) => Ok(output),
        Err(e) if InstallationError::is(&e) => Err(e),
        // The task (or the recording replayed) cannot be played: this trial's record says why.
        Err(e) => Ok(not_started(
            task,
            cx.seed,
            trial,
            cx.agent.describe(),
            format!("{e:#}"),
        )),
    }
}

/// Writes, when the trial changed the workspace, its `changes.json` to its folder `dir`.
fn write_changes(task: &TaskEnv, output: &TrialOutput, dir: &Path) -> Result<()> {
    let mut base = task.base_vfs.fork();
    let mut fin = output.vfs.fork();
    let changes: Vec<(String, &'static str)> = clawrun_vfs::Vfs::diff(&mut base, &mut fin)
        .into_iter()
        .map(|c| {
            let kind = match c.kind {
                ChangeKind::Added => "added",
                ChangeKind::Removed => "removed",
                ChangeKind::Modified => "modified",
            };
            (c.path, kind)
        })
        .collect();
    // Only a trial that changed the workspace gets the file and its folder (two inodes less per
    // trial on disk for the rest; a missing changes.json means no change).
    if !changes.is_empty() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        std::fs::write(
            dir.join("changes.json"),
            serde_json::to_vec_pretty(&changes)?,
        )
        .with_context(|| format!("writing {}/changes.json", dir.display()))?;
    }
    Ok(())
}

/// Builds the trial's agent and simulated user and runs it.
fn start_and_run(
    rt: &tokio::runtime::Runtime,
    cx: &TrialContext<'_>,
    worker: &Worker,
    task: &TaskEnv,
    trial: u32,
    plan: Option<&clawrun_faults::FaultPlan>,
) -> Result<TrialOutput> {
    let recorded: Option<Vec<Event>> = match cx.agent {
        AgentSpec::Replay(run) => Some(run.trace(task.id(), trial)?),
        AgentSpec::Command(_) if cx.agent.replays() => {
            let run = cx.recorded.ok_or_else(|| {
                anyhow!("replaying an agent program's model needs the recorded run")
            })?;
            Some(run.trace(task.id(), trial)?)
        }
        _ => None,
    };
    let seed = clawrun_faults::trial_seed(cx.seed, task.id(), trial);
    let place = TrialPlace {
        trial,
        dir: cx.out.join(task.id()).join(trial.to_string()).join("agent"),
        faults: Default::default(),
        max_tokens: cx.max_tokens,
    };
    let mut agent = cx.agent.build_with(
        task,
        recorded.as_deref(),
        seed,
        worker.agent.as_ref(),
        Some(&place),
    )?;
    let user = simulated_user(worker, task, recorded.as_deref(), seed)?;
    let mut limits = Limits::of(task);
    limits.max_tokens = cx.max_tokens;
    Ok(TrialInputs {
        rt,
        harness: cx.harness,
        task,
        run_seed: cx.seed,
        trial,
        agent: agent.as_mut(),
        user,
        limits: &limits,
        plan,
        share_faults: Some(place.faults.clone()),
    }
    .run()?)
}

/// The simulated user of a multi-turn task: the recording when replaying, else an LLM playing
/// the persona when a user model is given (its cached replies keyed by the trial seed `seed`),
/// else the task's script; `None` for single-turn tasks.
fn simulated_user(
    worker: &Worker,
    task: &TaskEnv,
    recorded: Option<&[Event]>,
    seed: u64,
) -> Result<Option<Box<dyn SimulatedUser>>> {
    let Some(ua) = task.loaded.task.user_agent.as_ref().filter(|u| u.enabled) else {
        return Ok(None);
    };
    if let Some(events) = recorded {
        return Ok(Some(Box::new(ReplayUser::new(events))));
    }
    // With a user model the persona is played by it (Claw-Eval's way); the script is the
    // offline stand-in.
    if let Some(client) = &worker.user {
        return Ok(Some(Box::new(LlmUser::new(
            client.for_sample(seed),
            &ua.persona,
        ))));
    }
    if let Some(script) = &ua.script {
        let user = script.start().map_err(|e| {
            anyhow!(
                "{}: user_agent.script: {e}",
                task.loaded.field_file("user_agent.script")
            )
        })?;
        return Ok(Some(Box::new(user)));
    }
    Err(anyhow!(
        "{}: a multi-turn task needs a simulated user: add `user_agent.script` to the task or pass --user-model openai:MODEL",
        task.loaded.file()
    ))
}
