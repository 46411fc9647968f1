//! Execution: the agent acts only through tools; every step is recorded in the trace, outside
//! the sandbox, with virtual timestamps and the workspace hash after each mutation.

use std::ops::ControlFlow;
use std::time::Duration;

use anyhow::Result;
use clawrun_agents::trace::{Event, EventKind, Outcome};
use clawrun_agents::{Agent, Message, Role, Usage};
use clawrun_judge::Evidence;

// The prompt's attachments and Claw-Eval's export name media types alike.
pub(crate) use super::prompt::media_type;
use super::recorder::{Recorder, limits_hit};
use super::setup::{Harness, TaskEnv};
use super::snapshot;
use super::steps::Execution;
use super::user::SimulatedUser;
use clawrun_sandbox::tools::{InstallationError, RealTimeBackstop};

/// Whether `e` is the host's failure rather than the agent's or the task's: a real-time
/// backstop that fired (a program run's, `RealTimeBackstop`; a browser step's,
/// `BrowserError::PageHung`) or a browser that died. How far the trial got then depends on the
/// machine, so it ends as an infrastructure error (kept out of scores, re-run by `--resume`),
/// never as tool output, a judge input or a score (README "Time limits").
pub(crate) fn host_failure(e: &anyhow::Error) -> bool {
    RealTimeBackstop::is(e)
        || e.chain().any(|c| {
            c.downcast_ref::<clawrun_browser::BrowserError>()
                .is_some_and(|b| !b.is_page_error())
        })
}

/// Execution limits; the task's `environment` gives the defaults.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Assistant turns.
    pub max_turns: u32,
    /// Virtual time (`environment.timeout_seconds`): sleeps inside tools, injected latency, a
    /// screenshot's page time move it; real time never counts (an agent outside clawrun has
    /// its own wall-clock deadline).
    pub timeout: Duration,
    /// Tokens spent by the agent (input + output), if limited.
    pub max_tokens: Option<u64>,
}

impl Limits {
    /// The limits `task` declares in `environment`.
    pub fn of(task: &TaskEnv) -> Self {
        let e = &task.loaded.task.environment;
        Limits {
            max_turns: e.max_turns,
            timeout: Duration::from_secs(e.timeout_seconds),
            max_tokens: None,
        }
    }
}

/// Everything a trial produced.
pub struct TrialOutput {
    /// The trace, in order.
    pub events: Vec<Event>,
    /// The judge's evidence.
    pub evidence: Evidence,
    /// Why Execution stopped.
    pub outcome: Outcome,
    /// Assistant turns taken.
    pub turns: u32,
    /// Simulated-user rounds.
    pub user_rounds: u32,
    /// Assistant turns served from the response cache (`--cache`).
    pub cached_turns: u32,
    /// Tokens the agent spent.
    pub usage: Usage,
    /// The workspace's root hash at the end of Execution.
    pub root_hash: String,
    /// The agent's error, if Execution ended on one.
    pub error: Option<String>,
    /// The sandbox limits the trial hit, by name (see [`limits_hit`]).
    pub limits: Vec<String>,
    /// The trial's seed.
    pub seed: u64,
    /// The workspace at the end of Execution (without judge files).
    pub vfs: clawrun_vfs::Vfs,
    /// Every fault point the trial called and how many times, by point (only when the trial
    /// ran under [`TrialInputs::plan`]; empty otherwise).
    pub census: Vec<(std::sync::Arc<str>, u64)>,
}

impl TrialOutput {
    /// Writes the trace as JSONL into `out` (cleared first: a worker reuses one buffer).
    pub fn write_trace_jsonl(&self, out: &mut Vec<u8>) {
        out.clear();
        for e in &self.events {
            clawrun_agents::trace::write_event(out, e);
        }
    }
}

/// The trial's fault injector, shared with a component that starts before the trial forks its
/// environment (the model proxy of an agent program injects model-side faults through it).
pub type FaultSlot = std::sync::Arc<std::sync::Mutex<Option<clawrun_faults::SharedInjector>>>;

/// What one trial is given: the task and where it runs, which trial, who plays it, its limits.
pub struct TrialInputs<'a> {
    /// The agent's and the simulated user's futures run here; tool calls run on the calling
    /// thread, outside any async runtime (the sandbox blocks).
    pub rt: &'a tokio::runtime::Runtime,
    /// Engine and tools.
    pub harness: &'a Harness,
    /// The task, set up once and forked for this trial.
    pub task: &'a TaskEnv,
    /// The run seed (the trial's seed derives from it, the task id and the trial).
    pub run_seed: u64,
    /// The trial's number.
    pub trial: u32,
    /// The agent playing the task.
    pub agent: &'a mut dyn Agent,
    /// The simulated user of a multi-turn task.
    pub user: Option<Box<dyn SimulatedUser>>,
    /// Turns, time and tokens.
    pub limits: &'a Limits,
    /// The trial's fault plan instead of the task's, with a census of the points called
    /// ([`TrialOutput::census`]): the fuzzer's perturbations. `None`: the task's plan.
    pub plan: Option<&'a clawrun_faults::FaultPlan>,
    /// Filled with the trial's fault injector once its environment is forked (the model proxy
    /// of an agent program injects model-side faults through it).
    pub share_faults: Option<FaultSlot>,
}

impl TrialInputs<'_> {
    /// Runs the trial: Setup fork, Execution (the agent loop), Judge-phase evidence.
    /// `Err` only when clawrun's installation is broken (a tool or the interpreter does not
    /// load): whatever the agent or the task causes ends as the trial's outcome.
    pub fn run(self) -> Result<TrialOutput, InstallationError> {
        let TrialInputs {
            rt,
            harness,
            task,
            run_seed,
            trial,
            agent,
            mut user,
            limits,
            plan,
            share_faults,
        } = self;
        let mut ex = Execution::start(rt, harness, task, (run_seed, trial), plan, agent.describe());
        if let Some(slot) = share_faults {
            *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(ex.env.faults.clone());
        }
        let max_rounds = task
            .loaded
            .task
            .user_agent
            .as_ref()
            .filter(|u| u.enabled)
            .map_or(0, |u| u.max_rounds);

        let outcome = loop {
            if let Some(limit) = ex.limit_reached(limits) {
                break limit;
            }
            let uses = match ex.agent_turn(agent) {
                ControlFlow::Continue(uses) => uses,
                ControlFlow::Break(outcome) => break outcome,
            };
            let next = if uses.is_empty() {
                ex.user_round(&mut user, max_rounds)
            } else {
                ex.serve_tools(uses)?
            };
            if let ControlFlow::Break(outcome) = next {
                break outcome;
            }
        };
        judge_and_finish(ex, outcome)
    }
}

/// After Execution ended with `outcome`: the Judge phase's evidence, the `trace_end` event,
/// the trial's output. A task whose Judge phase cannot run ends as that trial's task error,
/// its trace kept.
fn judge_and_finish(ex: Execution<'_>, outcome: Outcome) -> Result<TrialOutput, InstallationError> {
    let Execution {
        harness,
        task,
        mut env,
        mut rec,
        conv,
        usage,
        calls,
        turns,
        cached_turns,
        rounds,
        faults_seen,
        mut error,
        ..
    } = ex;
    let final_text = conv
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant)
        .map(Message::text)
        .unwrap_or_default();
    let root_hash = env.vfs.root_hash().to_hex().to_string();
    let census = if env.faults.lock().census_on() {
        env.faults.census()
    } else {
        Vec::new()
    };
    let (outcome, judged) = match outcome {
        // Nothing to judge: the trial counts for nothing (and an infrastructure error's
        // Judge phase would only add evidence that a re-run replaces).
        Outcome::TaskError | Outcome::InfraError => (outcome, snapshot::Judged::nothing(&env.vfs)),
        _ => match snapshot::judge_phase(harness, task, &mut env, &mut rec) {
            Ok(judged) => (outcome, judged),
            Err(e) if InstallationError::is(&e) => return Err(InstallationError(format!("{e:#}"))),
            Err(e) if host_failure(&e) => {
                error = Some(format!("the Judge phase: {e:#}"));
                (Outcome::InfraError, snapshot::Judged::nothing(&env.vfs))
            }
            Err(e) => {
                error = Some(format!("the Judge phase failed: {e:#}"));
                (Outcome::TaskError, snapshot::Judged::nothing(&env.vfs))
            }
        },
    };
    rec.push(
        &env,
        EventKind::TraceEnd {
            outcome,
            turns,
            user_rounds: rounds,
            usage,
            faults: faults_seen,
            final_text: final_text.clone(),
            root_hash: root_hash.clone(),
            error: error.clone(),
            limits: limits_hit(&env),
        },
    );

    let evidence = Evidence {
        prompt: task.loaded.task.prompt.text.clone(),
        messages: conv.messages,
        final_text,
        calls,
        audits: judged.audits,
        vfs: judged.vfs,
        commands: judged.commands,
        faults_seen,
        user_rounds: rounds,
        tampering: judged.tampering,
        filesystem_missing: None,
    };
    Ok(TrialOutput {
        events: rec.events,
        evidence,
        outcome,
        turns,
        user_rounds: rounds,
        cached_turns,
        usage,
        root_hash,
        error,
        seed: env.seed,
        limits: limits_hit(&env),
        vfs: env.vfs,
        census,
    })
}

/// The output of a trial that could not start (its agent or simulated user could not be
/// built from the task): a trace of `trace_start` and `trace_end` with the reason, as a task
/// error.
pub fn not_started(
    task: &TaskEnv,
    run_seed: u64,
    trial: u32,
    agent: String,
    error: String,
) -> TrialOutput {
    let mut env = task.fork(run_seed, trial);
    let mut rec = Recorder::start(task, &mut env, trial, agent);
    let root_hash = env.vfs.root_hash().to_hex().to_string();
    rec.push(
        &env,
        EventKind::TraceEnd {
            outcome: Outcome::TaskError,
            turns: 0,
            user_rounds: 0,
            usage: Usage::default(),
            faults: 0,
            final_text: String::new(),
            root_hash: root_hash.clone(),
            error: Some(error.clone()),
            limits: Vec::new(),
        },
    );
    TrialOutput {
        events: rec.events,
        evidence: Evidence {
            prompt: task.loaded.task.prompt.text.clone(),
            vfs: env.vfs.fork(),
            ..Evidence::default()
        },
        outcome: Outcome::TaskError,
        turns: 0,
        user_rounds: 0,
        cached_turns: 0,
        usage: Usage::default(),
        root_hash,
        error: Some(error),
        limits: Vec::new(),
        seed: env.seed,
        vfs: env.vfs,
        census: Vec::new(),
    }
}
