//! Where a tool call goes: a system tool runs as a guest component over the trial's VFS; a task
//! tool is dispatched to its service through `tool_endpoints`, as Claw-Eval's runner does.

use anyhow::Result;
use serde_json::Value;

use super::browser_tool;
use super::network;
use super::setup::{Harness, TaskEnv, TrialEnv};
use clawrun_sandbox::tools::{ToolCall, ToolImage, ToolState};
use clawrun_services::UtcInstant;

/// A tool call's result, as the trace and the judge record it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallResult {
    /// What the model sees.
    pub output: String,
    /// Images the model sees after the text (system tools only: `Read` on a picture).
    pub images: Vec<ToolImage>,
    /// Whether it is an error.
    pub is_error: bool,
    /// The HTTP status, for service tools.
    pub status: Option<u16>,
    /// The workspace's new root hash, when the call changed the workspace.
    pub root_hash: Option<String>,
    /// The exit status of the command a system tool ran (Bash).
    pub exit_code: Option<i32>,
    /// Characters of output cut by the cap.
    pub truncated: u64,
}

/// Runs one tool call of the trial; `Err` only for a host failure (not the agent's fault).
pub fn call_tool(
    harness: &Harness,
    task: &TaskEnv,
    env: &mut TrialEnv,
    state: &mut ToolState,
    name: &str,
    input: &Value,
) -> Result<CallResult> {
    let invalid = clawrun_agents::llm::invalid_arguments(input);
    if task.system_tools.iter().any(|t| t == name) {
        if let Some(raw) = invalid {
            return Ok(CallResult {
                output: format!("Error: the arguments of {name} are not a JSON object: {raw}"),
                is_error: true,
                status: None,
                root_hash: None,
                images: Vec::new(),
                exit_code: None,
                truncated: 0,
            });
        }
        if name == browser_tool::NAME {
            let shown = browser_tool::call(harness, env, input)?;
            return Ok(CallResult {
                output: shown.output,
                images: shown.images,
                is_error: shown.is_error,
                status: None,
                root_hash: None,
                exit_code: None,
                truncated: 0,
            });
        }
        let before = env.vfs.root_hash();
        let vfs = std::mem::take(&mut env.vfs);
        let mut tool_env = env.tool_env();
        let lent = network::lend(task, env, network::Borrower::Agent);
        tool_env.network = lent.as_ref().map(|l| l.network.clone());
        let outcome = harness.sandbox().and_then(|sandbox| {
            harness.toolbox.call(
                sandbox,
                ToolCall {
                    name,
                    args: input,
                    state,
                },
                vfs,
                &tool_env,
            )
        });
        drop(tool_env);
        if let Some(lent) = lent {
            lent.give_back(env);
        }
        let outcome = outcome?;
        env.vfs = outcome.vfs;
        *state = outcome.state;
        env.limits.extend(outcome.limit_hit);
        let after = env.vfs.root_hash();
        return Ok(CallResult {
            output: outcome.output,
            images: outcome.images,
            is_error: outcome.is_error,
            status: None,
            root_hash: (after != before).then(|| after.to_hex().to_string()),
            exit_code: outcome.exit_code,
            truncated: outcome.truncated,
        });
    }
    // Unparsable arguments reach the service as `{}`, as Claw-Eval's runner sends them.
    let arguments = clawrun_services::json::parse(&if invalid.is_some() {
        "{}".to_string()
    } else {
        input.to_string()
    })
    .unwrap_or_else(|_| clawrun_services::Json::Object(clawrun_services::Obj::new()));
    let now = UtcInstant::from_duration(env.clock.wall());
    let dispatched = clawrun_services::dispatch_with_faults(
        &mut env.services,
        &task.router,
        &task.endpoints,
        name,
        &arguments,
        now,
        Some(&env.faults),
    );
    Ok(CallResult {
        output: dispatched.presented.text,
        images: Vec::new(),
        is_error: dispatched.presented.is_error,
        status: Some(dispatched.presented.status),
        root_hash: None,
        exit_code: None,
        truncated: 0,
    })
}
