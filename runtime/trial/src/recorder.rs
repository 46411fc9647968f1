//! The trace as it is recorded: events stamped with the trial's virtual time, the injector's
//! faults moved in after each tool call, and the events that open a trace and report a tool
//! call's result.

use clawrun_agents::trace::{Event, EventKind, ImageRef, TRACE_VERSION};

use super::dispatch::CallResult;
use super::setup::{TaskEnv, TrialEnv};

/// Appends events with virtual timestamps.
pub struct Recorder {
    /// The events so far.
    pub events: Vec<Event>,
}

impl Recorder {
    /// A trace opened by its `trace_start` event.
    pub fn start(task: &TaskEnv, env: &mut TrialEnv, trial: u32, agent: String) -> Self {
        let mut rec = Recorder { events: Vec::new() };
        let start = trace_start(task, env, trial, agent);
        rec.push(env, start);
        rec
    }

    /// Appends `kind` at the clock's current time.
    pub fn push(&mut self, env: &TrialEnv, kind: EventKind) {
        let t_ns = u64::try_from(env.clock.wall().as_nanos()).unwrap_or(u64::MAX);
        let seq = self.events.len() as u64;
        self.events.push(Event { seq, t_ns, kind });
    }

    /// Moves the injector's fault events into the trace; returns how many there were.
    pub fn drain_faults(&mut self, env: &TrialEnv) -> u32 {
        let faults = env.faults.drain_events();
        let n = faults.len() as u32;
        for f in &faults {
            self.push(env, fault_event(f));
        }
        n
    }
}

/// A fault injected, as a trace event.
pub fn fault_event(f: &clawrun_faults::FaultEvent) -> EventKind {
    EventKind::Fault {
        point: f.point.to_string(),
        rule: f
            .rule_name
            .as_deref()
            .map_or_else(|| format!("rule {}", f.rule), str::to_string),
        kind: f.kind.name().to_string(),
        call: f.call,
    }
}

/// The `trace_start` event of a trial.
fn trace_start(task: &TaskEnv, env: &mut TrialEnv, trial: u32, agent: String) -> EventKind {
    EventKind::TraceStart {
        version: TRACE_VERSION,
        task_id: task.id().to_string(),
        task_hash: task.loaded.hash_hex(),
        trial,
        seed: env.seed,
        agent,
        system: task.system.to_string(),
        tools: task.tools.iter().map(|t| t.name.clone()).collect(),
        faults: env
            .faults
            .lock()
            .plan()
            .rules()
            .iter()
            .enumerate()
            .map(|(i, r)| r.name.clone().unwrap_or_else(|| format!("rule {i}")))
            .collect(),
        root_hash: env.vfs.root_hash().to_hex().to_string(),
    }
}

/// The `tool_result` event of call `id` to tool `name`; images are recorded by hash and size.
pub fn tool_result(id: &str, name: &str, result: &CallResult) -> EventKind {
    EventKind::ToolResult {
        id: id.to_string(),
        name: name.to_string(),
        output: result.output.clone(),
        is_error: result.is_error,
        status: result.status,
        root_hash: result.root_hash.clone(),
        images: result
            .images
            .iter()
            .map(|i| ImageRef {
                media_type: i.media_type.clone(),
                hash: blake3::hash(&i.bytes).to_hex().to_string(),
                size: i.bytes.len() as u64,
            })
            .collect(),
        exit_code: result.exit_code,
        truncated: result.truncated,
    }
}

/// The limits the trial hit: those that stopped a tool, and the filesystem quotas the guest
/// was refused by.
pub fn limits_hit(env: &TrialEnv) -> Vec<String> {
    let refused = env.vfs.refusals();
    let mut out: std::collections::BTreeSet<&str> = env.limits.clone();
    for (name, count) in [
        ("vfs_bytes", refused.bytes),
        ("vfs_inodes", refused.inodes),
        ("path_depth", refused.depth),
    ] {
        if count > 0 {
            out.insert(name);
        }
    }
    out.into_iter().map(str::to_string).collect()
}
