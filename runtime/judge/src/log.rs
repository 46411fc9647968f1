//! What the judge did besides scoring: its model calls and notes for the report (Claw-Eval
//! keeps the same in `grading_result.judge_calls`).

use clawrun_agents::Usage;
use serde::{Deserialize, Serialize};

/// One call to the judge model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeCall {
    /// The rubric item it scored.
    pub item: String,
    /// The model, as it describes itself.
    pub model: String,
    /// The size of the prompt sent, in characters.
    pub prompt_chars: usize,
    /// The score read from the answer (`None`: the call failed or gave no score).
    pub score: Option<f64>,
    /// The model's explanation, or the answer text when no score could be read.
    pub reasoning: String,
    /// Tokens the call cost.
    pub usage: Usage,
    /// Why the call failed, if it did.
    pub error: Option<String>,
}

/// The judge's log for one trial.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgeLog {
    /// Every judge-model call, in order.
    pub calls: Vec<JudgeCall>,
    /// Things a reader of the report must know (e.g. every weighted item was unjudged).
    pub notes: Vec<String>,
}

impl JudgeLog {
    /// Tokens spent by all judge calls.
    pub fn usage(&self) -> Usage {
        let mut total = Usage::default();
        for c in &self.calls {
            total.add(c.usage);
        }
        total
    }
}
