//! One trial's trace walked into what every format maps: the start (system prompt, tools,
//! fault rules), the prompt, then steps in order — messages, tool calls paired with their
//! results and the faults injected while serving them, simulated-user turns, faults met
//! outside a tool call, calls of an agent program to its model — and the Judge phase's
//! snapshot and audits, and the end.

use clawrun_agents::trace::{CommandOutput, Event, EventKind, ImageRef, Outcome, SnapshotFile};
use clawrun_agents::{Block, Role, Usage};
use serde_json::Value;

/// A fault injected while serving a call.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// Virtual time, ns.
    pub t_ns: u64,
    /// Where (`service:gmail/gmail/send`, `tool:Bash`, `fs:write:/workspace/x`, `model:chat`).
    pub point: String,
    /// The rule's name.
    pub rule: String,
    /// What was injected (`http_429`, `latency`, ...).
    pub kind: String,
    /// The point's call counter, from 1.
    pub call: u64,
}

/// A tool call and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolStep {
    /// The call id.
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments.
    pub input: Value,
    /// Virtual time of the call, ns.
    pub call_ns: u64,
    /// The result; `None` when the trial ended before it.
    pub result: Option<ToolResult>,
    /// Faults injected while serving it.
    pub faults: Vec<Fault>,
}

/// What a tool answered.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    /// Virtual time of the answer, ns.
    pub t_ns: u64,
    /// What the model saw.
    pub output: String,
    /// Whether it is an error.
    pub is_error: bool,
    /// The HTTP status (service tools).
    pub status: Option<u16>,
    /// The workspace's root hash after the call, when it changed.
    pub root_hash: Option<String>,
    /// Images shown to the model (by hash; the bytes are not in the trace).
    pub images: Vec<ImageRef>,
    /// The exit status of the command (Bash).
    pub exit_code: Option<i32>,
    /// Characters cut by the output cap.
    pub truncated: u64,
}

/// An agent program's call to its model through clawrun's proxy (`--agent cmd:`).
#[derive(Clone, Debug, PartialEq)]
pub struct ModelCall {
    /// Virtual time, ns.
    pub t_ns: u64,
    /// The call's number, from 1.
    pub n: u32,
    /// `chat`, `responses` or `messages`.
    pub wire: String,
    /// The HTTP status answered.
    pub status: u16,
    /// The fault injected into it.
    pub fault: Option<String>,
    /// The answer's content type.
    pub content_type: String,
    /// The answer's body, verbatim.
    pub body: String,
}

/// One step of the conversation.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A message (an assistant turn, or a user message after the prompt).
    Message {
        /// Virtual time, ns.
        t_ns: u64,
        /// Virtual time of the step before it (when the turn was asked for), ns.
        since_ns: u64,
        /// Who wrote it.
        role: Role,
        /// Its blocks.
        content: Vec<Block>,
        /// Tokens the turn cost (assistant turns).
        usage: Option<Usage>,
        /// Served from the response cache (`--cache`).
        cached: bool,
    },
    /// A tool call and its result.
    Tool(ToolStep),
    /// The simulated user answered.
    UserTurn {
        /// Virtual time, ns.
        t_ns: u64,
        /// The round, from 1.
        round: u32,
        /// The reply.
        text: String,
        /// Whether the user ended the dialogue.
        done: bool,
    },
    /// A fault met outside any tool call (a model call's, say).
    Fault(Fault),
    /// An agent program's model call.
    ModelCall(ModelCall),
}

/// The Judge phase's snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// Virtual time, ns.
    pub t_ns: u64,
    /// The workspace's root hash at the end of Execution.
    pub root_hash: String,
    /// Commands with their output.
    pub commands: Vec<CommandOutput>,
    /// Files read back.
    pub files: Vec<SnapshotFile>,
    /// Links planted towards judge files.
    pub tampering: Vec<String>,
}

/// How the trial ended.
#[derive(Clone, Debug, PartialEq)]
pub struct End {
    /// Virtual time, ns.
    pub t_ns: u64,
    /// Why Execution stopped.
    pub outcome: Outcome,
    /// Tokens spent.
    pub usage: Usage,
    /// Faults injected.
    pub faults: u32,
    /// The final answer's text.
    pub final_text: String,
    /// The agent's or task's error.
    pub error: Option<String>,
    /// Sandbox limits hit.
    pub limits: Vec<String>,
}

/// A trial's trace, walked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrialTrace {
    /// Virtual time of `trace_start`, ns.
    pub start_ns: u64,
    /// The system prompt.
    pub system: String,
    /// The tools shown, in order.
    pub tools: Vec<String>,
    /// The fault plan's rule names.
    pub fault_rules: Vec<String>,
    /// The prompt's blocks (the first user message).
    pub prompt: Vec<Block>,
    /// Virtual time of the prompt, ns.
    pub prompt_ns: u64,
    /// The steps after the prompt, in order.
    pub steps: Vec<Step>,
    /// The snapshot, when the Judge phase ran.
    pub snapshot: Option<Snapshot>,
    /// The services' audit documents, by service.
    pub audits: Vec<(String, Value)>,
    /// The end, when the trace has one.
    pub end: Option<End>,
}

impl TrialTrace {
    /// Walks `events`.
    pub fn walk(events: &[Event]) -> TrialTrace {
        let mut t = TrialTrace::default();
        let mut last_ns = 0;
        let mut saw_prompt = false;
        for e in events {
            let at = e.t_ns;
            match &e.kind {
                EventKind::TraceStart {
                    system,
                    tools,
                    faults,
                    ..
                } => {
                    t.start_ns = at;
                    t.system = system.clone();
                    t.tools = tools.clone();
                    t.fault_rules = faults.clone();
                }
                EventKind::Message { role, content, .. } if *role == Role::User && !saw_prompt => {
                    saw_prompt = true;
                    t.prompt = content.clone();
                    t.prompt_ns = at;
                }
                EventKind::Message {
                    role,
                    content,
                    usage,
                    cached,
                } => t.steps.push(Step::Message {
                    t_ns: at,
                    since_ns: last_ns,
                    role: *role,
                    content: content.clone(),
                    usage: *usage,
                    cached: *cached,
                }),
                EventKind::ToolCall { id, name, input } => t.steps.push(Step::Tool(ToolStep {
                    id: id.clone(),
                    name: name.clone(),
                    input: input.clone(),
                    call_ns: at,
                    result: None,
                    faults: Vec::new(),
                })),
                EventKind::Fault {
                    point,
                    rule,
                    kind,
                    call,
                } => {
                    let fault = Fault {
                        t_ns: at,
                        point: point.clone(),
                        rule: rule.clone(),
                        kind: kind.clone(),
                        call: *call,
                    };
                    match t.open_call() {
                        Some(step) => step.faults.push(fault),
                        None => t.steps.push(Step::Fault(fault)),
                    }
                }
                EventKind::ToolResult {
                    id,
                    name,
                    output,
                    is_error,
                    status,
                    root_hash,
                    images,
                    exit_code,
                    truncated,
                } => {
                    let result = ToolResult {
                        t_ns: at,
                        output: output.clone(),
                        is_error: *is_error,
                        status: *status,
                        root_hash: root_hash.clone(),
                        images: images.clone(),
                        exit_code: *exit_code,
                        truncated: *truncated,
                    };
                    match t.call_named(id) {
                        Some(step) => step.result = Some(result),
                        // A result without its call (never written so): kept as a call
                        // made when it answered.
                        None => t.steps.push(Step::Tool(ToolStep {
                            id: id.clone(),
                            name: name.clone(),
                            input: Value::Object(Default::default()),
                            call_ns: at,
                            result: Some(result),
                            faults: Vec::new(),
                        })),
                    }
                }
                EventKind::UserTurn { round, text, done } => t.steps.push(Step::UserTurn {
                    t_ns: at,
                    round: *round,
                    text: text.clone(),
                    done: *done,
                }),
                EventKind::ModelCall {
                    n,
                    wire,
                    status,
                    fault,
                    content_type,
                    body,
                } => t.steps.push(Step::ModelCall(ModelCall {
                    t_ns: at,
                    n: *n,
                    wire: wire.clone(),
                    status: *status,
                    fault: fault.clone(),
                    content_type: content_type.clone(),
                    body: body.clone(),
                })),
                EventKind::Snapshot {
                    root_hash,
                    commands,
                    files,
                    tampering,
                } => {
                    t.snapshot = Some(Snapshot {
                        t_ns: at,
                        root_hash: root_hash.clone(),
                        commands: commands.clone(),
                        files: files.clone(),
                        tampering: tampering.clone(),
                    })
                }
                EventKind::Audit { service, data } => {
                    t.audits.push((service.clone(), data.to_value()));
                }
                EventKind::TraceEnd {
                    outcome,
                    usage,
                    faults,
                    final_text,
                    error,
                    limits,
                    ..
                } => {
                    t.end = Some(End {
                        t_ns: at,
                        outcome: *outcome,
                        usage: *usage,
                        faults: *faults,
                        final_text: final_text.clone(),
                        error: error.clone(),
                        limits: limits.clone(),
                    })
                }
            }
            last_ns = at;
        }
        t
    }

    /// The last tool call still waiting for its result.
    fn open_call(&mut self) -> Option<&mut ToolStep> {
        self.steps.iter_mut().rev().find_map(|s| match s {
            Step::Tool(call) if call.result.is_none() => Some(call),
            _ => None,
        })
    }

    /// The call `id` still waiting for its result.
    fn call_named(&mut self, id: &str) -> Option<&mut ToolStep> {
        self.steps.iter_mut().rev().find_map(|s| match s {
            Step::Tool(call) if call.result.is_none() && call.id == id => Some(call),
            _ => None,
        })
    }

    /// Virtual time of the last event, ns.
    pub fn end_ns(&self) -> u64 {
        self.end.as_ref().map_or(self.start_ns, |e| e.t_ns)
    }

    /// Every fault, in or out of tool calls, in order.
    pub fn faults(&self) -> impl Iterator<Item = &Fault> {
        self.steps.iter().flat_map(|s| match s {
            Step::Tool(call) => call.faults.iter().collect::<Vec<_>>(),
            Step::Fault(f) => vec![f],
            _ => Vec::new(),
        })
    }
}

/// The text blocks of `content` joined with newlines.
pub fn text_of(content: &[Block]) -> String {
    let parts: Vec<&str> = content
        .iter()
        .filter_map(|b| match b {
            Block::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    parts.join("\n")
}

/// The fault as JSON (`{point, rule, kind, call, t_ns}`).
pub fn fault_json(f: &Fault) -> Value {
    serde_json::json!({
        "point": f.point, "rule": f.rule, "kind": f.kind, "call": f.call, "t_ns": f.t_ns,
    })
}

/// A note standing for an image the trace keeps by hash only (its bytes are not recorded).
pub fn image_note(image: &ImageRef) -> String {
    format!(
        "[image {} of {} bytes, blake3 {}: clawrun's trace keeps images a tool returned by hash, not their bytes]",
        image.media_type, image.size, image.hash
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(seq: u64, t_ns: u64, kind: EventKind) -> Event {
        Event { seq, t_ns, kind }
    }

    fn fault(kind: &str) -> EventKind {
        EventKind::Fault {
            point: "tool:Bash".into(),
            rule: "r".into(),
            kind: kind.into(),
            call: 1,
        }
    }

    fn result(id: &str) -> EventKind {
        EventKind::ToolResult {
            id: id.into(),
            name: "Bash".into(),
            output: "out".into(),
            is_error: true,
            status: Some(429),
            root_hash: None,
            images: Vec::new(),
            exit_code: None,
            truncated: 0,
        }
    }

    #[test]
    fn faults_go_to_the_open_call_and_results_to_their_calls() {
        let call = |id: &str| EventKind::ToolCall {
            id: id.into(),
            name: "Bash".into(),
            input: json!({"command": "ls"}),
        };
        let events = vec![
            ev(
                0,
                10,
                EventKind::Message {
                    role: Role::User,
                    content: vec![Block::text("do it")],
                    usage: None,
                    cached: false,
                },
            ),
            ev(1, 11, fault("http_429")),
            ev(
                2,
                12,
                EventKind::Message {
                    role: Role::Assistant,
                    content: vec![Block::text("ok")],
                    usage: Some(Usage {
                        input_tokens: 5,
                        output_tokens: 2,
                        cached_input_tokens: 0,
                    }),
                    cached: false,
                },
            ),
            ev(3, 13, call("a")),
            ev(4, 14, fault("latency")),
            ev(5, 20, result("a")),
            ev(6, 21, result("orphan")),
        ];
        let t = TrialTrace::walk(&events);
        assert_eq!(t.prompt, vec![Block::text("do it")]);
        assert_eq!(t.prompt_ns, 10);
        let Step::Fault(f) = &t.steps[0] else {
            panic!("{:?}", t.steps[0])
        };
        assert_eq!(f.kind, "http_429", "a fault with no open call stands alone");
        let Step::Message { since_ns, .. } = &t.steps[1] else {
            panic!()
        };
        assert_eq!(*since_ns, 11, "a turn starts when the step before it ended");
        let Step::Tool(a) = &t.steps[2] else { panic!() };
        assert_eq!((a.id.as_str(), a.call_ns), ("a", 13));
        assert_eq!(a.faults.len(), 1);
        assert_eq!(a.result.as_ref().unwrap().status, Some(429));
        let Step::Tool(orphan) = &t.steps[3] else {
            panic!()
        };
        assert_eq!(orphan.id, "orphan", "a result without its call is kept");
        let kinds: Vec<&str> = t.faults().map(|f| f.kind.as_str()).collect();
        assert_eq!(kinds, ["http_429", "latency"]);
    }
}
