//! Setup: what a task's trials start from, prepared once and forked per trial.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clawrun_agents::ToolSpec;
use clawrun_task::LoadedTask;

use super::presentation::{self, SYSTEM_TOOLS};
use clawrun_faults::{FaultInjector, FaultPlan, PlanOptions, PlanSource, SharedInjector};
use clawrun_sandbox::clock::VirtualClock;
use clawrun_sandbox::python::JudgeImports;
use clawrun_sandbox::tools::{ToolEnv, Toolbox, WORKSPACE};
use clawrun_sandbox::{Sandbox, SandboxConfig};
use clawrun_services::{Router, ServiceSet, ToolEndpoint, UtcInstant};
use clawrun_vfs::Vfs;
use clawrun_web::{Web, WebSession};

/// The default virtual start: 2026-01-01T00:00:00Z.
pub const DEFAULT_EPOCH_SECS: u64 = 1_767_225_600;

/// A trial's filesystem limits: what the agent may add beyond the task's own files. The guest
/// gets ENOSPC / EDQUOT / ENAMETOOLONG past them, and the trial's record names the limit hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DiskLimits {
    /// Bytes of file content (and symlink targets) beyond the task's files.
    pub bytes: u64,
    /// Files, folders and symlinks beyond the task's.
    pub inodes: u64,
    /// Deepest folder nesting below `/`.
    pub depth: u32,
}

impl Default for DiskLimits {
    /// 256 MiB, 50,000 inodes, 256 levels.
    fn default() -> Self {
        DiskLimits {
            bytes: 256 << 20,
            inodes: 50_000,
            depth: 256,
        }
    }
}

impl DiskLimits {
    /// A task's `limits`, the defaults where it sets none.
    pub fn of(limits: Option<&clawrun_task::TaskLimits>) -> Self {
        let d = DiskLimits::default();
        let Some(l) = limits else { return d };
        DiskLimits {
            bytes: l.disk_mib.map_or(d.bytes, |m| m.saturating_mul(1 << 20)),
            inodes: l.inodes.unwrap_or(d.inodes),
            depth: d.depth,
        }
    }

    /// The quota of a filesystem that starts at `base` usage.
    pub fn quota_over(&self, base: clawrun_vfs::Usage) -> clawrun_vfs::Quota {
        clawrun_vfs::Quota {
            max_bytes: base.bytes.saturating_add(self.bytes),
            max_inodes: base.inodes.saturating_add(self.inodes),
            max_depth: self.depth,
        }
    }
}

/// The browsers' settings: the defaults, with a browser step's real-time limit (a backstop,
/// like a program run's) set by `CLAWRUN_REALTIME_BACKSTOP_MS` when given.
fn browser_config() -> clawrun_browser::BrowserConfig {
    let default = clawrun_browser::BrowserConfig::default();
    clawrun_browser::BrowserConfig {
        step_limit: clawrun_sandbox::backstop_override().unwrap_or(default.step_limit),
        ..default
    }
}

/// What every trial of the process shares: the engine and the loaded tools.
pub struct Harness {
    /// How the sandbox is made.
    config: SandboxConfig,
    /// The wasmtime engine and component cache, made on first use.
    sandbox: OnceLock<Result<Sandbox, String>>,
    /// The system tools.
    pub toolbox: Toolbox,
    /// Headless Chromium for `BrowserScreenshot` and judge-time recordings: a browser per
    /// capture running at once (one per worker), started on first use.
    pub browser: clawrun_browser::BrowserPool,
}

impl Harness {
    /// A harness whose sandbox is made from `config` (the CLI passes
    /// [`SandboxConfig::from_env`]: the on-disk compile cache) when a trial first runs a
    /// guest: a run whose trials run none never pays for the engine and its pool reservation.
    pub fn new(config: SandboxConfig) -> Self {
        Harness {
            config,
            sandbox: OnceLock::new(),
            toolbox: Toolbox::new(),
            browser: clawrun_browser::BrowserPool::new(browser_config()),
        }
    }

    /// The sandbox, created on first use; `Err` when the engine cannot be made (its message
    /// kept for every later call).
    pub fn sandbox(&self) -> Result<&Sandbox> {
        self.sandbox
            .get_or_init(|| Sandbox::new(self.config.clone()).map_err(|e| format!("{e:#}")))
            .as_ref()
            .map_err(|e| anyhow::anyhow!("creating the sandbox: {e}"))
    }
}

/// A task ready to run: everything a trial forks.
pub struct TaskEnv {
    /// The loaded task.
    pub loaded: LoadedTask,
    /// The workspace after Setup (sandbox files and the workspace folder).
    pub base_vfs: Vfs,
    /// The services after loading their fixtures.
    pub base_services: ServiceSet,
    /// The router from the task's URLs to its services.
    pub router: Router,
    /// The task's tool → endpoint map.
    pub endpoints: Vec<ToolEndpoint>,
    /// The system tools offered.
    pub system_tools: Vec<String>,
    /// Every tool as the agent sees it.
    pub tools: Arc<[ToolSpec]>,
    /// The system prompt.
    pub system: Arc<str>,
    /// Judge files: (guest path, bytes), added only in the Judge phase.
    pub judge_files: Vec<(String, Arc<[u8]>)>,
    /// What judge-phase `python3` may import: the standard library and the sealed `.py`
    /// judge files.
    pub judge_imports: Arc<JudgeImports>,
    /// The task's and the run's fault rules (seeded per trial).
    pub plan: FaultPlan,
    /// The virtual start time.
    pub epoch: Duration,
    /// The trials' filesystem limits.
    pub disk: DiskLimits,
    /// The run's web (off unless [`TaskEnv::with_web`] gave one).
    pub web: Arc<Web>,
}

/// One trial's fresh environment.
pub struct TrialEnv {
    /// The workspace (a fork of the task's base).
    pub vfs: Vfs,
    /// The services (a fork of the task's base).
    pub services: ServiceSet,
    /// The trial's virtual clock.
    pub clock: VirtualClock,
    /// The trial's fault injector.
    pub faults: SharedInjector,
    /// The trial's seed.
    pub seed: u64,
    /// Sandbox limits the trial's tool calls hit (`fuel`, `memory`, ...), by name.
    pub limits: std::collections::BTreeSet<&'static str>,
    /// System-tool calls made so far (each gets its own seed, see [`TrialEnv::tool_env`]).
    pub tool_calls: u64,
    /// The trial's web (also attached to the services that reach it).
    pub web: WebSession,
}

impl TaskEnv {
    /// Prepares `loaded` (its files and fixtures read through its suite), adding `run_plan`'s
    /// rules after the task's own.
    pub fn prepare(loaded: LoadedTask, run_plan: Option<&FaultPlan>) -> Result<Self> {
        let task = &loaded.task;
        let epoch = Duration::from_secs(
            task.epoch
                .and_then(|e| u64::try_from(e).ok())
                .unwrap_or(DEFAULT_EPOCH_SECS),
        );
        let now = UtcInstant::from_duration(epoch);

        let mut vfs = Vfs::new();
        vfs.set_now(clawrun_vfs::Timestamp::new(epoch.as_secs(), 0));
        vfs.create_dir_all(WORKSPACE)?;
        for (path, bytes) in loaded.workspace_files()? {
            place_file(&mut vfs, &path, &bytes)
                .with_context(|| format!("placing {path} in the workspace"))?;
        }
        vfs.root_hash();

        // Fixtures are read through the suite's capability: nothing outside it is reachable.
        let base_services = ServiceSet::load_in(
            loaded.suite().dir(),
            &task.services,
            &clawrun_services::FixtureOptions::default(),
            now,
        )
        .with_context(|| format!("{}: loading the task's services", loaded.file()))?;
        let router = Router::new(&base_services);

        let system_tools: Vec<String> = task
            .system_tools
            .iter()
            .map(|t| t.name().to_string())
            .collect();
        // As Claw-Eval's loop: the task's tools as the task describes them (a system tool it
        // defines, C04's `Bash`, keeps the task's text), then the sandbox tools it does not.
        let mut tools: Vec<ToolSpec> = task
            .tools
            .iter()
            .filter(|t| !SYSTEM_TOOLS.contains(&t.name.as_str()) || system_tools.contains(&t.name))
            .map(|t| presentation::task_tool(&t.name, &t.description, &t.input_schema))
            .collect();
        for name in &system_tools {
            if !task.tools.iter().any(|t| &t.name == name) {
                tools.extend(presentation::system_tool(name));
            }
        }
        let suffix = task
            .user_agent
            .as_ref()
            .filter(|u| u.enabled)
            .map(|u| u.system_prompt_suffix.as_str());
        let system = presentation::system_prompt(&tools, suffix);

        let judge_files: Vec<(String, Arc<[u8]>)> = loaded
            .judge_files()?
            .into_iter()
            .map(|(p, b)| (p, Arc::from(b)))
            .collect();
        let judge_imports = Arc::new(JudgeImports::sealed(&judge_files));

        let mut rules = Vec::new();
        if let Some(section) = &task.faults {
            let section = clawrun_faults::FaultsSection::from_node(section.clone());
            let origin = loaded.field_file("faults");
            let plan = section.compile(
                PlanSource {
                    origin: &origin,
                    field: "faults",
                },
                &PlanOptions::new(0),
            )?;
            rules.extend(plan.rules().iter().cloned());
        }
        if let Some(run) = run_plan {
            rules.extend(run.rules().iter().cloned());
        }
        let plan = match FaultPlan::new(run_plan.map_or(0, FaultPlan::seed), rules) {
            Ok(p) => p.with_own_seed(run_plan.and_then(FaultPlan::own_seed)),
            Err(e) => bail!("{}: combining fault rules: {e}", loaded.file()),
        };

        let disk = DiskLimits::of(task.limits.as_ref());
        Ok(TaskEnv {
            endpoints: task.tool_endpoints.clone(),
            loaded,
            base_vfs: vfs,
            base_services,
            router,
            system_tools,
            tools: tools.into(),
            system: system.into(),
            judge_files,
            judge_imports,
            plan,
            epoch,
            disk,
            web: Arc::new(Web::off()),
        })
    }

    /// This task reaching the web through `web` (its `web_real` services, and `curl` in its
    /// Bash tool).
    pub fn with_web(mut self, web: Arc<Web>) -> Self {
        self.web = web;
        self
    }

    /// The task id.
    pub fn id(&self) -> &str {
        &self.loaded.task.task_id
    }

    /// A fresh environment for trial `trial` of a run seeded `run_seed`: O(1) forks of the
    /// workspace and services, the plan reseeded from (run seed, task id, trial), or from the
    /// plan file's own `seed:` instead of the run seed when it set one.
    pub fn fork(&self, run_seed: u64, trial: u32) -> TrialEnv {
        self.fork_with(run_seed, trial, &self.plan, false)
    }

    /// [`TaskEnv::fork`] under `plan` instead of the task's (the fuzzer's perturbations),
    /// its injector counting every point called when `census` is set
    /// ([`FaultInjector::census`]).
    pub fn fork_with(&self, run_seed: u64, trial: u32, plan: &FaultPlan, census: bool) -> TrialEnv {
        let seed = clawrun_faults::trial_seed(run_seed, self.id(), trial);
        let clock = VirtualClock::new(self.epoch);
        // What `FaultPlan::for_trial` derives: from the plan's own seed, else the run's.
        let fault_seed = match plan.own_seed() {
            Some(own) => clawrun_faults::trial_seed(own, self.id(), trial),
            None => seed,
        };
        let mut injector = FaultInjector::new(plan.clone().with_seed(fault_seed));
        if census {
            injector = injector.with_census();
        }
        let faults = SharedInjector::new(injector.with_clock(clock.clone()));
        let mut vfs = self.base_vfs.fork();
        vfs.set_quota(self.disk.quota_over(self.base_vfs.usage()));
        let web = WebSession::new(Arc::clone(&self.web), seed);
        let mut services = self.base_services.fork();
        services.attach_web(&web);
        TrialEnv {
            vfs,
            services,
            clock,
            faults,
            seed,
            limits: Default::default(),
            tool_calls: 0,
            web,
        }
    }
}

impl TrialEnv {
    /// What the trial's next tool call runs with: the trial's clock and faults, and a seed of
    /// its own derived from the trial's seed and the call's number (so `$RANDOM`, temporary
    /// names and every other guest random byte differ between calls, reproducibly). No network:
    /// [`super::network::lend`] gives one.
    pub fn tool_env(&mut self) -> ToolEnv {
        self.tool_calls += 1;
        let mut material = [0u8; 16];
        material[..8].copy_from_slice(&self.seed.to_le_bytes());
        material[8..].copy_from_slice(&self.tool_calls.to_le_bytes());
        let key = blake3::derive_key("clawrun 2026-11 tool call seed", &material);
        ToolEnv {
            seed: u64::from_le_bytes(key[..8].try_into().expect("8 bytes")),
            clock: self.clock.clone(),
            faults: Some(self.faults.clone()),
            network: None,
            judge_imports: None,
        }
    }
}

/// Writes `bytes` at absolute `path`, creating its parent folders.
pub fn place_file(vfs: &mut Vfs, path: &str, bytes: &[u8]) -> clawrun_vfs::Result<()> {
    if let Some((parent, _)) = path.rsplit_once('/')
        && !parent.is_empty()
    {
        vfs.create_dir_all(parent)?;
    }
    vfs.write_file(path, bytes).map(|_| ())
}
