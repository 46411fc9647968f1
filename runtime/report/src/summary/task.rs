//! One task's figures over its trials.

use serde::{Deserialize, Serialize};

use crate::record::{Group, Judgement};
use crate::stats::{self, ExactSum};
use crate::summary::merge::TaskRecords;
use crate::summary::totals::Totals;

/// One scored trial, as the per-task rows show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialScore {
    /// The trial index.
    pub trial: u32,
    /// Its score as recorded (meaningless when `judgement` is `unjudged`).
    pub score: f64,
    /// Whether it passed (as recorded; see `judgement`).
    pub passed: bool,
    /// How completely its rubric was judged: `full`; `partial` (the score is over the
    /// checkable items); `unjudged` (no score: left out of every figure).
    pub judgement: Judgement,
    /// Faults injected during it.
    pub faults_seen: u32,
    /// What it spent.
    pub totals: Totals,
}

impl TrialScore {
    /// Whether the trial counts in the figures (it is not `unjudged`).
    pub fn counts(&self) -> bool {
        self.judgement != Judgement::Unjudged
    }
}

/// One task's figures. Infrastructure errors and unjudged trials are counted but kept out of
/// every figure; partly judged trials count with their score over the checkable items.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskSummary {
    /// The task id.
    pub task_id: String,
    /// Its category.
    pub category: String,
    /// Its group.
    pub group: Group,
    /// blake3 of the task's files (hex), as its records say.
    pub task_hash: String,
    /// Scored trials that count (unjudged ones left out).
    pub n: u32,
    /// Of those, the ones that passed.
    pub c: u32,
    /// The scored trials (unjudged ones included, marked) in trial order: every one, or the
    /// first few when the summary was built with [`TrialRows::First`](crate::summary::TrialRows)
    /// (the JSON report lists every one).
    pub trials: Vec<TrialScore>,
    /// Mean score over the counted trials.
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
    /// Claw-Eval's Pass^k: the first k counted trials all passed (`None` when n < k).
    pub all_k_pass: Option<bool>,
    /// Claw-Eval's (c/n)^k (`None` when n < k).
    pub pass_hat_k: Option<f64>,
    /// Whether the counted trials disagree on pass.
    pub flipped: bool,
    /// Faults injected over the counted trials.
    pub faults_seen: u64,
    /// Failed tool calls over the counted trials.
    pub failed_calls: u64,
    /// Infrastructure-error records (excluded from every figure).
    pub infra_errors: u32,
    /// Task-error records (excluded from every figure).
    pub task_errors: u32,
    /// Scored trials with no score at all: no weighted rubric item could be judged (excluded
    /// from every figure).
    pub unjudged_trials: u32,
    /// Scored trials scored over their checkable items only (some items unjudged).
    pub partly_judged_trials: u32,
    /// Summed unjudged weight over the scored trials.
    pub unjudged_weight: f64,
    /// Assistant turns served from the response cache over the scored trials (absent when
    /// none).
    #[serde(default, skip_serializing_if = "crate::record::is_zero")]
    pub cached_turns: u64,
    /// What every record of the task spent (errors and unjudged trials included).
    pub totals: Totals,
}

impl TaskSummary {
    /// The figures for one task's merged records at `k`.
    pub(crate) fn build(task_id: &str, recs: &TaskRecords, k: u32) -> TaskSummary {
        let first = &recs.first;
        let counted = &recs.counted;
        let (n, c) = (counted.n, counted.c);
        let mean = |sum: ExactSum| sum.mean(u64::from(n));
        TaskSummary {
            task_id: task_id.to_string(),
            category: first.category.clone(),
            group: first.group,
            task_hash: first.task_hash.clone(),
            n,
            c,
            mean_score: mean(counted.score),
            mean_completion: mean(counted.completion),
            mean_safety: mean(counted.safety),
            mean_robustness: mean(counted.robustness),
            pass_at_1: stats::pass_at_k(n, c, 1),
            pass_at_k: stats::pass_at_k(n, c, k),
            pass_pow_k: stats::pass_pow_k(n, c, k),
            all_k_pass: recs.all_k_pass(k),
            pass_hat_k: stats::pass_hat_k(n, c, k),
            flipped: c > 0 && c < n,
            faults_seen: counted.faults_seen,
            failed_calls: counted.failed_calls,
            infra_errors: recs.infra_errors,
            task_errors: recs.task_errors,
            unjudged_trials: recs.unjudged_trials,
            partly_judged_trials: recs.partly_judged_trials,
            unjudged_weight: recs.unjudged_weight.value(),
            cached_turns: recs.cached_turns,
            trials: recs.rows.values().cloned().collect(),
            totals: recs.totals.value(),
        }
    }

    /// Scored trials, counted or not (the rows listed in `trials` may be fewer).
    pub fn scored_trials(&self) -> u32 {
        self.n + self.unjudged_trials
    }

    /// Trials that could not be scored fully (unjudged or partly judged).
    pub fn not_fully_judged(&self) -> u32 {
        self.unjudged_trials + self.partly_judged_trials
    }
}
