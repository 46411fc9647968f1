//! `clawrun export RUN --format inspect|atif|otel`: one run (its shards and resumed sessions
//! merged) in another tool's format, written by `clawrun_export`; `--otlp-endpoint` sends
//! the OTLP/JSON spans to a collector.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clawrun_export::{ExportRun, atif, inspect, otel};

use super::UsageError;
use super::output::write_bytes;
use super::report::{folder_error, temporary_beside, warn};

/// The formats of `clawrun export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// An Inspect AI log (`.eval`): one sample per task, its trials the epochs.
    Inspect,
    /// Harbor's Agent Trajectory Interchange Format: a folder with one trajectory per trial.
    Atif,
    /// OTLP/JSON spans with the OpenTelemetry GenAI semantic conventions: a trace per trial.
    Otel,
}

/// Arguments of `clawrun export`.
#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The run folder (or the folders of one sharded run).
    #[arg(value_name = "RUN", required = true)]
    runs: Vec<PathBuf>,
    /// The format.
    #[arg(long, value_enum)]
    format: Format,
    /// Where to write: a file (inspect: `NAME.eval`; otel: JSON), or for atif a folder.
    /// Default: standard output (inspect only when it is not a terminal; atif needs a folder).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// otel: POST the spans to this OTLP/HTTP collector (`http://localhost:4318`, or the full
    /// traces URL); nothing is printed then unless --out is given.
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
}

/// Runs `clawrun export`.
pub fn export_command(args: ExportArgs) -> Result<i32> {
    for run in &args.runs {
        if !run.is_dir() {
            return Err(UsageError(format!("{}: not a run folder", run.display())).into());
        }
    }
    if args.otlp_endpoint.is_some() && args.format != Format::Otel {
        return Err(UsageError(
            "--otlp-endpoint sends OTLP spans: use it with --format otel".into(),
        )
        .into());
    }
    if args.format == Format::Atif && args.out.is_none() {
        return Err(UsageError(
            "--format atif writes a folder (a trajectory per trial): give --out DIR".into(),
        )
        .into());
    }
    if args.format == Format::Inspect && args.out.is_none() && std::io::stdout().is_terminal() {
        return Err(UsageError(
            "an .eval log is a zip: give --out FILE.eval (or redirect standard output)".into(),
        )
        .into());
    }
    if let (Format::Inspect, Some(out)) = (args.format, &args.out)
        && out.extension().is_none_or(|e| e != "eval")
    {
        return Err(UsageError(format!(
            "--out {}: Inspect recognises a log by its extension: name it FILE.eval",
            out.display()
        ))
        .into());
    }
    let run = ExportRun::load(&args.runs, &mut warn).map_err(|e| match e {
        clawrun_export::ExportError::Folder(e) => folder_error(e),
        other => other.into(),
    })?;
    let trials = run.trials.len();
    let out = args.out.as_deref();
    let written = match args.format {
        // A zip is written with seeks: a file, or bytes for standard output.
        Format::Inspect => match out {
            Some(path) => write_whole(path, |f| {
                inspect::write_eval_log(&run, f)?;
                Ok(())
            })?,
            None => {
                write_bytes(&inspect::eval_log(&run)?)?;
                "standard output".into()
            }
        },
        Format::Atif => {
            let dir = out.expect("checked above");
            atif::write(&run, dir)?;
            dir.display().to_string()
        }
        Format::Otel => {
            let mut places = Vec::new();
            if let Some(endpoint) = &args.otlp_endpoint {
                let requests = otel::send_all(&run, endpoint)?;
                places.push(format!(
                    "{} ({requests} request(s))",
                    otel::send::traces_url(endpoint)
                ));
            }
            match out {
                Some(path) => places.push(write_whole(path, |f| {
                    let mut w = std::io::BufWriter::new(f);
                    otel::write_request(&run, &run.trials, &mut w)?;
                    w.flush().context("writing the spans")?;
                    Ok(())
                })?),
                None if args.otlp_endpoint.is_none() => {
                    super::output::write_with(|w| {
                        otel::write_request(&run, &run.trials, w).map_err(|e| match e {
                            // A reader that went away stays a broken pipe (a quiet end).
                            clawrun_export::ExportError::Write { source, .. } => source,
                            other => std::io::Error::other(other),
                        })
                    })?;
                    places.push("standard output".into());
                }
                None => {}
            }
            places.join(" and ")
        }
    };
    eprintln!("clawrun: exported {trials} trial(s) to {written}");
    // An unfinished run or a missing shard is exported as far as it got, and said so.
    for run in &args.runs {
        for gap in clawrun_run::completeness::gaps(run)? {
            eprintln!(
                "clawrun: warning: {}: {gap} (the export holds the trials recorded)",
                run.display()
            );
        }
    }
    Ok(0)
}

/// Writes `path` whole with `write` (to a temporary file beside it, renamed over it once
/// written: a failure leaves the old file, never a torn one); returns the path for messages.
fn write_whole(path: &Path, write: impl FnOnce(&mut File) -> Result<()>) -> Result<String> {
    let tmp = temporary_beside(path);
    let result = File::create(&tmp)
        .with_context(|| format!("writing {}", tmp.display()))
        .and_then(|mut f| {
            write(&mut f)?;
            f.sync_all().context("syncing")?;
            std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
        });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result?;
    Ok(path.display().to_string())
}
