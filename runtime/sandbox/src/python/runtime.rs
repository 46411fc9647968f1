//! The interpreter loaded and ready: its own engine (the wasm features CPython needs, without
//! touching the engine of the other guests), the wasip1 module linked against clawrun's
//! preview 1 host and the interpreter's `host` bridge, and the standard library as a shared
//! read-only filesystem layer.

use std::path::Path;

use crate::error::SandboxError;

/// The interpreter's results.
type Result<T, E = SandboxError> = std::result::Result<T, E>;
use clawrun_vfs::{NodeKind, Vfs};
use wasmtime::{Caller, Config, Engine, InstancePre, Linker, Module};

use super::install::Installation;
use super::judge_imports::JudgeImports;
use crate::cache::ComponentCache;
use crate::clock::VirtualClock;
use crate::fs::{Preopen, SharedFs};
use crate::{Mount, RunConfig, RunOutcome, StoreData, p1, prepare_store, start_epoch_ticker};

/// Where the standard library zip appears to the interpreter (its build looks there).
pub const STDLIB_GUEST_DIR: &str = "/usr/local/lib";
/// The standard library zip's name in [`STDLIB_GUEST_DIR`].
const STDLIB_GUEST_NAME: &str = "python315.zip";
/// argv\[0\] the interpreter is started with.
pub const ARGV0: &str = "/usr/local/bin/python3";
/// The wasm stack CPython gets: deep recursion raises `RecursionError` instead of trapping.
const WASM_STACK: usize = 8 << 20;
/// The native stack of the thread a run executes on (the wasm stack lives on it, plus host
/// frames).
const THREAD_STACK: usize = 32 << 20;

/// A loaded interpreter; share one per process.
pub struct PythonRuntime {
    engine: Engine,
    pre: InstancePre<StoreData>,
    /// The standard library layer and its folder, when the module is the interpreter.
    stdlib: Option<(SharedFs, clawrun_vfs::Ino)>,
}

/// The engine configuration CPython needs: exceptions (its build uses the wasm
/// exception-handling proposal), an 8 MiB wasm stack, fuel and epochs as for every guest. On
/// demand instance allocation: the pool of the other guests is sized for small tools.
fn engine() -> wasmtime::Result<Engine> {
    let mut config = Config::new();
    config.consume_fuel(true);
    config.epoch_interruption(true);
    config.memory_init_cow(true);
    config.parallel_compilation(true);
    config.wasm_exceptions(true);
    config.max_wasm_stack(WASM_STACK);
    // Checked against the wasm stack even though runs are synchronous.
    config.async_stack_size(WASM_STACK + (1 << 20));
    Engine::new(&config)
}

impl PythonRuntime {
    /// Loads the pre-initialised interpreter of `install`: compiled once per machine (the
    /// compile cache in `cache_dir`, keyed by the module's hash and this engine's
    /// configuration; the first compile takes minutes), then mapped from the cache in
    /// milliseconds.
    pub fn load(install: &Installation, cache_dir: Option<&Path>) -> Result<Self> {
        let module_path = install.snapshot();
        let read = |path: std::path::PathBuf| {
            std::fs::read(&path).map_err(|source| SandboxError::Read { path, source })
        };
        let module = read(module_path)?;
        let stdlib = read(install.stdlib())?;
        Self::from_module(&module, Some(&stdlib), cache_dir)
    }

    /// Loads a wasip1 reactor `module` that exports `run: () -> i32` (and may import the
    /// `host` bridge), with `stdlib` (a Python standard library zip) as the shared read-only
    /// layer when given.
    pub fn from_module(
        module: &[u8],
        stdlib: Option<&[u8]>,
        cache_dir: Option<&Path>,
    ) -> Result<Self> {
        let engine = engine().map_err(SandboxError::Engine)?;
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"clawrun python reactor v2: core module on the preview 1 host\0");
        hasher.update(module);
        let key = hasher.finalize();
        let cache = ComponentCache::new(&engine, cache_dir.map(Path::to_path_buf));
        // Minutes of one-off work (outside any trial's clock): said, and shown as it goes.
        let compiling = (!cache.holds(&key)).then(|| {
            crate::compile_notice::CompileNotice::start(&format!(
                "compiling the Python interpreter for this machine (once: a minute or more; the \
                 result is cached{})",
                cache_dir.map_or(String::new(), |d| format!(" in {}", d.display()))
            ))
        });
        let module: Module = cache.load_or_compile(&engine, &key, || Ok(module.to_vec()))?;
        drop(compiling);

        let mut linker: Linker<StoreData> = Linker::new(&engine);
        p1::add_to_linker(&mut linker).map_err(SandboxError::Engine)?;
        // The wheel's host door: served as a doorbell when the run offers one (see
        // `crate::door`), otherwise every call answers -1.
        linker
            .func_wrap(
                "host",
                "call",
                |mut caller: Caller<'_, StoreData>, _: i32, _: i32, _: i32, _: i32| {
                    let answer = caller.data().ring_door();
                    if let Some(fuel) = answer.set_fuel {
                        caller.set_fuel(fuel)?;
                    }
                    Ok(answer.code)
                },
            )
            .map_err(SandboxError::Engine)?;
        let pre = linker
            .instantiate_pre(&module)
            .map_err(SandboxError::MissingImports)?;
        start_epoch_ticker(&engine);

        let mut layer = Vfs::new();
        let stdlib_dir = layer
            .create_dir_all(STDLIB_GUEST_DIR)
            .map_err(SandboxError::Layer)?;
        if let Some(stdlib) = stdlib {
            layer
                .write_file(&format!("{STDLIB_GUEST_DIR}/{STDLIB_GUEST_NAME}"), stdlib)
                .map_err(SandboxError::Layer)?;
        }
        Ok(Self {
            engine,
            pre,
            stdlib: stdlib
                .is_some()
                .then(|| (SharedFs::new(layer, VirtualClock::default()), stdlib_dir)),
        })
    }

    /// Runs the interpreter once over `fs` (the caller's filesystem, changed in place), with
    /// the standard library mounted read-only and `fs`'s root mounted at `/`, as `python3 ARGS`
    /// from a shell: `config.args` are the arguments after `python3`, relative to `cwd`.
    /// `config.mounts` and `config.fs_hook` are not used: `fs` keeps its own hook.
    pub fn run(&self, fs: SharedFs, cwd: &str, config: RunConfig) -> Result<RunOutcome> {
        self.run_as(fs, cwd, config, None)
    }

    /// [`Self::run`] during the Judge phase: the interpreter imports only the standard library
    /// and `rule`'s sealed grader files, and no bytecode cache (see [`JudgeImports`]).
    pub fn run_judged(
        &self,
        fs: SharedFs,
        cwd: &str,
        config: RunConfig,
        rule: &JudgeImports,
    ) -> Result<RunOutcome> {
        self.run_as(fs, cwd, config, Some(rule))
    }

    fn run_as(
        &self,
        fs: SharedFs,
        cwd: &str,
        mut config: RunConfig,
        judge: Option<&JudgeImports>,
    ) -> Result<RunOutcome> {
        {
            let state = fs.lock();
            if state
                .vfs
                .resolve(cwd)
                .ok()
                .and_then(|i| state.vfs.kind(i).ok())
                != Some(NodeKind::Directory)
            {
                return Err(SandboxError::NotADirectory(format!(
                    "python3: the working directory {cwd} is not a directory"
                )));
            }
        }
        config.args = super::argv::interpreter_argv(cwd, &config.args, judge);
        config
            .env
            .retain(|(k, _)| k != "HOME" && k != "TMPDIR" && k != "PYTHONTZPATH");
        config.env.push(("TMPDIR".into(), "/tmp".into()));
        config.env.push(("PYTHONTZPATH".into(), String::new()));
        config.env.push(("HOME".into(), "/root".into()));
        config.mounts = vec![Mount {
            guest_path: "/".into(),
            writable: true,
        }];
        self.run_module(fs, config)
    }

    /// Runs the module once over `fs` as it is: `config.args` is its whole argv, and
    /// `config.mounts` are its preopens (after the standard library's, when it has one).
    pub fn run_module(&self, fs: SharedFs, config: RunConfig) -> Result<RunOutcome> {
        let mut preopens = Vec::new();
        if let Some((layer, dir)) = &self.stdlib {
            preopens.push(Preopen {
                ino: *dir,
                guest_path: STDLIB_GUEST_DIR.into(),
                writable: false,
                fs: Some(layer.clone()),
            });
        }
        {
            let state = fs.lock();
            for m in &config.mounts {
                let ino = state
                    .vfs
                    .resolve(&m.guest_path)
                    .ok()
                    .filter(|&i| state.vfs.kind(i).ok() == Some(NodeKind::Directory));
                let Some(ino) = ino else {
                    return Err(SandboxError::MountPoint(m.guest_path.clone()));
                };
                preopens.push(Preopen {
                    ino,
                    guest_path: m.guest_path.clone(),
                    writable: m.writable,
                    fs: None,
                });
            }
        }
        let engine = self.engine.clone();
        let pre = self.pre.clone();
        std::thread::scope(|scope| {
            let handle = std::thread::Builder::new()
                .name("clawrun-python".into())
                .stack_size(THREAD_STACK)
                .spawn_scoped(scope, move || -> Result<RunOutcome> {
                    let mut prepared = prepare_store(&engine, fs.clone(), preopens, config)?;
                    let store = &mut prepared.store;
                    let result = run_reactor(&pre, store);
                    Ok(prepared.finish(result, fs))
                })
                .map_err(|e| {
                    SandboxError::Thread(format!("starting the interpreter's thread: {e}"))
                })?;
            handle
                .join()
                .map_err(|_| SandboxError::Thread("the interpreter's thread panicked".into()))?
        })
    }
}

/// Runs the reactor once: descriptors 0–2 and the preopens opened, `_initialize` if it exports
/// one, then `run`, whose result is the exit status (`proc_exit` ends the run with its own).
fn run_reactor(
    pre: &InstancePre<StoreData>,
    store: &mut wasmtime::Store<StoreData>,
) -> wasmtime::Result<i32> {
    p1::open_standard_fds(store.data_mut())?;
    let instance = pre.instantiate(&mut *store)?;
    if let Some(init) = instance.get_func(&mut *store, "_initialize") {
        init.typed::<(), ()>(&*store)?.call(&mut *store, ())?;
    }
    let run = instance.get_typed_func::<(), i32>(&mut *store, "run")?;
    run.call(&mut *store, ())
}
