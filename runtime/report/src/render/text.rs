//! The terminal report: plain text, aligned columns, no colour.

use crate::compare::Comparison;
use crate::render::{compare_rows, grader_rows, rows, table};
use crate::summary::Summary;

/// The report as plain text, every column shown (stable for scripts).
pub fn render_text(s: &Summary) -> String {
    render_text_width(s, None)
}

/// The report as plain text within `width` columns (`None`: no limit): tables drop their least
/// important columns to fit and say which. What was measured comes first; the notes (what a
/// judge is needed for first) come once, at the end, where the terminal leaves them.
pub fn render_text_width(s: &Summary, width: Option<usize>) -> String {
    let banners = banner_block(&s.warnings());
    let mut out = String::new();
    out.push_str(&format!(
        "clawrun report: {} tasks, {} counted trials, k = {}, agents: {}\n",
        s.overall.tasks,
        s.overall.trials,
        s.k,
        agents(s)
    ));
    for run in &s.runs {
        out.push_str(&format!("run {}: {}\n", run.folder, run.text));
    }
    out.push_str(&status_lines(s));
    out.push_str("\nTASKS\n");
    out.push_str(&table::fit(&rows::task_table(s), width));
    out.push_str("\nCATEGORIES, GROUPS, OVERALL\n");
    out.push_str(&table::fit(&rows::aggregate_table(s), width));
    out.push_str("\nOVERALL\n");
    out.push_str(&label_lines(&rows::overall_lines(s)));
    if let Some(g) = &s.graders {
        out.push_str(&format!("\n{}\n", grader_rows::TITLE.to_uppercase()));
        out.push_str(&label_lines(&grader_rows::agreement_lines(g)));
        for d in &g.disagreements {
            out.push_str(&format!(
                "  {}: Claw-Eval {:.4} {}, clawrun {:.4} {}: {}\n",
                d.trial,
                d.claw_eval_score,
                if d.claw_eval_passed { "pass" } else { "fail" },
                d.clawrun_score,
                if d.clawrun_passed { "pass" } else { "fail" },
                d.why
            ));
        }
    }
    if !banners.is_empty() {
        out.push('\n');
        out.push_str(&banners);
    }
    out
}

/// A comparison as plain text within `width` columns (`None`: no limit).
pub fn render_comparison_text(c: &Comparison, width: Option<usize>) -> String {
    let banners = banner_block(&c.warnings());
    let mut out = format!("clawrun comparison: {} arms, k = {}\n", c.arms.len(), c.k);
    for arm in &c.arms {
        out.push_str(&format!("arm {} = {}\n", arm.name, arm.label));
        for run in &arm.summary.runs {
            out.push_str(&format!("  run {}: {}\n", run.folder, run.text));
        }
        let status = status_lines(&arm.summary);
        for line in status.lines() {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out.push_str("\nARMS (means over each arm's tasks)\n");
    out.push_str(&table::fit(&compare_rows::arms_table(c), width));
    for p in &c.pairs {
        out.push_str(&format!(
            "\n{b} - {a} (paired over the {n} tasks both scored)\n",
            b = p.b,
            a = p.a,
            n = p.paired_tasks
        ));
        out.push_str(&label_lines(&compare_rows::pair_lines(c, p)));
    }
    out.push_str("\nTASKS (mean score per arm; differences to A)\n");
    out.push_str(&table::fit(&compare_rows::task_table(c), width));
    out.push_str(&format!(
        "\nintervals: {}\n",
        compare_rows::interval_note(c)
    ));
    if !banners.is_empty() {
        out.push('\n');
        out.push_str(&banners);
    }
    out
}

/// Infrastructure errors, cached turns and task errors, one line each (the last two only when
/// there are some).
fn status_lines(s: &Summary) -> String {
    let mut out = format!(
        "infrastructure errors: {} (excluded from all scores)\n",
        s.overall.infra_errors
    );
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
    out
}

/// `  label   value` lines, labels padded to the longest.
fn label_lines(lines: &[(String, String)]) -> String {
    let width = lines
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    lines
        .iter()
        .map(|(label, value)| format!("  {label:<width$}  {value}\n"))
        .collect()
}

/// The warnings as `note: ...` lines (empty when there are none).
fn banner_block(warnings: &[String]) -> String {
    warnings.iter().map(|w| format!("note: {w}\n")).collect()
}

/// The agents, comma-separated, or `-`.
pub(crate) fn agents(s: &Summary) -> String {
    if s.agents.is_empty() {
        "-".to_string()
    } else {
        s.agents.join(", ")
    }
}
