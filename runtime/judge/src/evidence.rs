//! The three evidence channels a trial leaves for the judge: the trace (conversation and tool
//! calls), the services' audit logs, and the environment snapshot (final filesystem and the
//! output of judge commands).

use std::collections::BTreeMap;

use clawrun_agents::Message;
use clawrun_agents::trace::CommandOutput;
use clawrun_vfs::Vfs;
use serde_json::Value;

/// One tool call as dispatched during Execution.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRecord {
    /// The tool.
    pub name: String,
    /// The arguments the agent sent.
    pub input: Value,
    /// What the agent saw.
    pub output: String,
    /// Whether the call failed (tool error, HTTP status ≥ 400, transport error).
    pub is_error: bool,
    /// The HTTP status, for service tools.
    pub status: Option<u16>,
    /// Whether a fault was injected into this call.
    pub faulted: bool,
}

/// Everything the judge may look at.
#[derive(Clone, Default)]
pub struct Evidence {
    /// The prompt as the agent saw it.
    pub prompt: String,
    /// The whole conversation (prompt, assistant turns, tool results, simulated-user turns).
    pub messages: Vec<Message>,
    /// The agent's final answer text.
    pub final_text: String,
    /// Every tool call, in order.
    pub calls: Vec<CallRecord>,
    /// Each service's `/audit` document, by service instance name.
    pub audits: BTreeMap<String, Value>,
    /// The filesystem at the end of Execution, with judge files added (`/judge`, grader files).
    pub vfs: Vfs,
    /// Judge commands (`env_snapshot_commands` and rubric `command` checks) and their output,
    /// in the order they ran.
    pub commands: Vec<CommandOutput>,
    /// Faults injected during Execution.
    pub faults_seen: u32,
    /// Simulated-user rounds.
    pub user_rounds: u32,
    /// Tampering the Judge phase found (links the agent planted towards judge files, as
    /// `link -> target`); any fails the integrity gate.
    pub tampering: Vec<String>,
    /// Why [`vfs`](Self::vfs) is not the trial's final filesystem, when it is not: evidence
    /// rebuilt from a trace (which keeps only root hashes) has none. Checks that read files
    /// are then unjudged with this reason, never judged against an empty filesystem.
    pub filesystem_missing: Option<String>,
}
