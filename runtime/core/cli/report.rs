//! `clawrun report`: merge the journals of one or more run folders (shards included) and write
//! the table, JSON, Markdown and the self-contained HTML report. Folders whose `run.json`
//! differ in agent, model or settings are distinct arms, compared side by side.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clawrun_report::run_folder::{self, Arm, RunFolderError};
use clawrun_report::{
    ArmInput, Comparison, Inputs, Prices, Sourced, Summary, Timings, TrialRecord, TrialRows,
    TrialView,
};

use super::UsageError;
use super::output::out;

/// Arguments of `clawrun report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Run folders (shards of one run are merged; runs of different agents, models or
    /// settings are compared side by side, the first as the baseline A).
    #[arg(value_name = "RUN", required = true)]
    runs: Vec<PathBuf>,
    /// Write the HTML report here.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write the Markdown report here.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Print JSON instead of the table (schema: schemas/report.schema.json).
    #[arg(long)]
    json: bool,
    /// k of Pass@k and Pass^k (at least 1; default: the trials per task).
    #[arg(long, value_parser = super::count::at_least_one::<u32>)]
    k: Option<u32>,
    /// A price table (YAML or JSON: model -> {input, output, cached_input} dollars per million
    /// tokens); costs are shown only with one.
    #[arg(long, value_name = "FILE")]
    prices: Option<PathBuf>,
    /// Exit with status 1 when a run folder lacks trials it was asked for: a shard that never
    /// started or did not finish, or an unfinished run (named on stderr either way).
    #[arg(long)]
    require_complete: bool,
    /// Fit the tables in N columns (0: no limit). Default: the terminal's width when stdout is
    /// a terminal, no limit otherwise.
    #[arg(long, value_name = "N")]
    width: Option<usize>,
}

/// Which outputs to produce.
pub struct ReportFormats {
    /// JSON on stdout instead of the table.
    pub json: bool,
    /// The HTML file.
    pub html: Option<PathBuf>,
    /// The Markdown file.
    pub markdown: Option<PathBuf>,
    /// The price table file.
    pub prices: Option<PathBuf>,
    /// The text width: `None` = the terminal's when stdout is one; `Some(0)` = no limit.
    pub width: Option<usize>,
}

/// Runs `clawrun report`.
pub fn report_command(args: ReportArgs) -> Result<i32> {
    for run in &args.runs {
        if !run.is_dir() {
            return Err(UsageError(format!("{}: not a run folder", run.display())).into());
        }
    }
    if let Some(p) = &args.prices
        && !p.is_file()
    {
        return Err(UsageError(format!(
            "--prices {}: no such file (a YAML or JSON price table: `MODEL: {{input: 1.0, output: 4.0}}`, dollars per million tokens)",
            p.display()
        ))
        .into());
    }
    let formats = ReportFormats {
        json: args.json,
        html: args.html,
        markdown: args.markdown,
        prices: args.prices,
        width: args.width,
    };
    write_reports(&args.runs, &formats, args.k.unwrap_or(0))?;
    let mut incomplete = 0;
    for run in &args.runs {
        for gap in clawrun_run::completeness::gaps(run)? {
            eprintln!("clawrun: warning: {}: {gap}", run.display());
            incomplete += 1;
        }
    }
    if incomplete > 0 && args.require_complete {
        eprintln!(
            "clawrun: {incomplete} shard(s) or run(s) incomplete (--require-complete: exit status 1)"
        );
        return Ok(1);
    }
    Ok(0)
}

/// Prints a warning of the run folder loader on stderr.
pub(super) fn warn(w: clawrun_report::Warning) {
    eprintln!("clawrun: warning: {w}");
}

/// A run folder loader's error for the command line: a folder without a journal is a usage
/// error (exit status 2).
pub(super) fn folder_error(e: RunFolderError) -> anyhow::Error {
    match e {
        RunFolderError::NoJournal { .. } => UsageError(e.to_string()).into(),
        other => other.into(),
    }
}

/// The wall times recorded in the run folders (`timings.jsonl`, `timings.shard-*.jsonl`).
pub fn timings(runs: &[PathBuf]) -> Result<Timings> {
    run_folder::timings(runs, &mut warn).map_err(folder_error)
}

/// Every journal's records, the latest per trial within each journal, with their sources.
pub fn load_sourced(runs: &[PathBuf]) -> Result<Vec<(PathBuf, Sourced)>> {
    run_folder::load_sourced(runs, &mut warn).map_err(folder_error)
}

/// The latest record of each trial in each journal of `runs`, one at a time
/// ([`run_folder::latest_records`]), damaged lines named on stderr.
pub fn latest_records(
    runs: &[PathBuf],
) -> Result<impl Iterator<Item = Result<(PathBuf, Sourced)>> + use<>> {
    Ok(run_folder::latest_records(runs, &mut warn)
        .map_err(folder_error)?
        .map(|r| r.map_err(folder_error)))
}

/// Every record of `runs`.
pub fn load_runs(runs: &[PathBuf]) -> Result<Vec<TrialRecord>> {
    run_folder::load_runs(runs, &mut warn).map_err(folder_error)
}

/// Groups the folders into arms ([`run_folder::arms_of`]).
fn arms_of(runs: &[PathBuf]) -> Result<Vec<Arm>> {
    run_folder::arms_of(runs, &mut warn).map_err(folder_error)
}

/// The price table of `formats`, if one was given.
fn prices(formats: &ReportFormats) -> Result<Option<Prices>> {
    let Some(path) = &formats.prices else {
        return Ok(None);
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(Some(Prices::parse(&text, &path.display().to_string())?))
}

/// The text width to fit: `--width` (0 = none), else the terminal's when stdout is one.
fn text_width(formats: &ReportFormats) -> Option<usize> {
    match formats.width {
        Some(0) => None,
        Some(n) => Some(n),
        None if std::io::stdout().is_terminal() => terminal_width(),
        None => None,
    }
}

/// The terminal's width: `$COLUMNS`, else the window size of stdout.
fn terminal_width() -> Option<usize> {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return Some(n);
    }
    #[cfg(target_os = "linux")]
    {
        // SAFETY: TIOCGWINSZ fills a `winsize` we own; a failed call leaves it zeroed.
        let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
        let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
        if ok && ws.ws_col > 0 {
            return Some(usize::from(ws.ws_col));
        }
    }
    None
}

/// The trial views of `sourced` for the HTML viewer, with diffs, wall times and `arm`.
pub(super) fn views(
    sourced: &[(PathBuf, Sourced)],
    timings: &Timings,
    arm: Option<&str>,
) -> Result<Vec<TrialView>> {
    let mut views = Vec::new();
    for (run, s) in sourced {
        // A trace that is missing or damaged (a crash, a folder copied in part) is named;
        // the trial is still listed, with its record and without its steps.
        let mut view = match TrialView::load(run, s.record.clone()) {
            Ok(view) => view,
            Err(e) => {
                eprintln!(
                    "clawrun: warning: {e}: trial {} is shown without its trace (hint: \
                     `clawrun run --resume --out {}` with the run's other options runs it again)",
                    s.record.key(),
                    run.display()
                );
                let mut record = s.record.clone();
                record.error = Some(format!("the trace could not be read: {e}"));
                TrialView {
                    record,
                    events: Vec::new(),
                    diff: None,
                    wall_ms: None,
                    arm: None,
                    src: None,
                }
            }
        };
        let changes = run
            .join(s.record.task_id.as_str())
            .join(s.record.trial.to_string())
            .join("changes.json");
        // A run writes changes.json only for trials that changed the workspace. One a crash
        // damaged (it is written before the trial's record, and not synced) is named; the
        // trial is shown without its diff.
        view.diff = match std::fs::read(&changes)
            .map_err(|e| (e.kind(), e.to_string()))
            .and_then(|bytes| {
                serde_json::from_slice(&bytes)
                    .map_err(|e| (std::io::ErrorKind::InvalidData, e.to_string()))
            }) {
            Ok(diff) => Some(diff),
            Err((std::io::ErrorKind::NotFound, _)) => Some(Vec::new()),
            Err((_, e)) => {
                eprintln!(
                    "clawrun: warning: {}: {e}: trial {} is shown without its workspace changes",
                    changes.display(),
                    s.record.key()
                );
                None
            }
        };
        view.wall_ms = timings.trial_ms(&s.record.task_id, s.record.trial);
        view.arm = arm.map(str::to_string);
        views.push(view);
    }
    Ok(views)
}

/// Summarises `runs` and writes the requested outputs; `k` 0 = the trials per task. The files
/// are written before stdout, so a reader of stdout that stops early loses none of them. Two
/// or more arms give a comparison.
pub fn write_reports(runs: &[PathBuf], formats: &ReportFormats, k: u32) -> Result<()> {
    write_reports_printing(runs, formats, k, true)
}

/// [`write_reports`] without the summary on stdout (whose stdout is an MCP session's).
pub fn write_report_files(runs: &[PathBuf], formats: &ReportFormats, k: u32) -> Result<()> {
    write_reports_printing(runs, formats, k, false)
}

/// Writes the reports, and prints the summary when `print`.
fn write_reports_printing(
    runs: &[PathBuf],
    formats: &ReportFormats,
    k: u32,
    print: bool,
) -> Result<()> {
    let prices = prices(formats)?;
    let arms = arms_of(runs)?;
    if arms.len() > 1 {
        return write_comparison(&arms, formats, k, prices.as_ref(), print);
    }
    let timings = timings(runs)?;
    // The summary reads the journals one record at a time; only the JSON report lists every
    // trial's row, the other formats show the first few (memory independent of the run's
    // length but for the summary's duplicate check, 32 bytes per trial).
    let inputs = Inputs {
        timings,
        prices: prices.as_ref(),
        trial_rows: if formats.json {
            TrialRows::All
        } else {
            TrialRows::First(clawrun_report::render::rows::CHIPS)
        },
    };
    let mut failed = None;
    let records = latest_records(runs)?.map_while(|r| match r {
        Ok((_, s)) => Some(s),
        Err(e) => {
            failed = Some(e);
            None
        }
    });
    let summary = Summary::from_records_with(records, (k > 0).then_some(k), &inputs);
    if let Some(e) = failed {
        return Err(e);
    }
    let mut summary = summary?;
    summary.runs = arms.into_iter().flat_map(|a| a.headers).collect();
    if let Some(md) = &formats.markdown {
        write_whole(md, clawrun_report::render_markdown(&summary).as_bytes())?;
    }
    if let Some(html) = &formats.html {
        super::report_html::write_html(html, &summary, runs, &inputs.timings)?;
    }
    if !print {
        return Ok(());
    }
    if formats.json {
        super::output::write_with(|out| clawrun_report::write_json(&summary, out))?;
    } else {
        out!(
            "{}",
            clawrun_report::render_text_width(&summary, text_width(formats))
        )?;
    }
    Ok(())
}

/// A temporary file beside `path` (`.NAME.PID.tmp`: this process's own, so that shards
/// writing one folder's report never write the same temporary file), renamed over it once
/// whole.
pub(super) fn temporary_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or("report".into(), |n| n.to_string_lossy());
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Writes `bytes` to `path` whole or not at all: to a temporary file beside it, then renamed
/// over it (a crash meanwhile leaves the old report, never a torn one).
fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = temporary_beside(path);
    std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .with_context(|| format!("writing {}", path.display()))
}

/// Writes the comparison of `arms` (two or more).
fn write_comparison(
    arms: &[Arm],
    formats: &ReportFormats,
    k: u32,
    prices: Option<&Prices>,
    print: bool,
) -> Result<()> {
    let mut labels: Vec<String> = arms.iter().map(|a| a.agent.clone()).collect();
    for (i, arm) in arms.iter().enumerate() {
        if arms.iter().filter(|b| b.agent == arm.agent).count() > 1 {
            let folders: Vec<String> = arm
                .folders
                .iter()
                .map(|f| f.display().to_string())
                .collect();
            labels[i] = format!("{} @ {}", arm.agent, folders.join(" + "));
        }
    }
    let mut inputs = Vec::new();
    let mut loaded = Vec::new();
    for (arm, label) in arms.iter().zip(labels) {
        let sourced = load_sourced(&arm.folders)?;
        let timings = timings(&arm.folders)?;
        inputs.push(ArmInput {
            label,
            runs: arm.headers.clone(),
            records: sourced.iter().map(|(_, s)| s.clone()).collect(),
            inputs: Inputs {
                timings: timings.clone(),
                prices,
                trial_rows: TrialRows::All,
            },
        });
        loaded.push((sourced, timings));
    }
    let comparison = Comparison::build(inputs, (k > 0).then_some(k))?;
    if let Some(md) = &formats.markdown {
        write_whole(
            md,
            clawrun_report::render_comparison_markdown(&comparison).as_bytes(),
        )?;
    }
    if let Some(html) = &formats.html {
        let mut all = Vec::new();
        for (arm, (sourced, timings)) in comparison.arms.iter().zip(&loaded) {
            all.extend(views(sourced, timings, Some(&arm.name))?);
        }
        write_whole(
            html,
            clawrun_report::render_comparison_html(&comparison, &all).as_bytes(),
        )?;
    }
    if !print {
        return Ok(());
    }
    if formats.json {
        super::output::write_with(|out| clawrun_report::write_comparison_json(&comparison, out))?;
    } else {
        out!(
            "{}",
            clawrun_report::render_comparison_text(&comparison, text_width(formats))
        )?;
    }
    Ok(())
}
