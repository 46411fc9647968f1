//! `clawrun list`: the tasks of a suite (a table, or `--json`), with the selection filters of
//! `clawrun run`.

use std::path::PathBuf;

use anyhow::Result;
use serde_json::json;

use super::output::{self, outln};
use super::{EXIT_USAGE, UsageError};
use crate::web::WebMode;
use clawrun_run::selection::TaskFilter;
use clawrun_run::status::{StatusCounts, TaskStatus};
use clawrun_trial::grading::{GraderChoice, Grading};

/// Arguments of `clawrun list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Task folders or task ids, as for `run` (default: every task of the suite).
    #[arg(value_name = "TASKS")]
    tasks: Vec<String>,
    /// The suite root: the folder holding `tasks/`.
    #[arg(long, value_name = "DIR", default_value = ".", help_heading = super::help::SELECTION)]
    suite: PathBuf,
    /// Print one JSON array of {id, folder, category, group, tags, status, reason} instead of
    /// the table.
    #[arg(long, help_heading = super::help::OUTPUT)]
    json: bool,
    #[command(flatten, next_help_heading = super::help::SELECTION)]
    filter: TaskFilter,
    /// The web the statuses assume: `off` (the default without a cassette) marks tasks with
    /// `web_real` services `needs-web`.
    #[arg(long = "web", value_name = "MODE", value_parser = |s: &str| s.parse::<WebMode>(), help_heading = super::help::WEB)]
    web: Option<WebMode>,
}

/// Prints one line per selected task: id, group, category, services, tools, whether it has an
/// oracle, its status (and why unsupported tasks cannot run), then the status counts. Tasks that fail to load, and tasks sharing an id, are reported on stderr (status 2,
/// like every bad task file).
pub fn list_command(args: ListArgs) -> Result<i32> {
    let suite = clawrun_task::Suite::open(&args.suite).map_err(|e| {
        UsageError(format!(
            "opening the task suite {}: {e}",
            args.suite.display()
        ))
    })?;
    let all = clawrun_run::runner::suite_tasks(&suite, &args.suite)?;
    let dirs = clawrun_run::runner::pick_tasks(&all, &args.tasks, &args.suite)?;
    let selection = suite.load_selection(&dirs);
    let loaded = selection.tasks.len();
    let tasks = if args.filter.is_empty() {
        selection.tasks
    } else {
        args.filter.apply(selection.tasks)
    };
    if tasks.is_empty() && loaded > 0 && !args.filter.is_empty() {
        return Err(UsageError(format!(
            "no task of {} is selected by {}",
            args.suite.display(),
            args.filter.describe()
        ))
        .into());
    }
    for e in &selection.errors {
        output::error_line(format_args!("{e}"));
    }
    let failed = dirs.len() - loaded;
    // A checkout's tasks are graded by their grader.py: its judge calls decide `needs-judge`.
    let grading = Grading::resolve(GraderChoice::Auto, None, &args.suite)?;
    let web_mode = args.web.unwrap_or(WebMode::Off);
    let statuses: Vec<TaskStatus> = tasks
        .iter()
        .map(|t| TaskStatus::of(t, web_mode).for_grading(t, &grading))
        .collect();
    if args.json {
        let rows: Vec<_> = tasks
            .iter()
            .zip(&statuses)
            .map(|(l, status)| {
                json!({
                    "id": l.task.task_id,
                    "folder": l.dir,
                    "category": l.task.category,
                    "group": l.task.group.as_str(),
                    "tags": l.task.tags,
                    "status": status.label(),
                    "reason": status.reason(),
                })
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&rows)?)?;
        return Ok(load_status(failed));
    }
    outln!(
        "{:<44} {:<11} {:<16} {:>3} {:>5} {:<6} {:<16} services",
        "task",
        "group",
        "category",
        "svc",
        "tools",
        "oracle",
        "status"
    )?;
    for (t, status) in tasks.iter().map(|l| &l.task).zip(&statuses) {
        outln!(
            "{:<44} {:<11} {:<16} {:>3} {:>5} {:<6} {:<16} {}",
            t.task_id,
            t.group.as_str(),
            t.category.as_deref().unwrap_or("-"),
            t.services.len(),
            // A sandbox tool the task defines itself is offered once.
            t.tools.len()
                + t.system_tools
                    .iter()
                    .filter(|s| !t.tools.iter().any(|x| x.name == s.name()))
                    .count(),
            if t.oracle.is_some() { "yes" } else { "no" },
            status.label(),
            t.services
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(",")
        )?;
    }
    // Why each unsupported task cannot run (`run` skips them).
    for (t, status) in tasks.iter().zip(&statuses) {
        if status.is_unsupported() {
            outln!("{}: {status}", t.task.task_id)?;
        }
    }
    if args.filter.is_empty() && args.tasks.is_empty() {
        outln!("{} tasks, {failed} failed to load", dirs.len())?;
    } else {
        outln!(
            "{} of {} tasks selected, {failed} failed to load",
            tasks.len(),
            all.len()
        )?;
    }
    outln!("{}", StatusCounts::of(&statuses))?;
    Ok(load_status(failed))
}

/// The exit status after listing: [`EXIT_USAGE`] when task files failed to load.
fn load_status(failed: usize) -> i32 {
    if failed > 0 { EXIT_USAGE } else { 0 }
}
