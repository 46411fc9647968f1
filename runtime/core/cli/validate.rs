//! `clawrun validate`: for each task — the schema (errors and warnings), the judge firewall,
//! the oracle passes, a do-nothing agent fails; unsupported tasks are reported as skipped with
//! their reason, and the status counts end the output.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use clawrun_agents::trace::{Event, EventKind, read_trace};
use clawrun_judge::{ScoreConfig, Verdict};
use clawrun_report::Status;

use super::UsageError;
use super::output::outln;
use super::web_args::WebArgs;
use crate::web::Web;
use clawrun_run::runner::{Prepared, Skipped, prepare_selection};
use clawrun_run::selection::TaskFilter;
use clawrun_run::status::{StatusCounts, TaskStatus, has_rubric};
use clawrun_run::trace_pack::{PackWriter, TracePack};
use clawrun_run::trial_record::{TrialContext, Worker, run_and_record};
use clawrun_run::{AgentSpec, RunOptions};
use clawrun_trial::grading::{GraderChoice, Grading, TaskGrading};
use clawrun_trial::{Harness, TaskEnv, firewall};

/// Arguments of `clawrun validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Task folders or task ids (default: every task of the suite).
    #[arg(value_name = "TASKS")]
    tasks: Vec<String>,
    /// The suite root: the folder holding `tasks/`.
    #[arg(long, value_name = "DIR", default_value = ".", help_heading = super::help::SELECTION)]
    suite: PathBuf,
    /// Treat warnings as errors.
    #[arg(long, help_heading = super::help::OUTPUT)]
    strict: bool,
    #[command(flatten, next_help_heading = super::help::SELECTION)]
    filter: TaskFilter,
    #[command(flatten, next_help_heading = super::help::WEB)]
    web: WebArgs,
}

/// One task's validation.
struct TaskValidation {
    /// Problems that fail validation.
    errors: Vec<String>,
    /// Notes.
    notes: Vec<String>,
    /// Why the task could not be validated (its oracle's calls fail on files the suite
    /// lacks): reported as skipped, neither passed nor failed.
    unverifiable: Option<String>,
}

/// Runs `clawrun validate`.
pub fn validate_command(args: ValidateArgs) -> Result<i32> {
    let mut options = RunOptions::new(&args.suite, AgentSpec::Oracle, PathBuf::new());
    options.tasks = args.tasks.clone();
    options.filter = args.filter.clone();
    options.web = args.web.options();
    let web_mode = options.web.mode();
    let web = Arc::new(Web::open(&options.web, None).map_err(|e| UsageError(e.to_string()))?);
    let Prepared { tasks, skipped } = prepare_selection(&options, None)?;
    let tasks: Vec<TaskEnv> = tasks
        .into_iter()
        .map(|t| t.with_web(Arc::clone(&web)))
        .collect();
    // A checkout's tasks are graded by their grader.py: its judge calls decide `needs-judge`.
    let grading = Grading::resolve(GraderChoice::Auto, None, &args.suite)?;
    let harness = Harness::new(clawrun_sandbox::SandboxConfig::from_env());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let scratch =
        Scratch(std::env::temp_dir().join(format!("clawrun-validate-{}", std::process::id())));
    let checks = Checks {
        rt: &rt,
        harness: &harness,
        score: &options.score,
        grading: &grading,
        scratch: &scratch.0,
    };
    // Prepared and skipped tasks, in id order.
    let mut entries: Vec<(&str, Result<&TaskEnv, &Skipped>)> = tasks
        .iter()
        .map(|t| (t.id(), Ok(t)))
        .chain(skipped.iter().map(|s| (s.id.as_str(), Err(s))))
        .collect();
    entries.sort_by_key(|(id, _)| *id);
    let mut failed = 0;
    let mut unverified = 0;
    let mut statuses = Vec::new();
    for (id, entry) in entries {
        let task = match entry {
            Ok(task) => task,
            Err(skip) => {
                // Not validated: it cannot run. Not a failure either.
                outln!("skip {id}")?;
                outln!("     {}", skip.status)?;
                statuses.push(skip.status.clone());
                continue;
            }
        };
        statuses.push(
            TaskStatus::before_setup(&task.loaded.task, web_mode)
                .for_grading(&task.loaded, &grading),
        );
        let by_grader_py = grading.for_task(&task.loaded) != TaskGrading::Native;
        let mut out = validate_task(&checks, task)?;
        let mut warnings: Vec<String> =
            task.loaded.warnings.iter().map(|w| w.to_string()).collect();
        if !has_rubric(&task.loaded.task) && !by_grader_py {
            warnings.push(format!(
                "{id}: no rubric clawrun can apply (no weighted scoring_components or rubric item, \
                 no judge_rubric): only the robustness part ({:.1}) can ever be scored (hint: grade \
                 it with `--grader claw-eval` and the checkout's grader.py, or add a native \
                 `rubric` in a clawrun.yaml beside its task.yaml)",
                options.score.robustness_weight
            ));
        }
        for w in warnings {
            if args.strict {
                out.errors.push(w);
            } else {
                out.notes.push(format!("warning: {w}"));
            }
        }
        let status = match (&out.unverifiable, out.errors.is_empty()) {
            (_, false) => "FAIL",
            (Some(_), true) => "skip",
            (None, true) => "ok  ",
        };
        failed += usize::from(!out.errors.is_empty());
        unverified += usize::from(out.errors.is_empty() && out.unverifiable.is_some());
        outln!("{status} {id}")?;
        if let Some(why) = &out.unverifiable {
            outln!("     not validated: {why}")?;
        }
        for e in &out.errors {
            outln!("     error: {e}")?;
        }
        for n in &out.notes {
            outln!("     {n}")?;
        }
    }
    outln!(
        "{} tasks, {} failed, {} skipped",
        tasks.len() + skipped.len(),
        failed,
        skipped.len() + unverified
    )?;
    outln!("{}", StatusCounts::of(&statuses))?;
    Ok(i32::from(failed > 0))
}

/// What every trial `clawrun validate` plays shares: a run's trial context but for the agent,
/// which differs per check.
///
/// A validation trial is played and judged as a run's ([`run_and_record`]: the same Judge
/// phase, integrity gate and grading choice — `--grader auto` over the suite). What remains
/// different is deliberate: trial 0 at run seed 0, no judge model (LLM-judged items are left
/// unjudged), no user model (multi-turn tasks play their `user_agent.script`), no token limit,
/// and the trial's files go to a scratch folder removed when validation ends.
struct Checks<'a> {
    rt: &'a tokio::runtime::Runtime,
    harness: &'a Harness,
    score: &'a ScoreConfig,
    grading: &'a Grading,
    scratch: &'a Path,
}

impl Checks<'_> {
    /// The verdict of one trial of `task` played by `agent`; `Err` when it could not be run or
    /// judged.
    fn verdict(&self, task: &TaskEnv, agent: &AgentSpec) -> Result<Verdict> {
        Ok(self.trial(task, agent)?.0)
    }

    /// [`Checks::verdict`], and the tool calls that failed without a fault injected into them
    /// (see [`failed_calls`]).
    fn trial(&self, task: &TaskEnv, agent: &AgentSpec) -> Result<(Verdict, Vec<FailedCall>)> {
        let cx = TrialContext {
            harness: self.harness,
            agent,
            seed: 0,
            out: self.scratch,
            judge: None,
            user_model: None,
            max_tokens: None,
            score: self.score,
            grading: self.grading,
            recorded: None,
        };
        // One trial at a time: each starts the scratch folder's pack afresh.
        let mut worker = Worker::new(
            &cx,
            PackWriter::Pack(TracePack::open(self.scratch, "0", 0)?),
        )?;
        let record = run_and_record(self.rt, &cx, &mut worker, task, 0)?;
        drop(worker);
        let events = record
            .trace_bytes(self.scratch)
            .map_err(anyhow::Error::from)
            .and_then(|bytes| Ok(read_trace(bytes.as_slice())?))
            .map_err(|e| anyhow::anyhow!("{}: reading the trial's trace: {e}", task.id()))?;
        match record.verdict {
            Some(v) if record.status == Status::Scored => Ok((v, failed_calls(&events))),
            _ => anyhow::bail!(
                "{} could not be run or judged: {}",
                agent.describe(),
                record.error.unwrap_or_default()
            ),
        }
    }
}

/// A scratch folder, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Validates one prepared task.
fn validate_task(checks: &Checks<'_>, task: &TaskEnv) -> Result<TaskValidation> {
    let mut out = TaskValidation {
        errors: Vec::new(),
        notes: Vec::new(),
        unverifiable: None,
    };
    for leak in firewall::probe(checks.harness, task)? {
        out.errors.push(format!("judge firewall: {leak}"));
    }
    let multi_turn_without_script = task
        .loaded
        .task
        .user_agent
        .as_ref()
        .is_some_and(|u| u.enabled && u.script.is_none());
    if task.loaded.task.oracle.is_none() {
        out.notes
            .push("no oracle: cannot check that the task is solvable".into());
    } else if multi_turn_without_script {
        out.notes.push(
            "multi-turn without user_agent.script: the oracle needs an LLM user; not run".into(),
        );
    } else {
        let (v, failed) = checks.trial(task, &AgentSpec::Oracle)?;
        // A pass built on calls that failed shows the answer, not that the task's data
        // supports it. Calls on files the task references but the suite lacks (fixtures
        // Claw-Eval never committed) make the task unverifiable; any other is an error (a
        // path, an argument or an endpoint wrong).
        let missing = missing_files(task);
        let (on_missing, other): (Vec<FailedCall>, Vec<FailedCall>) = failed
            .into_iter()
            .partition(|c| missing.iter().any(|m| c.input.contains(m.as_str())));
        if !other.is_empty() {
            out.errors.push(format!(
                "the oracle's tool calls fail (no fault was injected into them): {}",
                other
                    .iter()
                    .map(|c| c.text.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
        if !on_missing.is_empty() {
            out.unverifiable = Some(format!(
                "the oracle's tool calls fail on files the task references but the suite lacks \
                 ({}), so its score ({:.4}) shows its answer, not that the task can be solved: {}",
                missing
                    .iter()
                    .filter(|m| on_missing.iter().any(|c| c.input.contains(m.as_str())))
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                v.scores.score,
                on_missing
                    .iter()
                    .map(|c| c.text.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
        if out.unverifiable.is_some() {
            // Its score says nothing either way.
        } else if !v.scores.passed && all_llm_judged(&v) {
            out.notes.push(format!(
                "every weighted rubric item is LLM-judged ({:.2} unjudged): the oracle cannot be checked offline",
                v.unjudged_weight
            ));
        } else if !v.scores.passed {
            let failing: Vec<String> = v
                .items
                .iter()
                .filter(|i| i.passed == Some(false))
                .map(|i| format!("{} ({})", i.name, i.evidence))
                .collect();
            out.errors.push(format!(
                "the oracle does not pass: score {:.4}; failing: {}",
                v.scores.score,
                failing.join("; ")
            ));
        } else {
            out.notes.push(format!(
                "oracle passes: score {:.4}{}",
                v.scores.score,
                if v.unjudged_weight > 0.0 {
                    format!(" (unjudged weight {:.2} left out)", v.unjudged_weight)
                } else {
                    String::new()
                }
            ));
        }
    }
    if !multi_turn_without_script && let Some(careless) = careless_script(task)? {
        let v = checks.verdict(task, &careless)?;
        if !v.scores.passed && all_llm_judged(&v) {
            out.notes.push(format!(
                "careless agent unjudged: every weighted rubric item is LLM-judged ({:.2} \
                 unjudged): not checked offline",
                v.unjudged_weight
            ));
        } else if v.scores.passed {
            out.errors.push(format!(
                "the careless agent (careless.yaml) passes (score {:.4}): the rubric does not catch the trap",
                v.scores.score
            ));
        } else {
            out.notes
                .push(format!("careless agent fails: score {:.4}", v.scores.score));
        }
    }
    if !multi_turn_without_script {
        let v = checks.verdict(task, &AgentSpec::Idle)?;
        if !v.scores.passed && all_llm_judged(&v) {
            // Its score measures nothing: it says neither that the rubric catches a do-nothing
            // agent nor that it does not.
            out.notes.push(format!(
                "do-nothing agent unjudged: every weighted rubric item is LLM-judged ({:.2} \
                 unjudged): not checked offline",
                v.unjudged_weight
            ));
        } else if v.scores.passed {
            out.errors.push(format!(
                "a do-nothing agent passes (score {:.4}): the rubric checks nothing the task asks for",
                v.scores.score
            ));
        } else {
            out.notes.push(format!(
                "do-nothing agent fails: score {:.4}",
                v.scores.score
            ));
        }
    }
    Ok(out)
}

/// A tool call that failed without a fault injected into it.
struct FailedCall {
    /// `TOOL: HTTP STATUS: first line of the result`.
    text: String,
    /// Its arguments, as JSON.
    input: String,
}

/// The files the task's `sandbox_files` and `prompt.attachments` name that its folder lacks.
fn missing_files(task: &TaskEnv) -> Vec<String> {
    let t = &task.loaded.task;
    t.sandbox_files
        .iter()
        .chain(&t.prompt.attachments)
        .filter(|p| task.loaded.read_task_file(p).is_err())
        .cloned()
        .collect()
}

/// The tool calls of a trace whose results are errors (an HTTP status of 400 or more from a
/// service tool, or an error from another tool but Bash, whose exit status is the command's)
/// while no fault was injected into them.
fn failed_calls(events: &[Event]) -> Vec<FailedCall> {
    let mut out = Vec::new();
    let mut faulted = false;
    let mut input = String::new();
    for e in events {
        match &e.kind {
            EventKind::ToolCall { input: args, .. } => {
                faulted = false;
                input = args.to_string();
            }
            EventKind::Fault { .. } => faulted = true,
            EventKind::ToolResult {
                name,
                output,
                is_error,
                status,
                ..
            } if !faulted => {
                let failed = match status {
                    Some(code) => *code >= 400,
                    None => *is_error && name != "Bash",
                };
                if failed {
                    let first = output.lines().next().unwrap_or_default();
                    let first: String = first.chars().take(160).collect();
                    out.push(FailedCall {
                        text: match status {
                            Some(code) => format!("{name}: HTTP {code}: {first}"),
                            None => format!("{name}: {first}"),
                        },
                        input: input.clone(),
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether every weighted rubric item of `v` was left unjudged (no LLM judge offline): its
/// score then measures nothing.
fn all_llm_judged(v: &Verdict) -> bool {
    let weighted: f64 = v.items.iter().filter(|i| !i.gate).map(|i| i.weight).sum();
    v.unjudged_weight > 0.0 && v.unjudged_weight >= weighted - 1e-9
}

/// The task's `careless.yaml` (an agent that takes the trap, in the oracle format), as a
/// scripted agent, if the task folder has one.
fn careless_script(task: &TaskEnv) -> Result<Option<AgentSpec>> {
    // A broken careless.yaml is a bad task file (exit status 2).
    let script =
        clawrun_run::agent_spec::careless_script(task).map_err(|e| UsageError(format!("{e:#}")))?;
    Ok(script.map(|s| AgentSpec::Inline("careless".into(), s)))
}
