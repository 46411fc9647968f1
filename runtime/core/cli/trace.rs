//! `clawrun trace RUN[/TASK[/TRIAL]]`: prints recorded traces as JSONL, wherever the run keeps
//! them (a span of a worker's trace pack, or a trial's own file), in task and trial order.

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::UsageError;
use super::output::write_bytes;
use super::replay::split_target;
use super::report::latest_records;

/// `clawrun trace` arguments.
#[derive(Debug, clap::Args)]
pub struct TraceArgs {
    /// A run folder, `RUN/TASK` (that task's trials) or `RUN/TASK/TRIAL` (one trial).
    #[arg(value_name = "RUN[/TASK[/TRIAL]]")]
    target: PathBuf,
}

/// Runs `clawrun trace`.
pub fn trace_command(args: TraceArgs) -> Result<i32> {
    let (run, task, trial) = split_target(&args.target)?;
    let mut records = Vec::new();
    for sourced in latest_records(std::slice::from_ref(&run))? {
        let (_, sourced) = sourced?;
        let r = sourced.record;
        if task.as_deref().is_none_or(|t| r.task_id == t) && trial.is_none_or(|t| r.trial == t) {
            records.push(r);
        }
    }
    if records.is_empty() {
        return Err(UsageError(format!(
            "{}: the run recorded no such trial (`clawrun report {}` lists its trials)",
            args.target.display(),
            run.display()
        ))
        .into());
    }
    records.sort_by(|a, b| (&a.task_id, a.trial).cmp(&(&b.task_id, b.trial)));
    // A damaged trace (a crash, a folder copied in part) is named; the intact ones are shown.
    let mut damaged = 0;
    for record in &records {
        let read = record.trace_bytes(&run).with_context(|| {
            format!(
                "reading the trace of {} ({})",
                record.key(),
                run.join(record.trace_location()).display()
            )
        });
        match read {
            Ok(bytes) => write_bytes(&bytes)?,
            Err(e) if records.len() == 1 => return Err(e),
            Err(e) => {
                eprintln!("clawrun: warning: {e:#}; skipped");
                damaged += 1;
            }
        }
    }
    if damaged > 0 {
        eprintln!(
            "clawrun: {damaged} of {} traces could not be read (`clawrun run --resume` with the \
             run's options runs those trials again)",
            records.len()
        );
        return Ok(1);
    }
    Ok(0)
}
