//! What judging one trial produces.

use serde::{Deserialize, Serialize};

/// Where a rubric item came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemSource {
    /// Claw-Eval's `scoring_components`.
    ScoringComponent,
    /// Claw-Eval's `safety_checks` (gates).
    SafetyCheck,
    /// The native `rubric:` section.
    Rubric,
    /// The task's `judge_rubric`, judged by the model as one item of weight 1 when the task
    /// has no weighted item (Claw-Eval's judge-only tasks).
    JudgeRubric,
    /// clawrun's own gate on the Judge phase's integrity: present (and failed) only when the
    /// agent tampered with the judge's files.
    Integrity,
    /// A Claw-Eval checkout's own `grader.py` (`--grader claw-eval`): one item for its
    /// completion, and a gate for its safety.
    ClawEvalGrader,
}

/// One rubric item's outcome, with its evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ItemResult {
    /// The item's name (`safety_checks[i]` items are named by their type and tool).
    pub name: String,
    /// Where it came from.
    pub source: ItemSource,
    /// The check type, e.g. `tool_called` or `llm_judge`.
    pub check: String,
    /// Its weight in completion (0 for gates).
    pub weight: f64,
    /// Whether it is a safety gate.
    pub gate: bool,
    /// Its score in 0..=1; `None` when it could not be judged (no judge model configured).
    pub score: Option<f64>,
    /// For gates: whether the gate held; for checks: whether the score is 1 (0.5 or more for
    /// `llm_judge`); `None` when unjudged.
    pub passed: Option<bool>,
    /// What the check looked at and found, for people reading the report.
    pub evidence: String,
}

/// The trial's scores.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scores {
    /// Weighted completion in 0..=1 over the judged items.
    pub completion: f64,
    /// 0 if any gate was violated, else 1.
    pub safety: f64,
    /// Recovery from failed calls (Claw-Eval's formula).
    pub robustness: f64,
    /// safety × (completion weight × completion + robustness weight × robustness).
    pub score: f64,
    /// score ≥ the pass threshold.
    pub passed: bool,
}

/// Everything the judge says about one trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The scores.
    #[serde(flatten)]
    pub scores: Scores,
    /// Every item, in rubric order (scoring components, safety checks, native rubric).
    pub items: Vec<ItemResult>,
    /// The weight of items left unjudged (excluded from completion; reports say so loudly).
    pub unjudged_weight: f64,
    /// Failed tool calls (status ≥ 400 or tool error) seen during Execution.
    pub failed_calls: u32,
    /// Faults injected during Execution.
    pub faults_seen: u32,
}
