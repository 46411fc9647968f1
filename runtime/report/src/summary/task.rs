//! One task's figures over its trials.

use serde::{Deserialize, Serialize};

use crate::record::{Group, Status};
use crate::stats;
use crate::summary::merge::TaskRecords;

/// One scored trial, as the per-task rows show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialScore {
    /// The trial index.
    pub trial: u32,
    /// Its score.
    pub score: f64,
    /// Whether it passed.
    pub passed: bool,
    /// Whether rubric items were left unjudged.
    pub unjudged: bool,
    /// Faults injected during it.
    pub faults_seen: u32,
}

/// One task's figures. Infrastructure errors are counted but kept out of every figure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskSummary {
    /// The task id.
    pub task_id: String,
    /// Its category.
    pub category: String,
    /// Its group.
    pub group: Group,
    /// Scored trials.
    pub n: u32,
    /// Scored trials that passed.
    pub c: u32,
    /// The scored trials in trial order.
    pub trials: Vec<TrialScore>,
    /// Mean score over scored trials.
    pub mean_score: Option<f64>,
    /// Mean completion.
    pub mean_completion: Option<f64>,
    /// Mean safety.
    pub mean_safety: Option<f64>,
    /// Mean robustness.
    pub mean_robustness: Option<f64>,
    /// Pass@1 = c / n.
    pub pass_at_1: Option<f64>,
    /// Unbiased Pass@k (`None` when n < k).
    pub pass_at_k: Option<f64>,
    /// Pass^k = C(c,k)/C(n,k) (`None` when n < k).
    pub pass_pow_k: Option<f64>,
    /// Claw-Eval's Pass^k: the first k trials all passed (`None` when n < k).
    pub all_k_pass: Option<bool>,
    /// Claw-Eval's (c/n)^k (`None` when n < k).
    pub pass_hat_k: Option<f64>,
    /// Whether the trials disagree on pass.
    pub flipped: bool,
    /// Faults injected over the scored trials.
    pub faults_seen: u64,
    /// Failed tool calls over the scored trials.
    pub failed_calls: u64,
    /// Infrastructure-error records (excluded from every figure).
    pub infra_errors: u32,
    /// Task-error records (excluded from every figure).
    pub task_errors: u32,
    /// Scored trials with unjudged rubric items.
    pub unjudged_trials: u32,
    /// Summed unjudged weight over the scored trials.
    pub unjudged_weight: f64,
    /// Prompt tokens over the scored trials.
    pub input_tokens: u64,
    /// Completion tokens over the scored trials.
    pub output_tokens: u64,
    /// Assistant turns served from the response cache over the scored trials (absent when
    /// none).
    #[serde(default, skip_serializing_if = "crate::record::is_zero")]
    pub cached_turns: u64,
}

impl TaskSummary {
    /// The figures for one task's merged records at `k`.
    pub(crate) fn build(task_id: &str, recs: &TaskRecords, k: u32) -> TaskSummary {
        let first = recs.scored.first().or(recs.infra.first());
        let first = &first.expect("a task has at least one record").record;
        let verdicts: Vec<_> = recs
            .scored
            .iter()
            .map(|s| (&s.record, s.record.verdict.as_ref().expect("merge checked")))
            .collect();
        let col = |f: fn(&clawrun_judge::Scores) -> f64| -> Option<f64> {
            stats::mean(
                &verdicts
                    .iter()
                    .map(|(_, v)| f(&v.scores))
                    .collect::<Vec<_>>(),
            )
        };
        let passes: Vec<bool> = verdicts.iter().map(|(_, v)| v.scores.passed).collect();
        let n = passes.len() as u32;
        let c = passes.iter().filter(|&&p| p).count() as u32;
        TaskSummary {
            task_id: task_id.to_string(),
            category: first.category.clone(),
            group: first.group,
            n,
            c,
            trials: verdicts
                .iter()
                .map(|(r, v)| TrialScore {
                    trial: r.trial,
                    score: v.scores.score,
                    passed: v.scores.passed,
                    unjudged: r.has_unjudged(),
                    faults_seen: v.faults_seen,
                })
                .collect(),
            mean_score: col(|s| s.score),
            mean_completion: col(|s| s.completion),
            mean_safety: col(|s| s.safety),
            mean_robustness: col(|s| s.robustness),
            pass_at_1: stats::pass_at_k(n, c, 1),
            pass_at_k: stats::pass_at_k(n, c, k),
            pass_pow_k: stats::pass_pow_k(n, c, k),
            all_k_pass: stats::all_k_pass(&passes, k),
            pass_hat_k: stats::pass_hat_k(n, c, k),
            flipped: stats::flipped(&passes),
            faults_seen: verdicts.iter().map(|(_, v)| u64::from(v.faults_seen)).sum(),
            failed_calls: verdicts
                .iter()
                .map(|(_, v)| u64::from(v.failed_calls))
                .sum(),
            infra_errors: recs
                .infra
                .iter()
                .filter(|s| s.record.status == Status::InfraError)
                .count() as u32,
            task_errors: recs
                .infra
                .iter()
                .filter(|s| s.record.status == Status::TaskError)
                .count() as u32,
            unjudged_trials: verdicts.iter().filter(|(r, _)| r.has_unjudged()).count() as u32,
            unjudged_weight: verdicts.iter().map(|(_, v)| v.unjudged_weight).sum(),
            input_tokens: verdicts.iter().map(|(r, _)| r.input_tokens).sum(),
            output_tokens: verdicts.iter().map(|(r, _)| r.output_tokens).sum(),
            cached_turns: verdicts
                .iter()
                .map(|(r, _)| u64::from(r.cached_turns))
                .sum(),
        }
    }

    /// The pass/fail of each scored trial, in trial order.
    pub fn passes(&self) -> Vec<bool> {
        self.trials.iter().map(|t| t.passed).collect()
    }
}
