//! The OpenAI-compatible Chat Completions wire format: request bodies and response parsing.

use serde_json::{Map, Value, json};

use super::arguments;
use super::client::ResponseError;
use super::config::ModelConfig;
use super::image_placeholder;
use crate::conversation::{Block, Conversation, Message, Role, Usage};

/// The request path under an OpenAI-style base URL.
pub(crate) const PATH: &str = "/chat/completions";

/// The request body for `conversation`.
pub(crate) fn request_body(config: &ModelConfig, conversation: &Conversation) -> Value {
    let mut messages = Vec::new();
    if !conversation.system.is_empty() {
        messages.push(json!({"role": "system", "content": conversation.system}));
    }
    for message in &conversation.messages {
        match message.role {
            Role::Assistant => messages.push(assistant_message(message)),
            Role::User => user_messages(config.accepts_images, message, &mut messages),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    body.insert("messages".into(), Value::Array(messages));
    if !conversation.tools.is_empty() {
        let tools = conversation
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.input_schema,
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(t) = config.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(n) = config.max_tokens {
        body.insert("max_tokens".into(), json!(n));
    }
    for (k, v) in &config.extra_body {
        body.insert(k.clone(), v.clone());
    }
    Value::Object(body)
}

/// An assistant message: its text as `content` (null when none) and its `tool_calls`.
fn assistant_message(message: &Message) -> Value {
    let text = message.text();
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    out.insert(
        "content".into(),
        if text.is_empty() {
            Value::Null
        } else {
            json!(text)
        },
    );
    let calls: Vec<Value> = message
        .tool_calls()
        .map(|(id, name, input)| {
            json!({"id": id, "type": "function", "function": {
                "name": name,
                "arguments": arguments::to_string(input),
            }})
        })
        .collect();
    if !calls.is_empty() {
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(out)
}

/// A user message: one `tool` message per tool result (in order), then one user message with
/// the remaining text and images, plus the images tool results returned (tool messages
/// cannot carry images).
fn user_messages(accepts_images: bool, message: &Message, out: &mut Vec<Value>) {
    let mut parts: Vec<Value> = Vec::new();
    for block in &message.content {
        match block {
            Block::Text { text } => parts.push(json!({"type": "text", "text": text})),
            Block::Image { media_type, data } => {
                parts.push(image_part(accepts_images, media_type, data))
            }
            Block::ToolResult {
                tool_use_id,
                content,
                ..
            } => {
                let mut texts = Vec::new();
                let mut images = Vec::new();
                for b in content {
                    match b {
                        Block::Text { text } => texts.push(text.clone()),
                        Block::Image { media_type, data } if accepts_images => {
                            texts.push(format!("[image {} attached below]", images.len() + 1));
                            images.push(image_part(true, media_type, data));
                        }
                        Block::Image { media_type, .. } => {
                            texts.push(image_placeholder(media_type));
                        }
                        _ => {}
                    }
                }
                out.push(json!({
                    "role": "tool",
                    "tool_call_id": tool_use_id,
                    "content": texts.join("\n"),
                }));
                if !images.is_empty() {
                    parts.push(json!({
                        "type": "text",
                        "text": format!("[images returned by tool call {tool_use_id}]"),
                    }));
                    parts.extend(images);
                }
            }
            Block::ToolUse { .. } => {}
        }
    }
    if parts.is_empty() {
        return;
    }
    let content = match parts.as_slice() {
        [single] if single["type"] == "text" => single["text"].clone(),
        _ => Value::Array(parts),
    };
    out.push(json!({"role": "user", "content": content}));
}

/// A content part for an image: an `image_url` data URL, or a text placeholder.
fn image_part(accepts_images: bool, media_type: &str, data: &str) -> Value {
    if accepts_images {
        json!({"type": "image_url", "image_url": {"url": format!("data:{media_type};base64,{data}")}})
    } else {
        json!({"type": "text", "text": image_placeholder(media_type)})
    }
}

/// The assistant message and usage in a response body; `turn` names tool calls without ids.
pub(crate) fn parse_response(body: &Value, turn: usize) -> Result<(Message, Usage), ResponseError> {
    let message = body
        .get("choices")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("message"))
        .ok_or(ResponseError::Choice)?;
    let mut content = Vec::new();
    match message.get("content") {
        Some(Value::String(text)) if !text.is_empty() => content.push(Block::text(text.clone())),
        Some(Value::Array(parts)) => {
            let text: Vec<&str> = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            if !text.is_empty() {
                content.push(Block::text(text.concat()));
            }
        }
        _ => {}
    }
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for (i, call) in calls.iter().enumerate() {
            let function = call.get("function").ok_or(ResponseError::Function(i))?;
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .ok_or(ResponseError::FunctionName(i))?;
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .unwrap_or_else(|| format!("call_{turn}_{i}"));
            let input = arguments::from_value(function.get("arguments").unwrap_or(&Value::Null));
            content.push(Block::ToolUse {
                id,
                name: name.to_string(),
                input,
            });
        }
    }
    let usage = body.get("usage").map_or(Usage::default(), |u| Usage {
        input_tokens: u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: u
            .get("completion_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        cached_input_tokens: u
            .pointer("/prompt_tokens_details/cached_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    });
    Ok((
        Message {
            role: Role::Assistant,
            content,
        },
        usage,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Provider;

    fn conversation() -> Conversation {
        crate::llm::sample_conversation("reading", false)
    }

    #[test]
    fn body_with_images() {
        let mut config = ModelConfig::new(Provider::OpenAi, "m");
        config.accepts_images = true;
        config.max_tokens = Some(100);
        let body = request_body(&config, &conversation());
        assert_eq!(
            body,
            json!({
                "model": "m",
                "temperature": 0.0,
                "max_tokens": 100,
                "tools": [{"type": "function", "function": {
                    "name": "Read", "description": "read a file", "parameters": {"type": "object"}}}],
                "messages": [
                    {"role": "system", "content": "sys"},
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "reading", "tool_calls": [{
                        "id": "c1", "type": "function",
                        "function": {"name": "Read", "arguments": "{\"file_path\":\"/a.png\"}"}}]},
                    {"role": "tool", "tool_call_id": "c1",
                     "content": "an image\n[image 1 attached below]"},
                    {"role": "user", "content": [
                        {"type": "text", "text": "[images returned by tool call c1]"},
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    ]},
                ],
            })
        );
    }

    #[test]
    fn body_without_images() {
        let mut config = ModelConfig::new(Provider::OpenAi, "m");
        config.temperature = None;
        let body = request_body(&config, &conversation());
        assert!(body.get("temperature").is_none());
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 4, "{body:#}");
        assert_eq!(
            messages[3]["content"],
            json!("an image\n[image omitted: image/png; this model does not accept images]")
        );
        assert!(!body.to_string().contains("AAAA"));
    }

    #[test]
    fn response_parsing() {
        let body = json!({"choices": [{"message": {"role": "assistant", "content": null,
            "tool_calls": [
                {"id": "x", "type": "function", "function": {"name": "a", "arguments": "{\"k\":1}"}},
                {"type": "function", "function": {"name": "b", "arguments": "{oops"}},
            ]}}], "usage": {"prompt_tokens": 7, "completion_tokens": 3,
                "prompt_tokens_details": {"cached_tokens": 4}}});
        let (message, usage) = parse_response(&body, 2).unwrap();
        assert_eq!(
            usage,
            Usage {
                input_tokens: 7,
                output_tokens: 3,
                cached_input_tokens: 4,
            }
        );
        let calls: Vec<_> = message.tool_calls().collect();
        assert_eq!(calls[0], ("x", "a", &json!({"k": 1})));
        assert_eq!(calls[1].0, "call_2_1");
        assert_eq!(arguments::invalid_arguments(calls[1].2), Some("{oops"));
        assert!(parse_response(&json!({"error": {"message": "x"}}), 0).is_err());
        let (m, u) =
            parse_response(&json!({"choices": [{"message": {"content": "ok"}}]}), 0).unwrap();
        assert_eq!((m.text().as_str(), u), ("ok", Usage::default()));
    }
}
