//! The Markdown report (GitHub-flavoured tables).

use crate::compare::Comparison;
use crate::render::table::Table;
use crate::render::{compare_rows, grader_rows, rows, text};
use crate::summary::Summary;

/// The report as Markdown: warnings as bold block quotes, then the task table, the
/// category / group / overall table and the overall figures.
pub fn render_markdown(s: &Summary) -> String {
    let mut out = String::from("# clawrun report\n\n");
    out.push_str(&format!(
        "{} tasks, {} counted trials, k = {}, agents: {}. Infrastructure errors: {} (excluded from all scores).\n\n",
        s.overall.tasks,
        s.overall.trials,
        s.k,
        text::agents(s),
        s.overall.infra_errors
    ));
    out.push_str(&runs_list(s, ""));
    if s.overall.task_errors > 0 {
        out.push_str(&format!(
            "Task errors: {} (the task could not be run or judged; excluded from all scores).\n\n",
            s.overall.task_errors
        ));
    }
    for w in s.warnings() {
        out.push_str(&format!("> **{}**\n\n", cell(&w)));
    }
    out.push_str("## Tasks\n\n");
    out.push_str(&table(&rows::task_table(s)));
    out.push_str("\n## Categories, groups, overall\n\n");
    out.push_str(&table(&rows::aggregate_table(s)));
    out.push_str("\n## Overall\n\n");
    for (label, value) in rows::overall_lines(s) {
        out.push_str(&format!("- **{}**: {}\n", cell(&label), cell(&value)));
    }
    if let Some(g) = &s.graders {
        out.push_str(&format!("\n## {}\n\n", grader_rows::TITLE));
        for (label, value) in grader_rows::agreement_lines(g) {
            out.push_str(&format!("- **{}**: {}\n", cell(&label), cell(&value)));
        }
        if !g.disagreements.is_empty() {
            out.push('\n');
            out.push_str(&table(&grader_rows::disagreement_table(g)));
        }
    }
    out
}

/// A comparison as Markdown.
pub fn render_comparison_markdown(c: &Comparison) -> String {
    let mut out = format!(
        "# clawrun comparison\n\n{} arms, k = {}.\n\n",
        c.arms.len(),
        c.k
    );
    for arm in &c.arms {
        out.push_str(&format!("- arm **{}** = {}\n", arm.name, cell(&arm.label)));
        out.push_str(&runs_list(&arm.summary, "  "));
    }
    out.push('\n');
    for w in c.warnings() {
        out.push_str(&format!("> **{}**\n\n", cell(&w)));
    }
    out.push_str("## Arms\n\n");
    out.push_str(&table(&compare_rows::arms_table(c)));
    for p in &c.pairs {
        out.push_str(&format!(
            "\n## {} - {} (paired over the {} tasks both scored)\n\n",
            p.b, p.a, p.paired_tasks
        ));
        for (label, value) in compare_rows::pair_lines(c, p) {
            out.push_str(&format!("- **{}**: {}\n", cell(&label), cell(&value)));
        }
    }
    out.push_str("\n## Tasks\n\n");
    out.push_str(&table(&compare_rows::task_table(c)));
    out.push_str(&format!(
        "\nIntervals: {}\n",
        cell(&compare_rows::interval_note(c))
    ));
    out
}

/// One `- run ...` line per run folder, then a blank line (nothing without runs).
fn runs_list(s: &Summary, indent: &str) -> String {
    let mut out = String::new();
    for run in &s.runs {
        out.push_str(&format!(
            "{indent}- run `{}`: {}\n",
            run.folder.replace('`', "'"),
            cell(&run.text)
        ));
    }
    if !s.runs.is_empty() && indent.is_empty() {
        out.push('\n');
    }
    out
}

/// A Markdown table (every column).
fn table(t: &Table) -> String {
    let line = |cells: &[String]| -> String {
        let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = line(&t.header);
    let rule: Vec<&str> = t
        .header
        .iter()
        .enumerate()
        .map(|(i, _)| if i < t.left { ":---" } else { "---:" })
        .collect();
    out.push_str(&format!("| {} |\n", rule.join(" | ")));
    for row in &t.rows {
        out.push_str(&line(row));
    }
    out
}

/// Escapes what Markdown would read as markup: `|`, `*`, `_`, backticks, `<`, `^`, `\`.
fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if matches!(
            ch,
            '|' | '*' | '_' | '`' | '<' | '^' | '\\' | '[' | ']' | '~'
        ) {
            out.push('\\');
        }
        if ch == '\n' {
            out.push(' ');
        } else {
            out.push(ch);
        }
    }
    out
}
