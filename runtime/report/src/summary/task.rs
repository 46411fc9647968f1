//! One task's figures over its trials.

use serde::{Deserialize, Serialize};

use crate::record::{Group, Judgement, Status};
use crate::stats;
use crate::summary::merge::{MergedTrial, TaskRecords};
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
    /// Every scored trial (unjudged ones included, marked) in trial order.
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
        let trials: Vec<TrialScore> = recs
            .scored
            .iter()
            .map(|t| TrialScore {
                trial: t.trial,
                score: t.scored().score,
                passed: t.scored().passed,
                judgement: t.judgement.expect("merge checked"),
                faults_seen: t.faults_seen,
                totals: t.totals,
            })
            .collect();
        // The trials that count, in trial order.
        let counted: Vec<&MergedTrial> = recs.scored.iter().filter(|t| t.counts()).collect();
        let col = |f: fn(&clawrun_judge::Scores) -> f64| -> Option<f64> {
            stats::mean(&counted.iter().map(|t| f(t.scored())).collect::<Vec<_>>())
        };
        let passes: Vec<bool> = counted.iter().map(|t| t.scored().passed).collect();
        let n = passes.len() as u32;
        let c = passes.iter().filter(|&&p| p).count() as u32;
        let totals = Totals::sum(
            trials
                .iter()
                .map(|t| &t.totals)
                .chain(recs.infra.iter().map(|t| &t.totals)),
        );
        let count_judgement = |j: Judgement| trials.iter().filter(|t| t.judgement == j).count();
        let errors = |status: Status| recs.infra.iter().filter(|t| t.status == status).count();
        TaskSummary {
            task_id: task_id.to_string(),
            category: first.category.clone(),
            group: first.group,
            task_hash: first.task_hash.clone(),
            n,
            c,
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
            faults_seen: counted.iter().map(|t| u64::from(t.faults_seen)).sum(),
            failed_calls: counted.iter().map(|t| u64::from(t.failed_calls)).sum(),
            infra_errors: errors(Status::InfraError) as u32,
            task_errors: errors(Status::TaskError) as u32,
            unjudged_trials: count_judgement(Judgement::Unjudged) as u32,
            partly_judged_trials: count_judgement(Judgement::Partial) as u32,
            unjudged_weight: recs.scored.iter().map(|t| t.unjudged_weight).sum(),
            cached_turns: recs.scored.iter().map(|t| u64::from(t.cached_turns)).sum(),
            trials,
            totals,
        }
    }

    /// The pass/fail of each counted trial, in trial order.
    pub fn passes(&self) -> Vec<bool> {
        self.trials
            .iter()
            .filter(|t| t.counts())
            .map(|t| t.passed)
            .collect()
    }

    /// Trials that could not be scored fully (unjudged or partly judged).
    pub fn not_fully_judged(&self) -> u32 {
        self.unjudged_trials + self.partly_judged_trials
    }
}
