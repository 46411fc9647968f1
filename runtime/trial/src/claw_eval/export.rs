//! A trial's evidence in Claw-Eval's own formats: the trace JSONL its `load_trace` reads and the
//! `env_snapshot` dict its harness hands to `grade()` (see `claw_eval/runner/loop.py`,
//! `runner/dispatcher.py` and `cli.py` upstream).
//!
//! How clawrun's trial maps onto them:
//! - `message` events: the prompt; each assistant turn (text and `tool_use` blocks, with its
//!   token usage); after a turn with tool calls, one user message holding a `tool_result` block
//!   (the text the model saw) per call, then, when tools returned images, a user message
//!   `[Visual content from tool results: N image(s)]` with them (as Claw-Eval's loop appends);
//!   each simulated-user reply as a user message `[user_agent]\n<reply>`.
//! - `tool_dispatch` events, one per call: a service tool's `endpoint_url` is its
//!   `tool_endpoints` URL, `response_status` the HTTP status, `response_body` the JSON the model
//!   was shown (`{"error": ...}` when it was not JSON, as the dispatcher records transport
//!   errors). System tools (Bash, Read, ...) are clawrun's own, not Claw-Eval's sandbox server:
//!   their dispatch has `endpoint_url` `local://sandbox/<Tool>`, status 200 (as the sandbox
//!   server answers even failed commands) and body `{"output": text}` plus `exit_code` for Bash.
//! - `audit_snapshot` events: each service's `/audit` document, with the audit URL Claw-Eval
//!   derives from `reset_endpoint`, for the services that have one.
//! - `env_snapshot`: `cmd:<command>` → `{exit_code, stdout, stderr}` (the Bash tool's output is
//!   one stream: all of it is `stdout`), `file:<path>` → `/read`'s shape (`content`,
//!   `mime_type`, `encoding` `utf-8` or `base64`), `local_file:<path>` → base64 of the task's
//!   ground-truth file, as `cli.py` adds them.
//!
//! Timestamps are the trial's virtual clock; the trace id is `<task_id>-<trial>`.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine as _;
use clawrun_agents::trace::{Event, EventKind};
use clawrun_agents::{Block, Message, Role};
use clawrun_judge::Evidence;
use clawrun_task::LoadedTask;
use serde_json::{Map, Value, json};

use clawrun_services::UtcInstant;

/// The two files a Claw-Eval grading reads.
pub struct Exported {
    /// `trace.jsonl`: one event per line.
    pub trace: Vec<u8>,
    /// `env_snapshot.json`.
    pub env_snapshot: Vec<u8>,
}

/// Builds the Claw-Eval evidence of one trial from its trace `events` and judge `evidence`
/// (whose conversation supplies image bytes the trace keeps only as hashes, and whose final
/// filesystem supplies `env_snapshot_files`).
pub fn export(task: &LoadedTask, trial: u32, events: &[Event], evidence: &Evidence) -> Exported {
    let trace_id = format!("{}-{trial}", task.task.task_id);
    let mut out = Writer {
        trace_id,
        lines: Vec::new(),
    };
    let images = tool_images(&evidence.messages);
    let mut pending: Vec<Value> = Vec::new();
    let mut pending_images: Vec<Value> = Vec::new();
    let mut pending_at = 0u64;
    let mut end_at = 0u64;
    let mut calls: BTreeMap<String, Value> = BTreeMap::new();
    for e in events {
        let at = e.t_ns;
        end_at = at;
        if !matches!(
            e.kind,
            EventKind::ToolCall { .. } | EventKind::ToolResult { .. }
        ) && !matches!(
            e.kind,
            EventKind::Fault { .. } | EventKind::ModelCall { .. }
        ) {
            out.flush_results(&mut pending, &mut pending_images, pending_at);
        }
        match &e.kind {
            EventKind::TraceStart { task_id, agent, .. } => out.event(
                "trace_start",
                at,
                json!({"task_id": task_id, "model": agent, "persona": "default"}),
            ),
            EventKind::Message {
                role,
                content,
                usage,
                ..
            } => {
                let usage = usage.map_or(
                    json!({"input_tokens": 0, "output_tokens": 0}),
                    |u| json!({"input_tokens": u.input_tokens, "output_tokens": u.output_tokens}),
                );
                out.event(
                    "message",
                    at,
                    json!({"message": message(*role, content), "usage": usage}),
                );
            }
            EventKind::ToolCall { id, input, .. } => {
                calls.insert(id.clone(), input.clone());
            }
            EventKind::ToolResult {
                id,
                name,
                output,
                is_error,
                status,
                exit_code,
                ..
            } => {
                pending_at = at;
                pending.push(json!({
                    "type": "tool_result",
                    "tool_use_id": id,
                    "content": [{"type": "text", "text": output}],
                    "is_error": is_error,
                }));
                if let Some(found) = images.get(id.as_str()) {
                    pending_images.extend(found.iter().cloned());
                }
                let input = calls.remove(id).unwrap_or(Value::Null);
                let request = if input.is_object() { input } else { json!({}) };
                let (url, status, body) = match status {
                    Some(status) => (
                        task.task
                            .endpoint(name)
                            .map(|e| e.url.clone())
                            .unwrap_or_default(),
                        *status,
                        service_body(output),
                    ),
                    None => {
                        let mut body = json!({"output": output});
                        if let Some(code) = exit_code {
                            body["exit_code"] = json!(code);
                        }
                        (format!("local://sandbox/{name}"), 200, body)
                    }
                };
                out.event(
                    "tool_dispatch",
                    at,
                    json!({
                        "tool_use_id": id,
                        "tool_name": name,
                        "endpoint_url": url,
                        "request_body": request,
                        "response_status": status,
                        "response_body": body,
                        "latency_ms": 0.0,
                    }),
                );
            }
            EventKind::UserTurn { text, done, .. } => {
                // Claw-Eval's user agent ends the dialogue without a message on `[DONE]`.
                if !done {
                    out.event(
                        "message",
                        at,
                        json!({
                            "message": {
                                "role": "user",
                                "content": [{"type": "text", "text": format!("[user_agent]\n{text}")}],
                                "reasoning_content": null,
                            },
                            "usage": {"input_tokens": 0, "output_tokens": 0},
                        }),
                    );
                }
            }
            EventKind::Audit { service, data } => {
                let spec = task.task.services.iter().find(|s| &s.name == service);
                if let Some(reset) = spec.and_then(|s| s.reset_endpoint.as_deref()) {
                    let base = reset.rsplit_once("/reset").map_or(reset, |(b, _)| b);
                    let data = data.to_value();
                    let data = if data.is_object() { data } else { json!({}) };
                    out.event(
                        "audit_snapshot",
                        at,
                        json!({
                            "service_name": service,
                            "audit_url": format!("{base}/audit"),
                            "audit_data": data,
                        }),
                    );
                }
            }
            EventKind::TraceEnd { turns, usage, .. } => out.event(
                "trace_end",
                at,
                json!({
                    "total_turns": turns,
                    "model_input_tokens": usage.input_tokens,
                    "model_output_tokens": usage.output_tokens,
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                    "total_tokens": usage.total(),
                    "user_agent_rounds": evidence.user_rounds,
                }),
            ),
            EventKind::Fault { .. } | EventKind::Snapshot { .. } | EventKind::ModelCall { .. } => {}
        }
    }
    out.flush_results(&mut pending, &mut pending_images, end_at);
    Exported {
        trace: out.lines,
        env_snapshot: env_snapshot(task, events, evidence),
    }
}

/// Appends events as JSON lines.
struct Writer {
    trace_id: String,
    lines: Vec<u8>,
}

impl Writer {
    fn event(&mut self, kind: &str, t_ns: u64, fields: Value) {
        let mut obj = Map::new();
        obj.insert("type".into(), json!(kind));
        obj.insert("trace_id".into(), json!(self.trace_id));
        if let Value::Object(fields) = fields {
            obj.extend(fields);
        }
        obj.insert("timestamp".into(), json!(timestamp(t_ns)));
        serde_json::to_writer(&mut self.lines, &Value::Object(obj)).expect("JSON serialises");
        self.lines.push(b'\n');
    }

    /// Writes the tool results gathered since the last assistant turn as one user message,
    /// then their images as another, as Claw-Eval's loop does.
    fn flush_results(&mut self, results: &mut Vec<Value>, images: &mut Vec<Value>, at: u64) {
        if results.is_empty() {
            return;
        }
        let content = std::mem::take(results);
        self.event("message", at, user_message(content));
        if !images.is_empty() {
            let images = std::mem::take(images);
            let mut content = vec![json!({
                "type": "text",
                "text": format!("[Visual content from tool results: {} image(s)]", images.len()),
            })];
            content.extend(images);
            self.event("message", at, user_message(content));
        }
    }
}

fn user_message(content: Vec<Value>) -> Value {
    json!({
        "message": {"role": "user", "content": content, "reasoning_content": null},
        "usage": {"input_tokens": 0, "output_tokens": 0},
    })
}

/// Python's `datetime.isoformat()` of the virtual time `t_ns`.
fn timestamp(t_ns: u64) -> String {
    UtcInstant::from_duration(Duration::from_nanos(t_ns)).isoformat()
}

/// A clawrun message as Claw-Eval's `Message` (Anthropic-style content blocks).
fn message(role: Role, content: &[Block]) -> Value {
    let role = match role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    json!({
        "role": role,
        "content": content.iter().map(block).collect::<Vec<_>>(),
        "reasoning_content": null,
    })
}

fn block(b: &Block) -> Value {
    match b {
        Block::Text { text } => json!({"type": "text", "text": text}),
        Block::Image { media_type, data } => image(media_type, data),
        Block::ToolUse { id, name, input } => {
            let input = if input.is_object() {
                input.clone()
            } else {
                json!({})
            };
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        Block::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => {
            let text: Vec<Value> = content
                .iter()
                .filter_map(|c| match c {
                    Block::Text { text } => Some(json!({"type": "text", "text": text})),
                    _ => None,
                })
                .collect();
            json!({"type": "tool_result", "tool_use_id": tool_use_id, "content": text, "is_error": is_error})
        }
    }
}

fn image(media_type: &str, data: &str) -> Value {
    json!({"type": "image", "data": data, "mime_type": media_type, "source_path": null})
}

/// The images each tool call returned, by call id, from the conversation.
fn tool_images(messages: &[Message]) -> BTreeMap<&str, Vec<Value>> {
    let mut out = BTreeMap::new();
    for m in messages {
        for b in &m.content {
            if let Block::ToolResult {
                tool_use_id,
                content,
                ..
            } = b
            {
                let images: Vec<Value> = content
                    .iter()
                    .filter_map(|c| match c {
                        Block::Image { media_type, data } => Some(image(media_type, data)),
                        _ => None,
                    })
                    .collect();
                if !images.is_empty() {
                    out.insert(tool_use_id.as_str(), images);
                }
            }
        }
    }
    out
}

/// A service tool's response body: the JSON the model was shown, or `{"error": ...}` for the
/// runner's own error texts (`Error: ...`), as Claw-Eval's dispatcher records them.
fn service_body(output: &str) -> Value {
    match serde_json::from_str::<Value>(output) {
        Ok(v) => v,
        Err(_) => json!({"error": output.strip_prefix("Error: ").unwrap_or(output)}),
    }
}

/// The `env_snapshot` dict: commands, files, then local grader files.
fn env_snapshot(task: &LoadedTask, events: &[Event], evidence: &Evidence) -> Vec<u8> {
    let mut snap = Map::new();
    for e in events {
        let EventKind::Snapshot {
            commands, files, ..
        } = &e.kind
        else {
            continue;
        };
        for c in commands {
            let suffix = format!("\n[exit code: {}]", c.exit_code);
            let stdout = c.output.strip_suffix(&suffix).unwrap_or(&c.output);
            snap.insert(
                format!("cmd:{}", c.command),
                json!({"exit_code": c.exit_code, "stdout": stdout, "stderr": ""}),
            );
        }
        for f in files {
            let entry = match evidence.vfs.read_file(&f.path) {
                Ok(bytes) => read_response(&f.path, &bytes),
                Err(_) => json!({"error": format!("File not found: {}", f.path)}),
            };
            snap.insert(format!("file:{}", f.path), entry);
        }
    }
    for (i, rel) in task.task.local_grader_files.iter().enumerate() {
        let entry = match task.read_task_file(rel) {
            Ok(bytes) => json!({
                "encoding": "base64",
                "content": base64::engine::general_purpose::STANDARD.encode(bytes),
            }),
            Err(e) => json!({"error": format!("local_grader_files[{i}]: not found: {e}")}),
        };
        snap.insert(format!("local_file:{rel}"), entry);
    }
    serde_json::to_vec(&Value::Object(snap)).expect("JSON serialises")
}

/// What Claw-Eval's sandbox server's `/read` answers for a file: text for text types, else
/// base64.
fn read_response(path: &str, bytes: &[u8]) -> Value {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let text_ext = [
        "txt", "md", "csv", "json", "yaml", "yml", "xml", "html", "htm", "js", "ts", "py", "sh",
        "bash", "cfg", "ini", "toml", "log", "sql", "r", "rmd",
    ];
    let mime = crate::execution::media_type(path);
    if text_ext.contains(&ext.as_str()) {
        json!({
            "content": String::from_utf8_lossy(bytes),
            "mime_type": mime.unwrap_or("text/plain"),
            "encoding": "utf-8",
        })
    } else {
        json!({
            "content": base64::engine::general_purpose::STANDARD.encode(bytes),
            "mime_type": mime.unwrap_or("application/octet-stream"),
            "encoding": "base64",
            "size_bytes": bytes.len(),
        })
    }
}
