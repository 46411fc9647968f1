//! The trace: one JSON object per line, in the order things happened (documented in
//! `runtime/agents/TRACE.md`). Recorded outside the sandbox; timestamps are virtual.

use std::io::{self, BufRead, Write};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conversation::{Block, Role, Usage};

/// The trace format version written in `trace_start`.
pub const TRACE_VERSION: u32 = 2;

/// One line of the trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// Position in the trace, from 0.
    pub seq: u64,
    /// Virtual time in nanoseconds since the Unix epoch.
    pub t_ns: u64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// An image a tool returned, as the trace records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageRef {
    /// Its media type, e.g. `image/png`.
    pub media_type: String,
    /// blake3 of its bytes (hex).
    pub hash: String,
    /// Its size in bytes.
    pub size: u64,
}

/// A service's `/audit` document, kept as the JSON text the trace holds (compact, keys sorted:
/// as `serde_json` writes a [`Value`]) and parsed only when read: a trial writes its audits
/// into the trace without building them as values, and a judge whose checks never read them
/// never parses them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditData(Arc<str>);

impl AuditData {
    /// The document whose compact JSON with sorted keys is `text` (as `serde_json` writes a
    /// [`Value`]; the trace holds these bytes as they are). Not checked: text that is not JSON
    /// panics when the document is read.
    pub fn from_json_text(text: impl Into<Arc<str>>) -> Self {
        AuditData(text.into())
    }

    /// The JSON text.
    pub fn as_json_text(&self) -> &str {
        &self.0
    }

    /// The document parsed.
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.0).expect("audit data is JSON written by serde_json")
    }
}

impl From<Value> for AuditData {
    fn from(value: Value) -> Self {
        AuditData::from(&value)
    }
}

impl From<&Value> for AuditData {
    fn from(value: &Value) -> Self {
        AuditData(Arc::from(value.to_string()))
    }
}

impl std::fmt::Display for AuditData {
    /// The JSON text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for AuditData {
    /// As the document (parsed: [`write_event`] writes the text of a trace's audit events as
    /// it is, without this).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for AuditData {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(AuditData::from)
    }
}

/// Writes `event` as one trace line (JSON and a newline) to `out`: what serde writes, except
/// that an audit event's document goes in as the text it is kept as.
pub fn write_event(out: &mut Vec<u8>, event: &Event) {
    match &event.kind {
        EventKind::Audit { service, data } => {
            // The field order serde derives: seq, t_ns, then the flattened kind.
            out.extend_from_slice(b"{\"seq\":");
            out.extend_from_slice(event.seq.to_string().as_bytes());
            out.extend_from_slice(b",\"t_ns\":");
            out.extend_from_slice(event.t_ns.to_string().as_bytes());
            out.extend_from_slice(b",\"type\":\"audit\",\"service\":");
            serde_json::to_writer(&mut *out, service).expect("a string serialises");
            out.extend_from_slice(b",\"data\":");
            out.extend_from_slice(data.as_json_text().as_bytes());
            out.push(b'}');
        }
        _ => serde_json::to_writer(&mut *out, event).expect("events serialise"),
    }
    out.push(b'\n');
}

/// What a trace event records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// The trial begins (after Setup).
    TraceStart {
        /// [`TRACE_VERSION`].
        version: u32,
        /// The task id.
        task_id: String,
        /// blake3 of the task's files (hex).
        task_hash: String,
        /// The trial index, from 0.
        trial: u32,
        /// The trial's seed (derived from the run seed, task id and trial index).
        seed: u64,
        /// The agent, e.g. `oracle` or `openai:gpt-5`.
        agent: String,
        /// The system prompt shown to the agent.
        system: String,
        /// The tools shown to the agent, in order.
        tools: Vec<String>,
        /// The fault plan's rule names (empty when no faults are injected).
        faults: Vec<String>,
        /// The workspace's root hash after Setup.
        root_hash: String,
    },
    /// A message entered the conversation (the prompt, an assistant turn).
    Message {
        /// Who wrote it.
        role: Role,
        /// Its blocks (tool results travel as `tool_result` events instead).
        content: Vec<Block>,
        /// Tokens the assistant turn cost (assistant messages only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
        /// Whether the assistant turn was served from the response cache (`--cache`) rather
        /// than by the model; absent when not.
        #[serde(default, skip_serializing_if = "is_false")]
        cached: bool,
    },
    /// The agent called a tool.
    ToolCall {
        /// The call id.
        id: String,
        /// The tool.
        name: String,
        /// The arguments.
        input: Value,
    },
    /// An agent program called its model through clawrun's model proxy (`--agent cmd:`): what
    /// was answered, verbatim, so that a replay serves the same answer.
    ModelCall {
        /// The call's number in the trial, from 1.
        n: u32,
        /// The wire: `chat`, `responses` or `messages`.
        wire: String,
        /// The HTTP status answered.
        status: u16,
        /// The fault injected into this call (`http_429`, `truncated_body`, ...); absent when
        /// none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fault: Option<String>,
        /// The answer's content type.
        content_type: String,
        /// The answer's body as sent (JSON, or the server-sent events of a stream); empty when
        /// the connection was reset.
        body: String,
    },
    /// A fault was injected while serving a call.
    Fault {
        /// Where (`service:gmail/gmail/send`, `tool:Bash`, `fs:write:/workspace/x`).
        point: String,
        /// The rule's name.
        rule: String,
        /// What was injected (`http_429`, `latency`, `eio`, ...).
        kind: String,
        /// The point's call counter when it fired, from 1.
        call: u64,
    },
    /// A tool answered.
    ToolResult {
        /// The call id.
        id: String,
        /// The tool.
        name: String,
        /// What the model sees.
        output: String,
        /// Whether it is an error.
        is_error: bool,
        /// The HTTP status, for service tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
        /// The workspace's root hash after the call, when the call changed it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        root_hash: Option<String>,
        /// Images the tool returned to the model (recorded by hash; the bytes stay out of the
        /// trace). Absent when there are none, as in traces written before tools returned images.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<ImageRef>,
        /// The exit status of the command the tool ran (Bash), beside the text; absent for
        /// other tools.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        /// Characters of output cut by the 30,000-character cap; absent when none.
        #[serde(default, skip_serializing_if = "is_zero")]
        truncated: u64,
    },
    /// The simulated user answered.
    UserTurn {
        /// The round, from 1.
        round: u32,
        /// The reply.
        text: String,
        /// Whether the user ended the dialogue (`[DONE]`).
        done: bool,
    },
    /// The Judge phase's environment snapshot.
    Snapshot {
        /// The workspace's root hash at the end of Execution.
        root_hash: String,
        /// `env_snapshot_commands` with their output.
        commands: Vec<CommandOutput>,
        /// `env_snapshot_files` read back (path, blake3 hex, size).
        files: Vec<SnapshotFile>,
        /// Links the agent planted towards judge files (`link -> target`); any fails the
        /// trial's integrity gate. Absent when none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tampering: Vec<String>,
    },
    /// A service's audit data, collected in the Judge phase.
    Audit {
        /// The service instance name.
        service: String,
        /// The service's `/audit` document.
        data: AuditData,
    },
    /// The trial ended.
    TraceEnd {
        /// Why Execution stopped.
        outcome: Outcome,
        /// Assistant turns taken.
        turns: u32,
        /// Simulated-user rounds.
        user_rounds: u32,
        /// Tokens spent by the agent.
        usage: Usage,
        /// Faults injected.
        faults: u32,
        /// The final answer's text.
        final_text: String,
        /// The workspace's root hash at the end.
        root_hash: String,
        /// The agent's error, when `outcome` is `agent_error` or `infra_error`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// The sandbox limits the trial's tool calls hit (`vfs_bytes`, `vfs_inodes`,
        /// `path_depth`, `fuel`, `memory`, `host_work`, `deadline`); absent when none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        limits: Vec<String>,
    },
}

/// Whether a flag is off (serde skips such fields).
fn is_false(b: &bool) -> bool {
    !*b
}

/// One `env_snapshot_commands` entry after it ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommandOutput {
    /// The command.
    pub command: String,
    /// What the Bash tool printed (with its `[exit code: N]` suffix when non-zero).
    pub output: String,
    /// Its exit status, as the tool reported it beside the output.
    pub exit_code: i32,
    /// Characters of output cut by the 30,000-character cap; absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub truncated: u64,
}

/// Whether a count is zero (serde's `skip_serializing_if`).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One file collected by the snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotFile {
    /// The guest path.
    pub path: String,
    /// blake3 of its bytes, hex.
    pub hash: String,
    /// Its size in bytes.
    pub size: u64,
}

/// Why Execution stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The agent gave a final answer (and the simulated user, if any, was done).
    FinalAnswer,
    /// `environment.max_turns` was reached.
    MaxTurns,
    /// The virtual time limit (`environment.timeout_seconds`) was reached.
    Timeout,
    /// The token limit was reached.
    TokenLimit,
    /// The agent produced something unusable, or a replay diverged.
    AgentError,
    /// The model API failed after retries (kept out of scores).
    InfraError,
    /// The task's own content could not be run or judged (kept out of scores; `error` says
    /// why).
    TaskError,
}

/// Writes events as JSONL, numbering them.
pub struct TraceWriter<W: Write> {
    /// Where lines go.
    out: W,
    /// The next `seq`.
    next: u64,
}

impl<W: Write> TraceWriter<W> {
    /// A writer starting at `seq` 0.
    pub fn new(out: W) -> Self {
        TraceWriter { out, next: 0 }
    }

    /// Appends one event at virtual time `t_ns` and returns it.
    pub fn push(&mut self, t_ns: u64, kind: EventKind) -> io::Result<Event> {
        let event = Event {
            seq: self.next,
            t_ns,
            kind,
        };
        self.next += 1;
        serde_json::to_writer(&mut self.out, &event)?;
        self.out.write_all(b"\n")?;
        Ok(event)
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Why a trace could not be read: the line (from 1) and the cause.
#[derive(Debug, thiserror::Error)]
pub enum TraceReadError {
    /// The line could not be read.
    #[error("line {line}: {source}")]
    Io {
        /// The line, from 1.
        line: usize,
        /// The I/O error.
        source: io::Error,
    },
    /// The line is not a trace event.
    #[error("line {line}: {source}")]
    Parse {
        /// The line, from 1.
        line: usize,
        /// The parser's complaint.
        source: serde_json::Error,
    },
}

/// Reads a JSONL trace; errors name the line.
pub fn read_trace(input: impl BufRead) -> Result<Vec<Event>, TraceReadError> {
    let mut events = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|source| TraceReadError::Io {
            line: i + 1,
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let event: Event = serde_json::from_str(&line).map_err(|source| TraceReadError::Parse {
            line: i + 1,
            source,
        })?;
        events.push(event);
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_audit_event_is_written_as_serde_writes_it_with_its_text_as_is() {
        let doc = serde_json::json!({
            "calls": [{"endpoint": "/gmail/send", "body": {"to": "a\"b", "n": 1.5, "big": 18446744073709551615u64}}],
            "z": null, "a": [true, -3]
        });
        let data = AuditData::from(&doc);
        assert_eq!(data.as_json_text(), doc.to_string());
        for kind in [
            EventKind::Audit {
                service: "gmail \u{1F4E7}".into(),
                data: data.clone(),
            },
            EventKind::UserTurn {
                round: 1,
                text: "hi".into(),
                done: false,
            },
        ] {
            let event = Event {
                seq: 24,
                t_ns: 1_767_225_600_000_000_001,
                kind,
            };
            let mut fast = Vec::new();
            write_event(&mut fast, &event);
            let derived = serde_json::to_string(&event).unwrap() + "\n";
            assert_eq!(String::from_utf8(fast.clone()).unwrap(), derived);
            let back: Event = serde_json::from_slice(&fast).unwrap();
            assert_eq!(back, event);
        }
        assert_eq!(data.to_value(), doc);
    }
}
