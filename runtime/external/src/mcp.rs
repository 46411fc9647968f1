//! One trial's tools over MCP (the official Rust SDK, `rmcp`): the task's tools with their
//! schemas and descriptions, and `finish`. Each call goes through the [bridge](super::bridge)
//! into the trial, where it is served like a built-in agent's call.

use std::sync::Arc;

use clawrun_agents::{Block, ToolSpec};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::bridge::{BridgeHandle, CallAnswer};

/// The tool that gives the final answer and ends the trial.
pub const FINISH: &str = "finish";

/// A trial's tools served over MCP.
#[derive(Clone)]
pub struct TrialTools {
    tools: Arc<Vec<Tool>>,
    bridge: BridgeHandle,
    instructions: Arc<str>,
}

impl TrialTools {
    /// The tools `specs` (the task's, in order) and `finish`, calling into the trial through
    /// `bridge`; `instructions`: what the server tells the client (the task's system prompt).
    pub fn new(specs: &[ToolSpec], bridge: BridgeHandle, instructions: &str) -> Self {
        let mut tools: Vec<Tool> = specs
            .iter()
            .map(|s| {
                Tool::new(
                    s.name.clone(),
                    s.description.clone(),
                    Arc::new(schema_object(&s.input_schema)),
                )
            })
            .collect();
        if !specs.iter().any(|s| s.name == FINISH) {
            tools.push(Tool::new(
                FINISH,
                "Give your final answer and end the task. Call it once, when you are done; in a multi-turn task the user's reply comes back and the dialogue goes on.",
                Arc::new(schema_object(&json!({
                    "type": "object",
                    "properties": {"answer": {"type": "string", "description": "Your final answer to the task."}},
                    "required": ["answer"],
                }))),
            ));
        }
        TrialTools {
            tools: Arc::new(tools),
            bridge,
            instructions: instructions.into(),
        }
    }

    /// The tools on offer, by name.
    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.name.to_string()).collect()
    }

    /// Serves the tools over stdin and stdout (each message bounded, [`super::stdio`]) until
    /// the client closes the session; then the trial's Execution ends.
    /// A session that never initialised (the input closed first, or the client sent
    /// something else) ends the trial unmeasured: nothing is judged.
    pub async fn serve_stdio(self) -> anyhow::Result<()> {
        let bridge = self.bridge.clone();
        let running = match self
            .serve(super::stdio::BoundedLines::new(
                tokio::io::stdin(),
                tokio::io::stdout(),
            ))
            .await
        {
            Ok(running) => running,
            Err(e) => {
                // The trial's error says why (`clawrun mcp` prints it).
                bridge.end_unmeasured(not_initialised(&e)).await;
                return Ok(());
            }
        };
        let served = running
            .waiting()
            .await
            .map(drop)
            .map_err(|e| anyhow::anyhow!("MCP over stdio: {e}"));
        bridge.end(None).await;
        served
    }

    /// The tools as a streamable-HTTP service (mounted at `/mcp` by the loopback server); one
    /// trial, so every session reaches the same trial. Stops when `stop` is cancelled.
    pub fn http_service(
        self,
        stop: CancellationToken,
    ) -> StreamableHttpService<TrialTools, LocalSessionManager> {
        // No keep-alive pings: a recorded session holds only what the client and the trial
        // said.
        let config = StreamableHttpServerConfig::default()
            .with_cancellation_token(stop)
            .with_sse_keep_alive(None);
        StreamableHttpService::new(
            move || Ok(self.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        )
    }
}

/// Why a session did not start, in one line (rmcp's own message dumps the JSON-RPC message).
pub fn not_initialised(e: &rmcp::service::ServerInitializeError) -> String {
    use rmcp::service::ServerInitializeError as E;
    match e {
        E::ConnectionClosed(_) => "no MCP client connected: the input closed before a client \
            sent `initialize` (run `clawrun mcp` from an MCP client, which starts it and talks \
            over its stdin and stdout)"
            .into(),
        E::ExpectedInitializeRequest(message) => {
            let method = message
                .as_ref()
                .and_then(|m| serde_json::to_value(m).ok())
                .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_string));
            match method {
                Some(method) => format!(
                    "the MCP client's first request was `{method}`, not `initialize`: no session \
                     started"
                ),
                None => "the MCP client's first message was not an `initialize` request: no \
                    session started"
                    .into(),
            }
        }
        E::InitializeFailed(error) => format!(
            "the MCP session did not initialise: {} (JSON-RPC error {})",
            error.message, error.code.0
        ),
        other => format!("the MCP session did not start: {other}"),
    }
}

/// A JSON Schema as the object MCP wants (a schema that is not an object accepts anything).
fn schema_object(schema: &Value) -> JsonObject {
    match schema {
        Value::Object(map) => map.clone(),
        _ => json!({"type": "object"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    }
}

/// A trial's answer as MCP content.
fn result_of(answer: CallAnswer) -> CallToolResult {
    let content = answer
        .content
        .into_iter()
        .filter_map(|block| match block {
            Block::Text { text } => Some(ContentBlock::text(text)),
            Block::Image { media_type, data } => Some(ContentBlock::image(data, media_type)),
            _ => None,
        })
        .collect();
    if answer.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

/// What a call gets once the trial has ended.
fn ended() -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(
        "The trial has ended: its answer is recorded and it is being judged; no further calls are served.",
    )])
}

/// What `finish` answers once the trial has ended on it.
fn finished() -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(
        "Your answer is recorded and the trial has been judged. You are done.",
    )])
}

impl ServerHandler for TrialTools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("clawrun", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions.to_string())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items((*self.tools).clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if self.get_tool(&name).is_none() {
            // rmcp logs the error it answers as a struct dump: this says it in a line.
            tracing::warn!(
                "the MCP client called an unknown tool {name:?}; answered with an error naming \
                 this trial's tools ({})",
                self.names().join(", ")
            );
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {name:?}: this trial's tools are {}",
                    self.names().join(", ")
                ),
                None,
            ));
        }
        let input = Value::Object(request.arguments.unwrap_or_default());
        if name == FINISH && self.tools.last().is_some_and(|t| t.name == FINISH) {
            let text = input
                .get("answer")
                .map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_string))
                .unwrap_or_default();
            let answer = self.bridge.finish(text).await;
            return Ok(answer.map_or_else(finished, result_of).into());
        }
        let answer = self.bridge.call(name, input).await;
        Ok(answer.map_or_else(ended, result_of).into())
    }
}
