//! `clawrun services`: serve a task's mock services on loopback until interrupted.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};

use super::UsageError;
use super::output::{self, outln};
use super::web_args::WebArgs;
use crate::faults::{self, FaultInjector, SharedInjector};
use crate::services::server::{self, Binding};
use crate::services::{FixtureOptions, ServiceSet, TaskServices, UtcInstant};
use crate::web::{Web, WebSession};
use clawrun_sandbox::clock::VirtualClock;

/// Arguments of `clawrun services`.
#[derive(Debug, clap::Args)]
pub struct ServicesArgs {
    /// The task folder (holding task.yaml).
    #[arg(long, value_name = "DIR")]
    task: PathBuf,
    /// Listen on PORT_BASE + (port - lowest task port) instead of the task's own ports.
    #[arg(long, value_name = "N")]
    port_base: Option<u16>,
    /// The folder fixture paths in task.yaml are relative to (default: two levels above the
    /// task folder, as in Claw-Eval's repository layout).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Inject faults into service calls: `none`, `claw-eval`, `claw-eval:RATE` or a plan file.
    #[arg(long, value_name = "PLAN", default_value = "none")]
    faults: String,
    /// Seed of the fault decisions.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Seconds a client has to send a request's headers, then its body; a connection that
    /// stalls (or idles between requests) this long is closed.
    #[arg(long, value_name = "SECS", default_value_t = server::READ_TIMEOUT.as_secs_f64())]
    read_timeout: f64,
    /// Connections served at once over all services; more wait until one closes.
    #[arg(long, value_name = "N", default_value_t = server::MAX_CONNECTIONS)]
    max_connections: usize,
    /// How `web_real` services reach the web (`--web record` needs `--web-cassette`; the
    /// injection variant draws from --seed).
    #[command(flatten)]
    web: WebArgs,
}

/// Runs `clawrun services`; returns when interrupted (Ctrl-C).
pub fn run(args: ServicesArgs) -> Result<i32> {
    let limits = server::ServerLimits {
        read_timeout: Duration::try_from_secs_f64(args.read_timeout)
            .ok()
            .filter(|t| !t.is_zero() && t.as_secs() <= 86_400)
            .ok_or_else(|| {
                UsageError(format!(
                    "--read-timeout {}: expected a number of seconds above 0, at most 86400",
                    args.read_timeout
                ))
            })?,
        max_connections: match args.max_connections {
            0 => return Err(UsageError("--max-connections 0: expected at least 1".into()).into()),
            n => n,
        },
        ..server::ServerLimits::default()
    };
    let yaml_path = args.task.join("task.yaml");
    let text = std::fs::read_to_string(&yaml_path)
        .map_err(|e| UsageError(format!("cannot read '{}': {e}", yaml_path.display())))?;
    let task = TaskServices::from_yaml(&text)
        .map_err(|e| UsageError(format!("{}: {e}", yaml_path.display())))?;
    if task.services.is_empty() {
        return Err(UsageError(format!(
            "{}: the task declares no services",
            yaml_path.display()
        ))
        .into());
    }
    let root = match &args.root {
        Some(root) => root.clone(),
        None => args
            .task
            .canonicalize()
            .ok()
            .and_then(|p| p.parent().and_then(|p| p.parent()).map(PathBuf::from))
            .context("cannot find the folder above the task; pass --root")?,
    };
    let now = UtcInstant::from_duration(VirtualClock::default().wall());
    let mut set = ServiceSet::load(
        &root,
        &task.services,
        &FixtureOptions::default(),
        now,
        cap_std::ambient_authority(),
    )
    .map_err(|e| UsageError(format!("{}: {e}", yaml_path.display())))?;
    let web =
        Arc::new(Web::open(&args.web.options(), None).map_err(|e| UsageError(e.to_string()))?);
    set.attach_web(&WebSession::new(Arc::clone(&web), args.seed));
    let lowest = set.services().map(|s| s.port()).min().unwrap_or(0);
    let offset = args
        .port_base
        .map_or(0, |base| i32::from(base) - i32::from(lowest));
    let plan = faults::plan_from_cli(&args.faults, &faults::PlanOptions::new(args.seed))
        .map_err(|e| UsageError(format!("{e}").replace('\n', "; ")))?;
    let injector = (!plan.rules().is_empty())
        .then(|| SharedInjector::new(FaultInjector::new(plan).with_clock(VirtualClock::default())));
    let services = Arc::new(Mutex::new(set));
    let bindings = server::bindings(&services, offset)?;

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .context("starting the server runtime")?;
    runtime.block_on(async move {
        let listeners = server::bind(&bindings).await?;
        for Binding { service, port } in &bindings {
            outln!("{service:<12} http://127.0.0.1:{port}")?;
        }
        outln!("serving {} service(s); audit at <service>/audit, reset at <service>/reset; Ctrl-C stops", bindings.len())?;
        output::flush()?;
        tokio::select! {
            () = server::serve(services, listeners, now, injector, limits) => {}
            signal = tokio::signal::ctrl_c() => signal.context("waiting for Ctrl-C")?,
        }
        Ok::<_, anyhow::Error>(())
    })?;
    if let Some(cassette) = web.cassette() {
        cassette.sync()?;
    }
    Ok(0)
}
