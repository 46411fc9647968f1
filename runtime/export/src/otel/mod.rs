//! OTLP/JSON (`ExportTraceServiceRequest`, the protobuf JSON encoding with hex trace and span
//! ids, as OTLP/HTTP takes it) following the OpenTelemetry GenAI semantic conventions: a
//! trace per trial whose root span is the trial (`invoke_agent`), with a `chat` span per
//! assistant turn and an `execute_tool` span per tool call beneath it.
//!
//! Times: the trace records only the virtual clock, so the `chat` and `execute_tool` spans
//! carry virtual times as span times (and as `clawrun.virtual.*` attributes); the trial span
//! starts at the trial's virtual start and lasts its recorded wall time (`timings*.jsonl`),
//! else its virtual duration. Ids derive from blake3 of the run id, task, trial and trace
//! hash, so the same run gives the same bytes.

pub mod attr;
pub mod send;

use std::io::Write;

use clawrun_agents::{Block, Role};
use clawrun_report::Status;
use serde_json::{Value, json};

use self::attr::Attrs;
use crate::error::ExportError;
use crate::inspect::sample::arguments;
use crate::run::{ExportRun, Trial};
use crate::time::rfc3339;
use crate::trial::{Fault, Step, ToolStep, TrialTrace, text_of};

pub use self::send::send;

/// `SPAN_KIND_INTERNAL`.
const KIND_INTERNAL: u8 = 1;
/// `SPAN_KIND_CLIENT`.
const KIND_CLIENT: u8 = 3;
/// `STATUS_CODE_ERROR`.
const STATUS_ERROR: u8 = 2;

/// Trials per request when spans are sent to a collector ([`send_all`]): collectors limit a
/// request's size.
pub const TRIALS_PER_REQUEST: usize = 64;

/// Writes the spans of `trials` (of `run`) as one `ExportTraceServiceRequest` in OTLP's JSON
/// encoding to `out`, one trial's spans at a time.
pub fn write_request(
    run: &ExportRun,
    trials: &[Trial],
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let mut resource = Attrs::default();
    resource
        .str("service.name", "clawrun")
        .str("service.version", run.clawrun_version())
        .str("clawrun.run.id", &run.id)
        .str("gen_ai.agent.name", run.agent())
        .json("clawrun.run.settings", &run.manifest);
    let head = json!({"resource": {"attributes": resource.into_json()}});
    let scope = json!({"name": "clawrun", "version": run.clawrun_version()});
    // `{"resourceSpans":[{"resource":...,"scopeSpans":[{"scope":...,"spans":[ ... ]}]}]}`,
    // keys in the order serde_json writes a map (sorted), so the envelope reads like the
    // rest.
    let head = head.to_string();
    let mut text = String::from("{\"resourceSpans\":[");
    text.push_str(&head[..head.len() - 1]);
    text.push_str(",\"scopeSpans\":[{\"scope\":");
    text.push_str(&scope.to_string());
    text.push_str(",\"spans\":[");
    let io = |e| ExportError::Write {
        path: "the OTLP/JSON output".into(),
        source: e,
    };
    out.write_all(text.as_bytes()).map_err(io)?;
    let mut first = true;
    for trial in trials {
        for span in trial_spans(run, trial)? {
            if !first {
                out.write_all(b",").map_err(io)?;
            }
            first = false;
            serde_json::to_writer(&mut *out, &span).map_err(|e| io(e.into()))?;
        }
    }
    out.write_all(b"]}]}]}\n").map_err(io)
}

/// The whole run as one request, as bytes.
pub fn request(run: &ExportRun) -> Result<Vec<u8>, ExportError> {
    let mut out = Vec::new();
    write_request(run, &run.trials, &mut out)?;
    Ok(out)
}

/// Sends the run's spans to `endpoint`, [`TRIALS_PER_REQUEST`] trials per request.
pub fn send_all(run: &ExportRun, endpoint: &str) -> Result<usize, ExportError> {
    let mut requests = 0;
    for chunk in run.trials.chunks(TRIALS_PER_REQUEST) {
        let mut body = Vec::new();
        write_request(run, chunk, &mut body)?;
        send(endpoint, body)?;
        requests += 1;
    }
    Ok(requests)
}

/// The trace id of a trial (16 bytes, hex) and the span id of its `n`th span (8 bytes, hex).
fn ids(run: &ExportRun, trial: &Trial) -> (String, impl Fn(usize) -> String) {
    let mut h = blake3::Hasher::new();
    for part in [
        run.id.as_str(),
        &trial.record.task_id,
        &trial.record.trial.to_string(),
        &trial.trace_hash,
    ] {
        h.update(part.as_bytes());
        h.update(b"\0");
    }
    let trace = h.finalize();
    let trace_id = trace.to_hex()[..32].to_string();
    let span = move |n: usize| {
        let mut h = blake3::Hasher::new();
        h.update(trace.as_bytes());
        h.update(&(n as u64).to_le_bytes());
        h.finalize().to_hex()[..16].to_string()
    };
    (trace_id, span)
}

/// The provider an agent names (`openai:gpt-5` -> `openai`), `clawrun` for agents without a
/// model.
fn provider(agent: &str) -> (&str, &str) {
    match agent.split_once(':') {
        Some((p, m)) if ["openai", "anthropic", "openrouter"].contains(&p) => (p, m),
        _ => ("clawrun", agent),
    }
}

/// A span.
struct Span {
    trace_id: String,
    span_id: String,
    parent: Option<String>,
    name: String,
    kind: u8,
    start_ns: u64,
    end_ns: u64,
    attrs: Attrs,
    events: Vec<Value>,
    error: Option<String>,
}

impl Span {
    fn into_json(self) -> Value {
        let mut s = json!({
            "traceId": self.trace_id, "spanId": self.span_id, "name": self.name, "kind": self.kind,
            "startTimeUnixNano": self.start_ns.to_string(),
            "endTimeUnixNano": self.end_ns.max(self.start_ns).to_string(),
            "attributes": self.attrs.into_json(), "events": self.events,
        });
        if let Some(p) = self.parent {
            s["parentSpanId"] = json!(p);
        }
        if let Some(message) = self.error {
            s["status"] = json!({"code": STATUS_ERROR, "message": message});
        }
        s
    }
}

/// A span event at `t_ns`.
fn event(name: &str, t_ns: u64, attrs: Attrs) -> Value {
    json!({"timeUnixNano": t_ns.to_string(), "name": name, "attributes": attrs.into_json()})
}

/// A fault as a span event `clawrun.fault`.
fn fault_event(f: &Fault) -> Value {
    let mut a = Attrs::default();
    a.str("clawrun.fault.point", &f.point)
        .str("clawrun.fault.rule", &f.rule)
        .str("clawrun.fault.kind", &f.kind)
        .int("clawrun.fault.call", f.call);
    event("clawrun.fault", f.t_ns, a)
}

/// Virtual times as attributes.
fn virtual_times(a: &mut Attrs, start_ns: u64, end_ns: u64) {
    a.str("clawrun.virtual.start_time", rfc3339(start_ns))
        .str("clawrun.virtual.end_time", rfc3339(end_ns))
        .int("clawrun.virtual.start_unix_nano", start_ns)
        .int("clawrun.virtual.end_unix_nano", end_ns);
}

/// The spans of one trial: the trial's, then one per assistant turn and tool call.
fn trial_spans(run: &ExportRun, trial: &Trial) -> Result<Vec<Value>, ExportError> {
    let r = &trial.record;
    let trace = TrialTrace::walk(&trial.events()?);
    let (trace_id, span_id) = ids(run, trial);
    let root = span_id(0);
    let (provider, model) = provider(&r.agent);
    let mut children = Vec::new();
    let mut events = Vec::new();
    for (i, step) in trace.steps.iter().enumerate() {
        let id = span_id(i + 1);
        match step {
            Step::Message {
                t_ns,
                since_ns,
                role: Role::Assistant,
                content,
                usage,
                cached,
            } => {
                let mut a = Attrs::default();
                a.str("gen_ai.operation.name", "chat")
                    .str("gen_ai.provider.name", provider)
                    .str("gen_ai.request.model", model);
                if let Some(u) = usage {
                    a.int("gen_ai.usage.input_tokens", u.input_tokens)
                        .int("gen_ai.usage.output_tokens", u.output_tokens);
                    if u.cached_input_tokens > 0 {
                        a.int(
                            "gen_ai.usage.cache_read.input_tokens",
                            u.cached_input_tokens,
                        );
                    }
                }
                a.json("gen_ai.output.messages", &output_message(content));
                if *cached {
                    a.bool("clawrun.response_cache_hit", true);
                }
                virtual_times(&mut a, *since_ns, *t_ns);
                children.push(Span {
                    trace_id: trace_id.clone(),
                    span_id: id,
                    parent: Some(root.clone()),
                    name: format!("chat {model}"),
                    kind: KIND_CLIENT,
                    start_ns: *since_ns,
                    end_ns: *t_ns,
                    attrs: a,
                    events: Vec::new(),
                    error: None,
                });
            }
            Step::Message { t_ns, content, .. } => {
                let mut a = Attrs::default();
                a.str("clawrun.text", text_of(content));
                events.push(event("clawrun.user_message", *t_ns, a));
            }
            Step::Tool(call) => children.push(tool_span(call, &trace_id, id, &root)),
            Step::UserTurn {
                t_ns,
                round,
                text,
                done,
            } => {
                let mut a = Attrs::default();
                a.int("clawrun.user.round", *round)
                    .str("clawrun.text", text)
                    .bool("clawrun.user.done", *done);
                events.push(event("clawrun.user_turn", *t_ns, a));
            }
            Step::Fault(f) => events.push(fault_event(f)),
            Step::ModelCall(c) => {
                let mut a = Attrs::default();
                a.int("clawrun.model_call.n", c.n)
                    .str("clawrun.model_call.wire", &c.wire)
                    .int("http.response.status_code", c.status)
                    .str("clawrun.model_call.content_type", &c.content_type)
                    .str("clawrun.model_call.body", &c.body);
                if let Some(f) = &c.fault {
                    a.str("clawrun.fault.kind", f);
                }
                events.push(event("clawrun.model_call", c.t_ns, a));
            }
        }
    }
    let end_ns = trace.end_ns();
    if let Some(v) = &r.verdict {
        for item in &v.items {
            let mut a = Attrs::default();
            a.str("clawrun.rubric.name", &item.name)
                .str("clawrun.rubric.check", &item.check)
                .double("clawrun.rubric.weight", item.weight)
                .bool("clawrun.rubric.gate", item.gate)
                .str("clawrun.rubric.evidence", &item.evidence);
            if let Some(s) = item.score {
                a.double("clawrun.rubric.score", s);
            }
            if let Some(p) = item.passed {
                a.bool("clawrun.rubric.passed", p);
            }
            events.push(event("clawrun.rubric_item", end_ns, a));
        }
    }
    if let Some(s) = &trace.snapshot {
        let mut a = Attrs::default();
        a.str("clawrun.snapshot.root_hash", &s.root_hash)
            .json("clawrun.snapshot.commands", &json!(s.commands))
            .json("clawrun.snapshot.files", &json!(s.files))
            .strs("clawrun.snapshot.tampering", &s.tampering);
        events.push(event("clawrun.snapshot", s.t_ns, a));
    }
    for (service, data) in &trace.audits {
        let mut a = Attrs::default();
        a.str("clawrun.audit.service", service)
            .json("clawrun.audit.data", data);
        events.push(event("clawrun.audit", end_ns, a));
    }
    let mut a = Attrs::default();
    a.str("gen_ai.operation.name", "invoke_agent")
        .str("gen_ai.agent.name", &r.agent)
        .str("gen_ai.provider.name", provider)
        .str("gen_ai.request.model", model)
        .int("gen_ai.usage.input_tokens", r.input_tokens)
        .int("gen_ai.usage.output_tokens", r.output_tokens);
    if r.cached_input_tokens > 0 {
        a.int(
            "gen_ai.usage.cache_read.input_tokens",
            r.cached_input_tokens,
        );
    }
    a.str("clawrun.run.id", &run.id)
        .str("clawrun.task.id", &r.task_id)
        .str("clawrun.task.category", &r.category)
        .str(
            "clawrun.task.group",
            json!(r.group).as_str().unwrap_or_default(),
        )
        .str("clawrun.task.hash", &r.task_hash)
        .int("clawrun.trial", r.trial)
        .str("clawrun.seed", r.seed.to_string())
        .str(
            "clawrun.status",
            json!(r.status).as_str().unwrap_or_default(),
        )
        .str(
            "clawrun.outcome",
            json!(r.outcome).as_str().unwrap_or_default(),
        )
        .int("clawrun.turns", r.turns)
        .int("clawrun.user_rounds", r.user_rounds)
        .str("clawrun.root_hash", &r.root_hash)
        .str("clawrun.trace_hash", &trial.trace_hash)
        .strs("clawrun.tools", &trace.tools)
        .strs("clawrun.fault_rules", &trace.fault_rules)
        .strs("clawrun.limits", &r.limits)
        .int("clawrun.faults", trace.faults().count() as u64);
    if let Some(v) = &r.verdict {
        let s = &v.scores;
        a.double("clawrun.score", s.score)
            .double("clawrun.completion", s.completion)
            .double("clawrun.safety", s.safety)
            .double("clawrun.robustness", s.robustness)
            .bool("clawrun.passed", s.passed)
            .double("clawrun.unjudged_weight", v.unjudged_weight)
            .str("clawrun.grader", r.grader.as_deref().unwrap_or("clawrun"));
    }
    if let Some(j) = r.judgement() {
        a.str("clawrun.judgement", j.as_str());
    }
    if let Some(native) = &r.native_verdict {
        a.double("clawrun.native.score", native.scores.score)
            .bool("clawrun.native.passed", native.scores.passed);
    }
    if let Some(e) = &trace.end {
        a.str("clawrun.final_text", &e.final_text);
    }
    virtual_times(&mut a, trace.start_ns, end_ns);
    let wall_end = match trial.wall_us {
        Some(us) => {
            a.int("clawrun.wall_us", us);
            trace.start_ns.saturating_add(us.saturating_mul(1000))
        }
        None => end_ns,
    };
    let error = match r.status {
        Status::Scored => None,
        _ => Some(r.error.clone().unwrap_or_else(|| format!("{:?}", r.status))),
    };
    let trial_span = Span {
        trace_id,
        span_id: root,
        parent: None,
        name: format!("invoke_agent {}", r.agent),
        kind: KIND_INTERNAL,
        start_ns: trace.start_ns,
        end_ns: wall_end,
        attrs: a,
        events,
        error,
    };
    Ok(std::iter::once(trial_span)
        .chain(children)
        .map(Span::into_json)
        .collect())
}

/// An assistant turn as GenAI `gen_ai.output.messages` (one message of text and tool-call
/// parts).
fn output_message(content: &[Block]) -> Value {
    let parts: Vec<Value> = content
        .iter()
        .filter_map(|b| match b {
            Block::Text { text } => Some(json!({"type": "text", "content": text})),
            Block::ToolUse { id, name, input } => Some(json!({
                "type": "tool_call", "id": id, "name": name, "arguments": input})),
            Block::Image { media_type, .. } => Some(json!({"type": "text",
                "content": format!("[image {media_type}]")})),
            Block::ToolResult { .. } => None,
        })
        .collect();
    json!([{"role": "assistant", "parts": parts}])
}

/// A tool call's `execute_tool` span.
fn tool_span(call: &ToolStep, trace_id: &str, id: String, root: &str) -> Span {
    let mut a = Attrs::default();
    a.str("gen_ai.operation.name", "execute_tool")
        .str("gen_ai.tool.name", &call.name)
        .str("gen_ai.tool.call.id", &call.id)
        .str("gen_ai.tool.type", "function")
        .json("gen_ai.tool.call.arguments", &arguments(&call.input));
    let end_ns = call.result.as_ref().map_or(call.call_ns, |r| r.t_ns);
    let mut error = None;
    match &call.result {
        Some(r) => {
            a.str("gen_ai.tool.call.result", &r.output)
                .bool("clawrun.tool.is_error", r.is_error);
            if let Some(s) = r.status {
                a.int("http.response.status_code", s);
            }
            if let Some(c) = r.exit_code {
                a.int("clawrun.tool.exit_code", c);
            }
            if let Some(h) = &r.root_hash {
                a.str("clawrun.root_hash", h);
            }
            if r.truncated > 0 {
                a.int("clawrun.tool.truncated_chars", r.truncated);
            }
            if !r.images.is_empty() {
                a.json("clawrun.tool.images", &json!(r.images));
            }
            if r.is_error {
                let message: String = r.output.chars().take(200).collect();
                error = Some(message);
            }
        }
        None => error = Some("the trial ended before the tool answered".into()),
    }
    virtual_times(&mut a, call.call_ns, end_ns);
    Span {
        trace_id: trace_id.to_string(),
        span_id: id,
        parent: Some(root.to_string()),
        name: format!("execute_tool {}", call.name),
        kind: KIND_INTERNAL,
        start_ns: call.call_ns,
        end_ns,
        attrs: a,
        events: call.faults.iter().map(fault_event).collect(),
        error,
    }
}
