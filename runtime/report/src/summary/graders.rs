//! Two graders over the same trials (`clawrun run --grader both`): where Claw-Eval's own
//! `grader.py` and clawrun's declarative and native rubric agree, and where and why they do not.

use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

use super::merge::TaskRecords;
use crate::stats::ExactSum;
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

/// One task's trials graded both ways, folded as they are read.
#[derive(Clone, Debug, Default)]
pub struct GradedBoth {
    /// Trials graded both ways.
    graded: u32,
    /// Of those, trials where both verdicts are fully judged.
    compared: u32,
    /// Of the compared, trials with the same pass/fail.
    same_pass: u32,
    /// Summed |Claw-Eval score − clawrun score| over the compared trials.
    abs_difference: ExactSum,
    /// The compared trials whose pass/fail differs, by trial index.
    disagreements: BTreeMap<u32, Disagreement>,
}

impl GradedBoth {
    /// Folds in trial `trial` (labelled `key`, `task/trial`): Claw-Eval's verdict and
    /// clawrun's.
    pub fn add(&mut self, trial: u32, key: String, claw_eval: &Verdict, clawrun: &Verdict) {
        self.graded += 1;
        let judged =
            |v: &Verdict| v.unjudged_weight == 0.0 && v.items.iter().all(|i| i.score.is_some());
        if !(judged(claw_eval) && judged(clawrun)) {
            return;
        }
        self.compared += 1;
        self.abs_difference
            .add((claw_eval.scores.score - clawrun.scores.score).abs());
        if claw_eval.scores.passed == clawrun.scores.passed {
            self.same_pass += 1;
            return;
        }
        self.disagreements.insert(
            trial,
            Disagreement {
                trial: key,
                claw_eval_score: claw_eval.scores.score,
                claw_eval_passed: claw_eval.scores.passed,
                clawrun_score: clawrun.scores.score,
                clawrun_passed: clawrun.scores.passed,
                why: why(claw_eval, clawrun),
            },
        );
    }
}

impl GraderAgreement {
    /// The agreement over `tasks`' scored records; `None` when no trial was graded both ways.
    pub fn of<'a>(tasks: impl IntoIterator<Item = &'a TaskRecords>) -> Option<Self> {
        let mut graded = 0;
        let mut out = GraderAgreement {
            trials: 0,
            same_pass: 0,
            mean_abs_difference: 0.0,
            unjudged: 0,
            disagreements: Vec::new(),
        };
        let mut abs_difference = ExactSum::default();
        for t in tasks {
            let g = &t.graded_both;
            graded += g.graded;
            out.trials += g.compared;
            out.same_pass += g.same_pass;
            abs_difference.add_sum(g.abs_difference);
            out.disagreements.extend(g.disagreements.values().cloned());
        }
        if graded == 0 {
            return None;
        }
        out.unjudged = graded - out.trials;
        out.mean_abs_difference = abs_difference.mean(u64::from(out.trials)).unwrap_or(0.0);
        Some(out)
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
