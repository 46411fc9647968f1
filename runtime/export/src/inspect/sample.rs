//! One trial as an Inspect `EvalSample` (`samples/{task}_epoch_{trial + 1}.json`): the prompt
//! as input, the conversation as chat messages (images inline as data URIs, tool results as
//! `tool` messages), the final answer as output, the verdict as the `clawrun` score (rubric
//! items in its metadata), usage, and the trace's steps as transcript events.

use clawrun_agents::trace::Outcome;
use clawrun_agents::{Block, Role, Usage};
use serde_json::{Map, Value, json};

use super::model_name;
pub use super::score::{NATIVE_SCORER, SCORER};
use super::score::{limit, metadata, scores};
use crate::run::Trial;
use crate::time::rfc3339;
use crate::trial::{Step, ToolStep, TrialTrace, fault_json, image_note, text_of};

/// A sample and its summary (`summaries.json`'s entry).
pub struct Sample {
    /// The `EvalSample`.
    pub sample: Value,
    /// The `EvalSampleSummary`.
    pub summary: Value,
}

/// Builds the sample of `trial` (whose walked trace is `trace`); `agent` is the run's agent.
pub fn sample(trial: &Trial, trace: &TrialTrace, agent: &str) -> Sample {
    let r = &trial.record;
    let epoch = r.trial + 1;
    let mut ids = MessageIds {
        prefix: format!("{}-{epoch}", r.task_id),
        next: 0,
    };
    let model = model_name(&r.agent);
    let system =
        json!({"id": ids.next(), "role": "system", "content": trace.system, "source": "input"});
    let prompt = json!({"id": ids.next(), "role": "user", "content": content(&trace.prompt), "source": "input"});
    let mut messages = vec![system, prompt.clone()];
    let mut events = vec![event(
        trace.start_ns,
        trace.start_ns,
        json!({"event": "info", "source": "clawrun/trace_start", "data": {
            "tools": trace.tools, "fault_rules": trace.fault_rules, "seed": r.seed.to_string(),
            "task_hash": r.task_hash,
        }}),
    )];
    for step in &trace.steps {
        match step {
            Step::Message {
                t_ns,
                since_ns,
                role: Role::Assistant,
                content: blocks,
                usage,
                cached,
            } => {
                let message = assistant(&mut ids, blocks, &model);
                // The model saw the conversation so far: a range of the sample's messages,
                // which `events_data.messages` holds (Inspect's own way of not repeating
                // them in every model event).
                let mut ev = json!({
                    "event": "model", "model": model, "input": [],
                    "input_refs": [[0, messages.len()]], "tools": [],
                    "tool_choice": "auto", "config": {},
                    "output": output(&model, message.clone(), "stop", usage.as_ref()),
                    "completed": rfc3339(*t_ns),
                    "working_time": secs(t_ns.saturating_sub(*since_ns)),
                });
                if *cached {
                    ev["cache"] = json!("read");
                }
                events.push(event(*since_ns, trace.start_ns, ev));
                messages.push(message);
            }
            Step::Message {
                t_ns,
                content: blocks,
                ..
            } => {
                messages
                    .push(json!({"id": ids.next(), "role": "user", "content": content(blocks)}));
                events.push(info(
                    *t_ns,
                    trace.start_ns,
                    "clawrun/user_message",
                    json!(text_of(blocks)),
                ));
            }
            Step::Tool(call) => {
                for f in &call.faults {
                    events.push(info(f.t_ns, trace.start_ns, "clawrun/fault", fault_json(f)));
                }
                events.push(tool_event(call, trace.start_ns));
                messages.push(tool_message(&mut ids, call));
            }
            Step::UserTurn {
                t_ns,
                round,
                text,
                done,
            } => {
                messages.push(json!({"id": ids.next(), "role": "user", "content": text,
                    "metadata": {"simulated_user_round": round, "done": done}}));
                events.push(info(
                    *t_ns,
                    trace.start_ns,
                    "clawrun/user_turn",
                    json!({"round": round, "text": text, "done": done}),
                ));
            }
            Step::Fault(f) => {
                events.push(info(f.t_ns, trace.start_ns, "clawrun/fault", fault_json(f)))
            }
            Step::ModelCall(c) => events.push(info(
                c.t_ns,
                trace.start_ns,
                "clawrun/model_call",
                json!({
                    "n": c.n, "wire": c.wire, "status": c.status, "fault": c.fault,
                    "content_type": c.content_type, "body": c.body,
                }),
            )),
        }
    }
    if let Some(s) = &trace.snapshot {
        events.push(info(s.t_ns, trace.start_ns, "clawrun/snapshot", json!({
            "root_hash": s.root_hash, "commands": s.commands, "files": s.files, "tampering": s.tampering,
        })));
    }
    let end_ns = trace.end_ns();
    for (service, data) in &trace.audits {
        events.push(info(
            end_ns,
            trace.start_ns,
            "clawrun/audit",
            json!({"service": service, "data": data}),
        ));
    }
    let scores = scores(r);
    if let Some(Value::Object(scores)) = &scores {
        for (scorer, score) in scores {
            events.push(event(
                end_ns,
                trace.start_ns,
                json!({"event": "score", "score": score, "scorer": scorer}),
            ));
        }
    }
    let end = trace.end.as_ref();
    let final_text = end.map_or("", |e| e.final_text.as_str());
    let usage = Usage {
        input_tokens: r.input_tokens,
        output_tokens: r.output_tokens,
        cached_input_tokens: r.cached_input_tokens,
    };
    let final_message = json!({"id": ids.next(), "role": "assistant", "content": final_text,
        "source": "generate", "model": model});
    let stop = match r.outcome {
        Outcome::FinalAnswer => "stop",
        Outcome::TokenLimit => "max_tokens",
        _ => "unknown",
    };
    let model_usage = if r.calls_a_model() {
        json!({ model.clone(): model_usage(&usage) })
    } else {
        json!({})
    };
    let metadata = metadata(trial, trace, agent);
    let mut sample = json!({
        "id": r.task_id, "epoch": epoch, "input": [prompt.clone()], "target": "",
        "messages": messages.clone(),
        "output": output(&model, final_message, stop, Some(&usage)),
        "metadata": metadata,
        "store": {}, "events": events, "model_usage": model_usage, "role_usage": {},
        "started_at": rfc3339(trace.start_ns), "completed_at": rfc3339(end_ns),
        "attachments": {},
        "events_data": {"messages": messages, "calls": []},
    });
    if let Some(us) = trial.wall_us {
        sample["total_time"] = json!(secs(us * 1000));
        sample["working_time"] = json!(secs(us * 1000));
    }
    if let Some(scores) = &scores {
        sample["scores"] = scores.clone();
    }
    if let Some(error) = &r.error {
        sample["error"] = json!({"message": error, "traceback": "", "traceback_ansi": ""});
    }
    if let Some(limit) = limit(r, trace) {
        sample["limit"] = limit;
    }
    let mut summary = json!({
        "id": r.task_id, "epoch": epoch, "input": [summary_message(&prompt)], "target": "",
        "metadata": sample["metadata"], "model_usage": sample["model_usage"], "role_usage": {},
        "started_at": sample["started_at"], "completed_at": sample["completed_at"],
        "completed": true, "message_count": sample["messages"].as_array().map_or(0, Vec::len),
    });
    for key in ["scores", "error", "total_time", "working_time"] {
        if let Some(v) = sample.get(key) {
            summary[key] = match key {
                "error" => v["message"].clone(),
                _ => v.clone(),
            };
        }
    }
    if let Some(limit) = sample.get("limit") {
        summary["limit"] = limit["type"].clone();
    }
    Sample { sample, summary }
}

/// Deterministic message ids: `TASK-EPOCH-N`.
struct MessageIds {
    prefix: String,
    next: u32,
}

impl MessageIds {
    fn next(&mut self) -> String {
        self.next += 1;
        format!("{}-{}", self.prefix, self.next)
    }
}

/// Nanoseconds as seconds.
fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// A transcript event at virtual time `t_ns`, `working_start` counted from the trial's start.
fn event(t_ns: u64, start_ns: u64, mut body: Value) -> Value {
    body["timestamp"] = json!(rfc3339(t_ns));
    body["working_start"] = json!(secs(t_ns.saturating_sub(start_ns)));
    body
}

/// An `info` event from `source`.
fn info(t_ns: u64, start_ns: u64, source: &str, data: Value) -> Value {
    event(
        t_ns,
        start_ns,
        json!({"event": "info", "source": source, "data": data}),
    )
}

/// Blocks as Inspect content: a string when they are one text, else a list of parts.
fn content(blocks: &[Block]) -> Value {
    if let [Block::Text { text }] = blocks {
        return json!(text);
    }
    Value::Array(blocks.iter().filter_map(part).collect())
}

/// One block as an Inspect content part (tool calls and results travel elsewhere).
fn part(block: &Block) -> Option<Value> {
    match block {
        Block::Text { text } => Some(json!({"type": "text", "text": text})),
        Block::Image { media_type, data } => Some(json!({
            "type": "image", "image": format!("data:{media_type};base64,{data}"), "detail": "auto",
        })),
        Block::ToolUse { .. } | Block::ToolResult { .. } => None,
    }
}

/// The summary's form of a message: images as `(Image)`, as Inspect's summaries hold them.
fn summary_message(message: &Value) -> Value {
    let mut m = message.clone();
    if let Some(parts) = m["content"].as_array_mut() {
        for p in parts {
            if p["type"] == "image" {
                *p = json!({"type": "text", "text": "(Image)"});
            }
        }
    }
    m
}

/// An assistant turn as a `ChatMessageAssistant` with its tool calls.
fn assistant(ids: &mut MessageIds, blocks: &[Block], model: &str) -> Value {
    let calls: Vec<Value> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::ToolUse { id, name, input } => Some(json!({
                "id": id, "function": name, "arguments": arguments(input), "type": "function",
            })),
            _ => None,
        })
        .collect();
    let text: Vec<Block> = blocks
        .iter()
        .filter(|b| !matches!(b, Block::ToolUse { .. }))
        .cloned()
        .collect();
    let mut m = json!({"id": ids.next(), "role": "assistant", "content": content(&text),
        "source": "generate", "model": model});
    if !calls.is_empty() {
        m["tool_calls"] = json!(calls);
    }
    m
}

/// Tool arguments as an object (Inspect's `arguments` is a dict): a non-object input is
/// `{"input": ...}`.
pub fn arguments(input: &Value) -> Value {
    match input {
        Value::Object(_) => input.clone(),
        other => json!({ "input": other }),
    }
}

/// A tool's answer as a `ChatMessageTool`.
fn tool_message(ids: &mut MessageIds, call: &ToolStep) -> Value {
    let mut m =
        json!({"id": ids.next(), "role": "tool", "tool_call_id": call.id, "function": call.name});
    match &call.result {
        Some(r) => {
            let mut text = r.output.clone();
            for image in &r.images {
                text.push('\n');
                text.push_str(&image_note(image));
            }
            m["content"] = json!(text);
            if r.is_error {
                m["error"] = json!({"type": "unknown", "message": r.output});
            }
            m["metadata"] = tool_metadata(call);
        }
        None => {
            m["content"] = json!("");
            m["error"] =
                json!({"type": "unknown", "message": "the trial ended before the tool answered"});
        }
    }
    m
}

/// What clawrun records of a tool's answer beyond its text.
fn tool_metadata(call: &ToolStep) -> Value {
    let mut meta = Map::new();
    if let Some(r) = &call.result {
        meta.insert("is_error".into(), json!(r.is_error));
        for (k, v) in [
            ("status", json!(r.status)),
            ("exit_code", json!(r.exit_code)),
            ("root_hash", json!(r.root_hash)),
        ] {
            if !v.is_null() {
                meta.insert(k.into(), v);
            }
        }
        if r.truncated > 0 {
            meta.insert("truncated".into(), json!(r.truncated));
        }
        if !r.images.is_empty() {
            meta.insert("images".into(), json!(r.images));
        }
    }
    if !call.faults.is_empty() {
        meta.insert(
            "faults".into(),
            Value::Array(call.faults.iter().map(fault_json).collect()),
        );
    }
    Value::Object(meta)
}

/// A `ToolEvent`.
fn tool_event(call: &ToolStep, start_ns: u64) -> Value {
    let mut ev = json!({"event": "tool", "type": "function", "id": call.id, "function": call.name,
        "arguments": arguments(&call.input)});
    match &call.result {
        Some(r) => {
            ev["result"] = json!(r.output);
            ev["completed"] = json!(rfc3339(r.t_ns));
            ev["working_time"] = json!(secs(r.t_ns.saturating_sub(call.call_ns)));
            if r.is_error {
                ev["error"] = json!({"type": "unknown", "message": r.output});
                ev["failed"] = json!(true);
            }
            if r.truncated > 0 {
                let kept = r.output.chars().count() as u64;
                ev["truncated"] = json!([kept + r.truncated, kept]);
            }
        }
        None => {
            ev["result"] = json!("");
            ev["error"] =
                json!({"type": "unknown", "message": "the trial ended before the tool answered"});
        }
    }
    ev["metadata"] = tool_metadata(call);
    event(call.call_ns, start_ns, ev)
}

/// A `ModelOutput` whose one choice is `message`.
fn output(model: &str, message: Value, stop: &str, usage: Option<&Usage>) -> Value {
    let completion = message["content"].as_str().unwrap_or_default().to_string();
    let mut out = json!({"model": model, "choices": [{"message": message, "stop_reason": stop}],
        "completion": completion});
    if let Some(u) = usage {
        out["usage"] = model_usage(u);
    }
    out
}

/// clawrun's usage as Inspect's `ModelUsage` (whose `input_tokens` leave cached ones out).
pub fn model_usage(u: &Usage) -> Value {
    let mut v = json!({
        "input_tokens": u.input_tokens - u.cached_input_tokens.min(u.input_tokens),
        "output_tokens": u.output_tokens,
        "total_tokens": u.total(),
    });
    if u.cached_input_tokens > 0 {
        v["input_tokens_cache_read"] = json!(u.cached_input_tokens);
    }
    v
}
