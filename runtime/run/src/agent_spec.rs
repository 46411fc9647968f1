//! `--agent`: which agent plays the trials, and how one is built for a given trial.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow};
use clawrun_agents::llm::{LlmAgent, LlmClient, ModelConfig, PROVIDERS};
use clawrun_agents::trace::{Event, read_trace};
use clawrun_agents::{Agent, ReplayAgent, RetryPolicy, ScriptAgent, Step};
use clawrun_report::{TraceSpan, trace_file};

use super::journal::{run_journals, scan_heads};

use clawrun_external::command::{CommandAgent, ProxyModel, TrialPlace};
use clawrun_trial::TaskEnv;

/// The agent of a run.
#[derive(Clone, Debug)]
pub enum AgentSpec {
    /// The task's `oracle` steps, retrying transient failures (the offline default).
    Oracle,
    /// A script file (the `oracle` format: `steps` and `answer`), played without retries.
    Scripted(PathBuf),
    /// The recorded trials of an earlier run folder.
    Replay(RecordedRun),
    /// A model behind an OpenAI-compatible or Anthropic API.
    Model(ModelConfig),
    /// Answers at once without doing anything (what `validate` checks a rubric against).
    Idle,
    /// A named script already read (e.g. a task's careless agent), played without retries.
    Inline(String, clawrun_task::Oracle),
    /// Each task's careless agent (its folder's `careless.yaml`: an agent that takes the
    /// task's trap or cuts a corner), played without retries.
    Careless,
    /// An agent written in Rust by the program embedding clawrun (tests, benchmarks), built
    /// for each trial by its factory.
    InProcess(InProcessAgent),
    /// An MCP client driving the trial's tools (`clawrun mcp`), over stdio or HTTP.
    Mcp(clawrun_external::McpTransport),
    /// An agent program started per trial (`cmd:RECIPE` or `cmd:COMMAND LINE`), its tools over
    /// MCP and its model behind clawrun's recording proxy.
    Command(Box<CommandAgent>),
}

/// Builds one trial's agent from the task and the trial seed.
pub type AgentFactory = dyn Fn(&TaskEnv, u64) -> Result<Box<dyn Agent>> + Send + Sync;

/// An in-process agent: a name for traces and reports, and the factory of its trials' agents.
#[derive(Clone)]
pub struct InProcessAgent {
    name: String,
    make: Arc<AgentFactory>,
}

impl InProcessAgent {
    /// An agent named `name` whose trials' agents `make` builds.
    pub fn new(
        name: impl Into<String>,
        make: impl Fn(&TaskEnv, u64) -> Result<Box<dyn Agent>> + Send + Sync + 'static,
    ) -> Self {
        InProcessAgent {
            name: name.into(),
            make: Arc::new(make),
        }
    }
}

impl std::fmt::Debug for InProcessAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InProcessAgent")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Why an `--agent` value did not parse.
#[derive(Debug, thiserror::Error)]
pub enum AgentSpecError {
    /// A model agent whose spec is malformed.
    #[error(transparent)]
    Model(#[from] clawrun_agents::llm::SpecError),
    /// None of the agent kinds.
    #[error(
        "--agent {0:?}: expected oracle, scripted:FILE, replay:RUN_DIR, openai:MODEL, anthropic:MODEL, openrouter:MODEL, cmd:RECIPE, cmd:'COMMAND LINE', idle or careless{hint}",
        hint = clawrun_agents::spelling::did_you_mean(kind_of(.0), KINDS)
    )]
    Unknown(String),
    /// A kind that needs its argument, given without it (`scripted`, `replay:`).
    #[error("--agent {kind}: give its {what} as {kind}:{what}")]
    Incomplete {
        /// The kind.
        kind: String,
        /// What it needs (`FILE`, `RUN_DIR`, `MODEL`, `RECIPE`).
        what: &'static str,
    },
    /// An agent program whose recipe or command line is malformed.
    #[error("{0:#}")]
    Command(anyhow::Error),
}

/// The agent kinds `--agent` takes, for "did you mean".
const KINDS: [&str; 9] = [
    "oracle",
    "idle",
    "careless",
    "scripted",
    "replay",
    "cmd",
    "openai",
    "anthropic",
    "openrouter",
];

/// The kind part of an `--agent` value: before its first `:` (or `/`).
fn kind_of(text: &str) -> &str {
    text.split([':', '/']).next().unwrap_or(text)
}

impl AgentSpec {
    /// Parses `oracle`, `scripted:FILE`, `replay:RUN`, `openai:MODEL`, `anthropic:MODEL`,
    /// `openrouter:MODEL` (the OpenAI protocol at OpenRouter), `idle`, `careless`.
    pub fn parse(text: &str) -> Result<AgentSpec, AgentSpecError> {
        // Inspect AI's spelling of a model, `openai/gpt-4o`.
        if let Some((provider, _)) = text.split_once('/')
            && PROVIDERS.contains(&provider)
        {
            return Ok(ModelConfig::from_spec(text).map(AgentSpec::Model)?);
        }
        let (kind, rest) = text.split_once(':').unwrap_or((text, ""));
        let needs = match kind {
            "scripted" => Some("FILE"),
            "replay" => Some("RUN_DIR"),
            "cmd" => Some("RECIPE"),
            "openai" | "anthropic" | "openrouter" => Some("MODEL"),
            _ => None,
        };
        if let Some(what) = needs
            && rest.trim().is_empty()
        {
            return Err(AgentSpecError::Incomplete {
                kind: kind.to_string(),
                what,
            });
        }
        match (kind, rest) {
            ("oracle", "") => Ok(AgentSpec::Oracle),
            ("idle", "") => Ok(AgentSpec::Idle),
            ("careless", "") => Ok(AgentSpec::Careless),
            ("scripted", f) if !f.is_empty() => Ok(AgentSpec::Scripted(f.into())),
            ("replay", r) if !r.is_empty() => Ok(AgentSpec::Replay(RecordedRun::new(r))),
            ("cmd", c) if !c.trim().is_empty() => CommandAgent::parse(c.trim())
                .map(|c| AgentSpec::Command(Box::new(c)))
                .map_err(AgentSpecError::Command),
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
            AgentSpec::Replay(run) => format!("replay:{}", run.dir().display()),
            AgentSpec::Model(m) => m.describe(),
            AgentSpec::Inline(name, _) => name.clone(),
            AgentSpec::Careless => "careless".into(),
            AgentSpec::InProcess(agent) => agent.name.clone(),
            AgentSpec::Mcp(_) => "mcp".into(),
            AgentSpec::Command(c) => format!("cmd:{}", c.text),
        }
    }

    /// Whether trials call a remote model (then `-j` may exceed the core count).
    pub fn is_remote(&self) -> bool {
        matches!(self, AgentSpec::Model(_))
            || matches!(self, AgentSpec::Command(c) if matches!(c.model, ProxyModel::Model(_)))
    }

    /// Whether a trial is played from its recorded trace (a replay, or an agent program whose
    /// model answers are replayed).
    pub fn replays(&self) -> bool {
        matches!(self, AgentSpec::Replay(_))
            || matches!(self, AgentSpec::Command(c) if matches!(c.model, ProxyModel::Recorded))
    }

    /// The agent for a trial of `task` with trial seed `seed` (a model's cached responses are
    /// keyed by it); `recorded` is the trial's recorded trace when replaying.
    pub fn build(
        &self,
        task: &TaskEnv,
        recorded: Option<&[Event]>,
        seed: u64,
    ) -> Result<Box<dyn Agent>> {
        self.build_with(task, recorded, seed, None, None)
    }

    /// [`AgentSpec::build`], a model agent sampling from `client` (the worker's client of
    /// this spec's model) instead of a client of its own; an agent program runs at `place`
    /// (required for `cmd:` agents).
    pub fn build_with(
        &self,
        task: &TaskEnv,
        recorded: Option<&[Event]>,
        seed: u64,
        client: Option<&LlmClient>,
        place: Option<&TrialPlace>,
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
                    anyhow!(
                        "{}: no recorded trace for {}",
                        run.dir().display(),
                        task.id()
                    )
                })?;
                Box::new(ReplayAgent::new(run.dir().display().to_string(), events))
            }
            AgentSpec::InProcess(agent) => (agent.make)(task, seed)?,
            AgentSpec::Mcp(transport) => clawrun_external::mcp_agent(task, transport)?,
            AgentSpec::Command(command) => {
                let place = place.ok_or_else(|| {
                    anyhow!(
                        "an agent program needs a trial folder to run in (clawrun run gives one)"
                    )
                })?;
                command.start(task, place, recorded)?
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
pub fn oracle_step(step: &clawrun_task::oracle::OracleStep) -> Step {
    use clawrun_task::oracle::OracleStep as S;
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

/// Where each trial of an earlier run folder keeps its trace, by (task, trial).
type TraceIndex = BTreeMap<(String, u32), (String, Option<TraceSpan>, Option<String>)>;

/// An earlier run folder whose trials `--agent replay:RUN` plays back. Where each trial's
/// trace is (its pack and span) is read from the folder's journals once, on first use, and
/// shared by the clones (the run's workers).
#[derive(Clone, Debug)]
pub struct RecordedRun {
    dir: PathBuf,
    index: Arc<Mutex<Option<Arc<TraceIndex>>>>,
}

impl RecordedRun {
    /// The run folder `dir` (read when a trace is first asked for).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        RecordedRun {
            dir: dir.into(),
            index: Arc::default(),
        }
    }

    /// The run folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The recorded trace of trial `trial` of `task_id` (its latest record's, when the trial
    /// was recorded more than once).
    pub fn trace(&self, task_id: &str, trial: u32) -> Result<Vec<Event>> {
        let index = self.index()?;
        let Some((trace, span, hash)) = index.get(&(task_id.to_string(), trial)) else {
            return Err(anyhow!(
                "{}: the run recorded no trial {task_id}/{trial} (replay plays the trials its \
                 journal holds)",
                self.dir.display()
            ));
        };
        let location = self.dir.join(trace_file::trace_location(trace, *span));
        let bytes = trace_file::read_trace_bytes(&self.dir, trace, *span, hash.as_deref())
            .with_context(|| format!("reading the recorded trace {}", location.display()))?;
        read_trace(bytes.as_slice()).map_err(|e| anyhow!("{}: {e}", location.display()))
    }

    /// The index, read from the journals on the first call.
    fn index(&self) -> Result<Arc<TraceIndex>> {
        let mut slot = self.index.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(index) = slot.as_ref() {
            return Ok(Arc::clone(index));
        }
        let mut index = TraceIndex::new();
        for journal in run_journals(&self.dir) {
            scan_heads(&journal, |_, head| {
                index.insert(
                    (head.task_id, head.trial),
                    (head.trace, head.trace_span, head.trace_hash),
                );
            })?;
        }
        let index = Arc::new(index);
        *slot = Some(Arc::clone(&index));
        Ok(index)
    }
}
