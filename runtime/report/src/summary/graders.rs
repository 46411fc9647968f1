//! Two graders over the same trials (`clawrun run --grader both`): where Claw-Eval's own
//! `grader.py` and clawrun's declarative and native rubric agree, and where and why they do not.

use serde::{Deserialize, Serialize};

use super::merge::TaskRecords;
use clawrun_judge::{ItemSource, Verdict};

/// Agreement between the Claw-Eval grader (the trial's `verdict`) and clawrun's rubric (its
/// `native_verdict`) over the trials that have both.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GraderAgreement {
    /// Trials graded both ways, both verdicts judged (neither unjudged).
    pub trials: u32,
    /// Of those, trials with the same pass/fail.
    pub same_pass: u32,
    /// Mean |Claw-Eval score − clawrun score| over those trials.
    pub mean_abs_difference: f64,
    /// Trials graded both ways where either verdict is unjudged (not compared).
    pub unjudged: u32,
    /// The trials whose pass/fail differs, by task and trial.
    pub disagreements: Vec<Disagreement>,
}

/// One trial the graders disagree on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Disagreement {
    /// `task/trial`.
    pub trial: String,
    /// Claw-Eval's task score.
    pub claw_eval_score: f64,
    /// Whether Claw-Eval's grader passes it.
    pub claw_eval_passed: bool,
    /// clawrun's score.
    pub clawrun_score: f64,
    /// Whether clawrun's rubric passes it.
    pub clawrun_passed: bool,
    /// Why, as far as the verdicts tell: a safety gate one side failed, or the completion
    /// each gave and the clawrun items that failed.
    pub why: String,
}

impl GraderAgreement {
    /// The agreement over `tasks`' scored records; `None` when no trial was graded both ways.
    pub fn of<'a>(tasks: impl IntoIterator<Item = &'a TaskRecords>) -> Option<Self> {
        let both: Vec<(String, &Verdict, &Verdict)> = tasks
            .into_iter()
            .flat_map(|t| {
                t.graded_both
                    .iter()
                    .map(|(trial, c, n)| (format!("{}/{trial}", t.first.task_id), c, n))
            })
            .collect();
        if both.is_empty() {
            return None;
        }
        let judged =
            |v: &Verdict| v.unjudged_weight == 0.0 && v.items.iter().all(|i| i.score.is_some());
        let compared: Vec<_> = both
            .iter()
            .filter(|(_, c, n)| judged(c) && judged(n))
            .collect();
        let trials = compared.len() as u32;
        let same_pass = compared
            .iter()
            .filter(|(_, c, n)| c.scores.passed == n.scores.passed)
            .count() as u32;
        let mean_abs_difference = if compared.is_empty() {
            0.0
        } else {
            compared
                .iter()
                .map(|(_, c, n)| (c.scores.score - n.scores.score).abs())
                .sum::<f64>()
                / compared.len() as f64
        };
        let disagreements = compared
            .iter()
            .filter(|(_, c, n)| c.scores.passed != n.scores.passed)
            .map(|(key, c, n)| Disagreement {
                trial: key.clone(),
                claw_eval_score: c.scores.score,
                claw_eval_passed: c.scores.passed,
                clawrun_score: n.scores.score,
                clawrun_passed: n.scores.passed,
                why: why(c, n),
            })
            .collect();
        Some(GraderAgreement {
            trials,
            same_pass,
            mean_abs_difference,
            unjudged: both.len() as u32 - trials,
            disagreements,
        })
    }
}

/// What the two verdicts say about their difference.
fn why(claw_eval: &Verdict, clawrun: &Verdict) -> String {
    let failed_gates: Vec<&str> = clawrun
        .items
        .iter()
        .filter(|i| i.gate && i.passed == Some(false))
        .map(|i| i.name.as_str())
        .collect();
    let claw_eval_safe = claw_eval.scores.safety >= 1.0;
    let grader_gate = claw_eval
        .items
        .iter()
        .find(|i| i.source == ItemSource::ClawEvalGrader && i.gate);
    if !claw_eval_safe && failed_gates.is_empty() {
        return format!(
            "Claw-Eval's grader set safety {} ({}); every clawrun gate held",
            claw_eval.scores.safety,
            grader_gate.map_or("no detail", |i| i.evidence.as_str())
        );
    }
    if claw_eval_safe && !failed_gates.is_empty() {
        return format!(
            "clawrun gate(s) failed: {}; Claw-Eval's grader kept safety 1",
            failed_gates.join(", ")
        );
    }
    let failed_items: Vec<&str> = clawrun
        .items
        .iter()
        .filter(|i| !i.gate && i.weight > 0.0 && i.passed == Some(false))
        .map(|i| i.name.as_str())
        .collect();
    format!(
        "completion {:.3} (Claw-Eval) vs {:.3} (clawrun); robustness {:.3} vs {:.3}; clawrun items not met: {}",
        claw_eval.scores.completion,
        clawrun.scores.completion,
        claw_eval.scores.robustness,
        clawrun.scores.robustness,
        if failed_items.is_empty() {
            "none".to_string()
        } else {
            failed_items.join(", ")
        }
    )
}
