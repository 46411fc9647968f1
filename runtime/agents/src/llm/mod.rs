//! LLM clients (ARCHITECTURE.md §7): OpenAI-compatible Chat Completions and Anthropic Messages over
//! HTTP(S), with bounded retries, process-wide concurrency limits, token accounting and an
//! on-disk response cache. The same [`LlmClient`] serves the agent under test
//! ([`LlmAgent`]), the LLM judge and the simulated user.

mod anthropic;
mod arguments;
mod cache;
mod client;
mod config;
mod control;
pub mod images;
mod io;
mod limits;
mod openai;
mod retry;

pub use self::arguments::{INVALID_ARGUMENTS_KEY, invalid_arguments};
pub use self::client::{ClientStats, LlmAgent, LlmClient, ProbeError, install_crypto_provider};
pub use self::config::{
    ANTHROPIC_DEFAULT_BASE_URL, CacheMode, ModelConfig, OPENAI_DEFAULT_BASE_URL,
    OPENROUTER_BASE_URL, PROVIDERS, Provider, ResolvedEndpoint, SpecError,
};
pub use self::control::{Reporter, cancel_requests, requests_cancelled, set_retry_reporter};

/// The text sent instead of an image to a model that does not accept images.
pub fn image_placeholder(media_type: &str) -> String {
    format!("[image omitted: {media_type}; this model does not accept images]")
}

/// A conversation exercising every block kind (text, tool use, a tool result with an image),
/// for the wire-format tests of both protocols.
#[cfg(test)]
pub(crate) fn sample_conversation(assistant_text: &str, is_error: bool) -> crate::Conversation {
    use crate::conversation::{Block, Message, Role, ToolSpec};
    crate::Conversation {
        system: "sys".into(),
        tools: [ToolSpec {
            name: "Read".into(),
            description: "read a file".into(),
            input_schema: serde_json::json!({"type": "object"}),
        }]
        .into(),
        messages: vec![
            Message::user("hi"),
            Message {
                role: Role::Assistant,
                content: vec![
                    Block::text(assistant_text),
                    Block::ToolUse {
                        id: "c1".into(),
                        name: "Read".into(),
                        input: serde_json::json!({"file_path": "/a.png"}),
                    },
                ],
            },
            Message {
                role: Role::User,
                content: vec![Block::ToolResult {
                    tool_use_id: "c1".into(),
                    content: vec![
                        Block::text("an image"),
                        Block::Image {
                            media_type: "image/png".into(),
                            data: "AAAA".into(),
                        },
                    ],
                    is_error,
                }],
            },
        ],
    }
}
