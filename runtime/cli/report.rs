//! `clawrun report`: merge the journals of one or more run folders (shards included) and write
//! the table, JSON, Markdown and the self-contained HTML report.

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clawrun_report::{Sourced, Summary, TrialRecord, TrialView};

use super::UsageError;
use super::output::{out, outln};

/// Arguments of `clawrun report`.
#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Run folders (shards of one run are merged).
    #[arg(value_name = "RUN", required = true)]
    runs: Vec<PathBuf>,
    /// Write the HTML report here.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write the Markdown report here.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
    /// k of Pass@k and Pass^k (at least 1; default: the trials per task).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    k: Option<u32>,
}

/// Which outputs to produce.
pub struct ReportFormats {
    /// JSON on stdout instead of the table.
    pub json: bool,
    /// The HTML file.
    pub html: Option<PathBuf>,
    /// The Markdown file.
    pub markdown: Option<PathBuf>,
}

/// Runs `clawrun report`.
pub fn report_command(args: ReportArgs) -> Result<i32> {
    for run in &args.runs {
        if !run.is_dir() {
            return Err(UsageError(format!("{}: not a run folder", run.display())).into());
        }
    }
    let formats = ReportFormats {
        json: args.json,
        html: args.html,
        markdown: args.markdown,
    };
    write_reports(&args.runs, &formats, args.k.unwrap_or(0))?;
    Ok(0)
}

/// The journals of a run folder: `journal.jsonl` and the shards' `journal.shard-*.jsonl`.
pub fn journals(run: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(run)
        .with_context(|| format!("reading {}", run.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("journal") && n.ends_with(".jsonl"))
        })
        .collect();
    out.sort();
    if out.is_empty() {
        return Err(UsageError(format!(
            "{}: no journal.jsonl (not a run folder?)",
            run.display()
        ))
        .into());
    }
    Ok(out)
}

/// Every journal's records, the latest per trial within each journal, with their sources.
pub fn load_sourced(runs: &[PathBuf]) -> Result<Vec<(PathBuf, Sourced)>> {
    let mut all = Vec::new();
    for run in runs {
        for path in journals(run)? {
            let file = std::fs::File::open(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let name = path.display().to_string();
            let records = clawrun_report::read_journal(BufReader::new(file), &name)
                .map_err(|e| anyhow!("{e}"))?;
            let mut latest: BTreeMap<(String, u32), Sourced> = BTreeMap::new();
            for s in records {
                latest.insert((s.record.task_id.clone(), s.record.trial), s);
            }
            all.extend(latest.into_values().map(|s| (run.clone(), s)));
        }
    }
    Ok(all)
}

/// Every record of `runs`.
pub fn load_runs(runs: &[PathBuf]) -> Result<Vec<TrialRecord>> {
    Ok(load_sourced(runs)?
        .into_iter()
        .map(|(_, s)| s.record)
        .collect())
}

/// Summarises `runs` and writes the requested outputs; `k` 0 = the trials per task. The files
/// are written before stdout, so a reader of stdout that stops early loses none of them.
pub fn write_reports(runs: &[PathBuf], formats: &ReportFormats, k: u32) -> Result<()> {
    let sourced = load_sourced(runs)?;
    let mut summary =
        Summary::from_records(sourced.iter().map(|(_, s)| s.clone()), (k > 0).then_some(k))
            .map_err(|e| anyhow!("{e}"))?;
    for run in runs {
        let manifests = crate::run::manifest::sibling_manifests(run, "")?;
        summary.runs.push(clawrun_report::RunHeader::from_manifests(
            &run.display().to_string(),
            &manifests,
        ));
    }
    if let Some(md) = &formats.markdown {
        std::fs::write(md, clawrun_report::render_markdown(&summary))
            .with_context(|| format!("writing {}", md.display()))?;
    }
    if let Some(html) = &formats.html {
        let mut views = Vec::new();
        for (run, s) in &sourced {
            let trace = run.join(&s.record.trace);
            if !trace.is_file() {
                return Err(anyhow!(
                    "{}: the trace of trial {} is missing, so the HTML report cannot show it \
                     (hint: `clawrun run --resume --out {}` with the run's other options runs \
                     trials whose trace is missing again; without --html the report needs no traces)",
                    trace.display(),
                    s.record.key(),
                    run.display()
                ));
            }
            let mut view = TrialView::load(run, s.record.clone()).map_err(|e| anyhow!("{e}"))?;
            let changes = run
                .join(s.record.task_id.as_str())
                .join(s.record.trial.to_string())
                .join("changes.json");
            if let Ok(bytes) = std::fs::read(&changes) {
                view.diff = serde_json::from_slice(&bytes).ok();
            }
            views.push(view);
        }
        std::fs::write(html, clawrun_report::render_html(&summary, &views))
            .with_context(|| format!("writing {}", html.display()))?;
    }
    if formats.json {
        outln!("{}", clawrun_report::render_json(&summary))?;
    } else {
        out!("{}", clawrun_report::render_text(&summary))?;
    }
    Ok(())
}
