//! A scripted mock LLM server speaking OpenAI Chat Completions, OpenAI Responses and Anthropic
//! Messages, plain or streamed (`clawrun mock-llm`; the script format is in `runtime/agents/MOCK_LLM.md`). Matching is
//! stateless on request content (so one script serves many concurrent conversations),
//! except for rules limited by `times`.

mod responses;
mod script;
mod server;
mod stream;
mod wire;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;

pub use self::script::{Match, MockReply, MockToolCall, ProtocolName, Rule, Script, ScriptError};
pub use self::server::{MockLlm, RecordedRequest, ScriptedModel, serve_mock_llm};
pub use self::stream::sse;
pub use self::wire::{RequestView, Wire, error_body, resolve_tool};

/// Why `clawrun mock-llm` stopped.
#[derive(Debug, thiserror::Error)]
pub enum MockLlmError {
    /// The script could not be loaded.
    #[error("{0}")]
    Script(#[from] ScriptError),
    /// The server could not listen (or wait for Ctrl-C).
    #[error("mock-llm: {0}")]
    Io(#[from] std::io::Error),
}

/// Loads the script at `script_path`, serves it on 127.0.0.1:`port` (0 = any free port),
/// prints `mock-llm listening on http://127.0.0.1:PORT`, logs each request to stderr, and
/// serves until Ctrl-C.
pub async fn run_mock_llm(script_path: &Path, port: u16) -> Result<(), MockLlmError> {
    let script = Script::load(script_path)?;
    let server = server::serve(script, SocketAddr::from((Ipv4Addr::LOCALHOST, port)), true).await?;
    println!("mock-llm listening on {}", server.url());
    tokio::signal::ctrl_c().await?;
    server.shutdown();
    Ok(())
}
