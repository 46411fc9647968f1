//! Helpers shared by the integration tests: mock servers and client configs pointing at them.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use clawrun_agents::llm::{CacheMode, LlmClient, ModelConfig, Provider};
use clawrun_agents::mock::{MockLlm, Script, serve_mock_llm};
use clawrun_agents::{Block, Conversation, Message, Role, ToolSpec};
use serde_json::json;

/// Starts a mock on 127.0.0.1 with a YAML script.
pub async fn mock(yaml: &str) -> MockLlm {
    mock_at(yaml, "127.0.0.1:0").await
}

/// Starts a mock on `addr` with a YAML script.
pub async fn mock_at(yaml: &str, addr: &str) -> MockLlm {
    let script = Script::parse(yaml, "test.yaml").expect("test script parses");
    let addr: SocketAddr = addr.parse().unwrap();
    serve_mock_llm(script, addr).await.expect("mock binds")
}

/// A config for `provider` at `server`: key `test-key`, cache off, tiny backoff, 3 retries.
pub fn config(provider: Provider, server: &MockLlm, cache_dir: &Path) -> ModelConfig {
    let mut c = ModelConfig::new(provider, "mock-model");
    c.base_url = Some(match provider {
        Provider::OpenAi => format!("{}/v1", server.url()),
        Provider::Anthropic => server.url(),
    });
    c.api_key = Some("test-key".into());
    c.cache = CacheMode::Off;
    c.cache_dir = Some(cache_dir.to_path_buf());
    c.backoff_base = Duration::from_millis(1);
    c.backoff_max = Duration::from_millis(2);
    c.retry_after_cap = Duration::from_millis(5);
    c.max_retries = 3;
    c.timeout = Duration::from_secs(30);
    c
}

/// A client for `config`.
pub fn client(config: ModelConfig) -> LlmClient {
    LlmClient::new(config).expect("client builds")
}

/// A conversation with a system prompt, a `Read` tool and one user message.
pub fn conversation(prompt: &str) -> Conversation {
    Conversation {
        system: "You are a test agent.".into(),
        tools: [ToolSpec {
            name: "Read".into(),
            description: "Read a file".into(),
            input_schema: json!({"type": "object", "properties": {"file_path": {"type": "string"}}}),
        }].into(),        messages: vec![Message::user(prompt)],
    }
}

/// A user message answering `id` with `text` and one PNG image.
pub fn tool_result(id: &str, text: &str) -> Message {
    Message {
        role: Role::User,
        content: vec![Block::ToolResult {
            tool_use_id: id.into(),
            content: vec![
                Block::text(text),
                Block::Image {
                    media_type: "image/png".into(),
                    data: "iVBORw0KGgo=".into(),
                },
            ],
            is_error: false,
        }],
    }
}
