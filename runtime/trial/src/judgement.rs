//! A played trial's judgement, by the grading the run chose ([`Grading`]): clawrun's rubric
//! (`clawrun_judge`), or the task's Claw-Eval `grader.py`: the evidence exported next to the
//! trace (`<trial>/claw-eval/trace.jsonl`, `env_snapshot.json`), the grading run in the Python
//! sandbox while the caller's async runtime serves the judge's requests, and the record of the
//! grading (`grading.json`: the driver's result, every judge exchange, the grader's output).

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, anyhow};
use clawrun_agents::Complete;
use clawrun_agents::llm::LlmClient;
use clawrun_agents::trace::Outcome;
use clawrun_judge::{ScoreConfig, Verdict};
use clawrun_report::Status;
use clawrun_sandbox::tools::InstallationError;

use crate::claw_eval::{ClawEvalGrader, GraderOutcome, JudgeDoor, export, verdict};
use crate::grading::{Grading, TaskGrading};
use crate::{TaskEnv, TrialOutput};

/// A played trial as judged: its status and error, and the verdicts of the grading chosen.
pub struct Judged {
    /// Scored, task error or infrastructure error.
    pub status: Status,
    /// Why the trial was not scored, if it was not.
    pub error: Option<String>,
    /// The verdict of the grading chosen.
    pub verdict: Option<Verdict>,
    /// `claw-eval` when a grader.py judged.
    pub grader: Option<String>,
    /// clawrun's rubric's verdict beside grader.py's (`--grader both`).
    pub native_verdict: Option<Verdict>,
}

/// How a played trial is judged: the run's grading, its judge model and score weights.
pub struct Judging<'a> {
    /// Which grader judges each task.
    pub grading: &'a Grading,
    /// The LLM judge's client, if the run has one.
    pub judge: Option<&'a LlmClient>,
    /// Score weights and threshold.
    pub score: &'a ScoreConfig,
}

impl Judging<'_> {
    /// Judges `output` (trial `trial` of `task`, whose folder is `dir`) as the grading
    /// chooses: a trial that ended on a task or infrastructure error is not judged. `Err` only
    /// when the installation is broken (the grading interpreter could not start).
    pub fn judge(
        &self,
        rt: &tokio::runtime::Runtime,
        task: &TaskEnv,
        trial: u32,
        output: &TrialOutput,
        dir: &Path,
    ) -> Result<Judged> {
        let mut status = match output.outcome {
            Outcome::InfraError => Status::InfraError,
            Outcome::TaskError => Status::TaskError,
            _ => Status::Scored,
        };
        let mut error = output.error.clone();
        // The judge's cached verdicts are keyed by the trial seed too (see README `--cache`).
        let judge_model = self.judge.map(|j| j.for_sample(output.seed));
        let native = || {
            rt.block_on(clawrun_judge::judge(
                &task.loaded.task,
                &output.evidence,
                judge_model.as_ref().map(|m| m as &dyn Complete),
                self.score,
            ))
        };
        let (mut verdict, mut grader, mut native_verdict) = (None, None, None);
        if status == Status::Scored {
            match self.grading.for_task(&task.loaded) {
                TaskGrading::Native => verdict = Some(native()),
                plan => {
                    grader = Some("claw-eval".to_string());
                    if plan == TaskGrading::Both {
                        native_verdict = Some(native());
                    }
                    let graded = self
                        .grading
                        .claw_eval()
                        .ok_or_else(|| anyhow!("no Claw-Eval checkout"))
                        .and_then(|g| grade(rt, g, self.judge, task, trial, output, dir));
                    match graded {
                        Ok(v) => verdict = Some(v),
                        Err(e) if InstallationError::is(&e) => return Err(e),
                        Err(e) => {
                            status = Status::TaskError;
                            error = Some(format!("{e:#}"));
                        }
                    }
                }
            }
        }
        Ok(Judged {
            status,
            error,
            verdict,
            grader,
            native_verdict,
        })
    }
}

/// The folder of a trial's Claw-Eval evidence and grading record.
pub const FOLDER: &str = "claw-eval";

/// Grades `output` (trial `trial` of `task`, whose folder is `dir`) with the run's Claw-Eval
/// grader. `Err` when the grader failed or could not run: the trial is then a task error with
/// that message (Claw-Eval also leaves a trial whose grading raised out of its scores).
pub fn grade(
    rt: &tokio::runtime::Runtime,
    grader: &ClawEvalGrader,
    judge: Option<&LlmClient>,
    task: &TaskEnv,
    trial: u32,
    output: &TrialOutput,
    dir: &Path,
) -> Result<Verdict> {
    let exported = export::export(&task.loaded, trial, &output.events, &output.evidence);
    let folder = dir.join(FOLDER);
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    std::fs::write(folder.join("trace.jsonl"), &exported.trace)
        .with_context(|| format!("writing {}/trace.jsonl", folder.display()))?;
    std::fs::write(folder.join("env_snapshot.json"), &exported.env_snapshot)
        .with_context(|| format!("writing {}/env_snapshot.json", folder.display()))?;

    let model: Option<Arc<dyn Complete>> =
        judge.map(|j| Arc::new(j.for_sample(output.seed)) as Arc<dyn Complete>);
    let model_name = model.as_ref().map(|m| m.describe());
    let door = Arc::new(JudgeDoor::new(model, rt.handle().clone()));
    // The grading blocks its thread; this one drives the runtime (the judge's HTTP) meanwhile.
    let grading = std::thread::scope(|scope| {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let door = door.clone();
        let model_name = model_name.as_deref();
        scope.spawn(move || {
            let result = grader.grade(&task.loaded, &exported, door, model_name, output.seed);
            let _ = tx.send(result);
        });
        rt.block_on(rx)
            .map_err(|_| anyhow!("the grading thread ended without a result"))
    })??;
    std::fs::write(
        folder.join("grading.json"),
        serde_json::to_vec_pretty(&grading.record)?,
    )
    .with_context(|| format!("writing {}/grading.json", folder.display()))?;
    let calls = &output.evidence.calls;
    let faults = output.evidence.faults_seen;
    match grading.outcome {
        GraderOutcome::Graded(g) => Ok(verdict::graded(&g, calls, faults)),
        GraderOutcome::NeedsJudge(reason) => Ok(verdict::needs_judge(&reason, calls, faults)),
        // A grader that raises scores the trial 0 rather than leaving it out: the evidence it
        // choked on is the agent's (malformed tool arguments, say), and a trial left out of the
        // scores would raise the agent's mean. Claw-Eval discards and re-runs such trials.
        GraderOutcome::Failed(traceback) => Ok(verdict::grader_failed(
            &format!(
                "{} (the traceback is in {}/{trial}/{FOLDER}/grading.json)",
                last_line(&traceback),
                task.id()
            ),
            calls,
            faults,
        )),
        GraderOutcome::Died(why) => Err(anyhow!(
            "the Claw-Eval grading interpreter failed: {} (see {}/{trial}/{FOLDER}/grading.json)",
            last_line(&why),
            task.id()
        )),
    }
}

/// The last non-empty line of `text` (a traceback's exception).
fn last_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no output")
}
