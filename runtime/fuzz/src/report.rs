//! What a fuzz session writes: `fuzz.json` (everything, machine-readable), `report.md` and
//! `index.html` (failures by kind, minimal schedules, trials spent, trials/s, links to each
//! failure's page), and each failure's page beside its reproducer.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use super::observe::FailureKind;
use super::reproduce::{RUN_DIR, ReproMeta, Reproduction, TWIN_DIR};
use super::search::{Confirm, Finding, TaskSearch, by_kind};
use super::{FuzzOptions, FuzzResult};
use clawrun_report::render::html::failure::{self, FailurePage, Side};
use clawrun_run::agent_spec::RecordedRun;

/// The session's machine-readable summary.
pub const SUMMARY_FILE: &str = "fuzz.json";
/// The Markdown report.
pub const MARKDOWN_FILE: &str = "report.md";
/// The HTML index.
pub const INDEX_FILE: &str = "index.html";
/// A failure's page, in its reproducer folder.
pub const PAGE_FILE: &str = "failure.html";

/// `fuzz.json`.
#[derive(Serialize)]
struct Summary<'a> {
    agent: &'a str,
    seed: u64,
    confirm: Confirm,
    budget_per_task: Option<u64>,
    time_per_task_secs: Option<f64>,
    perturb_fs: bool,
    failures: usize,
    failures_by_kind: Vec<(FailureKind, usize)>,
    search_trials: u64,
    shrink_trials: u64,
    tasks: Vec<TaskSummary<'a>>,
    /// Wall-clock figures (they differ from machine to machine; the rest does not).
    timing: Timing,
}

#[derive(Serialize)]
struct Timing {
    secs: f64,
    search_trials_per_sec: f64,
}

#[derive(Serialize)]
struct TaskSummary<'a> {
    task_id: &'a str,
    twin: String,
    search_trials: u64,
    behaviours: usize,
    corpus: usize,
    failing_trials: u64,
    unshrunk: usize,
    unconfirmed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    search_secs: f64,
    failures: Vec<FailureSummary<'a>>,
}

#[derive(Serialize)]
struct FailureSummary<'a> {
    kind: FailureKind,
    dir: String,
    minimal: &'a [String],
    found: &'a [String],
    trial: &'a str,
    found_at_trial: u64,
    found_secs: f64,
    shrink_trials: u64,
    shrink_secs: f64,
    confirmed_before: u32,
    confirmed_after: u32,
    reproduced: u32,
    of: u32,
    duplicates: u32,
    command: &'a str,
}

/// Writes `fuzz.json`, `report.md` and `index.html` into the output folder.
pub fn write(result: &FuzzResult, options: &FuzzOptions) -> Result<()> {
    let out = &result.out;
    let summary = summary(result, options);
    let path = out.join(SUMMARY_FILE);
    std::fs::write(&path, serde_json::to_string_pretty(&summary)? + "\n")
        .with_context(|| format!("writing {}", path.display()))?;
    let path = out.join(MARKDOWN_FILE);
    std::fs::write(&path, markdown(result, options))
        .with_context(|| format!("writing {}", path.display()))?;
    let path = out.join(INDEX_FILE);
    std::fs::write(&path, index_html(result, options))
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

fn summary<'a>(result: &'a FuzzResult, options: &FuzzOptions) -> Summary<'a> {
    let search = &options.search;
    let findings: Vec<Finding> = result
        .tasks
        .iter()
        .flat_map(|t| t.search.findings.iter().cloned())
        .collect();
    let search_secs: f64 = result.tasks.iter().map(|t| t.search.search_secs).sum();
    Summary {
        agent: &result.agent,
        seed: result.seed,
        confirm: search.confirm,
        budget_per_task: search.budget,
        time_per_task_secs: search.time.map(|t| t.as_secs_f64()),
        perturb_fs: search.fs,
        failures: result.failures(),
        failures_by_kind: by_kind(&findings).into_iter().collect(),
        search_trials: result.search_trials(),
        shrink_trials: findings.iter().map(|f| f.shrink_trials).sum(),
        tasks: result
            .tasks
            .iter()
            .map(|t| TaskSummary {
                task_id: &t.search.task_id,
                twin: t.search.twin.summary(),
                search_trials: t.search.trials,
                behaviours: t.search.behaviours,
                corpus: t.search.corpus,
                failing_trials: t.search.failing_trials,
                unshrunk: t.search.unshrunk,
                unconfirmed: t.search.unconfirmed,
                note: t.search.note.as_deref(),
                search_secs: t.search.search_secs,
                failures: t
                    .reproducers
                    .iter()
                    .map(|r| FailureSummary {
                        kind: r.finding.kind,
                        dir: r.dir.display().to_string(),
                        minimal: &r.meta.schedule,
                        found: &r.meta.found,
                        trial: &r.meta.trial,
                        found_at_trial: r.finding.found_at_trial,
                        found_secs: r.finding.found_secs,
                        shrink_trials: r.finding.shrink_trials,
                        shrink_secs: r.finding.shrink_secs,
                        confirmed_before: r.finding.confirmed_before,
                        confirmed_after: r.finding.confirmed_after,
                        reproduced: r.reproduction.failing,
                        of: r.meta.confirm.of,
                        duplicates: r.finding.duplicates,
                        command: &r.meta.command,
                    })
                    .collect(),
            })
            .collect(),
        timing: Timing {
            secs: result.secs,
            search_trials_per_sec: rate(result.search_trials(), search_secs),
        },
    }
}

/// `n` per second over `secs`.
fn rate(n: u64, secs: f64) -> f64 {
    if secs > 0.0 { n as f64 / secs } else { 0.0 }
}

/// One line on a task's search, for progress output.
pub fn task_line(search: &TaskSearch) -> String {
    let kinds = by_kind(&search.findings);
    format!(
        "{}: {} trials in {:.2} s ({:.0}/s), {} behaviours, {} failure(s){}{}",
        search.task_id,
        search.trials,
        search.search_secs,
        rate(search.trials, search.search_secs),
        search.behaviours,
        search.findings.len(),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(
                " ({})",
                kinds
                    .iter()
                    .map(|(k, n)| format!("{n} {k}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        search
            .note
            .as_deref()
            .map(|n| format!("; {n}"))
            .unwrap_or_default()
    )
}

/// How much was searched, in words (also when nothing failed).
fn searched(result: &FuzzResult, options: &FuzzOptions) -> String {
    let search_secs: f64 = result.tasks.iter().map(|t| t.search.search_secs).sum();
    format!(
        "{} search trials over {} task(s) in {:.2} s ({:.0} trials/s), seed {}, budget {} per \
         task; failures confirmed {} of {}",
        result.search_trials(),
        result.tasks.len(),
        search_secs,
        rate(result.search_trials(), search_secs),
        result.seed,
        match (options.search.budget, options.search.time) {
            (Some(b), Some(t)) => format!("{b} trials or {:.0} s", t.as_secs_f64()),
            (Some(b), None) => format!("{b} trials"),
            (None, Some(t)) => format!("{:.0} s", t.as_secs_f64()),
            (None, None) => "unbounded".into(),
        },
        options.search.confirm.needed,
        options.search.confirm.of,
    )
}

/// `report.md`.
pub fn markdown(result: &FuzzResult, options: &FuzzOptions) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# clawrun fuzz: {}\n", result.agent);
    let _ = writeln!(md, "{}.\n", searched(result, options));
    let _ = writeln!(
        md,
        "**{} failure(s)** found and shrunk.\n",
        result.failures()
    );
    let _ = writeln!(
        md,
        "| task | twin | trials | behaviours | failing trials | failures |\n|---|---|---:|---:|---:|---|"
    );
    for t in &result.tasks {
        let s = &t.search;
        let kinds = by_kind(&s.findings)
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} |",
            s.task_id,
            s.twin.summary(),
            s.trials,
            s.behaviours,
            s.failing_trials,
            if kinds.is_empty() {
                "none".into()
            } else {
                kinds
            }
        );
    }
    for t in &result.tasks {
        let s = &t.search;
        if s.unshrunk > 0 || s.unconfirmed > 0 {
            let _ = writeln!(
                md,
                "\n{}: {} more failure(s) found but not shrunk (--max-failures), {} not confirmed \
                 when played again (--confirm).",
                s.task_id, s.unshrunk, s.unconfirmed
            );
        }
    }
    for t in &result.tasks {
        for r in &t.reproducers {
            let f = &r.finding;
            let _ = writeln!(
                md,
                "\n## {} — {} ({})\n",
                t.search.task_id,
                f.kind,
                r.dir.display()
            );
            let _ = writeln!(
                md,
                "Minimal schedule ({} of {} found):\n",
                f.minimal.len(),
                f.found.len()
            );
            for line in &r.meta.schedule {
                let _ = writeln!(md, "- {line}");
            }
            let _ = writeln!(
                md,
                "\n- twin: {}\n- perturbed: {}\n- found at search trial {} ({:.2} s); shrunk in {} trials ({:.2} s)\n- confirmed {}/{} before and {}/{} after shrinking; `clawrun run` reproduced it {}/{}{}\n- reproduce: `{}`",
                r.meta.twin,
                r.meta.trial,
                f.found_at_trial,
                f.found_secs,
                f.shrink_trials,
                f.shrink_secs,
                f.confirmed_before,
                r.meta.confirm.of,
                f.confirmed_after,
                r.meta.confirm.of,
                r.reproduction.failing,
                r.meta.confirm.of,
                if f.duplicates > 0 {
                    format!(
                        "\n- {} other failing schedule(s) shrank to the same one",
                        f.duplicates
                    )
                } else {
                    String::new()
                },
                r.meta.command
            );
        }
    }
    md
}

/// HTML-escapes `text`.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `index.html`: in the reports' style (`clawrun_report`'s style sheet), a table of the tasks
/// searched and the failures found, each linking to its page.
pub fn index_html(result: &FuzzResult, options: &FuzzOptions) -> String {
    use clawrun_report::render::html::{PAGE_CLOSE, styled_page_start};
    let mut h = styled_page_start(&format!("clawrun fuzz: {}", result.agent));
    let _ = write!(
        h,
        "<p class=\"meta\">{searched}.</p>\n<section class=\"cards\"><div class=\"card{warn}\">\
         <div class=\"label\">failures</div><div class=\"value\">{n}</div>\
         <div class=\"sub\">found and shrunk to a minimal schedule</div></div>\
         <div class=\"card\"><div class=\"label\">tasks</div><div class=\"value\">{tasks}</div>\
         <div class=\"sub\">searched</div></div></section>\n",
        searched = esc(&searched(result, options)),
        n = result.failures(),
        warn = if result.failures() > 0 { " danger" } else { "" },
        tasks = result.tasks.len(),
    );
    h.push_str(
        "<section id=\"tasks\"><h2>Tasks</h2>\n<div class=\"table-wrap\"><table id=\"fuzz-tasks\">\
         <thead><tr><th>task</th><th>unperturbed twin</th><th>trials</th><th>behaviours</th>\
         <th>failing trials</th><th>failures (minimal schedules)</th></tr></thead><tbody>\n",
    );
    for t in &result.tasks {
        let s = &t.search;
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>",
            esc(&s.task_id),
            esc(&s.twin.summary()),
            s.trials,
            s.behaviours,
            s.failing_trials
        );
        if t.reproducers.is_empty() {
            h.push_str("none");
        }
        for r in &t.reproducers {
            let _ = write!(
                h,
                "<div><a class=\"chip fail\" href=\"{href}/{PAGE_FILE}\">{kind}</a> {sched}</div>",
                href = esc(&r.dir.display().to_string()),
                kind = r.finding.kind,
                sched = esc(&r.meta.schedule.join("; "))
            );
        }
        h.push_str("</td></tr>\n");
    }
    h.push_str("</tbody></table></div></section>\n");
    h.push_str(PAGE_CLOSE);
    h
}

/// Writes the page of the failure in reproducer folder `dir`: the reproduced trial next to its
/// unperturbed twin, both read from the run folders `clawrun run` wrote there.
pub fn write_failure_page(
    dir: &Path,
    meta: &ReproMeta,
    finding: &Finding,
    reproduction: &Reproduction,
) -> Result<()> {
    let twin_events = RecordedRun::new(dir.join(TWIN_DIR)).trace(&meta.task_id, 0)?;
    let events = RecordedRun::new(dir.join(RUN_DIR)).trace(&meta.task_id, 0)?;
    let twin_summary = super::Observation::from_record(&reproduction.twin).summary();
    let trial = reproduction.trials.first();
    let trial_summary = trial
        .map(|r| super::Observation::from_record(r).summary())
        .unwrap_or_default();
    let notes = vec![
        format!(
            "shrunk from {} to {} perturbation(s) in {} trials",
            finding.found.len(),
            finding.minimal.len(),
            finding.shrink_trials
        ),
        format!(
            "confirmed {}/{} before and {}/{} after shrinking; `clawrun run` reproduced it {}/{}",
            finding.confirmed_before,
            meta.confirm.of,
            finding.confirmed_after,
            meta.confirm.of,
            reproduction.failing,
            meta.confirm.of
        ),
    ];
    let html = failure::render(&FailurePage {
        task_id: &meta.task_id,
        agent: &meta.agent,
        kind: meta.kind.name(),
        schedule: &meta.schedule,
        notes: &notes,
        reproduce: &meta.command,
        twin: Side {
            title: "unperturbed twin",
            events: &twin_events,
            verdict: reproduction.twin.verdict.as_ref(),
            summary: &twin_summary,
        },
        perturbed: Side {
            title: "perturbed trial",
            events: &events,
            verdict: trial.and_then(|r| r.verdict.as_ref()),
            summary: &trial_summary,
        },
    });
    let path = dir.join(PAGE_FILE);
    std::fs::write(&path, html).with_context(|| format!("writing {}", path.display()))
}
