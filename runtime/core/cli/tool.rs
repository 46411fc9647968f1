//! `clawrun tool`: run one agent tool on a workspace, printing what the model would see.

use anyhow::{Context, Result};
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use clawrun_vfs::Vfs;

use super::UsageError;
use super::output::outln;
use crate::faults::{self, FaultInjector, SharedInjector};
use clawrun_sandbox::clock::VirtualClock;
use clawrun_sandbox::tools::{self, ToolCall, ToolEnv, ToolState, Toolbox, WORKSPACE};
use clawrun_sandbox::{Sandbox, SandboxConfig};
use clawrun_trial::setup::DiskLimits;

/// Arguments of `clawrun tool`.
#[derive(Debug, clap::Args)]
pub struct ToolArgs {
    /// The tool: Bash, Read, Write, Edit, Glob, Grep, ReadMedia or Download.
    name: String,
    /// The tool's arguments as the model would send them, a JSON object.
    json_args: String,
    /// Host folder copied in as /workspace (default: an empty /workspace).
    #[arg(long, value_name = "DIR")]
    workspace: Option<std::path::PathBuf>,
    /// Copy the tool's changes back to the --workspace folder.
    #[arg(long, requires = "workspace")]
    write_back: bool,
    /// Tool state from an earlier call, as JSON: {"cwd": "/workspace", "env": {...}}.
    #[arg(long, value_name = "JSON")]
    state: Option<String>,
    /// Seed of every random byte the tool sees and of the fault decisions.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Inject faults: `none`, or a plan file whose rules name `tool:<Name>` or
    /// `fs:<op>:<path>` points.
    #[arg(long, value_name = "PLAN", default_value = "none")]
    faults: String,
    /// Bytes the tool may add to the workspace (e.g. 1GiB); past it, writes fail with ENOSPC.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = super::size::parse_size)]
    disk_quota: u64,
}

/// Runs `clawrun tool`: 0 when the tool succeeded, 1 when it reported a tool error.
pub fn run(args: ToolArgs) -> Result<i32> {
    if !tools::is_tool(&args.name) {
        let known: Vec<&str> = tools::names().collect();
        return Err(UsageError(format!(
            "unknown tool '{}'; the tools are {}",
            args.name,
            known.join(", ")
        ))
        .into());
    }
    let json: serde_json::Value = serde_json::from_str(&args.json_args).map_err(|e| {
        UsageError(format!(
            "JSON_ARGS is not valid JSON ({e}); pass an object like '{{\"file_path\": \"a.txt\"}}'"
        ))
    })?;
    if !json.is_object() {
        return Err(UsageError("JSON_ARGS must be a JSON object".into()).into());
    }
    let state: ToolState = match &args.state {
        Some(s) => serde_json::from_str(s)
            .map_err(|e| UsageError(format!("--state is not a tool state ({e})")))?,
        None => ToolState::default(),
    };

    let clock = VirtualClock::default();
    let mut vfs = Vfs::new();
    vfs.set_now(clock.timestamp());
    let at = vfs.create_dir_all(WORKSPACE)?;
    let host = match &args.workspace {
        Some(path) => {
            let dir = Dir::open_ambient_dir(path, ambient_authority())
                .map_err(|e| UsageError(format!("--workspace '{}': {e}", path.display())))?;
            vfs.import_dir(at, &dir)
                .map_err(|e| UsageError(format!("importing '{}': {e}", path.display())))?;
            Some(dir)
        }
        None => None,
    };
    let disk = DiskLimits {
        bytes: args.disk_quota,
        ..DiskLimits::default()
    };
    vfs.set_quota(disk.quota_over(vfs.usage()));
    let mut base = vfs.fork();

    let sandbox = Sandbox::new(SandboxConfig::from_env())?;
    let toolbox = Toolbox::new();
    let call = ToolCall {
        name: &args.name,
        args: &json,
        state: &state,
    };
    let plan = faults::plan_from_cli(&args.faults, &faults::PlanOptions::new(args.seed))
        .map_err(|e| UsageError(format!("{e}").replace('\n', "; ")))?;
    let injector = (!plan.rules().is_empty())
        .then(|| SharedInjector::new(FaultInjector::new(plan).with_clock(clock.clone())));
    let env = ToolEnv {
        seed: args.seed,
        clock,
        faults: injector.clone(),
        network: None,
        judge_imports: None,
    };
    let out = toolbox.call(&sandbox, call, vfs, &env)?;
    outln!("{}", out.output)?;
    if let Some(injector) = &injector {
        for event in injector.drain_events() {
            eprintln!(
                "clawrun: injected {} at {} (call {})",
                event.kind, event.point, event.call
            );
        }
    }
    if args.write_back
        && let Some(dir) = &host
    {
        let mut after = out.vfs;
        Vfs::export_changes(&mut base, &mut after, WORKSPACE, dir)
            .context("writing changes back to --workspace")?;
    }
    Ok(if out.is_error { 1 } else { 0 })
}
