//! What every check evaluation can see while one trial is judged.

use clawrun_agents::agent::Complete;
use clawrun_task::Task;

use crate::evidence::Evidence;
use crate::log::JudgeLog;

/// The task, the evidence, the judge model (if any) and the log being written.
pub(crate) struct Cx<'a> {
    /// The task being judged.
    pub task: &'a Task,
    /// The trial's evidence.
    pub ev: &'a Evidence,
    /// The judge model; `None` leaves model-judged items unjudged.
    pub model: Option<&'a dyn Complete>,
    /// Judge calls and notes so far.
    pub log: JudgeLog,
}
