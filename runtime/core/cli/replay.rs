//! `clawrun replay RUN[/TASK[/TRIAL]]`: re-runs recorded trials from their traces with the
//! run's seed and fault plan, and demands byte-identical traces (so identical per-step hashes,
//! tool results and faults) and identical scores.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use clawrun_report::Status;

use super::UsageError;
use super::output::outln;
use super::report::load_runs;
use crate::web::{Web, WebMode, WebOptions};
use clawrun_external::command::ProxyModel;
use clawrun_run::agent_spec::RecordedRun;
use clawrun_run::manifest::{RunMeta, sibling_manifests};
use clawrun_run::trace_pack::{PackWriter, TracePack};
use clawrun_run::trial_record::{TrialContext, Worker, run_and_record};
use clawrun_run::{AgentSpec, RunOptions};
use clawrun_trial::Harness;
use clawrun_trial::grading::{GraderChoice, Grading};

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
pub(super) fn split_target(target: &Path) -> Result<(PathBuf, Option<String>, Option<u32>)> {
    let mut run = target.to_path_buf();
    let mut rest: Vec<String> = Vec::new();
    while !is_run_folder(&run) {
        let Some(name) = run.file_name().map(|n| n.to_string_lossy().into_owned()) else {
            return Err(UsageError(format!(
                "{}: no run.json (or run.shard-I-of-N.json) here or above (not a run folder)",
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

/// Whether `dir` holds a run's manifest: `run.json`, or a shard's `run.shard-I-of-N.json`.
fn is_run_folder(dir: &Path) -> bool {
    dir.join("run.json").is_file()
        || sibling_manifests(dir, "").is_ok_and(|found| !found.is_empty())
}

/// The run's manifest: `run.json`, or else the first shard manifest by name (the shards of a
/// run share the agent, seed, fault plan, suite and score settings).
fn run_manifest(run: &Path) -> Result<serde_json::Value> {
    let found = sibling_manifests(run, "")?;
    match found.into_iter().next() {
        Some((_, value)) => Ok(value),
        None => Err(UsageError(format!(
            "{}: no run.json or run.shard-I-of-N.json (not a run folder)",
            run.display()
        ))
        .into()),
    }
}

/// The web a replay uses: the run's cassette (as run.json names it, else the run folder's
/// `web/`), replayed; off when the run had none (its web tasks ran live and cannot replay).
fn recorded_web(meta: &RunMeta, run: &Path) -> WebOptions {
    let named = meta.web.cassette.clone();
    let cassette = named
        .filter(|p| p.join(crate::web::cassette::INDEX).is_file())
        .or_else(|| {
            let own = run.join("web");
            own.join(crate::web::cassette::INDEX)
                .is_file()
                .then_some(own)
        });
    WebOptions {
        mode: Some(if cassette.is_some() {
            WebMode::Replay
        } else {
            WebMode::Off
        }),
        cassette,
        ..WebOptions::default()
    }
}

/// Runs `clawrun replay`.
pub fn replay_command(args: ReplayArgs) -> Result<i32> {
    let (run, task_filter, trial_filter) = split_target(&args.target)?;
    let meta = RunMeta::of(&run_manifest(&run)?, &run.display().to_string())?;
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
    let suite = clawrun_run::manifest::resolve_suite(
        args.suite,
        meta.suite.as_deref(),
        &run,
        &records[0].task_id,
    )?;
    let mut task_ids: Vec<String> = records.iter().map(|r| r.task_id.clone()).collect();
    task_ids.dedup();
    // Re-run trials go to a scratch folder, never into the recorded run.
    let scratch = std::env::temp_dir().join(format!("clawrun-replay-{}", std::process::id()));
    let recorded = RecordedRun::new(&run);
    // An agent program runs again, its model's answers served from the recording; any other
    // agent is replayed from its recorded turns.
    let agent = match AgentSpec::parse(&meta.agent) {
        Ok(AgentSpec::Command(mut command)) => {
            command.model = ProxyModel::Recorded;
            AgentSpec::Command(command)
        }
        _ => AgentSpec::Replay(recorded.clone()),
    };
    let mut options = RunOptions::new(suite, agent, scratch);
    options.tasks = task_ids;
    options.faults = meta.faults.clone();
    options.seed = meta.seed;
    options.score = meta.score;
    options.web = recorded_web(&meta, &run);
    let plan = options.fault_plan()?;
    let web = Arc::new(Web::open(&options.web, None).map_err(|e| UsageError(e.to_string()))?);
    let tasks: Vec<_> = clawrun_run::runner::prepare_tasks(&options, plan.as_ref())?
        .into_iter()
        .map(|t| t.with_web(Arc::clone(&web)))
        .collect();
    let harness = Harness::new(clawrun_sandbox::SandboxConfig::from_env());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // Graded as the run was: the recorded --grader and --claw-eval.
    let grader = meta.grader.clone().unwrap_or_default();
    let choice = match grader.choice.as_deref() {
        Some(c) => <GraderChoice as clap::ValueEnum>::from_str(c, false)
            .map_err(|e| UsageError(format!("run.json: grader.choice: {e}")))?,
        None => GraderChoice::Auto,
    };
    let checkout = grader.checkout;
    let grading = Grading::resolve(choice, checkout.as_deref(), &options.suite)?;
    let cx = TrialContext {
        harness: &harness,
        agent: &options.agent,
        seed: options.seed,
        out: &options.out,
        judge: None,
        user_model: None,
        max_tokens: None,
        score: &options.score,
        grading: &grading,
        recorded: Some(&recorded),
    };
    // A replay calls no model: the recording answers.
    let mut worker = Worker::new(
        &cx,
        PackWriter::Pack(TracePack::open(&options.out, "0", 0)?),
    )?;
    let mut diverged = 0;
    for record in &records {
        let name = format!("{}/{}", record.task_id, record.trial);
        let Some(task) = tasks.iter().find(|t| t.id() == record.task_id) else {
            if options.web.mode() == WebMode::Off {
                outln!(
                    "SKIP {name}: the task needs the web and the run kept no cassette (it ran \
                     with --web live)"
                )?;
            }
            continue;
        };
        if task.loaded.hash_hex() != record.task_hash {
            outln!("DIFF {name}: the task changed since it was recorded (task hash differs)")?;
            diverged += 1;
            continue;
        }
        // A damaged recording cannot be replayed: named, counted as a difference, and the
        // intact trials are replayed.
        let old = match record.trace_bytes(&run) {
            Ok(old) => old,
            Err(e) => {
                outln!(
                    "DAMAGED {name}: {}: {e}",
                    run.join(record.trace_location()).display()
                )?;
                diverged += 1;
                continue;
            }
        };
        let again = run_and_record(&rt, &cx, &mut worker, task, record.trial)?;
        let new = again.trace_bytes(&options.out).with_context(|| {
            format!(
                "reading {}",
                options.out.join(again.trace_location()).display()
            )
        })?;
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

/// How many characters before the first difference the divergence message shows.
const CONTEXT_BEFORE: usize = 20;

/// How many characters of each line the divergence message shows.
const CONTEXT_WIDTH: usize = 60;

/// The first differing line of two traces, described with the text of each line around the
/// first differing character.
fn first_difference(old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let mut o = old.lines();
    let mut n = new.lines();
    let mut line = 1;
    loop {
        match (o.next(), n.next()) {
            (Some(a), Some(b)) if a == b => line += 1,
            (Some(a), Some(b)) => {
                let at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
                let from = at.saturating_sub(CONTEXT_BEFORE);
                return format!(
                    "trace line {line} differs at character {}:\n  recorded: {}\n  replayed: {}",
                    at + 1,
                    around(a, from),
                    around(b, from)
                );
            }
            (a, b) => {
                let show =
                    |s: Option<&str>| s.map_or("<end of trace>".to_string(), |s| around(s, 0));
                return format!(
                    "trace line {line} differs:\n  recorded: {}\n  replayed: {}",
                    show(a),
                    show(b)
                );
            }
        }
    }
}

/// [`CONTEXT_WIDTH`] characters of `line` from character `from`, with `...` where cut.
fn around(line: &str, from: usize) -> String {
    let total = line.chars().count();
    let shown: String = line.chars().skip(from).take(CONTEXT_WIDTH).collect();
    let before = if from > 0 { "..." } else { "" };
    let after = if from + CONTEXT_WIDTH < total {
        "..."
    } else {
        ""
    };
    format!("{before}{shown}{after}")
}

#[cfg(test)]
mod tests {
    use super::first_difference;

    #[test]
    fn the_divergence_shows_the_text_around_the_first_difference() {
        let prefix = "x".repeat(400);
        let old = format!("same\n{{\"a\":\"{prefix}OLD-TAIL\"}}\n");
        let new = format!("same\n{{\"a\":\"{prefix}NEW-TAIL\"}}\n");
        let msg = first_difference(old.as_bytes(), new.as_bytes());
        assert!(
            msg.starts_with("trace line 2 differs at character 407:"),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("recorded: ...{}OLD-TAIL\"}}", "x".repeat(20))),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("replayed: ...{}NEW-TAIL\"}}", "x".repeat(20))),
            "{msg}"
        );
    }

    #[test]
    fn a_missing_line_is_named() {
        let msg = first_difference(b"a\nb\n", b"a\n");
        assert!(msg.contains("trace line 2 differs"), "{msg}");
        assert!(msg.contains("replayed: <end of trace>"), "{msg}");
    }
}
