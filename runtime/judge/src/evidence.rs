//! The three evidence channels a trial leaves for the judge: the trace (conversation and tool
//! calls), the services' audit logs, and the environment snapshot (final filesystem and the
//! output of judge commands).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use clawrun_agents::Message;
use clawrun_agents::trace::{AuditData, CommandOutput};
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

/// Each service's `/audit` document by instance name, kept as the JSON text the trace holds
/// and parsed when a check first reads it (most rubrics never do).
#[derive(Clone, Debug, Default)]
pub struct Audits(BTreeMap<String, AuditDoc>);

/// One audit document and, once read, its value.
#[derive(Clone, Debug)]
struct AuditDoc {
    data: AuditData,
    value: OnceLock<Value>,
}

impl PartialEq for Audits {
    /// The same services with the same documents (their text: written one way, by
    /// `serde_json`).
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(&other.0)
                .all(|((a, x), (b, y))| a == b && x.data == y.data)
    }
}

impl Audits {
    /// Sets `service`'s document.
    pub fn insert(&mut self, service: impl Into<String>, data: impl Into<AuditData>) {
        let doc = AuditDoc {
            data: data.into(),
            value: OnceLock::new(),
        };
        self.0.insert(service.into(), doc);
    }

    /// `service`'s document, parsed on the first read.
    pub fn get(&self, service: &str) -> Option<&Value> {
        self.0
            .get(service)
            .map(|doc| doc.value.get_or_init(|| doc.data.to_value()))
    }

    /// The services, in name order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }

    /// Each service and its document, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0
            .iter()
            .map(|(name, doc)| (name.as_str(), doc.value.get_or_init(|| doc.data.to_value())))
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each service and its document's JSON text, in name order (nothing parsed).
    pub fn texts(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0
            .iter()
            .map(|(name, doc)| (name.as_str(), doc.data.as_json_text()))
    }
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
    pub audits: Audits,
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
