//! The conversation an agent sees: a system prompt, the tools, and messages of content blocks.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The user (the task prompt, the simulated user, and tool results).
    User,
    /// The agent under evaluation.
    Assistant,
}

/// One piece of a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Its media type, e.g. `image/png`.
        media_type: String,
        /// The bytes, base64 (standard alphabet, padded).
        data: String,
    },
    /// A tool call made by the assistant.
    ToolUse {
        /// The call id (the model's own, or `call_<turn>_<n>` when it gave none).
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments (a JSON object).
        input: Value,
    },
    /// A tool's answer, sent back as part of a user message.
    ToolResult {
        /// The id of the [`Block::ToolUse`] it answers.
        tool_use_id: String,
        /// What the tool returned (text and images).
        content: Vec<Block>,
        /// Whether the call failed.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

impl Block {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Block::Text { text: text.into() }
    }
}

/// One message of the conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its blocks, in order.
    pub content: Vec<Block>,
}

impl Message {
    /// A user message holding one text block.
    pub fn user(text: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: vec![Block::text(text)],
        }
    }

    /// An assistant message holding one text block.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message {
            role: Role::Assistant,
            content: vec![Block::text(text)],
        }
    }

    /// The message's text blocks joined with newlines (tool results and images left out).
    pub fn text(&self) -> String {
        let parts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|b| match b {
                Block::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        parts.join("\n")
    }

    /// The tool calls in this message, in order: (id, name, input).
    pub fn tool_calls(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.content.iter().filter_map(|b| match b {
            Block::ToolUse { id, name, input } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }
}

/// A tool as the model sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub input_schema: Value,
}

/// Tokens spent by one model call (or summed over many).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens (those served from the provider's prompt cache included).
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// The part of `input_tokens` the provider served from its prompt cache (OpenAI
    /// `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`); absent from
    /// traces when 0, so traces of providers that report none are unchanged.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_input_tokens: u64,
}

/// Whether a count is 0 (serde leaves such fields out).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Both counts added (at most `u64::MAX`: counts come from model answers and recorded
    /// traces, which may say anything).
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    /// Adds `other` to `self` (each count at most `u64::MAX`).
    pub fn add(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cached_input_tokens = self
            .cached_input_tokens
            .saturating_add(other.cached_input_tokens);
    }
}

/// What an agent sees at each step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    /// The system prompt (shared with the task: a trial never copies it).
    pub system: Arc<str>,
    /// The tools on offer, in presentation order (shared with the task).
    pub tools: Arc<[ToolSpec]>,
    /// The messages so far; the first is the task prompt.
    pub messages: Vec<Message>,
}

impl Conversation {
    /// The last message, if any.
    pub fn last(&self) -> Option<&Message> {
        self.messages.last()
    }

    /// How many assistant messages the conversation holds (the turns taken so far).
    pub fn turns(&self) -> usize {
        self.messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count()
    }
}
