//! A mock model server for the command-line tests that evaluate a model (shared by
//! `model_eval.rs` and `selection_settings.rs`).

use clawrun::agents::llm::install_crypto_provider;
use clawrun::agents::mock::{MockLlm, Script, serve_mock_llm};

/// A mock model answering every first turn at once.
#[allow(dead_code)] // not every test file that shares this module plays it
pub const SCRIPT: &str =
    "rules:\n  - match: {turn: 0}\n    reply: {text: \"msg_001 needs a reply first.\"}\n";

/// The mock server playing [`SCRIPT`], on a runtime that lives as long as the pair.
#[allow(dead_code)] // not every test file that shares this module plays the default script
pub fn mock_server() -> (tokio::runtime::Runtime, MockLlm) {
    mock_server_with(SCRIPT)
}

/// The mock server playing `script` (the mock LLM's rule format).
#[allow(dead_code)] // not every test file that shares this module plays its own script
pub fn mock_server_with(script: &str) -> (tokio::runtime::Runtime, MockLlm) {
    install_crypto_provider();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let script = Script::parse(script, "script").unwrap();
    let server = rt
        .block_on(serve_mock_llm(script, "127.0.0.1:0".parse().unwrap()))
        .unwrap();
    (rt, server)
}
