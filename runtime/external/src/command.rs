//! `--agent cmd:...`: an agent program started per trial. It gets the task prompt, the trial's
//! MCP endpoint and the model proxy's base URLs (and a dummy key) through its recipe's
//! placeholders and the environment; its cwd is a scratch folder; its stdout and stderr go to
//! the run folder; the trial is judged when it exits (or calls `finish`, or its time is up).

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use clawrun_agents::Agent;
use clawrun_agents::llm::ModelConfig;
use clawrun_agents::mock::{Script, ScriptedModel};
use clawrun_agents::trace::{Event, EventKind};

use super::bridge::{BridgeHandle, ExternalAgent, ModelLedger};
use super::environment::{Endpoints, Withheld, program_env};
use super::mcp::TrialTools;
use super::proxy::{ModelProxy, ModelSource, RecordedAnswer, Upstream};
use super::recipe::{Recipe, fill, inside};
use super::server::{LoopbackServer, McpMount};
use super::session::Secret;
use clawrun_trial::TaskEnv;

/// Where one trial of an agent program runs: the trial, its folder in the run (logs, scratch),
/// the slot its fault injector is shared through.
#[derive(Clone, Debug)]
pub struct TrialPlace {
    /// The trial's number.
    pub trial: u32,
    /// `RUN/TASK/TRIAL/agent`.
    pub dir: PathBuf,
    /// Filled with the trial's injector when its environment is forked.
    pub faults: super::proxy::FaultSlot,
    /// The trial's token limit (`--max-tokens`): the proxy refuses requests past it.
    pub max_tokens: Option<u64>,
}

/// The key agent programs are given: the proxy holds the real one.
pub const DUMMY_KEY: &str = "clawrun-proxy";

/// The model behind an agent program's proxy.
#[derive(Clone, Debug)]
pub enum ProxyModel {
    /// None (every model request gets a 503 naming `--model`).
    None,
    /// A mock-llm script (`--model scripted:FILE`).
    Scripted(PathBuf, Arc<Script>),
    /// A model endpoint (`--model openai:MODEL`, ...).
    Model(ModelConfig),
    /// The answers recorded in each trial's trace (`clawrun replay`).
    Recorded,
}

impl ProxyModel {
    /// Parses `--model`: `scripted:FILE` or a model spec (`openai:MODEL`, `anthropic:MODEL`,
    /// `openrouter:MODEL`).
    pub fn parse(text: &str) -> Result<ProxyModel> {
        if let Some(file) = text.strip_prefix("scripted:") {
            let script =
                Script::load(Path::new(file)).map_err(|e| anyhow!("--model {text}: {e}"))?;
            return Ok(ProxyModel::Scripted(file.into(), Arc::new(script)));
        }
        ModelConfig::from_spec(text)
            .map(ProxyModel::Model)
            .map_err(|e| anyhow!("--model {text}: {e} (or scripted:FILE, a mock-llm script)"))
    }

    /// The model's name as the agent is told it.
    fn name(&self) -> String {
        match self {
            ProxyModel::Model(config) => config.model.clone(),
            _ => "clawrun-scripted".into(),
        }
    }

    /// A short description for run metadata.
    pub fn describe(&self) -> String {
        match self {
            ProxyModel::None => "none".into(),
            ProxyModel::Scripted(path, _) => format!("scripted:{}", path.display()),
            ProxyModel::Model(config) => config.describe(),
            ProxyModel::Recorded => "recorded".into(),
        }
    }
}

/// An agent program: what `cmd:` named, how to start it, the model behind its proxy.
#[derive(Clone, Debug)]
pub struct CommandAgent {
    /// What followed `cmd:` (a recipe's name or file, or a command line).
    pub text: String,
    /// How to start it.
    pub recipe: Recipe,
    /// The model behind the proxy.
    pub model: ProxyModel,
    /// Keys clawrun holds besides those in its environment (the judge's, the user model's,
    /// from a model settings file): none may reach the program.
    pub withheld: Withheld,
}

impl CommandAgent {
    /// Parses what followed `cmd:`: a bundled recipe's name (`codex`), a recipe file
    /// (`my-agent.yaml`), or a command line (`python3 agent.py`).
    pub fn parse(text: &str) -> Result<CommandAgent> {
        let recipe = match Recipe::find(text)? {
            Some(recipe) => recipe,
            None => Recipe::from_command_line(text)?,
        };
        Ok(CommandAgent {
            text: text.to_string(),
            recipe,
            model: ProxyModel::None,
            withheld: Withheld::default(),
        })
    }

    /// Fails, saying how to install it, when the program cannot be found (a path that is not
    /// a file, a name on no folder of `PATH`).
    pub fn check_program(&self) -> Result<()> {
        let program = &self.recipe.command[0];
        let found = if program.contains('/') {
            Path::new(program).is_file()
        } else {
            std::env::var_os("PATH").is_some_and(|path| {
                std::env::split_paths(&path).any(|dir| dir.join(program).is_file())
            })
        };
        if found {
            return Ok(());
        }
        let hint = self
            .recipe
            .install
            .as_deref()
            .map_or(String::new(), |i| format!(": install it ({i})"));
        Err(anyhow!(
            "--agent cmd:{}: the program {program:?} is not {}{hint}",
            self.text,
            if program.contains('/') {
                "a file"
            } else {
                "on PATH"
            }
        ))
    }

    /// The agent of one trial of `task` at `place`: the loopback server (MCP and the model
    /// proxy) started, the recipe's files written and the program started in `place.dir`
    /// (`stdout.log`, `stderr.log`, `model_requests.jsonl`; a scratch `home` and `work` beside
    /// them, removed after the trial); `recorded`: the trial's recorded trace when replaying (its model answers).
    pub fn start(
        &self,
        task: &TaskEnv,
        place: &TrialPlace,
        recorded: Option<&[Event]>,
    ) -> Result<Box<dyn Agent>> {
        let (trial, dir) = (place.trial, place.dir.as_path());
        let ledger = Arc::new(Mutex::new(ModelLedger::default()));
        let deadline = super::deadline(task);
        let (mut agent, bridge) =
            ExternalAgent::new(format!("cmd:{}", self.text), deadline, ledger.clone());
        let source = match &self.model {
            ProxyModel::None => ModelSource::None,
            ProxyModel::Scripted(_, script) => {
                ModelSource::Scripted(ScriptedModel::new((**script).clone()))
            }
            ProxyModel::Model(config) => ModelSource::Forward(Arc::new(Upstream::new(config)?)),
            ProxyModel::Recorded => ModelSource::Recorded(Arc::new(recorded_answers(
                recorded.ok_or_else(|| anyhow!("no recorded trace to replay the model from"))?,
            ))),
        };
        let events = Arc::new(Mutex::new(Vec::new()));
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let requests = std::fs::File::create(dir.join("model_requests.jsonl"))
            .with_context(|| format!("creating {}", dir.join("model_requests.jsonl").display()))?;
        let proxy = Arc::new(
            ModelProxy::new(source, place.faults.clone(), events.clone(), ledger)
                .with_budget(place.max_tokens)
                .with_request_log(requests),
        );
        let tools = TrialTools::new(&task.tools, bridge.clone(), &task.system);
        // The endpoints sit under a secret path only the program is told: no other local
        // process can drive the trial or spend its model.
        let secret = Secret::new().context("reading a per-trial secret from /dev/urandom")?;
        let server = LoopbackServer::start(
            SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            Some(McpMount {
                tools,
                end_on_delete: None,
            }),
            Some(proxy.clone()),
            Some(secret),
        )?;
        agent.set_events(events);
        let program = self.spawn(task, trial, dir, &server)?;
        agent.keep(Watcher::start(program, bridge, deadline));
        agent.keep(server);
        Ok(Box::new(agent))
    }

    /// Writes the recipe's files and starts the program.
    fn spawn(
        &self,
        task: &TaskEnv,
        trial: u32,
        dir: &Path,
        server: &LoopbackServer,
    ) -> Result<Program> {
        let home = dir.join("home");
        let workdir = dir.join("work");
        for d in [&home, &workdir] {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
        }
        let values = BTreeMap::from([
            ("prompt", task.loaded.task.prompt.text.clone()),
            ("mcp_url", server.mcp_url()),
            ("openai_base_url", server.openai_base()),
            ("anthropic_base_url", server.anthropic_base()),
            ("api_key", DUMMY_KEY.to_string()),
            ("model", self.model.name()),
            ("home", home.display().to_string()),
            ("workdir", workdir.display().to_string()),
            ("task_id", task.id().to_string()),
            ("trial_id", format!("{}/{trial}", task.id())),
        ]);
        for (path, content) in &self.recipe.files {
            let path = inside(&fill(path, &values), &[home.as_path(), workdir.as_path()])
                .map_err(|e| anyhow!("--agent cmd:{}: {e:#}", self.text))?;
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, fill(content, &values))
                .with_context(|| format!("writing the agent's {}", path.display()))?;
        }
        let argv: Vec<String> = self
            .recipe
            .command
            .iter()
            .map(|a| fill(a, &values))
            .collect();
        let endpoints = Endpoints {
            home: home.clone().into_os_string(),
            prompt: values["prompt"].clone(),
            mcp_url: values["mcp_url"].clone(),
            task_id: values["task_id"].clone(),
            trial_id: values["trial_id"].clone(),
            model: values["model"].clone(),
            openai_base_url: values["openai_base_url"].clone(),
            anthropic_base_url: values["anthropic_base_url"].clone(),
            api_key: DUMMY_KEY.to_string(),
        };
        let recipe_env = self
            .recipe
            .env
            .iter()
            .map(|(name, value)| (name.clone(), fill(value, &values)))
            .collect();
        let upstream_key = match &self.model {
            ProxyModel::Model(config) => config.resolve().ok().and_then(|e| e.api_key),
            _ => None,
        };
        let env = program_env(
            std::env::vars_os(),
            &self.recipe.pass_env,
            &self.withheld.with_env(upstream_key),
            &endpoints,
            &recipe_env,
        )
        .map_err(|e| anyhow!("--agent cmd:{}: {e}", self.text))?;
        let mut command = Command::new(&argv[0]);
        command
            .args(&argv[1..])
            .current_dir(&workdir)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(dir.join("stdout.log"))?)
            .stderr(std::fs::File::create(dir.join("stderr.log"))?)
            // Nothing of clawrun's own environment (its keys among it) but the allow-list.
            .env_clear()
            .envs(env);
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command.spawn().map_err(|e| {
            let hint = self
                .recipe
                .install
                .as_deref()
                .map_or(String::new(), |i| format!(" (install it: {i})"));
            anyhow!(
                "--agent cmd:{}: cannot start {:?}: {e}{hint}",
                self.text,
                argv[0]
            )
        })?;
        Ok(Program {
            child,
            scratch: vec![home, workdir],
            stderr: dir.join("stderr.log"),
        })
    }
}

/// The answers recorded in a trial's trace, in order.
pub fn recorded_answers(events: &[Event]) -> Vec<RecordedAnswer> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ModelCall {
                status,
                content_type,
                body,
                fault,
                ..
            } => Some(RecordedAnswer {
                status: *status,
                content_type: content_type.clone(),
                body: body.clone(),
                reset: fault.as_deref() == Some("connection_reset"),
            }),
            _ => None,
        })
        .collect()
}

/// A started agent program.
struct Program {
    child: Child,
    /// Its scratch folders, removed when it is done.
    scratch: Vec<PathBuf>,
    /// Its stderr's file.
    stderr: PathBuf,
}

/// Waits for the program on a thread of its own: its exit ends Execution; the end of the
/// trial (or its time) ends the program and its process group.
struct Watcher {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// How often the watcher looks at the program.
const POLL: Duration = Duration::from_millis(2);

impl Watcher {
    /// Watches `program` until it exits, `deadline` (if any) passes or the watcher is dropped.
    fn start(mut program: Program, bridge: BridgeHandle, deadline: Option<Instant>) -> Watcher {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            let exit = loop {
                if stopping.load(std::sync::atomic::Ordering::SeqCst)
                    || deadline.is_some_and(|d| Instant::now() >= d)
                {
                    break None;
                }
                match program.child.try_wait() {
                    Ok(Some(status)) => break Some(status),
                    Ok(None) => std::thread::sleep(POLL),
                    Err(_) => break None,
                }
            };
            match exit {
                Some(status) if status.success() => bridge.end_blocking(None),
                Some(status) => bridge.end_blocking(Some(format!(
                    "the agent program exited with {status}; its stderr ends: {}",
                    tail(&program.stderr)
                ))),
                None => {
                    kill_group(&mut program.child);
                    let _ = program.child.wait();
                }
            }
            // Whatever the program left running in its group goes too.
            kill_group(&mut program.child);
            for d in &program.scratch {
                let _ = std::fs::remove_dir_all(d);
            }
        });
        Watcher {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Kills the program's process group (the program and what it started).
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads (it
        // was started with process_group(0)); no memory is involved.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        return;
    }
    let _ = child.kill();
}

/// The last line of a log that says something, for error messages.
fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let line = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(empty)");
    line.chars().take(300).collect()
}
