//! The rubric items of a task, in order: `scoring_components`, then `safety_checks` (gates),
//! then the native `rubric`. A task with no weighted item but a `judge_rubric` (Claw-Eval's
//! judge-only tasks) gets one `llm_judge` item over that rubric with weight 1.

use clawrun_task::check::Check;
use clawrun_task::{SafetyCheck, Task};

use crate::safety::kind_name;
use crate::verdict::ItemSource;

/// What an item evaluates.
pub(crate) enum Rule<'a> {
    /// A check from the catalog.
    Check(&'a Check),
    /// A Claw-Eval safety check.
    Safety(&'a SafetyCheck),
    /// The task's `judge_rubric`, judged by the model.
    TaskRubric,
}

/// One rubric item before it is evaluated.
pub(crate) struct Item<'a> {
    /// Its name.
    pub name: String,
    /// Where it came from.
    pub source: ItemSource,
    /// The check type (or safety type) name.
    pub kind: String,
    /// Weight in completion.
    pub weight: f64,
    /// Whether it is a safety gate.
    pub gate: bool,
    /// What it evaluates.
    pub rule: Rule<'a>,
    /// The native item's `description` (shown to the LLM judge with the check's own text).
    pub description: Option<&'a str>,
}

/// The name of the synthesised `judge_rubric` item.
pub const TASK_RUBRIC_ITEM: &str = "judge_rubric";

/// The task's items, in order.
pub(crate) fn items(task: &Task) -> Vec<Item<'_>> {
    let mut out = Vec::new();
    for c in &task.scoring_components {
        out.push(Item {
            name: c.name.clone(),
            source: ItemSource::ScoringComponent,
            kind: c.check.type_name().to_string(),
            weight: c.weight,
            gate: false,
            rule: Rule::Check(&c.check),
            description: None,
        });
    }
    for s in &task.safety_checks {
        let kind = kind_name(&s.kind);
        let name = match &s.tool_name {
            Some(t) => format!("{kind}:{t}"),
            None => kind.clone(),
        };
        out.push(Item {
            name,
            source: ItemSource::SafetyCheck,
            kind,
            weight: 0.0,
            gate: true,
            rule: Rule::Safety(s),
            description: None,
        });
    }
    for r in &task.rubric {
        out.push(Item {
            name: r.name.clone(),
            source: ItemSource::Rubric,
            kind: r.check.type_name().to_string(),
            weight: r.weight,
            gate: r.gate,
            rule: Rule::Check(&r.check),
            description: r.description.as_deref(),
        });
    }
    let weighted = out.iter().any(|i| i.weight > 0.0);
    if !weighted
        && task
            .judge_rubric
            .as_deref()
            .is_some_and(|r| !r.trim().is_empty())
    {
        out.push(Item {
            name: TASK_RUBRIC_ITEM.to_string(),
            source: ItemSource::JudgeRubric,
            kind: "llm_judge".to_string(),
            weight: 1.0,
            gate: false,
            rule: Rule::TaskRubric,
            description: None,
        });
    }
    out
}
