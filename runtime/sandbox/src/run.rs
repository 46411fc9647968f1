//! The engine, program loading and one program run.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::error::SandboxError;

/// The sandbox's results.
type Result<T, E = SandboxError> = std::result::Result<T, E>;
use clawrun_vfs::{NodeKind, Vfs};
use wasmtime::component::{Linker, ResourceTable};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store, Trap};
use wasmtime_wasi::WasiCtx;
use wasmtime_wasi::p2::bindings::sync::CommandPre;
use wasmtime_wasi::p2::pipe::MemoryInputPipe;
use wasmtime_wasi_http::WasiHttpCtx;

use super::cache::ComponentCache;
use super::clock::{self, VirtualClock};
use super::door::Door;
use super::fault::{FsFaultHook, NoFaults};
use super::fs::{self, Preopen, SharedFs, WasiVfsCtx};
use super::http::{HttpRouter, NoNetwork, RouterHooks};
use super::output::{CappedOutput, Stream, WriteOrder};
use super::p1;
use super::process::{self, ProcessCtx, PythonHost};
use super::program::{self, ProgramKind};
use super::random::SeededRng;
use super::state::{MemoryLimiter, StoreData};

/// How the process-wide sandbox is set up. The default reads nothing from the environment:
/// no compile cache, the pooling allocator; [`SandboxConfig::from_env`] is what the CLI uses.
#[derive(Clone, Debug)]
pub struct SandboxConfig {
    /// Folder of the compiled-program cache; `None` compiles every time.
    pub cache_dir: Option<PathBuf>,
    /// Use the pooling instance allocator (falls back to on-demand if the pool cannot be
    /// reserved).
    pub pooling: bool,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            cache_dir: None,
            pooling: true,
        }
    }
}

impl SandboxConfig {
    /// The default with the compile cache where the environment puts it
    /// ([`ComponentCache::default_dir`]: `$CLAWRUN_CACHE_DIR`, `$XDG_CACHE_HOME/clawrun` or
    /// `~/.cache/clawrun`).
    pub fn from_env() -> Self {
        Self {
            cache_dir: ComponentCache::default_dir(),
            ..Self::default()
        }
    }
}

/// One wasmtime engine with our WASI host linked in; share it across all runs of a process.
pub struct Sandbox {
    engine: Engine,
    linker: Linker<StoreData>,
    /// The core-module linker of wasip1 programs: our preview 1 host.
    p1_linker: wasmtime::Linker<StoreData>,
    cache: ComponentCache,
    loaded: Mutex<HashMap<blake3::Hash, ProgramPre>>,
}

/// A program pre-instantiated against its linker.
#[derive(Clone)]
enum ProgramPre {
    /// A WASI p2 command component.
    Command(CommandPre<StoreData>),
    /// A wasip1 command module, on our preview 1 host.
    Wasip1(wasmtime::InstancePre<StoreData>),
}

/// A program compiled and pre-instantiated, ready to run many times.
#[derive(Clone)]
pub struct Program {
    pre: ProgramPre,
    /// Whether it came in as a component or as a wasip1 module.
    pub kind: ProgramKind,
    /// blake3 of the bytes it was loaded from.
    pub hash: blake3::Hash,
}

/// A VFS directory handed to the guest as a preopen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// Absolute path in the VFS, which is also the path the guest sees.
    pub guest_path: String,
    /// Whether the guest may change anything below it.
    pub writable: bool,
}

/// Everything one run needs besides the program and its filesystem.
pub struct RunConfig {
    /// argv, including argv\[0\].
    pub args: Vec<String>,
    /// Environment variables (nothing is inherited from the host).
    pub env: Vec<(String, String)>,
    /// Bytes on the guest's stdin.
    pub stdin: Vec<u8>,
    /// Preopened directories.
    pub mounts: Vec<Mount>,
    /// Seed of all randomness the guest sees.
    pub seed: u64,
    /// Fuel budget (roughly one unit per wasm instruction).
    pub fuel: u64,
    /// Largest linear memory, in bytes.
    pub max_memory: usize,
    /// Bytes of stdout kept; the rest is cut with a marker.
    pub stdout_cap: usize,
    /// Bytes of stderr kept; the rest is cut with a marker.
    pub stderr_cap: usize,
    /// The virtual clock (shared with the caller, who may advance it).
    pub clock: VirtualClock,
    /// Asked before every filesystem host call.
    pub fs_hook: Box<dyn FsFaultHook>,
    /// Serves the guest's outgoing HTTP requests (default: none reach anything).
    pub http: Box<dyn HttpRouter>,
    /// Real time the run may take, besides its fuel: a backstop for host-side work that fuel
    /// does not see. Checked every [`DEADLINE_TICK`]; `None` for no deadline.
    pub deadline: Option<Duration>,
    /// Runs `python3` for the guest (`clawrun:process/python`); `None`: not offered.
    pub python: Option<Arc<dyn PythonHost>>,
    /// Serves the Python interpreter's host door (see [`super::door`]); `None`: the door
    /// answers "no host".
    pub door: Option<Arc<dyn Door>>,
}

/// Default fuel: about a second or two of guest compute.
pub const DEFAULT_FUEL: u64 = 10_000_000_000;
/// Default memory limit: 512 MiB.
pub const DEFAULT_MAX_MEMORY: usize = 512 << 20;
/// Default stdout / stderr cap: 1 MiB each.
pub const DEFAULT_OUTPUT_CAP: usize = 1 << 20;
/// Default real-time deadline of one run: 120 s (a tool call far beyond any honest one).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(120);

/// The real-time backstop of a trial's program runs (its tool calls and Judge-phase
/// commands): [`DEFAULT_DEADLINE`], or `CLAWRUN_REALTIME_BACKSTOP_MS` when set (for tests,
/// which make it fire, and for machines too slow for the default). It is a safety net, never
/// a limit of the trial: a run that passes it ends its trial as an infrastructure error.
pub fn trial_backstop() -> Duration {
    backstop_override().unwrap_or(DEFAULT_DEADLINE)
}

/// `CLAWRUN_REALTIME_BACKSTOP_MS`, when set: every real-time backstop of a trial takes it
/// instead of its default (a program run's, [`trial_backstop`]; a browser step's,
/// `clawrun_browser::BrowserConfig::step_limit`).
pub fn backstop_override() -> Option<Duration> {
    static BACKSTOP: std::sync::OnceLock<Option<Duration>> = std::sync::OnceLock::new();
    *BACKSTOP.get_or_init(|| {
        std::env::var("CLAWRUN_REALTIME_BACKSTOP_MS")
            .ok()
            .and_then(|ms| ms.trim().parse::<u64>().ok())
            .filter(|&ms| ms > 0)
            .map(Duration::from_millis)
    })
}

/// The error a host call returns when a program it started (`python3` from the shell) passed
/// the real-time deadline: the caller traps too, and its run ends with [`Status::Deadline`]
/// rather than reading the child's fate as output.
#[derive(Debug, thiserror::Error)]
#[error("a program it started passed the real-time deadline")]
pub struct ChildPassedDeadline;
/// How often the engine's epoch advances, i.e. the resolution of deadlines.
pub const DEADLINE_TICK: Duration = Duration::from_millis(100);

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            args: vec!["program".into()],
            env: Vec::new(),
            stdin: Vec::new(),
            mounts: Vec::new(),
            seed: 0,
            fuel: DEFAULT_FUEL,
            max_memory: DEFAULT_MAX_MEMORY,
            stdout_cap: DEFAULT_OUTPUT_CAP,
            stderr_cap: DEFAULT_OUTPUT_CAP,
            clock: VirtualClock::default(),
            fs_hook: Box::new(NoFaults),
            http: Box::new(NoNetwork),
            deadline: Some(DEFAULT_DEADLINE),
            python: None,
            door: None,
        }
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The program exited with this status.
    Exited(i32),
    /// The fuel budget ran out (an endless loop, or too little `--fuel`).
    OutOfFuel {
        /// The budget that was used up.
        fuel: u64,
    },
    /// The program died after a memory growth past the limit was refused.
    MemoryLimit {
        /// The limit, in bytes.
        limit: usize,
        /// The largest size asked for, in bytes.
        requested: usize,
    },
    /// The real-time deadline passed (work fuel does not meter, e.g. in the host).
    Deadline {
        /// The deadline.
        limit: Duration,
    },
    /// The program trapped for another reason.
    Trapped(String),
}

impl Status {
    /// The process exit code a shell would see: the program's own, 137 for fuel exhaustion
    /// or the deadline (as if killed), 134 for other traps (as if aborted).
    pub fn exit_code(&self) -> i32 {
        match self {
            Status::Exited(code) => *code,
            Status::OutOfFuel { .. } | Status::Deadline { .. } => 137,
            Status::MemoryLimit { .. } | Status::Trapped(_) => 134,
        }
    }

    /// The name of the limit that stopped the program (`fuel`, `memory`), if one did.
    pub fn limit(&self) -> Option<&'static str> {
        match self {
            Status::OutOfFuel { .. } => Some("fuel"),
            Status::MemoryLimit { .. } => Some("memory"),
            Status::Deadline { .. } => Some("deadline"),
            Status::Exited(_) | Status::Trapped(_) => None,
        }
    }

    /// A one-line explanation for anything but a normal exit.
    pub fn message(&self) -> Option<String> {
        match self {
            Status::Exited(_) => None,
            Status::OutOfFuel { fuel } => Some(format!(
                "the program ran out of fuel after {fuel} units (an endless loop? raise --fuel)"
            )),
            Status::MemoryLimit { limit, requested } => Some(format!(
                "the program exceeded the memory limit: it asked for {} MiB, the limit is {} MiB (raise --memory)",
                requested.div_ceil(1 << 20),
                limit >> 20
            )),
            Status::Deadline { limit } => Some(format!(
                "the program passed its real-time deadline of {} s",
                limit.as_secs_f64()
            )),
            Status::Trapped(msg) => Some(format!("the program trapped: {msg}")),
        }
    }
}

/// What a run produced.
pub struct RunOutcome {
    /// How it ended.
    pub status: Status,
    /// Captured stdout (with a truncation marker if it was cut).
    pub stdout: Vec<u8>,
    /// Captured stderr (with a truncation marker if it was cut).
    pub stderr: Vec<u8>,
    /// The order in which the kept bytes of `stdout` and `stderr` were written (runs of
    /// stream and length; truncation markers come after them).
    pub order: Vec<(Stream, u64)>,
    /// Fuel consumed.
    pub fuel_used: u64,
    /// The filesystem after the run.
    pub vfs: Vfs,
}

fn engine(pooling: bool) -> wasmtime::Result<Engine> {
    let mut config = Config::new();
    config.consume_fuel(true);
    config.epoch_interruption(true);
    config.memory_init_cow(true);
    config.parallel_compilation(true);
    // The tools need no GC or exceptions (only Python does, on an engine of its own): keep
    // this engine as it was before the `gc` crate feature was compiled in.
    config.wasm_exceptions(false);
    config.gc_support(false);
    if pooling {
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(128)
            .total_core_instances(512)
            .total_memories(128)
            .total_tables(256)
            .max_memory_size(4 << 30)
            .linear_memory_keep_resident(1 << 20);
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        match Engine::new(&config) {
            Ok(engine) => return Ok(engine),
            Err(e) => tracing::warn!("pooling allocator unavailable ({e}); using on-demand"),
        }
        config.allocation_strategy(InstanceAllocationStrategy::OnDemand);
    }
    Engine::new(&config)
}

impl Sandbox {
    /// Creates the engine and links our WASI host (stock wasmtime-wasi, with the filesystem
    /// and monotonic clock shadowed by ours).
    pub fn new(config: SandboxConfig) -> Result<Self> {
        let engine = engine(config.pooling).map_err(SandboxError::Engine)?;
        let mut linker = Linker::new(&engine);
        let mut p1_linker = wasmtime::Linker::new(&engine);
        (|| -> wasmtime::Result<()> {
            wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
            wasmtime_wasi_http::p2::add_only_http_to_linker_sync(&mut linker)?;
            fs::add_to_linker(&mut linker)?;
            clock::add_to_linker(&mut linker)?;
            process::add_to_linker(&mut linker)?;
            p1::add_to_linker(&mut p1_linker)
        })()
        .map_err(SandboxError::Engine)?;
        let cache = ComponentCache::new(&engine, config.cache_dir);
        start_epoch_ticker(&engine);
        Ok(Self {
            engine,
            linker,
            p1_linker,
            cache,
            loaded: Mutex::new(HashMap::new()),
        })
    }

    /// Checks that our `wasi:filesystem` carries exactly the interface versions of the stock
    /// one: installing it without shadowing must collide with wasmtime-wasi's definitions. If
    /// the versions drifted (a wasmtime bump without re-copying `runtime/sandbox/wit`), both
    /// would coexist and the linker's semver matching could hand guests the stock host.
    pub fn check_filesystem_shadows_stock(&self) -> Result<()> {
        let mut linker: Linker<StoreData> = Linker::new(&self.engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(SandboxError::Engine)?;
        match fs::add_to_linker_unshadowed(&mut linker) {
            Err(e) if format!("{e:#}").contains("defined twice") => Ok(()),
            Err(e) => Err(SandboxError::WitDrift(format!(
                "unexpected error installing the filesystem host: {e:#}"
            ))),
            Ok(()) => Err(SandboxError::WitDrift(
                "our wasi:filesystem did not collide with wasmtime-wasi's: the WIT in \
                 runtime/sandbox/wit has drifted from the stock version; re-copy it"
                    .into(),
            )),
        }
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Loads a program from a component or a wasip1 module: compiled once (or read from the
    /// cache) and pre-instantiated; loading the same bytes again is a map lookup.
    pub fn load(&self, bytes: &[u8]) -> Result<Program> {
        let kind = program::detect(bytes)?;
        let mut hasher = blake3::Hasher::new();
        hasher.update(match kind {
            ProgramKind::Component => b"component\0".as_slice(),
            ProgramKind::CoreWasip1 => b"wasip1-module\0".as_slice(),
        });
        hasher.update(bytes);
        let hash = hasher.finalize();
        if let Some(pre) = self.lock_loaded().get(&hash) {
            return Ok(Program {
                pre: pre.clone(),
                kind,
                hash,
            });
        }
        let pre = match kind {
            ProgramKind::Component => ProgramPre::Command(self.load_component(bytes, &hash)?),
            ProgramKind::CoreWasip1 => ProgramPre::Wasip1(self.load_wasip1(bytes, &hash)?),
        };
        self.lock_loaded().insert(hash, pre.clone());
        Ok(Program { pre, kind, hash })
    }

    /// Compiles (or takes from the cache) and links a WASI p2 command component.
    fn load_component(&self, bytes: &[u8], hash: &blake3::Hash) -> Result<CommandPre<StoreData>> {
        // A large component (the media tools: 20 MB, 15 s to a minute) is said while it
        // compiles, once per machine; small ones compile in a blink.
        let _compiling = (bytes.len() >= ANNOUNCED_COMPILE && !self.cache.holds(hash)).then(|| {
            crate::compile_notice::CompileNotice::start(&format!(
                "compiling {} MB of WebAssembly for this machine (once; the result is cached)",
                bytes.len() >> 20
            ))
        });
        let component = self
            .cache
            .load_or_compile(&self.engine, hash, || Ok(bytes.to_vec()))?;
        let pre = self
            .linker
            .instantiate_pre(&component)
            .map_err(SandboxError::MissingImports)?;
        CommandPre::new(pre).map_err(|e| {
            SandboxError::NotACommand(format!(
                "the program is not a WASI command (it exports no `wasi:cli/run`): {e:#}"
            ))
        })
    }

    /// Compiles (or takes from the cache) and links a wasip1 command module against our
    /// preview 1 host.
    fn load_wasip1(
        &self,
        bytes: &[u8],
        hash: &blake3::Hash,
    ) -> Result<wasmtime::InstancePre<StoreData>> {
        let module: wasmtime::Module = self
            .cache
            .load_or_compile(&self.engine, hash, || Ok(bytes.to_vec()))?;
        if module.get_export("_start").is_none() {
            return Err(SandboxError::NotACommand(
                "the wasip1 module exports no `_start`: it is not a command (a reactor that \
                 exports `run` is run through `clawrun exec`)"
                    .into(),
            ));
        }
        self.p1_linker
            .instantiate_pre(&module)
            .map_err(SandboxError::MissingImports)
    }

    fn lock_loaded(&self) -> std::sync::MutexGuard<'_, HashMap<blake3::Hash, ProgramPre>> {
        self.loaded.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `program` once over `vfs`. `Err` means the host could not run it at all (a mount
    /// point missing from the VFS, say); anything the guest does is reported in the outcome.
    pub fn run(&self, program: &Program, vfs: Vfs, config: RunConfig) -> Result<RunOutcome> {
        let preopens = config
            .mounts
            .iter()
            .map(|m| {
                let ino = vfs
                    .resolve(&m.guest_path)
                    .ok()
                    .filter(|&ino| vfs.kind(ino).ok() == Some(NodeKind::Directory));
                match ino {
                    Some(ino) => Ok(Preopen {
                        ino,
                        guest_path: m.guest_path.clone(),
                        writable: m.writable,
                        fs: None,
                    }),
                    None => Err(SandboxError::MountPoint(m.guest_path.clone())),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        let shared = SharedFs::new(vfs, config.clock.clone());
        let mut config = config;
        shared.set_hook(std::mem::replace(&mut config.fs_hook, Box::new(NoFaults)));
        let mut prepared = prepare_store(&self.engine, shared.clone(), preopens, config)?;
        let result = run_program(&program.pre, &mut prepared.store);
        Ok(prepared.finish(result, shared))
    }

    /// [`Self::run`] over a filesystem another run holds (a program a guest started): its
    /// changes land in `fs`, whose fault hook stays (`config.fs_hook` is not used).
    pub fn run_shared(
        &self,
        program: &Program,
        fs: SharedFs,
        config: RunConfig,
    ) -> Result<RunOutcome> {
        let preopens = {
            let state = fs.lock();
            config
                .mounts
                .iter()
                .map(|m| {
                    let ino = state
                        .vfs
                        .resolve(&m.guest_path)
                        .ok()
                        .filter(|&i| state.vfs.kind(i).ok() == Some(NodeKind::Directory));
                    match ino {
                        Some(ino) => Ok(Preopen {
                            ino,
                            guest_path: m.guest_path.clone(),
                            writable: m.writable,
                            fs: None,
                        }),
                        None => Err(SandboxError::MountPoint(m.guest_path.clone())),
                    }
                })
                .collect::<Result<Vec<_>>>()?
        };
        let mut prepared = prepare_store(&self.engine, fs.clone(), preopens, config)?;
        let result = run_program(&program.pre, &mut prepared.store);
        Ok(prepared.finish(result, fs))
    }
}

/// Runs `pre` in `store`: a command's exit status, or the error that stopped it.
fn run_program(pre: &ProgramPre, store: &mut Store<StoreData>) -> wasmtime::Result<i32> {
    match pre {
        ProgramPre::Command(pre) => pre
            .instantiate(&mut *store)
            .and_then(|cmd| cmd.wasi_cli_run().call_run(&mut *store))
            .map(|ran| match ran {
                Ok(()) => 0,
                Err(()) => 1,
            }),
        ProgramPre::Wasip1(pre) => run_wasip1(pre, store),
    }
}

/// Components at least this large are announced while they compile.
const ANNOUNCED_COMPILE: usize = 8 << 20;

/// Runs a wasip1 command: descriptors 0–2 and the preopens opened, then `_start`; returning
/// from it is exit status 0 (`proc_exit` ends the run with its own status).
fn run_wasip1(
    pre: &wasmtime::InstancePre<StoreData>,
    store: &mut Store<StoreData>,
) -> wasmtime::Result<i32> {
    p1::open_standard_fds(store.data_mut())?;
    let instance = pre.instantiate(&mut *store)?;
    let start = instance.get_typed_func::<(), ()>(&mut *store, "_start")?;
    start.call(&mut *store, ())?;
    Ok(0)
}

/// A store ready to run one program, with the handles to what it will produce.
pub(crate) struct PreparedStore {
    /// The store.
    pub store: Store<StoreData>,
    stdout: CappedOutput,
    stderr: CappedOutput,
    order: WriteOrder,
    fuel: u64,
    deadline: Option<Duration>,
}

/// Builds the store of one run on `engine` over `shared` (whose fault hook is left as it is):
/// WASI context, `preopens`, capped stdio, virtual clocks, seeded random, fuel, memory limit
/// and deadline from `config`.
pub(crate) fn prepare_store(
    engine: &Engine,
    shared: SharedFs,
    preopens: Vec<Preopen>,
    config: RunConfig,
) -> Result<PreparedStore> {
    let order = WriteOrder::default();
    let stdout = CappedOutput::with_order(config.stdout_cap, &order, Stream::Stdout);
    let stderr = CappedOutput::with_order(config.stderr_cap, &order, Stream::Stderr);
    let mut wasi = WasiCtx::builder();
    wasi.args(&config.args)
        .envs(&config.env)
        .stdin(MemoryInputPipe::new(config.stdin))
        .stdout(stdout.clone())
        .stderr(stderr.clone())
        .wall_clock(clock::WasiClock(config.clock.clone()))
        .monotonic_clock(clock::WasiClock(config.clock.clone()))
        .secure_random(SeededRng::new(config.seed, "secure"))
        .insecure_random(SeededRng::new(config.seed, "insecure"))
        .insecure_random_seed(SeededRng::insecure_seed(config.seed))
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false);
    let data = StoreData {
        wasi: wasi.build(),
        table: ResourceTable::new(),
        vfs: WasiVfsCtx {
            fs: shared,
            preopens,
        },
        clock: config.clock.clone(),
        limits: MemoryLimiter::new(config.max_memory),
        http: WasiHttpCtx::new(),
        http_hooks: RouterHooks::new(config.http),
        door: config.door,
        process: ProcessCtx {
            python: config.python,
            seed: config.seed,
            calls: 0,
            output_cap: config.stdout_cap,
            deadline: config.deadline,
            started: std::time::Instant::now(),
        },
        p1: Default::default(),
    };
    let mut store = Store::new(engine, data);
    store.limiter(|s| &mut s.limits);
    store.set_fuel(config.fuel).map_err(SandboxError::Store)?;
    match config.deadline {
        Some(limit) => {
            store.set_epoch_deadline(ticks(limit));
            store.epoch_deadline_trap();
        }
        // The deadline is relative to the engine's current epoch: half the range never
        // overflows and is never reached.
        None => store.set_epoch_deadline(u64::MAX / 2),
    }
    Ok(PreparedStore {
        store,
        stdout,
        stderr,
        order,
        fuel: config.fuel,
        deadline: config.deadline,
    })
}

impl PreparedStore {
    /// Ends the run: `result` is the program's exit code or the error that stopped it; the
    /// outcome carries the filesystem as `shared` holds it now.
    pub(crate) fn finish(self, result: wasmtime::Result<i32>, shared: SharedFs) -> RunOutcome {
        // A door may have set the budget anew (a warm interpreter's next job).
        let fuel_used = self.fuel.saturating_sub(self.store.get_fuel().unwrap_or(0));
        let status = match result {
            Ok(code) => Status::Exited(code),
            Err(e) => classify(&e, self.fuel, self.deadline, &self.store.data().limits),
        };
        drop(self.store);
        RunOutcome {
            status,
            stdout: self.stdout.contents(),
            stderr: self.stderr.contents(),
            order: self.order.runs(),
            fuel_used,
            vfs: shared.snapshot(),
        }
    }
}

/// The epoch ticks of `limit` (at least one).
pub(crate) fn ticks(limit: Duration) -> u64 {
    // At most half the epoch's range, as no deadline: the store adds it to the current epoch
    // (`clawrun exec --deadline 18446744073709551615` overflowed there).
    u64::try_from(limit.as_millis() / DEADLINE_TICK.as_millis())
        .unwrap_or(u64::MAX)
        .clamp(1, u64::MAX / 2)
}

/// Advances `engine`'s epoch every [`DEADLINE_TICK`] from a background thread, until the
/// engine is dropped.
pub(crate) fn start_epoch_ticker(engine: &Engine) {
    let weak = engine.weak();
    let spawned = std::thread::Builder::new()
        .name("clawrun-epoch".into())
        .spawn(move || {
            loop {
                std::thread::sleep(DEADLINE_TICK);
                match weak.upgrade() {
                    Some(engine) => engine.increment_epoch(),
                    None => return,
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("no deadline ticker ({e}): runs are bounded by fuel only");
    }
}

/// Names the reason a run failed with an error.
fn classify(
    e: &wasmtime::Error,
    fuel: u64,
    deadline: Option<Duration>,
    limits: &MemoryLimiter,
) -> Status {
    if let Some(exit) = e.downcast_ref::<wasmtime_wasi::I32Exit>() {
        return Status::Exited(exit.0);
    }
    let trap = e.downcast_ref::<Trap>();
    if trap == Some(&Trap::OutOfFuel) {
        return Status::OutOfFuel { fuel };
    }
    if let (Some(&Trap::Interrupt), Some(limit)) = (trap, deadline) {
        return Status::Deadline { limit };
    }
    if e.downcast_ref::<ChildPassedDeadline>().is_some() {
        return Status::Deadline {
            limit: deadline.unwrap_or(DEFAULT_DEADLINE),
        };
    }
    if let Some(requested) = limits.refused {
        return Status::MemoryLimit {
            limit: limits.max_memory,
            requested,
        };
    }
    match trap {
        Some(trap) => Status::Trapped(trap.to_string()),
        None => Status::Trapped(format!("{e:#}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadline_ticks_never_overflow_the_epoch() {
        assert_eq!(ticks(Duration::ZERO), 1);
        assert_eq!(ticks(Duration::from_secs(120)), 1200);
        // Seconds whose ticks wrapped to 2^64 - 2 (the store's `epoch + ticks` then
        // overflowed once the epoch passed 1), and the largest deadline.
        for secs in [3_689_348_814_741_910_323, u64::MAX] {
            assert_eq!(ticks(Duration::from_secs(secs)), u64::MAX / 2, "{secs}");
        }
        assert_eq!(ticks(Duration::MAX), u64::MAX / 2);
    }
}
