//! `--agent`: which agent plays the trials, and how one is built for a given trial.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clawrun_agents::llm::{LlmAgent, LlmClient, ModelConfig};
use clawrun_agents::trace::{Event, read_trace};
use clawrun_agents::{Agent, ReplayAgent, RetryPolicy, ScriptAgent, Step};

use crate::trial::TaskEnv;

/// The agent of a run.
#[derive(Clone, Debug)]
pub enum AgentSpec {
    /// The task's `oracle` steps, retrying transient failures (the offline default).
    Oracle,
    /// A script file (the `oracle` format: `steps` and `answer`), played without retries.
    Scripted(PathBuf),
    /// The recorded trials of an earlier run folder.
    Replay(PathBuf),
    /// A model behind an OpenAI-compatible or Anthropic API.
    Model(ModelConfig),
    /// Answers at once without doing anything (what `validate` checks a rubric against).
    Idle,
    /// A named script already read (e.g. a task's careless agent), played without retries.
    Inline(String, clawrun_task::Oracle),
    /// Each task's careless agent (its folder's `careless.yaml`: an agent that takes the
    /// task's trap or cuts a corner), played without retries.
    Careless,
}

/// Why an `--agent` value did not parse.
#[derive(Debug, thiserror::Error)]
pub enum AgentSpecError {
    /// A model agent whose spec is malformed.
    #[error(transparent)]
    Model(#[from] clawrun_agents::llm::SpecError),
    /// None of the agent kinds.
    #[error(
        "--agent {0:?}: expected oracle, scripted:FILE, replay:RUN_DIR, openai:MODEL, anthropic:MODEL, openrouter:MODEL, idle or careless"
    )]
    Unknown(String),
}

impl AgentSpec {
    /// Parses `oracle`, `scripted:FILE`, `replay:RUN`, `openai:MODEL`, `anthropic:MODEL`,
    /// `openrouter:MODEL` (the OpenAI protocol at OpenRouter), `idle`, `careless`.
    pub fn parse(text: &str) -> Result<AgentSpec, AgentSpecError> {
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        match (kind, rest) {
            ("oracle", "") => Ok(AgentSpec::Oracle),
            ("idle", "") => Ok(AgentSpec::Idle),
            ("careless", "") => Ok(AgentSpec::Careless),
            ("scripted", f) if !f.is_empty() => Ok(AgentSpec::Scripted(f.into())),
            ("replay", r) if !r.is_empty() => Ok(AgentSpec::Replay(r.into())),
            ("openai" | "anthropic" | "openrouter", m) if !m.is_empty() => {
                Ok(ModelConfig::from_spec(text).map(AgentSpec::Model)?)
            }
            _ => Err(AgentSpecError::Unknown(text.to_string())),
        }
    }

    /// A short name for run metadata.
    pub fn describe(&self) -> String {
        match self {
            AgentSpec::Oracle => "oracle".into(),
            AgentSpec::Idle => "idle".into(),
            AgentSpec::Scripted(p) => format!("scripted:{}", p.display()),
            AgentSpec::Replay(p) => format!("replay:{}", p.display()),
            AgentSpec::Model(m) => m.describe(),
            AgentSpec::Inline(name, _) => name.clone(),
            AgentSpec::Careless => "careless".into(),
        }
    }

    /// Whether trials call a remote model (then `-j` may exceed the core count).
    pub fn is_remote(&self) -> bool {
        matches!(self, AgentSpec::Model(_))
    }

    /// The agent for a trial of `task` with trial seed `seed` (a model's cached responses are
    /// keyed by it); `recorded` is the trial's recorded trace when replaying.
    pub fn build(
        &self,
        task: &TaskEnv,
        recorded: Option<&[Event]>,
        seed: u64,
    ) -> Result<Box<dyn Agent>> {
        self.build_with(task, recorded, seed, None)
    }

    /// [`AgentSpec::build`], a model agent sampling from `client` (the worker's client of
    /// this spec's model) instead of a client of its own.
    pub fn build_with(
        &self,
        task: &TaskEnv,
        recorded: Option<&[Event]>,
        seed: u64,
        client: Option<&LlmClient>,
    ) -> Result<Box<dyn Agent>> {
        Ok(match self {
            AgentSpec::Oracle => {
                let oracle = task.loaded.task.oracle.as_ref().ok_or_else(|| {
                    anyhow!(
                        "{}: the task has no `oracle:` section, so the oracle agent cannot play it (add one, or pick another --agent)",
                        task.loaded.file()
                    )
                })?;
                Box::new(ScriptAgent::oracle(
                    oracle.steps.iter().map(oracle_step).collect(),
                    oracle.answer.clone(),
                ))
            }
            AgentSpec::Idle => Box::new(ScriptAgent::new(
                "idle".into(),
                Vec::new(),
                String::new(),
                RetryPolicy::NONE,
            )),
            AgentSpec::Scripted(path) => {
                let (steps, answer) = read_script(path)?;
                Box::new(ScriptAgent::new(
                    format!("scripted:{}", path.display()),
                    steps,
                    answer,
                    RetryPolicy::NONE,
                ))
            }
            AgentSpec::Careless => {
                let script = careless_script(task)?.ok_or_else(|| {
                    anyhow!(
                        "{}/{CARELESS_FILE}: the task has no careless agent (pick another --agent)",
                        task.loaded.dir
                    )
                })?;
                Box::new(ScriptAgent::new(
                    "careless".into(),
                    script.steps.iter().map(oracle_step).collect(),
                    script.answer,
                    RetryPolicy::NONE,
                ))
            }
            AgentSpec::Inline(name, script) => Box::new(ScriptAgent::new(
                name.clone(),
                script.steps.iter().map(oracle_step).collect(),
                script.answer.clone(),
                RetryPolicy::NONE,
            )),
            AgentSpec::Replay(run) => {
                let events = recorded.ok_or_else(|| {
                    anyhow!("{}: no recorded trace for {}", run.display(), task.id())
                })?;
                Box::new(ReplayAgent::new(run.display().to_string(), events))
            }
            AgentSpec::Model(config) => Box::new(LlmAgent::from_client(match client {
                Some(client) => client.for_sample(seed),
                None => LlmClient::new(config.clone())
                    .map_err(|e| anyhow!("{}: {e}", config.describe()))?
                    .for_sample(seed),
            })),
        })
    }
}

/// The file holding a task's careless agent.
pub const CARELESS_FILE: &str = "careless.yaml";

/// The task's `careless.yaml` (an agent that takes the trap, in the oracle format), if the task
/// folder has one; a broken file is an error naming it.
pub fn careless_script(task: &TaskEnv) -> Result<Option<clawrun_task::Oracle>> {
    let Ok(bytes) = task.loaded.read_task_file(CARELESS_FILE) else {
        return Ok(None);
    };
    let origin = format!("{}/{CARELESS_FILE}", task.loaded.dir);
    let text = String::from_utf8(bytes).map_err(|_| anyhow!("{origin}: not UTF-8"))?;
    let script = clawrun_task::Oracle::from_yaml(&text, &origin)?;
    Ok(Some(script))
}

/// A task's oracle step as the script agent plays it.
fn oracle_step(step: &clawrun_task::oracle::Step) -> Step {
    use clawrun_task::oracle::Step as S;
    match step {
        S::Call(c) => Step::Calls(vec![(c.call.clone(), c.args.clone())]),
        S::Parallel(cs) => Step::Calls(
            cs.iter()
                .map(|c| (c.call.clone(), c.args.clone()))
                .collect(),
        ),
        S::Say(text) => Step::Say(text.clone()),
    }
}

/// Reads a script file (YAML or JSON): `{steps: [...], answer: TEXT}` in the oracle format.
pub fn read_script(path: &Path) -> Result<(Vec<Step>, String)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the script {}", path.display()))?;
    let oracle = clawrun_task::oracle::Oracle::from_yaml(&text, &path.display().to_string())?;
    Ok((
        oracle.steps.iter().map(oracle_step).collect(),
        oracle.answer,
    ))
}

/// The recorded trace of `task_id`/`trial` in run folder `run`.
pub fn recorded_trace(run: &Path, task_id: &str, trial: u32) -> Result<Vec<Event>> {
    let path = run
        .join(task_id)
        .join(trial.to_string())
        .join("trace.jsonl");
    let file = std::fs::File::open(&path)
        .with_context(|| format!("opening the recorded trace {}", path.display()))?;
    read_trace(std::io::BufReader::new(file)).map_err(|e| anyhow!("{}: {e}", path.display()))
}
