//! Figures over a set of tasks (a category, a group, or all of them), with bootstrap intervals
//! over tasks.

use serde::{Deserialize, Serialize};

use crate::stats::{self, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, Interval};
use crate::summary::task::TaskSummary;
use crate::summary::totals::Totals;

/// A mean over tasks with its 95% bootstrap interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The mean over tasks.
    pub value: f64,
    /// The 95% percentile bootstrap interval (tasks resampled with replacement).
    pub ci95: Interval,
}

/// Figures over a set of tasks. Every mean is a mean over tasks of the per-task figure
/// (tasks without the figure are left out); infrastructure errors are only counted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// The category or group name, or `overall`.
    pub name: String,
    /// Tasks in the set.
    pub tasks: u32,
    /// Tasks with at least one counted trial (scored, and not unjudged).
    pub scored_tasks: u32,
    /// Tasks with at least k scored trials (those with Pass@k figures).
    pub tasks_with_k: u32,
    /// Counted trials (scored, unjudged ones left out).
    pub trials: u32,
    /// Counted trials that passed.
    pub passed_trials: u32,
    /// Mean task score.
    pub mean_score: Option<Estimate>,
    /// Mean task completion.
    pub mean_completion: Option<f64>,
    /// Mean task safety.
    pub mean_safety: Option<f64>,
    /// Mean task robustness.
    pub mean_robustness: Option<f64>,
    /// Mean Pass@1.
    pub pass_at_1: Option<Estimate>,
    /// Mean unbiased Pass@k.
    pub pass_at_k: Option<Estimate>,
    /// Mean Pass^k = C(c,k)/C(n,k).
    pub pass_pow_k: Option<Estimate>,
    /// Fraction of tasks whose first k trials all passed (Claw-Eval's Pass^k).
    pub all_k_pass: Option<Estimate>,
    /// Tasks whose first k trials all passed.
    pub all_k_pass_tasks: u32,
    /// Mean (c/n)^k.
    pub pass_hat_k: Option<Estimate>,
    /// Fraction of tasks with two or more trials whose trials disagree on pass.
    pub flip_rate: Option<f64>,
    /// Tasks whose trials disagree on pass.
    pub flipped_tasks: u32,
    /// Faults injected over the scored trials.
    pub faults_seen: u64,
    /// Infrastructure-error records (excluded from every figure).
    pub infra_errors: u32,
    /// Task-error records (excluded from every figure).
    pub task_errors: u32,
    /// Scored trials with no score (no weighted item could be judged): left out of every
    /// figure.
    pub unjudged_trials: u32,
    /// Scored trials scored over their checkable items only.
    pub partly_judged_trials: u32,
    /// Tasks with at least one trial that could not be scored fully (unjudged or partly
    /// judged).
    pub unjudged_tasks: u32,
    /// Summed unjudged weight.
    pub unjudged_weight: f64,
    /// Assistant turns served from the response cache over the scored trials (absent when
    /// none).
    #[serde(default, skip_serializing_if = "crate::record::is_zero")]
    pub cached_turns: u64,
    /// What the tasks' records spent (errors and unjudged trials included).
    pub totals: Totals,
}

impl Aggregate {
    /// The figures over `tasks`, named `name`.
    pub fn of(name: &str, tasks: &[&TaskSummary]) -> Aggregate {
        let values = |f: fn(&TaskSummary) -> Option<f64>| -> Vec<f64> {
            tasks.iter().filter_map(|t| f(t)).collect()
        };
        let estimate = |f: fn(&TaskSummary) -> Option<f64>| -> Option<Estimate> {
            let xs = values(f);
            Some(Estimate {
                value: stats::mean(&xs)?,
                ci95: stats::bootstrap_mean(&xs, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED)?,
            })
        };
        let sum = |f: fn(&TaskSummary) -> u64| -> u64 { tasks.iter().map(|t| f(t)).sum() };
        let count =
            |f: fn(&TaskSummary) -> bool| -> u32 { tasks.iter().filter(|t| f(t)).count() as u32 };
        Aggregate {
            name: name.to_string(),
            tasks: tasks.len() as u32,
            scored_tasks: count(|t| t.n > 0),
            tasks_with_k: count(|t| t.pass_at_k.is_some()),
            trials: sum(|t| u64::from(t.n)) as u32,
            passed_trials: sum(|t| u64::from(t.c)) as u32,
            mean_score: estimate(|t| t.mean_score),
            mean_completion: stats::mean(&values(|t| t.mean_completion)),
            mean_safety: stats::mean(&values(|t| t.mean_safety)),
            mean_robustness: stats::mean(&values(|t| t.mean_robustness)),
            pass_at_1: estimate(|t| t.pass_at_1),
            pass_at_k: estimate(|t| t.pass_at_k),
            pass_pow_k: estimate(|t| t.pass_pow_k),
            all_k_pass: estimate(|t| t.all_k_pass.map(|b| f64::from(u8::from(b)))),
            all_k_pass_tasks: count(|t| t.all_k_pass == Some(true)),
            pass_hat_k: estimate(|t| t.pass_hat_k),
            flip_rate: stats::flip_rate(tasks.iter().map(|t| (t.n, t.flipped))),
            flipped_tasks: count(|t| t.flipped),
            faults_seen: sum(|t| t.faults_seen),
            infra_errors: sum(|t| u64::from(t.infra_errors)) as u32,
            task_errors: sum(|t| u64::from(t.task_errors)) as u32,
            unjudged_trials: sum(|t| u64::from(t.unjudged_trials)) as u32,
            partly_judged_trials: sum(|t| u64::from(t.partly_judged_trials)) as u32,
            unjudged_tasks: count(|t| t.not_fully_judged() > 0),
            unjudged_weight: tasks.iter().map(|t| t.unjudged_weight).sum(),
            cached_turns: sum(|t| t.cached_turns),
            totals: Totals::sum(tasks.iter().map(|t| &t.totals)),
        }
    }
}
