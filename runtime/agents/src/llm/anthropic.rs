//! Anthropic's Messages API wire format: request bodies and response parsing.

use serde_json::{Map, Value, json};

use super::arguments;
use super::client::ResponseError;
use super::config::ModelConfig;
use super::image_placeholder;
use crate::conversation::{Block, Conversation, Message, Role, Usage};

/// The request path under an Anthropic base URL.
pub(crate) const PATH: &str = "/v1/messages";
/// The `anthropic-version` header sent with every request.
pub(crate) const VERSION: &str = "2023-06-01";
/// `max_tokens` when the config sets none (the API requires one).
pub(crate) const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The request body for `conversation`.
pub(crate) fn request_body(config: &ModelConfig, conversation: &Conversation) -> Value {
    let mut messages = Vec::new();
    for message in &conversation.messages {
        let content: Vec<Value> = message
            .content
            .iter()
            .filter_map(|b| block(config.accepts_images, b))
            .collect();
        if content.is_empty() {
            continue; // the API rejects empty messages
        }
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        messages.push(json!({"role": role, "content": content}));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(config.model));
    body.insert(
        "max_tokens".into(),
        json!(config.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    if !conversation.system.is_empty() {
        body.insert("system".into(), json!(conversation.system));
    }
    body.insert("messages".into(), Value::Array(messages));
    if !conversation.tools.is_empty() {
        let tools = conversation
            .tools
            .iter()
            .map(|t| {
                json!({
                    "name": t.name,
                    "description": t.description,
                    "input_schema": t.input_schema,
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(t) = config.temperature {
        body.insert("temperature".into(), json!(t));
    }
    for (k, v) in &config.extra_body {
        body.insert(k.clone(), v.clone());
    }
    Value::Object(body)
}

/// One content block on the wire; empty text is dropped (the API rejects it).
fn block(accepts_images: bool, block: &Block) -> Option<Value> {
    Some(match block {
        Block::Text { text } if text.is_empty() => return None,
        Block::Text { text } => json!({"type": "text", "text": text}),
        Block::Image { media_type, data } if accepts_images => json!({
            "type": "image",
            "source": {"type": "base64", "media_type": media_type, "data": data},
        }),
        Block::Image { media_type, .. } => {
            json!({"type": "text", "text": image_placeholder(media_type)})
        }
        Block::ToolUse { id, name, input } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        Block::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => {
            let mut out = Map::new();
            out.insert("type".into(), json!("tool_result"));
            out.insert("tool_use_id".into(), json!(tool_use_id));
            let parts: Vec<Value> = content
                .iter()
                .filter(|b| matches!(b, Block::Text { .. } | Block::Image { .. }))
                .filter_map(|b| self::block(accepts_images, b))
                .collect();
            if !parts.is_empty() {
                out.insert("content".into(), Value::Array(parts));
            }
            if *is_error {
                out.insert("is_error".into(), json!(true));
            }
            Value::Object(out)
        }
    })
}

/// The assistant message and usage in a response body (`turn` is unused: the API always
/// names its tool calls).
pub(crate) fn parse_response(body: &Value, turn: usize) -> Result<(Message, Usage), ResponseError> {
    let blocks = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or(ResponseError::ContentArray)?;
    let mut content = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = b.get("text").and_then(Value::as_str).unwrap_or_default();
                if !text.is_empty() {
                    content.push(Block::text(text));
                }
            }
            Some("tool_use") => {
                let name = b
                    .get("name")
                    .and_then(Value::as_str)
                    .filter(|n| !n.is_empty())
                    .ok_or(ResponseError::ToolName(i))?;
                let id = b
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("call_{turn}_{i}"));
                content.push(Block::ToolUse {
                    id,
                    name: name.to_string(),
                    input: arguments::from_value(b.get("input").unwrap_or(&Value::Null)),
                });
            }
            _ => {} // thinking, redacted_thinking, ...: not part of the conversation
        }
    }
    let u = body.get("usage");
    let count = |k: &str| {
        u.and_then(|u| u.get(k))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let usage = Usage {
        input_tokens: count("input_tokens")
            + count("cache_creation_input_tokens")
            + count("cache_read_input_tokens"),
        output_tokens: count("output_tokens"),
        cached_input_tokens: count("cache_read_input_tokens"),
    };
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

    #[test]
    fn body_shape() {
        // The empty assistant text is dropped; the failed tool result carries its image.
        let conversation = crate::llm::sample_conversation("", true);
        let config = ModelConfig::new(Provider::Anthropic, "c");
        assert_eq!(
            request_body(&config, &conversation),
            json!({
                "model": "c", "max_tokens": 4096, "system": "sys", "temperature": 0.0,
                "tools": [{"name": "Read", "description": "read a file", "input_schema": {"type": "object"}}],
                "messages": [
                    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                    {"role": "assistant", "content": [
                        {"type": "tool_use", "id": "c1", "name": "Read", "input": {"file_path": "/a.png"}}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                        "is_error": true, "content": [
                            {"type": "text", "text": "an image"},
                            {"type": "image", "source": {"type": "base64",
                                "media_type": "image/png", "data": "AAAA"}}]}]},
                ],
            })
        );
        let mut config = config;
        config.accepts_images = false;
        let body = request_body(&config, &conversation);
        assert!(!body.to_string().contains("AAAA"));
        assert!(body.to_string().contains("[image omitted: image/png"));
    }

    #[test]
    fn response_parsing() {
        let body = json!({"content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "ok"},
            {"type": "tool_use", "id": "tu", "name": "a", "input": {"x": 1}},
        ], "usage": {"input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 10}});
        let (m, u) = parse_response(&body, 0).unwrap();
        assert_eq!(m.text(), "ok");
        assert_eq!(m.tool_calls().next(), Some(("tu", "a", &json!({"x": 1}))));
        assert_eq!(
            u,
            Usage {
                input_tokens: 15,
                output_tokens: 2,
                cached_input_tokens: 10,
            }
        );
        assert!(parse_response(&json!({"type": "error"}), 0).is_err());
    }
}
