//! What the mock reads from requests and writes in responses, in both protocols.

use serde_json::{Value, json};

use super::script::{Match, MockReply};
use crate::conversation::Usage;
use crate::llm::Provider;

/// The parts of a request rules look at, the same for both protocols.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestView {
    /// The requested model.
    pub model: String,
    /// The system prompt.
    pub system: String,
    /// Assistant messages already in the request.
    pub turn: usize,
    /// The text after the last assistant message (user text and tool results).
    pub last: String,
    /// The text of every message and the system prompt.
    pub all: String,
    /// The names of the tools on offer.
    pub tools: Vec<String>,
    /// Functions offered inside a Responses `namespace` tool: (function, namespace).
    pub namespaces: Vec<(String, String)>,
}

/// The wire protocol of a request: its route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions (`/v1/chat/completions`).
    Chat,
    /// OpenAI Responses (`/v1/responses`).
    Responses,
    /// Anthropic Messages (`/v1/messages`).
    Messages,
}

impl Wire {
    /// The wire of a request path, if it is one of the three.
    pub fn of_path(path: &str) -> Option<Wire> {
        match path {
            "/v1/chat/completions" | "/chat/completions" => Some(Wire::Chat),
            "/v1/responses" | "/responses" => Some(Wire::Responses),
            "/v1/messages" => Some(Wire::Messages),
            _ => None,
        }
    }

    /// The provider whose error shapes and script `protocol` it has.
    pub fn provider(self) -> Provider {
        match self {
            Wire::Chat | Wire::Responses => Provider::OpenAi,
            Wire::Messages => Provider::Anthropic,
        }
    }
}

/// The name to send for a scripted call to `name`: the offered tool of that name, else an
/// offered tool that ends in `__name` (agent CLIs offer MCP tools as `mcp__SERVER__name`),
/// else `name` itself. One script thus drives any agent program over clawrun's MCP tools.
pub fn resolve_tool(name: &str, view: &RequestView) -> String {
    if view.tools.iter().any(|t| t == name) {
        return name.to_string();
    }
    let suffix = format!("__{name}");
    view.tools
        .iter()
        .find(|t| t.ends_with(&suffix))
        .cloned()
        .unwrap_or_else(|| name.to_string())
}

impl RequestView {
    /// Reads a request body arriving over `wire`.
    pub fn of_wire(wire: Wire, body: &Value) -> RequestView {
        match wire {
            Wire::Responses => super::responses::view(body),
            _ => RequestView::of(wire.provider(), body),
        }
    }

    /// Reads a request body in `protocol`.
    pub fn of(protocol: Provider, body: &Value) -> RequestView {
        let mut view = RequestView {
            model: str_at(body, "model").to_string(),
            ..RequestView::default()
        };
        let messages = body
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut system = Vec::new();
        if protocol == Provider::Anthropic {
            system.push(text_of(body.get("system").unwrap_or(&Value::Null)));
        }
        let mut all = Vec::new();
        let mut last = Vec::new();
        for m in messages {
            let role = str_at(m, "role");
            let text = text_of(m.get("content").unwrap_or(&Value::Null));
            match role {
                "system" | "developer" => system.push(text),
                "assistant" => {
                    view.turn += 1;
                    last.clear();
                    all.push(text);
                }
                _ => {
                    last.push(text.clone());
                    all.push(text);
                }
            }
        }
        view.system = system.join("\n");
        all.insert(0, view.system.clone());
        view.all = all.join("\n");
        view.last = last.join("\n");
        view.tools = body
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| match protocol {
                        Provider::OpenAi => str_at(t.get("function").unwrap_or(t), "name"),
                        Provider::Anthropic => str_at(t, "name"),
                    })
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        view
    }

    /// Whether every condition of `m` holds (the protocol is checked by the caller).
    pub fn matches(&self, m: &Match) -> bool {
        let contains = |hay: &str, needle: &Option<String>| {
            needle.as_ref().is_none_or(|n| hay.contains(n.as_str()))
        };
        m.turn.is_none_or(|t| t == self.turn)
            && m.model.as_ref().is_none_or(|x| *x == self.model)
            && contains(&self.system, &m.system_contains)
            && contains(&self.last, &m.last_contains)
            && contains(&self.all, &m.any_contains)
            && m.tools_include.iter().all(|t| self.tools.contains(t))
    }
}

/// A string field, or "".
fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The text in a content value: a string, or the text of its parts/blocks (tool results'
/// content included), newline-joined.
pub(super) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let texts: Vec<String> = parts
                .iter()
                .filter_map(|p| match str_at(p, "type") {
                    "text" | "input_text" | "output_text" => Some(str_at(p, "text").to_string()),
                    "tool_result" => Some(text_of(p.get("content").unwrap_or(&Value::Null))),
                    _ => None,
                })
                .collect();
            texts.join("\n")
        }
        _ => String::new(),
    }
}

/// One tool call to send: (id or None, name, argument text, argument value).
struct Call {
    /// The id; `None` = omit it.
    id: Option<String>,
    /// The tool.
    name: String,
    /// The arguments as text (OpenAI).
    text: String,
    /// The arguments as JSON (Anthropic; a string when `arguments_raw` was given).
    value: Value,
}

/// The calls of `reply` at `turn`.
fn calls(reply: &MockReply, turn: usize) -> Vec<Call> {
    reply
        .tool_calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let id = match &c.id {
                Some(id) if id.is_empty() => None,
                Some(id) => Some(id.clone()),
                None => Some(format!("call_{turn}_{i}")),
            };
            let (text, value) = match (&c.arguments_raw, &c.arguments) {
                (Some(raw), _) => (raw.clone(), Value::String(raw.clone())),
                (None, Some(args)) => (args.to_string(), args.clone()),
                (None, None) => ("{}".to_string(), json!({})),
            };
            Call {
                id,
                name: c.name.clone(),
                text,
                value,
            }
        })
        .collect()
}

/// The usage to report: the reply's own, else bytes / 4 (rounded up, at least 1).
fn usage(reply: &MockReply, request_bytes: usize, calls: &[Call]) -> Usage {
    if let Some(u) = reply.usage {
        return u;
    }
    let out: usize = reply.text.as_deref().map_or(0, str::len)
        + calls
            .iter()
            .map(|c| c.name.len() + c.text.len())
            .sum::<usize>();
    Usage {
        input_tokens: request_bytes.div_ceil(4).max(1) as u64,
        output_tokens: out.div_ceil(4).max(1) as u64,
        cached_input_tokens: 0,
    }
}

/// The OpenAI `usage` object (`prompt_tokens_details.cached_tokens` when some were cached).
fn openai_usage(usage: &Usage) -> Value {
    let mut out = json!({
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total(),
    });
    if usage.cached_input_tokens > 0 {
        out["prompt_tokens_details"] = json!({"cached_tokens": usage.cached_input_tokens});
    }
    out
}

/// The Anthropic `usage` object: `input_tokens` leaves out the cache reads, which come as
/// `cache_read_input_tokens` (as Anthropic reports them).
fn anthropic_usage(usage: &Usage) -> Value {
    let mut out = json!({
        "input_tokens": usage.input_tokens.saturating_sub(usage.cached_input_tokens),
        "output_tokens": usage.output_tokens,
    });
    if usage.cached_input_tokens > 0 {
        out["cache_read_input_tokens"] = json!(usage.cached_input_tokens);
    }
    out
}

/// A success body for `reply` over `wire`.
pub fn success_body(
    wire: Wire,
    view: &RequestView,
    reply: &MockReply,
    request_bytes: usize,
) -> Value {
    let mut calls = calls(reply, view.turn);
    for c in &mut calls {
        c.name = resolve_tool(&c.name, view);
    }
    let usage = usage(reply, request_bytes, &calls);
    let text = reply.text.clone().unwrap_or_default();
    match wire {
        Wire::Responses => {
            let calls: Vec<(String, String, String)> = calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let id =
                        c.id.clone()
                            .unwrap_or_else(|| format!("call_{}_{i}", view.turn));
                    (id, c.name.clone(), c.text.clone())
                })
                .collect();
            super::responses::body(view, &text, &calls, &super::responses::usage(&usage))
        }
        Wire::Chat => {
            let mut message = json!({
                "role": "assistant",
                "content": if text.is_empty() { Value::Null } else { json!(text) },
            });
            if !calls.is_empty() {
                let tool_calls: Vec<Value> = calls
                    .iter()
                    .map(|c| {
                        let mut v = json!({"type": "function", "function": {
                            "name": c.name, "arguments": c.text}});
                        if let Some(id) = &c.id {
                            v["id"] = json!(id);
                        }
                        v
                    })
                    .collect();
                message["tool_calls"] = Value::Array(tool_calls);
            }
            json!({
                "id": format!("chatcmpl-mock-{}", view.turn),
                "object": "chat.completion",
                "created": 0,
                "model": view.model,
                "choices": [{
                    "index": 0,
                    "message": message,
                    "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" },
                }],
                "usage": openai_usage(&usage),
            })
        }
        Wire::Messages => {
            let mut content = Vec::new();
            if !text.is_empty() {
                content.push(json!({"type": "text", "text": text}));
            }
            for c in &calls {
                let mut v = json!({"type": "tool_use", "name": c.name, "input": c.value});
                if let Some(id) = &c.id {
                    v["id"] = json!(id);
                }
                content.push(v);
            }
            json!({
                "id": format!("msg_mock_{}", view.turn),
                "type": "message",
                "role": "assistant",
                "model": view.model,
                "content": content,
                "stop_reason": if calls.is_empty() { "end_turn" } else { "tool_use" },
                "stop_sequence": null,
                "usage": anthropic_usage(&usage),
            })
        }
    }
}

/// An error body in `protocol`'s shape.
pub fn error_body(protocol: Provider, kind: &str, message: &str) -> Value {
    match protocol {
        Provider::OpenAi => json!({"error": {"message": message, "type": kind, "code": null}}),
        Provider::Anthropic => {
            json!({"type": "error", "error": {"type": kind, "message": message}})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_agree_across_protocols() {
        let openai = json!({"model": "m", "tools": [{"type": "function", "function": {"name": "A"}}],
        "messages": [
            {"role": "system", "content": "be nice"},
            {"role": "user", "content": "task"},
            {"role": "assistant", "content": null, "tool_calls": []},
            {"role": "tool", "tool_call_id": "c", "content": "result one"},
            {"role": "user", "content": [{"type": "text", "text": "pic"}, {"type": "image_url"}]},
        ]});
        let anthropic = json!({"model": "m", "system": "be nice", "tools": [{"name": "A"}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "task"}]},
            {"role": "assistant", "content": [{"type": "tool_use"}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "c",
                 "content": [{"type": "text", "text": "result one"}]},
                {"type": "text", "text": "pic"}]},
        ]});
        let a = RequestView::of(Provider::OpenAi, &openai);
        let b = RequestView::of(Provider::Anthropic, &anthropic);
        assert_eq!(a, b);
        assert_eq!(a.turn, 1);
        assert_eq!(a.last, "result one\npic");
        assert_eq!(a.system, "be nice");
        assert!(a.all.contains("task"));
        assert_eq!(a.tools, vec!["A".to_string()]);
        let m = Match {
            turn: Some(1),
            last_contains: Some("result".into()),
            tools_include: vec!["A".into()],
            ..Match::default()
        };
        assert!(a.matches(&m));
        assert!(!a.matches(&Match {
            last_contains: Some("task".into()),
            ..Match::default()
        }));
        assert!(!a.matches(&Match {
            tools_include: vec!["B".into()],
            ..Match::default()
        }));
    }
}
