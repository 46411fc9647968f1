//! `clawrun list`: the tasks of a suite.

use std::path::PathBuf;

use anyhow::{Result, anyhow};

use super::output::{self, outln};

/// Arguments of `clawrun list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// The suite root: the folder holding `tasks/`.
    #[arg(long, value_name = "DIR", default_value = ".")]
    suite: PathBuf,
}

/// Prints one line per task: id, group, category, services, tools, whether it has an oracle.
/// Tasks that fail to load, and tasks sharing an id, are reported on stderr (status 1).
pub fn list_command(args: ListArgs) -> Result<i32> {
    let suite = clawrun_task::Suite::open(&args.suite).map_err(|e| anyhow!("{e}"))?;
    let dirs = crate::run::runner::suite_tasks(&suite)?;
    let selection = suite.load_selection(&dirs);
    outln!(
        "{:<44} {:<11} {:<16} {:>3} {:>5} {:<6} services",
        "task",
        "group",
        "category",
        "svc",
        "tools",
        "oracle"
    )?;
    for t in selection.tasks.iter().map(|l| &l.task) {
        outln!(
            "{:<44} {:<11} {:<16} {:>3} {:>5} {:<6} {}",
            t.task_id,
            t.group.as_str(),
            t.category.as_deref().unwrap_or("-"),
            t.services.len(),
            t.tools.len() + t.system_tools.len(),
            if t.oracle.is_some() { "yes" } else { "no" },
            t.services
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(",")
        )?;
    }
    for e in &selection.errors {
        output::error_line(format_args!("{e}"));
    }
    let failed = dirs.len() - selection.tasks.len();
    outln!("{} tasks, {failed} failed to load", dirs.len())?;
    Ok(i32::from(failed > 0))
}
