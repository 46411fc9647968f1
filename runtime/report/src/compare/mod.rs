//! Side-by-side comparison of runs of different agents, models or settings ("arms"): each
//! arm's figures, and for every arm after the first its difference to the first (B − A) over
//! the tasks both scored, with a paired bootstrap interval, wins / losses / ties and the exact
//! sign test.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::ReportError;
use crate::header::RunHeader;
use crate::record::Sourced;
use crate::stats::{self, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, Interval};
use crate::summary::{BootstrapInfo, Inputs, Summary, TaskSummary};

/// The test the comparison reports, in words (also in the JSON).
pub const PAIRED_TEST: &str = "exact two-sided sign test over tasks (ties left out): p = min(1, 2 P(X <= min(wins, losses))), X ~ Binomial(wins + losses, 1/2)";

/// One arm before summarising: its records and what else it reads.
pub struct ArmInput<'a> {
    /// A short label, e.g. `oracle` or `openai:gpt-5-mini`.
    pub label: String,
    /// Its run folders.
    pub runs: Vec<RunHeader>,
    /// Its journal records (shards merged as for one run).
    pub records: Vec<Sourced>,
    /// Its timings and the price table.
    pub inputs: Inputs<'a>,
}

/// One arm: a name (`A`, `B`, ...), its label and its summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Arm {
    /// `A`, `B`, ... in the order given.
    pub name: String,
    /// What it is, e.g. `oracle`.
    pub label: String,
    /// Its run folders.
    pub folders: Vec<String>,
    /// Its figures.
    pub summary: Summary,
}

/// A mean difference with its 95% paired bootstrap interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// Mean over the paired tasks of (B − A).
    pub value: f64,
    /// The 95% percentile bootstrap interval (tasks resampled with replacement, pairs kept).
    pub ci95: Interval,
}

/// How a task compares between two arms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskOutcome {
    /// B's mean score is higher.
    BBetter,
    /// B's mean score is lower.
    BWorse,
    /// Equal mean scores.
    Tie,
    /// Not paired: missing or without counted trials in one arm, or a different task.
    Unpaired,
}

/// One task in a pair of arms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TaskDiff {
    /// The task id.
    pub task_id: String,
    /// Its category.
    pub category: String,
    /// A's mean score (`None`: absent or no counted trial).
    pub a_score: Option<f64>,
    /// B's mean score.
    pub b_score: Option<f64>,
    /// A's Pass@1.
    pub a_pass_at_1: Option<f64>,
    /// B's Pass@1.
    pub b_pass_at_1: Option<f64>,
    /// B − A of the mean scores, when paired.
    pub score_diff: Option<f64>,
    /// How it compares.
    pub outcome: TaskOutcome,
    /// Why it is unpaired, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unpaired: Option<String>,
    /// Trials of this task in either arm that could not be scored fully (unjudged or partly
    /// judged).
    pub not_fully_judged: u32,
}

/// Arm B against arm A.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// The baseline arm's name (`A`).
    pub a: String,
    /// The other arm's name.
    pub b: String,
    /// Tasks scored in both (the paired set).
    pub paired_tasks: u32,
    /// B − A of the mean task score over the paired tasks.
    pub score_diff: Option<Difference>,
    /// B − A of Pass@1 over the paired tasks.
    pub pass_at_1_diff: Option<Difference>,
    /// Paired tasks where B scored higher.
    pub b_better: u32,
    /// Paired tasks where B scored lower.
    pub b_worse: u32,
    /// Paired tasks with equal scores.
    pub ties: u32,
    /// The sign test's two-sided p-value (`None` when every paired task tied).
    pub sign_test_p: Option<f64>,
    /// Tasks left out of the pairing.
    pub unpaired_tasks: u32,
    /// Every task of either arm, sorted by id.
    pub tasks: Vec<TaskDiff>,
}

/// The comparison of two or more arms.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The k of Pass@k and Pass^k, the same for every arm.
    pub k: u32,
    /// How the intervals were computed.
    pub bootstrap: BootstrapInfo,
    /// The paired test, in words.
    pub paired_test: String,
    /// The arms, in the order given.
    pub arms: Vec<Arm>,
    /// Every arm after the first against the first.
    pub pairs: Vec<Pair>,
}

impl Comparison {
    /// Summarises each arm at a common k (the given one, else the smallest of the arms'
    /// defaults, so every arm has the figures) and pairs every arm with the first.
    pub fn build(arms: Vec<ArmInput<'_>>, k: Option<u32>) -> Result<Comparison, ReportError> {
        if k == Some(0) {
            return Err(ReportError::InvalidK);
        }
        let k = match k {
            Some(k) => k,
            None => {
                let mut smallest = u32::MAX;
                for arm in &arms {
                    smallest = smallest.min(Summary::default_k(arm.records.iter().cloned())?);
                }
                smallest.max(1)
            }
        };
        let mut built = Vec::new();
        for (i, arm) in arms.into_iter().enumerate() {
            let mut summary = Summary::from_records_with(arm.records, Some(k), &arm.inputs)?;
            let folders = arm.runs.iter().map(|r| r.folder.clone()).collect();
            summary.runs = arm.runs;
            built.push(Arm {
                name: arm_name(i),
                label: arm.label,
                folders,
                summary,
            });
        }
        let pairs = built[1..].iter().map(|b| pair(&built[0], b)).collect();
        Ok(Comparison {
            k,
            bootstrap: BootstrapInfo {
                resamples: BOOTSTRAP_RESAMPLES,
                seed: BOOTSTRAP_SEED,
                level: 0.95,
            },
            paired_test: PAIRED_TEST.to_string(),
            arms: built,
            pairs,
        })
    }

    /// Every warning: each arm's (prefixed `arm A:`), then unpaired tasks per pair.
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for arm in &self.arms {
            out.extend(
                arm.summary
                    .warnings()
                    .into_iter()
                    .map(|w| format!("arm {} ({}): {w}", arm.name, arm.label)),
            );
        }
        for p in &self.pairs {
            if p.unpaired_tasks > 0 {
                let ids: Vec<String> = p
                    .tasks
                    .iter()
                    .filter(|t| t.outcome == TaskOutcome::Unpaired)
                    .map(|t| {
                        format!(
                            "{} ({})",
                            t.task_id,
                            t.unpaired.as_deref().unwrap_or("unpaired")
                        )
                    })
                    .collect();
                out.push(format!(
                    "{} vs {}: {} tasks left out of the paired comparison: {}",
                    p.b,
                    p.a,
                    p.unpaired_tasks,
                    ids.join(", ")
                ));
            }
        }
        out
    }

    /// The arm named `name`.
    pub fn arm(&self, name: &str) -> Option<&Arm> {
        self.arms.iter().find(|a| a.name == name)
    }
}

/// `A`, `B`, ..., `Z`, `AA`, `AB`, ...
pub fn arm_name(i: usize) -> String {
    let letter = |j: usize| char::from(b'A' + (j % 26) as u8);
    if i < 26 {
        letter(i).to_string()
    } else {
        format!("{}{}", letter(i / 26 - 1), letter(i))
    }
}

/// Arm `b` against arm `a`.
fn pair(a: &Arm, b: &Arm) -> Pair {
    let by_id = |arm: &Arm| -> BTreeMap<String, TaskSummary> {
        arm.summary
            .tasks
            .iter()
            .map(|t| (t.task_id.clone(), t.clone()))
            .collect()
    };
    let (ta, tb) = (by_id(a), by_id(b));
    let mut ids: Vec<&String> = ta.keys().chain(tb.keys()).collect();
    ids.sort();
    ids.dedup();
    let mut tasks = Vec::new();
    let (mut score_diffs, mut pass_diffs) = (Vec::new(), Vec::new());
    for id in ids {
        let (x, y) = (ta.get(id), tb.get(id));
        let unpaired = match (x, y) {
            (None, _) => Some(format!("not in {}", a.name)),
            (_, None) => Some(format!("not in {}", b.name)),
            (Some(x), Some(y)) if x.task_hash != y.task_hash => {
                Some("the task's files differ between the arms".to_string())
            }
            (Some(x), _) if x.mean_score.is_none() => {
                Some(format!("no counted trial in {}", a.name))
            }
            (_, Some(y)) if y.mean_score.is_none() => {
                Some(format!("no counted trial in {}", b.name))
            }
            _ => None,
        };
        let a_score = x.and_then(|t| t.mean_score);
        let b_score = y.and_then(|t| t.mean_score);
        let score_diff = match (&unpaired, a_score, b_score) {
            (None, Some(p), Some(q)) => Some(q - p),
            _ => None,
        };
        let outcome = match score_diff {
            None => TaskOutcome::Unpaired,
            Some(d) if d > stats::paired::TIE_EPSILON => TaskOutcome::BBetter,
            Some(d) if d < -stats::paired::TIE_EPSILON => TaskOutcome::BWorse,
            Some(_) => TaskOutcome::Tie,
        };
        if let Some(d) = score_diff {
            score_diffs.push(d);
            let pass = |t: Option<&TaskSummary>| t.and_then(|t| t.pass_at_1).unwrap_or(0.0);
            pass_diffs.push(pass(y) - pass(x));
        }
        let any = x.or(y).expect("the id came from one arm");
        tasks.push(TaskDiff {
            task_id: id.clone(),
            category: any.category.clone(),
            a_score,
            b_score,
            a_pass_at_1: x.and_then(|t| t.pass_at_1),
            b_pass_at_1: y.and_then(|t| t.pass_at_1),
            score_diff,
            outcome,
            unpaired,
            not_fully_judged: x.map_or(0, TaskSummary::not_fully_judged)
                + y.map_or(0, TaskSummary::not_fully_judged),
        });
    }
    let (b_better, b_worse, ties) = stats::wins_losses_ties(&score_diffs);
    let difference =
        |d: &[f64]| stats::paired_difference(d).map(|(value, ci95)| Difference { value, ci95 });
    Pair {
        a: a.name.clone(),
        b: b.name.clone(),
        paired_tasks: score_diffs.len() as u32,
        score_diff: difference(&score_diffs),
        pass_at_1_diff: difference(&pass_diffs),
        b_better,
        b_worse,
        ties,
        sign_test_p: stats::sign_test_p(b_better, b_worse),
        unpaired_tasks: tasks
            .iter()
            .filter(|t| t.outcome == TaskOutcome::Unpaired)
            .count() as u32,
        tasks,
    }
}
