//! `clawrun judge RUN --judge MODEL`: re-score a finished run with an LLM judge from its
//! traces (no agent runs again) into a new run folder; see [`clawrun_run::rejudge`].

use super::progress;
use std::path::PathBuf;

use anyhow::Result;
use clawrun_agents::llm::ModelConfig;

use super::model_flags::JudgeModelFlags;
use super::output::{error_line, outln};
use super::report::{ReportFormats, write_reports};
use clawrun_run::journal::{read_journal, run_journals};
use clawrun_run::manifest::{RunMeta, resolve_suite, sibling_manifests};
use clawrun_run::model_settings::resolve_judge;
use clawrun_run::rejudge::{RejudgeOptions, default_out, rejudge};

/// Arguments of `clawrun judge`.
#[derive(Debug, clap::Args)]
pub struct JudgeArgs {
    /// The finished run folder (the `--out` of `clawrun run`; shards are merged).
    #[arg(value_name = "RUN")]
    run: PathBuf,
    /// The judge model: openai:MODEL, anthropic:MODEL or openrouter:MODEL (default: the
    /// `judge:` model of --model-config).
    #[arg(long, value_name = "MODEL", value_parser = ModelConfig::from_spec, help_heading = super::help::JUDGING)]
    judge: Option<ModelConfig>,
    #[command(flatten, next_help_heading = super::help::JUDGING)]
    model_flags: JudgeModelFlags,
    /// The suite root holding the run's tasks (default: the one recorded in run.json, tried
    /// against the current directory, then the run folder's parent).
    #[arg(long, value_name = "DIR", help_heading = super::help::SELECTION)]
    suite: Option<PathBuf>,
    /// The new run folder (default: RUN-judged-<judge>, or the next free
    /// RUN-judged-<judge>-<i>).
    #[arg(long, value_name = "DIR", help_heading = super::help::OUTPUT)]
    out: Option<PathBuf>,
    /// Replace the run already in --out (its journal, manifests and reports).
    #[arg(long, help_heading = super::help::OUTPUT)]
    force: bool,
    /// Serve the judge's answers from the response cache when present (keyed by the request
    /// and the trial seed, as in `clawrun run --cache`).
    #[arg(long, help_heading = super::help::JUDGING)]
    cache: bool,
    /// Skip the probe request sent to the judge's endpoint first.
    #[arg(long, help_heading = super::help::JUDGING)]
    no_probe: bool,
    /// Trials judged at once (at least 1; default: the number of cores).
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = super::count::at_least_one::<u64>, help_heading = super::help::PARALLEL)]
    jobs: Option<u64>,
    /// Print the summary as JSON instead of a table.
    #[arg(long, help_heading = super::help::OUTPUT)]
    json: bool,
    /// Where to write the HTML report (default: <new run>/report.html).
    #[arg(long, value_name = "FILE", help_heading = super::help::OUTPUT)]
    html: Option<PathBuf>,
    /// Fit the summary's tables in N columns (0: no limit). Default: the terminal's width when
    /// stdout is a terminal, no limit otherwise.
    #[arg(long, value_name = "N", help_heading = super::help::OUTPUT)]
    width: Option<usize>,
}

/// Runs `clawrun judge`.
pub fn judge_command(args: JudgeArgs, quiet: bool) -> Result<i32> {
    let judge = resolve_judge(args.judge.clone(), &(&args.model_flags).into())?;
    let suite = match args.suite.clone() {
        Some(suite) => suite,
        None => {
            let meta = match sibling_manifests(&args.run, "")?.into_iter().next() {
                Some((name, doc)) => Some(RunMeta::of(&doc, &name)?),
                None => None,
            };
            let first_task = run_journals(&args.run)
                .first()
                .and_then(|j| read_journal(j).ok())
                .and_then(|records| records.into_iter().next())
                .map(|r| r.task_id)
                .unwrap_or_default();
            if first_task.is_empty() {
                // Not a run folder: `rejudge` says so.
                PathBuf::from(".")
            } else {
                resolve_suite(
                    None,
                    meta.as_ref().and_then(|m| m.suite.as_deref()),
                    &args.run,
                    &first_task,
                )?
            }
        }
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(&args.run, &judge));
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        |n| usize::try_from(n).unwrap_or(usize::MAX),
    );
    let options = RejudgeOptions {
        source: args.run.clone(),
        out: out.clone(),
        suite,
        judge: judge.clone(),
        cache: args.cache,
        jobs,
        force: args.force,
        probe: !args.no_probe,
        progress: progress::Terminal::new(!args.json && !quiet, true),
    };
    let result = rejudge(&options)?;
    let html = args.html.unwrap_or_else(|| out.join("report.html"));
    let formats = ReportFormats {
        json: args.json,
        html: Some(html.clone()),
        markdown: Some(out.join("report.md")),
        prices: None,
        width: args.width,
    };
    write_reports(std::slice::from_ref(&out), &formats, 0)?;
    if !args.json {
        outln!(
            "judged {} trials of {} with {}   run folder: {}   report: {}{}",
            result.judged,
            args.run.display(),
            judge.describe(),
            out.display(),
            html.display(),
            if result.interrupted {
                "   (interrupted: run again with --force)"
            } else {
                ""
            }
        )?;
    }
    if result.without_files > 0 {
        error_line(format_args!(
            "clawrun: note: {} llm_judge item(s) show files to the judge (file:PATH), which the traces do not keep: they are unjudged (judge them in the run itself: clawrun run --judge)",
            result.without_files
        ));
    }
    for damaged in &result.damaged {
        error_line(format_args!(
            "clawrun: warning: {damaged}: not judged (recorded as an infrastructure error)"
        ));
    }
    if result.interrupted {
        return Ok(130);
    }
    if !result.damaged.is_empty() {
        error_line(format_args!(
            "clawrun: {} trial(s) of {} have a damaged or missing trace and were not judged; the \
             others were (exit status 1; `clawrun run --resume --out {}` with the run's options \
             runs them again, then judge again with --force)",
            result.damaged.len(),
            args.run.display(),
            args.run.display()
        ));
        return Ok(1);
    }
    if result.failed_calls > 0 {
        error_line(format_args!(
            "clawrun: {} judge call(s) failed; their items are unjudged (exit status 1; run again with --force --out {})",
            result.failed_calls,
            out.display()
        ));
        return Ok(1);
    }
    Ok(0)
}
