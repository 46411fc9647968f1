//! What a model's answer says, read back by the model proxy in any of the three wires, plain
//! or streamed: its text (an agent program's final answer when it ends without `finish`) and
//! the tokens it cost (the trial's token count and limit).

use clawrun_agents::Usage;
use clawrun_agents::mock::Wire;
use serde_json::Value;

/// The text and token usage of an answer `body` of `content_type` over `wire` (empty and zero
/// where the body does not say).
pub fn read_answer(wire: Wire, content_type: &str, body: &str) -> (String, Usage) {
    if content_type.starts_with("text/event-stream") {
        let events: Vec<Value> = body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect();
        return streamed(wire, &events);
    }
    match serde_json::from_str::<Value>(body) {
        Ok(v) => whole(wire, &v),
        Err(_) => (String::new(), Usage::default()),
    }
}

/// A count at `v[key]`.
fn count(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// OpenAI Chat Completions usage.
fn chat_usage(u: &Value) -> Usage {
    Usage {
        input_tokens: count(u, "prompt_tokens"),
        output_tokens: count(u, "completion_tokens"),
        cached_input_tokens: count(&u["prompt_tokens_details"], "cached_tokens"),
    }
}

/// Responses usage.
fn responses_usage(u: &Value) -> Usage {
    Usage {
        input_tokens: count(u, "input_tokens"),
        output_tokens: count(u, "output_tokens"),
        cached_input_tokens: count(&u["input_tokens_details"], "cached_tokens"),
    }
}

/// Anthropic usage (its `input_tokens` leave the cache reads out).
fn messages_usage(u: &Value) -> Usage {
    let cached = count(u, "cache_read_input_tokens");
    Usage {
        input_tokens: count(u, "input_tokens") + cached,
        output_tokens: count(u, "output_tokens"),
        cached_input_tokens: cached,
    }
}

/// The text of Responses output items.
fn responses_text(response: &Value) -> String {
    let mut text = String::new();
    for item in response["output"].as_array().into_iter().flatten() {
        if item["type"] == "message" {
            for part in item["content"].as_array().into_iter().flatten() {
                text.push_str(part["text"].as_str().unwrap_or_default());
            }
        }
    }
    text
}

/// A whole (not streamed) answer.
fn whole(wire: Wire, v: &Value) -> (String, Usage) {
    match wire {
        Wire::Chat => (
            v["choices"][0]["message"]["content"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            chat_usage(&v["usage"]),
        ),
        Wire::Responses => (responses_text(v), responses_usage(&v["usage"])),
        Wire::Messages => {
            let text: String = v["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect();
            (text, messages_usage(&v["usage"]))
        }
    }
}

/// A streamed answer, from its events' data.
fn streamed(wire: Wire, events: &[Value]) -> (String, Usage) {
    let mut text = String::new();
    let mut usage = Usage::default();
    for e in events {
        match wire {
            Wire::Chat => {
                if let Some(t) = e["choices"][0]["delta"]["content"].as_str() {
                    text.push_str(t);
                }
                if e["usage"].is_object() {
                    usage = chat_usage(&e["usage"]);
                }
            }
            Wire::Messages => match e["type"].as_str() {
                Some("message_start") => usage = messages_usage(&e["message"]["usage"]),
                Some("content_block_delta") if e["delta"]["type"] == "text_delta" => {
                    text.push_str(e["delta"]["text"].as_str().unwrap_or_default());
                }
                Some("message_delta") => {
                    usage.output_tokens = count(&e["usage"], "output_tokens");
                }
                _ => {}
            },
            Wire::Responses => {
                if e["type"] == "response.completed" {
                    return whole(Wire::Responses, &e["response"]);
                }
            }
        }
    }
    (text, usage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawrun_agents::mock::sse;
    use serde_json::json;

    #[test]
    fn streamed_and_whole_answers_read_alike() {
        let cases = [
            (
                Wire::Chat,
                json!({"id": "c", "model": "m", "choices": [{"message": {"content": "hello"},
                    "finish_reason": "stop"}], "usage": {"prompt_tokens": 7, "completion_tokens": 2}}),
            ),
            (
                Wire::Messages,
                json!({"id": "m", "content": [{"type": "text", "text": "hello"}], "stop_reason": "end_turn",
                    "usage": {"input_tokens": 7, "output_tokens": 2}}),
            ),
            (
                Wire::Responses,
                json!({"id": "r", "output": [{"type": "message", "content": [{"type": "output_text", "text": "hello"}]}],
                    "usage": {"input_tokens": 7, "output_tokens": 2}}),
            ),
        ];
        for (wire, body) in cases {
            let plain = read_answer(wire, "application/json", &body.to_string());
            let streamed = read_answer(wire, "text/event-stream", &sse(wire, &body));
            assert_eq!(plain.0, "hello", "{wire:?}");
            assert_eq!(
                (plain.1.input_tokens, plain.1.output_tokens),
                (7, 2),
                "{wire:?}"
            );
            assert_eq!(plain, streamed, "{wire:?}");
        }
    }
}
