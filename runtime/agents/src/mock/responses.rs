//! The OpenAI Responses API (`POST /v1/responses`) in the mock: what rules see of a request,
//! and the response for a reply. Agent CLIs that speak only this API (Codex) run against it.

use serde_json::{Value, json};

use super::wire::{RequestView, resolve_tool, text_of};

/// Whether an input item is the assistant's (a message it wrote, a call it made, its
/// reasoning).
fn assistant_side(item: &Value) -> bool {
    match item
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message")
    {
        "message" => item.get("role").and_then(Value::as_str) == Some("assistant"),
        "function_call" | "custom_tool_call" | "reasoning" | "local_shell_call" => true,
        _ => false,
    }
}

/// The text an input item carries (message text, a call's output).
fn item_text(item: &Value) -> String {
    match item
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message")
    {
        "function_call_output" | "custom_tool_call_output" => {
            text_of(item.get("output").unwrap_or(&Value::Null))
        }
        _ => text_of(item.get("content").unwrap_or(&Value::Null)),
    }
}

/// Reads a Responses request: `instructions` and system/developer messages are the system
/// prompt; a run of consecutive assistant items (text, calls, reasoning) is one turn; the tools
/// are the functions on offer, those inside `namespace` tools included.
pub fn view(body: &Value) -> RequestView {
    let mut view = RequestView {
        model: body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        ..RequestView::default()
    };
    let items: Vec<Value> = match body.get("input") {
        Some(Value::String(s)) => vec![json!({"type": "message", "role": "user", "content": s})],
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    };
    let mut system: Vec<String> = body
        .get("instructions")
        .and_then(Value::as_str)
        .map(|s| vec![s.to_string()])
        .unwrap_or_default();
    let (mut all, mut last) = (Vec::new(), Vec::new());
    let mut in_turn = false;
    for item in &items {
        let text = item_text(item);
        let role = item.get("role").and_then(Value::as_str).unwrap_or_default();
        if assistant_side(item) {
            if !in_turn {
                view.turn += 1;
                last.clear();
            }
            in_turn = true;
            all.push(text);
        } else if matches!(role, "system" | "developer") {
            system.push(text);
            in_turn = false;
        } else {
            in_turn = false;
            last.push(text.clone());
            all.push(text);
        }
    }
    view.system = system.join("\n");
    all.insert(0, view.system.clone());
    view.all = all.join("\n");
    view.last = last.join("\n");
    for tool in body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        match tool.get("type").and_then(Value::as_str) {
            Some("namespace") => {
                for inner in tool
                    .get("tools")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if let Some(f) = inner.get("name").and_then(Value::as_str) {
                        view.tools.push(f.to_string());
                        view.namespaces.push((f.to_string(), name.to_string()));
                    }
                }
            }
            _ if !name.is_empty() => view.tools.push(name.to_string()),
            _ => {}
        }
    }
    view
}

/// The Responses body of an assistant message: its text (if any) and its calls
/// (`(call_id, name, argument text)`, each named as offered: a function inside a
/// `namespace` tool carries the namespace), with `usage`.
pub fn body(
    view: &RequestView,
    text: &str,
    calls: &[(String, String, String)],
    usage: &Value,
) -> Value {
    let turn = view.turn;
    let mut output = Vec::new();
    if !text.is_empty() {
        output.push(json!({
            "type": "message",
            "id": format!("msg_mock_{turn}"),
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }));
    }
    for (i, (id, name, arguments)) in calls.iter().enumerate() {
        let name = resolve_tool(name, view);
        let mut item = json!({
            "type": "function_call",
            "id": format!("fc_mock_{turn}_{i}"),
            "call_id": id,
            "name": name,
            "arguments": arguments,
            "status": "completed",
        });
        if let Some((_, ns)) = view.namespaces.iter().find(|(f, _)| *f == name) {
            item["namespace"] = json!(ns);
        }
        output.push(item);
    }
    json!({
        "id": format!("resp_mock_{turn}"),
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": view.model,
        "output": output,
        "usage": usage,
    })
}

/// The Responses `usage` object.
pub fn usage(u: &crate::conversation::Usage) -> Value {
    json!({
        "input_tokens": u.input_tokens,
        "input_tokens_details": {"cached_tokens": u.cached_input_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": u.total(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_tools_and_the_last_turn_are_read_from_items() {
        let body = json!({
            "model": "m",
            "instructions": "be brief",
            "input": [
                {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "dev"}]},
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "task"}]},
                {"type": "reasoning", "summary": []},
                {"type": "function_call", "name": "a", "arguments": "{}", "call_id": "c1"},
                {"type": "function_call", "name": "b", "arguments": "{}", "call_id": "c2"},
                {"type": "function_call_output", "call_id": "c1", "output": "one"},
                {"type": "function_call_output", "call_id": "c2", "output": "two"},
            ],
            "tools": [
                {"type": "function", "name": "shell"},
                {"type": "namespace", "name": "mcp__clawrun", "tools": [{"type": "function", "name": "Read"}]},
            ],
        });
        let v = view(&body);
        assert_eq!(v.turn, 1);
        assert_eq!(v.system, "be brief\ndev");
        assert_eq!(v.last, "one\ntwo");
        assert_eq!(v.tools, vec!["shell".to_string(), "Read".to_string()]);
        let out = body_of(&v);
        assert_eq!(out["output"][0]["namespace"], "mcp__clawrun");
        assert_eq!(out["output"][0]["name"], "Read");
    }

    fn body_of(v: &RequestView) -> Value {
        body(
            v,
            "",
            &[("c".into(), "Read".into(), "{}".into())],
            &json!({}),
        )
    }
}
