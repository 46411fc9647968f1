//! Agents outside clawrun (ARCHITECTURE.md §13): an MCP client driving one trial's tools
//! (`clawrun mcp`), and agent programs started per trial (`--agent cmd:...`).
//!
//! - [`bridge`]: an outside agent as the trial loop sees it: each tool call that arrives is one
//!   assistant turn, served by Execution's own steps.
//! - [`mcp`]: the trial's tools over MCP (stdio or streamable HTTP).
//! - [`proxy`]: the recording model proxy (OpenAI chat and responses, Anthropic messages):
//!   forwarded, scripted or replayed answers, model-side faults, each answer in the trace.
//! - [`command`]: `--agent cmd:`: an agent program per trial, its files, environment, logs,
//!   time limit and exit.
//! - [`recipe`]: `agents/*.yaml`, how to start a given agent program.
//! - [`environment`]: an agent program's environment, from an allow-list.
//! - [`session`]: the trial's one MCP session over HTTP, and the per-trial secret path.
//! - [`stdio`]: MCP over stdin and stdout, every message bounded and answered.
//! - [`answer`]: an answer's text and tokens, read back in any wire.
//! - [`server`]: the loopback HTTP server of an external trial (`/mcp`, `/v1`).

#![deny(missing_docs)]

pub mod answer;
pub mod bridge;
pub mod command;
pub mod environment;
pub mod mcp;
pub mod proxy;
pub mod recipe;
pub mod server;
pub mod session;
pub mod stdio;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Result;
use clawrun_agents::Agent;

use self::bridge::{ExternalAgent, ModelLedger};
use self::mcp::TrialTools;
use self::server::{LoopbackServer, McpMount};
use clawrun_trial::TaskEnv;

/// How `clawrun mcp` serves the trial's tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpTransport {
    /// Over the process's stdin and stdout.
    Stdio,
    /// Streamable HTTP at `http://ADDR/mcp` (loopback).
    Listen(SocketAddr),
}

/// When an outside agent's time is up: the task's timeout from now (none when that is beyond
/// what the clock can hold; validation keeps timeouts within a week).
pub(crate) fn deadline(task: &TaskEnv) -> Option<Instant> {
    Instant::now().checked_add(Duration::from_secs(
        task.loaded.task.environment.timeout_seconds,
    ))
}

/// The agent of a `clawrun mcp` trial: the task's tools served over `transport`, each call a
/// turn, until the client calls `finish` or closes the session.
pub fn mcp_agent(task: &TaskEnv, transport: &McpTransport) -> Result<Box<dyn Agent>> {
    let ledger = Arc::new(Mutex::new(ModelLedger::default()));
    let (mut agent, bridge) = ExternalAgent::new("mcp".into(), deadline(task), ledger);
    let tools = TrialTools::new(&task.tools, bridge.clone(), &task.system);
    match transport {
        McpTransport::Stdio => {
            std::thread::Builder::new()
                .name("clawrun-mcp-stdio".into())
                .spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build();
                    match rt {
                        Ok(rt) => {
                            if let Err(e) = rt.block_on(tools.serve_stdio()) {
                                eprintln!("clawrun mcp: {e:#}");
                            }
                        }
                        Err(e) => {
                            eprintln!("clawrun mcp: starting the stdio server: {e}");
                            bridge.end_blocking(Some(format!("the MCP server did not start: {e}")));
                        }
                    }
                })?;
        }
        McpTransport::Listen(addr) => {
            let mount = McpMount {
                tools,
                end_on_delete: Some(bridge),
            };
            // No secret: the user starts the client from the URL printed; the trial is bound
            // to the first session that initialises.
            let server = LoopbackServer::start(*addr, Some(mount), None, None)?;
            eprintln!("clawrun mcp: serving {} at {}", task.id(), server.mcp_url());
            agent.keep(server);
            agent.needs_client();
        }
    }
    Ok(Box::new(agent))
}
