//! The Markdown report (GitHub-flavoured tables).

use crate::render::{rows, text};
use crate::summary::Summary;

/// The report as Markdown: warnings as bold block quotes, then the task table, the
/// category / group / overall table and the overall figures.
pub fn render_markdown(s: &Summary) -> String {
    let mut out = String::from("# clawrun report\n\n");
    out.push_str(&format!(
        "{} tasks, {} scored trials, k = {}, agents: {}. Infrastructure errors: {} (excluded from all scores).\n\n",
        s.overall.tasks,
        s.overall.trials,
        s.k,
        text::agents(s),
        s.overall.infra_errors
    ));
    for run in &s.runs {
        out.push_str(&format!(
            "- run `{}`: {}\n",
            run.folder.replace('`', "'"),
            cell(&run.text)
        ));
    }
    if !s.runs.is_empty() {
        out.push('\n');
    }
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
    let task_rows: Vec<Vec<String>> = s.tasks.iter().map(rows::task_row).collect();
    out.push_str(&table(&rows::task_header(s.k), &task_rows));
    out.push_str("\n## Categories, groups, overall\n\n");
    out.push_str(&table(
        &rows::aggregate_header(s.k),
        &rows::aggregate_rows(s),
    ));
    out.push_str("\n## Overall\n\n");
    for (label, value) in rows::overall_lines(s) {
        out.push_str(&format!("- **{}**: {}\n", cell(&label), cell(&value)));
    }
    out
}

/// A Markdown table.
fn table(header: &[String], rows: &[Vec<String>]) -> String {
    let line = |cells: &[String]| -> String {
        let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = line(header);
    let rule: Vec<&str> = header
        .iter()
        .enumerate()
        .map(|(i, _)| if i == 0 { ":---" } else { "---:" })
        .collect();
    out.push_str(&format!("| {} |\n", rule.join(" | ")));
    for row in rows {
        out.push_str(&line(row));
    }
    out
}

/// Escapes what Markdown would read as markup: `|`, `*`, `_`, backticks, `<`, `^`, `\`.
fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if matches!(ch, '|' | '*' | '_' | '`' | '<' | '^' | '\\' | '[' | ']') {
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
