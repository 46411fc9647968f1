//! Streamed answers (`"stream": true`): a success body as the server-sent events each wire
//! protocol streams, in one go (Chat Completions chunks, Anthropic message events, Responses
//! events). Clients that only stream (agent CLIs) read them like a real model's.

use serde_json::{Value, json};

use super::wire::Wire;

/// `body` (a success body over `wire`) as the SSE stream that wire sends.
pub fn sse(wire: Wire, body: &Value) -> String {
    let mut out = String::new();
    match wire {
        Wire::Chat => chat(body, &mut out),
        Wire::Messages => messages(body, &mut out),
        Wire::Responses => responses(body, &mut out),
    }
    out
}

/// One event; `name` adds an `event:` line.
fn event(out: &mut String, name: Option<&str>, data: &Value) {
    if let Some(name) = name {
        out.push_str("event: ");
        out.push_str(name);
        out.push('\n');
    }
    out.push_str("data: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

/// Chat Completions chunks: the role and text, one chunk per tool call, the finish reason, the
/// usage (as with `stream_options.include_usage`), `[DONE]`.
fn chat(body: &Value, out: &mut String) {
    let chunk = |choices: Value| {
        json!({
            "id": body["id"], "object": "chat.completion.chunk", "created": 0,
            "model": body["model"], "choices": choices,
        })
    };
    let message = &body["choices"][0]["message"];
    let mut delta = json!({"role": "assistant", "content": ""});
    if let Some(text) = message["content"].as_str() {
        delta["content"] = json!(text);
    }
    event(
        out,
        None,
        &chunk(json!([{"index": 0, "delta": delta, "finish_reason": null}])),
    );
    for (i, call) in message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let mut call = call.clone();
        call["index"] = json!(i);
        event(
            out,
            None,
            &chunk(json!([{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": null}])),
        );
    }
    let finish = &body["choices"][0]["finish_reason"];
    event(
        out,
        None,
        &chunk(json!([{"index": 0, "delta": {}, "finish_reason": finish}])),
    );
    let mut usage = chunk(json!([]));
    usage["usage"] = body["usage"].clone();
    event(out, None, &usage);
    out.push_str("data: [DONE]\n\n");
}

/// Anthropic message events: start, each block (start, delta, stop), the stop reason and
/// usage, stop.
fn messages(body: &Value, out: &mut String) {
    let mut start = body.clone();
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    start["usage"]["output_tokens"] = json!(0);
    event(
        out,
        Some("message_start"),
        &json!({"type": "message_start", "message": start}),
    );
    for (i, block) in body["content"].as_array().into_iter().flatten().enumerate() {
        let (empty, delta) = if block["type"] == "tool_use" {
            let mut empty = block.clone();
            empty["input"] = json!({});
            let partial = block["input"].to_string();
            (
                empty,
                json!({"type": "input_json_delta", "partial_json": partial}),
            )
        } else {
            let text = block["text"].clone();
            (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": text}),
            )
        };
        event(
            out,
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": i, "content_block": empty}),
        );
        event(
            out,
            Some("content_block_delta"),
            &json!({"type": "content_block_delta", "index": i, "delta": delta}),
        );
        event(
            out,
            Some("content_block_stop"),
            &json!({"type": "content_block_stop", "index": i}),
        );
    }
    event(
        out,
        Some("message_delta"),
        &json!({
            "type": "message_delta",
            "delta": {"stop_reason": body["stop_reason"], "stop_sequence": null},
            "usage": {"output_tokens": body["usage"]["output_tokens"]},
        }),
    );
    event(out, Some("message_stop"), &json!({"type": "message_stop"}));
}

/// Responses events: created, each output item (added, its text delta, done), completed.
fn responses(body: &Value, out: &mut String) {
    let mut seq = 0u64;
    let mut send = |out: &mut String, kind: &str, mut data: Value| {
        data["type"] = json!(kind);
        data["sequence_number"] = json!(seq);
        seq += 1;
        event(out, Some(kind), &data);
    };
    let mut created = body.clone();
    created["status"] = json!("in_progress");
    created["output"] = json!([]);
    created["usage"] = Value::Null;
    send(out, "response.created", json!({"response": created}));
    for (i, item) in body["output"].as_array().into_iter().flatten().enumerate() {
        let mut added = item.clone();
        added["status"] = json!("in_progress");
        if item["type"] == "message" {
            added["content"] = json!([]);
        }
        send(
            out,
            "response.output_item.added",
            json!({"output_index": i, "item": added}),
        );
        if item["type"] == "message" {
            let text = &item["content"][0]["text"];
            send(
                out,
                "response.output_text.delta",
                json!({"item_id": item["id"], "output_index": i, "content_index": 0, "delta": text}),
            );
        }
        send(
            out,
            "response.output_item.done",
            json!({"output_index": i, "item": item}),
        );
    }
    send(out, "response.completed", json!({"response": body}));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_wire_streams_its_events_in_order() {
        let chat_body = json!({"id": "c", "model": "m", "choices": [{"message": {"content": "hi",
            "tool_calls": [{"id": "t", "type": "function", "function": {"name": "A", "arguments": "{}"}}]},
            "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 1}});
        let s = sse(Wire::Chat, &chat_body);
        assert!(s.starts_with("data: {"), "{s}");
        assert!(s.contains("\"tool_calls\":[{\"function\""), "{s}");
        assert!(s.ends_with("data: [DONE]\n\n"));

        let msg = json!({"id": "m", "content": [{"type": "text", "text": "hi"},
            {"type": "tool_use", "id": "t", "name": "A", "input": {"x": 1}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 2}});
        let s = sse(Wire::Messages, &msg);
        let names: Vec<&str> = s
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect();
        assert_eq!(names.first(), Some(&"message_start"));
        assert_eq!(names.last(), Some(&"message_stop"));
        assert!(s.contains("\"partial_json\":\"{\\\"x\\\":1}\""), "{s}");

        let resp =
            json!({"id": "r", "output": [{"type": "function_call", "name": "A"}], "usage": {}});
        let s = sse(Wire::Responses, &resp);
        let names: Vec<&str> = s
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect();
        assert_eq!(
            names,
            [
                "response.created",
                "response.output_item.added",
                "response.output_item.done",
                "response.completed"
            ]
        );
    }
}
