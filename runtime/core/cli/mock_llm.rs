//! `clawrun mock-llm`: a local model server speaking the OpenAI and Anthropic protocols from a
//! script (see runtime/agents/MOCK_LLM.md), for tests and task authors.

use std::path::PathBuf;

use anyhow::{Context, Result};

use super::UsageError;

/// Arguments of `clawrun mock-llm`.
#[derive(Debug, clap::Args)]
pub struct MockLlmArgs {
    /// The script (YAML or JSON).
    #[arg(long, value_name = "FILE")]
    script: PathBuf,
    /// The port on 127.0.0.1 (0 = any free port; the bound one is printed).
    #[arg(long, default_value_t = 8088)]
    port: u16,
}

/// Runs `clawrun mock-llm` until Ctrl-C.
pub fn mock_llm_command(args: MockLlmArgs) -> Result<i32> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the server runtime")?;
    runtime
        .block_on(clawrun_agents::mock::run_mock_llm(&args.script, args.port))
        .map_err(|e| UsageError(e.to_string()))?;
    Ok(0)
}
