//! The terminal report: plain text, aligned columns, no colour.

use crate::render::{rows, table};
use crate::summary::Summary;

/// The report as plain text. Warnings (the unjudged banner first) are shown at the top and
/// repeated at the bottom, so they are seen whichever end stays on screen.
pub fn render_text(s: &Summary) -> String {
    let banners = banner_block(s);
    let mut out = String::new();
    out.push_str(&format!(
        "clawrun report: {} tasks, {} scored trials, k = {}, agents: {}\n",
        s.overall.tasks,
        s.overall.trials,
        s.k,
        agents(s)
    ));
    for run in &s.runs {
        out.push_str(&format!("run {}: {}\n", run.folder, run.text));
    }
    out.push_str(&format!(
        "infrastructure errors: {} (excluded from all scores)\n",
        s.overall.infra_errors
    ));
    if s.overall.cached_turns > 0 {
        out.push_str(&format!(
            "cached turns: {} (assistant turns of scored trials served from the response cache, not by the model)\n",
            s.overall.cached_turns
        ));
    }
    if s.overall.task_errors > 0 {
        out.push_str(&format!(
            "task errors: {} (the task could not be run or judged; excluded from all scores; each record's error says why)\n",
            s.overall.task_errors
        ));
    }
    out.push_str(&banners);
    out.push_str("\nTASKS\n");
    let task_rows: Vec<Vec<String>> = s.tasks.iter().map(rows::task_row).collect();
    out.push_str(&table::layout(&rows::task_header(s.k), &task_rows, 3));
    out.push_str("\nCATEGORIES, GROUPS, OVERALL\n");
    out.push_str(&table::layout(
        &rows::aggregate_header(s.k),
        &rows::aggregate_rows(s),
        1,
    ));
    out.push_str("\nOVERALL\n");
    let lines = rows::overall_lines(s);
    let width = lines
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    for (label, value) in lines {
        out.push_str(&format!("  {label:<width$}  {value}\n"));
    }
    if !banners.is_empty() {
        out.push('\n');
        out.push_str(&banners);
    }
    out
}

/// The warnings as `!!! ... !!!` lines (empty when there are none).
fn banner_block(s: &Summary) -> String {
    s.warnings()
        .iter()
        .map(|w| format!("!!! {w} !!!\n"))
        .collect()
}

/// The agents, comma-separated, or `-`.
pub(crate) fn agents(s: &Summary) -> String {
    if s.agents.is_empty() {
        "-".to_string()
    } else {
        s.agents.join(", ")
    }
}
