//! The media tools a guest starts (`clawrun:process/media`: `ffprobe` and `ffmpeg` in Bash):
//! the embedded media component ([`crate::tools::media_component`]), loaded once per process
//! into an engine of its own and run as a separate instance over the caller's filesystem.

use std::sync::OnceLock;

use crate::fs::SharedFs;
use crate::{Mount, Program, RunConfig, RunOutcome, Sandbox, SandboxConfig};

/// The programs of the media component a guest may start.
pub const PROGRAMS: [&str; 2] = ["ffprobe", "ffmpeg"];

/// Native stack of the thread a media program runs on (it runs inside its caller's host call).
const THREAD_STACK: usize = 32 << 20;

/// Loads the media component on first use; remembers a failure.
pub struct MediaLauncher {
    loaded: OnceLock<Result<(Sandbox, Program), String>>,
}

/// The process's launcher.
pub fn launcher() -> &'static MediaLauncher {
    static LAUNCHER: MediaLauncher = MediaLauncher {
        loaded: OnceLock::new(),
    };
    &LAUNCHER
}

impl MediaLauncher {
    /// Loads the component (compiled once per machine, then read from the compile cache);
    /// one-off host work the caller does outside its clock.
    pub fn prepare(&self) -> Result<(), String> {
        self.loaded().map(|_| ())
    }

    fn loaded(&self) -> Result<&(Sandbox, Program), String> {
        self.loaded
            .get_or_init(|| {
                let sandbox = Sandbox::new(SandboxConfig::from_env())
                    .map_err(|e| format!("creating the media tools' engine: {e:#}"))?;
                let program = sandbox
                    .load(crate::tools::media_component())
                    .map_err(|e| format!("loading the media tools: {e:#}"))?;
                Ok((sandbox, program))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Runs `program ARGS` (`config.args`) from `cwd` over `fs` (changed in place); `Err` is
    /// a one-line message for the guest.
    pub fn run(
        &self,
        fs: SharedFs,
        cwd: &str,
        program: &str,
        mut config: RunConfig,
    ) -> Result<RunOutcome, String> {
        if !PROGRAMS.contains(&program) {
            return Err(format!(
                "no such media program (there are {})",
                PROGRAMS.join(", ")
            ));
        }
        let (sandbox, component) = self.loaded()?;
        let mut args = vec!["media".to_string(), program.to_string()];
        args.append(&mut config.args);
        config.args = args;
        config.env.retain(|(k, _)| k != "PWD");
        config.env.push(("PWD".into(), cwd.to_string()));
        config.mounts = vec![Mount {
            guest_path: "/".into(),
            writable: true,
        }];
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("clawrun-media".into())
                .stack_size(THREAD_STACK)
                .spawn_scoped(scope, move || sandbox.run_shared(component, fs, config))
                .map_err(|e| format!("starting the media tools' thread: {e}"))?
                .join()
                .map_err(|_| "the media tools' thread panicked".to_string())?
                .map_err(|e| format!("{e:#}"))
        })
    }
}
