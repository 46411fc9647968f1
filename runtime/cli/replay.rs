//! `clawrun replay RUN[/TASK[/TRIAL]]`: re-runs recorded trials from their traces with the
//! run's seed and fault plan, and demands byte-identical traces (so identical per-step hashes,
//! tool results and faults) and identical scores.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clawrun_judge::ScoreConfig;
use clawrun_report::Status;

use super::UsageError;
use super::output::outln;
use super::report::load_runs;
use crate::run::trial_record::{TrialContext, run_and_record};
use crate::run::{AgentSpec, RunOptions};
use crate::trial::Harness;

/// Arguments of `clawrun replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// A run folder, optionally narrowed to `RUN/TASK` or `RUN/TASK/TRIAL`.
    #[arg(value_name = "RUN[/TASK[/TRIAL]]")]
    target: PathBuf,
    /// The suite root the run used (default: the one recorded in run.json).
    #[arg(long, value_name = "DIR")]
    suite: Option<PathBuf>,
}

/// Splits `target` into the run folder and the optional task and trial.
fn split_target(target: &Path) -> Result<(PathBuf, Option<String>, Option<u32>)> {
    let mut run = target.to_path_buf();
    let mut rest: Vec<String> = Vec::new();
    while !run.join("run.json").is_file() {
        let Some(name) = run.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            return Err(UsageError(format!(
                "{}: no run.json here or above (not a run folder)",
                target.display()
            ))
            .into());
        };
        rest.insert(0, name);
        run.pop();
        if rest.len() > 2 {
            return Err(UsageError(format!(
                "{}: expected RUN, RUN/TASK or RUN/TASK/TRIAL",
                target.display()
            ))
            .into());
        }
    }
    let trial = match rest.get(1) {
        Some(t) => Some(t.parse().map_err(|_| {
            UsageError(format!("{}: {t:?} is not a trial number", target.display()))
        })?),
        None => None,
    };
    Ok((run, rest.first().cloned(), trial))
}

/// Runs `clawrun replay`.
pub fn replay_command(args: ReplayArgs) -> Result<i32> {
    let (run, task_filter, trial_filter) = split_target(&args.target)?;
    let meta: serde_json::Value = serde_json::from_slice(
        &std::fs::read(run.join("run.json"))
            .with_context(|| format!("reading {}/run.json", run.display()))?,
    )
    .with_context(|| format!("{}/run.json is not JSON", run.display()))?;
    let suite = match args
        .suite
        .or_else(|| meta["suite"].as_str().map(PathBuf::from))
    {
        Some(s) => s,
        None => {
            return Err(
                UsageError("pass --suite DIR (run.json does not name the suite)".into()).into(),
            );
        }
    };
    let records: Vec<_> = load_runs(std::slice::from_ref(&run))?
        .into_iter()
        .filter(|r| r.status == Status::Scored)
        .filter(|r| task_filter.as_deref().is_none_or(|t| r.task_id == t))
        .filter(|r| trial_filter.is_none_or(|t| r.trial == t))
        .collect();
    if records.is_empty() {
        return Err(UsageError(format!(
            "{}: no recorded trial matches",
            args.target.display()
        ))
        .into());
    }
    let score = ScoreConfig {
        pass_threshold: meta["score"]["pass_threshold"].as_f64().unwrap_or(0.75),
        completion_weight: meta["score"]["completion_weight"].as_f64().unwrap_or(0.8),
        robustness_weight: meta["score"]["robustness_weight"].as_f64().unwrap_or(0.2),
    };
    let mut task_ids: Vec<String> = records.iter().map(|r| r.task_id.clone()).collect();
    task_ids.dedup();
    // Re-run trials go to a scratch folder, never into the recorded run.
    let scratch = std::env::temp_dir().join(format!("clawrun-replay-{}", std::process::id()));
    let mut options = RunOptions::new(suite, AgentSpec::Replay(run.clone()), scratch);
    options.tasks = task_ids;
    options.faults = meta["faults"].as_str().map(str::to_string);
    options.seed = meta["seed"].as_u64().unwrap_or(0);
    options.score = score;
    let plan = options.fault_plan()?;
    let tasks = crate::run::runner::prepare_tasks(&options, plan.as_ref())?;
    let harness = Harness::new()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let cx = TrialContext {
        harness: &harness,
        agent: &options.agent,
        seed: options.seed,
        out: &options.out,
        judge: None,
        user_model: None,
        max_tokens: None,
        score: &options.score,
    };
    let mut diverged = 0;
    for record in &records {
        let Some(task) = tasks.iter().find(|t| t.id() == record.task_id) else {
            continue;
        };
        let name = format!("{}/{}", record.task_id, record.trial);
        if task.loaded.hash_hex() != record.task_hash {
            outln!("DIFF {name}: the task changed since it was recorded (task hash differs)")?;
            diverged += 1;
            continue;
        }
        let again = run_and_record(&rt, &cx, task, record.trial)?;
        let old = std::fs::read(run.join(&record.trace))?;
        let new = std::fs::read(options.out.join(&again.trace))?;
        let problem = if let Some(err) = again.error.as_ref().filter(|_| record.error.is_none()) {
            Some(err.clone())
        } else if old != new {
            Some(first_difference(&old, &new))
        } else if again.verdict.as_ref().map(|v| v.scores)
            != record.verdict.as_ref().map(|v| v.scores)
        {
            Some("same trace, different scores (the judge changed?)".into())
        } else {
            None
        };
        match problem {
            Some(p) => {
                diverged += 1;
                outln!("DIFF {name}: {p}")?;
            }
            None => outln!(
                "same {name} (root {}, score {:.4})",
                &again.root_hash[..16],
                again.verdict.as_ref().map_or(0.0, |v| v.scores.score)
            )?,
        }
    }
    let _ = std::fs::remove_dir_all(&options.out);
    outln!(
        "{} trials replayed, {} identical, {} diverged",
        records.len(),
        records.len() - diverged,
        diverged
    )?;
    Ok(i32::from(diverged > 0))
}

/// The first differing line of two traces, described.
fn first_difference(old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let mut o = old.lines();
    let mut n = new.lines();
    let mut line = 1;
    loop {
        match (o.next(), n.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (a, b) => {
                let cut = |s: Option<&str>| {
                    s.map_or("<end of trace>".to_string(), |s| {
                        s.chars().take(300).collect()
                    })
                };
                return format!(
                    "trace line {line} differs:\n  recorded: {}\n  replayed: {}",
                    cut(a),
                    cut(b)
                );
            }
        }
    }
}
