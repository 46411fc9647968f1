//! Execution: the agent acts only through tools; every step is recorded in the trace, outside
//! the sandbox, with virtual timestamps and the workspace hash after each mutation.

use std::time::{Duration, Instant};

use anyhow::Result;
use base64::Engine as _;
use clawrun_agents::trace::{Event, EventKind, ImageRef, Outcome, TRACE_VERSION};
use clawrun_agents::{Agent, AgentError, Block, Conversation, Message, Role, Usage};
use clawrun_judge::{CallRecord, Evidence};

use super::dispatch::call_tool;
use super::setup::{Harness, TaskEnv, TrialEnv};
use super::snapshot;
use super::user::SimulatedUser;
use crate::tools::{InstallationError, ToolState};

/// Execution limits; the task's `environment` gives the defaults.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Assistant turns.
    pub max_turns: u32,
    /// Virtual time, and real time spent waiting for the agent.
    pub timeout: Duration,
    /// Tokens spent by the agent (input + output), if limited.
    pub max_tokens: Option<u64>,
}

impl Limits {
    /// The limits `task` declares in `environment`.
    pub fn of(task: &TaskEnv) -> Self {
        let e = &task.loaded.task.environment;
        Limits {
            max_turns: e.max_turns,
            timeout: Duration::from_secs(e.timeout_seconds),
            max_tokens: None,
        }
    }
}

/// Everything a trial produced.
pub struct TrialOutput {
    /// The trace, in order.
    pub events: Vec<Event>,
    /// The judge's evidence.
    pub evidence: Evidence,
    /// Why Execution stopped.
    pub outcome: Outcome,
    /// Assistant turns taken.
    pub turns: u32,
    /// Simulated-user rounds.
    pub user_rounds: u32,
    /// Assistant turns served from the response cache (`--cache`).
    pub cached_turns: u32,
    /// Tokens the agent spent.
    pub usage: Usage,
    /// The workspace's root hash at the end of Execution.
    pub root_hash: String,
    /// The agent's error, if Execution ended on one.
    pub error: Option<String>,
    /// The sandbox limits the trial hit, by name (see [`limits_hit`]).
    pub limits: Vec<String>,
    /// The trial's seed.
    pub seed: u64,
    /// The workspace at the end of Execution (without judge files).
    pub vfs: crate::vfs::Vfs,
}

impl TrialOutput {
    /// The trace as JSONL.
    pub fn trace_jsonl(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for e in &self.events {
            serde_json::to_writer(&mut out, e).expect("events serialise");
            out.push(b'\n');
        }
        out
    }
}

/// Appends events with virtual timestamps.
pub struct Recorder {
    /// The events so far.
    pub events: Vec<Event>,
}

impl Recorder {
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
        for f in faults {
            self.push(
                env,
                EventKind::Fault {
                    point: f.point.to_string(),
                    rule: f
                        .rule_name
                        .as_deref()
                        .map_or_else(|| format!("rule {}", f.rule), str::to_string),
                    kind: f.kind.name().to_string(),
                    call: f.call,
                },
            );
        }
        n
    }
}

/// Runs trial `trial` of `task` (Setup fork, Execution, Judge-phase evidence) with `agent`
/// and, for multi-turn tasks, `user`. The agent's and user's futures run on `rt`; tool calls
/// run on the calling thread, outside any async runtime (the sandbox blocks).
#[allow(clippy::too_many_arguments)]
pub fn run_trial(
    rt: &tokio::runtime::Runtime,
    harness: &Harness,
    task: &TaskEnv,
    run_seed: u64,
    trial: u32,
    agent: &mut dyn Agent,
    mut user: Option<Box<dyn SimulatedUser>>,
    limits: &Limits,
) -> Result<TrialOutput> {
    let mut env = task.fork(run_seed, trial);
    let mut rec = Recorder { events: Vec::new() };
    let start = trace_start(task, &mut env, trial, agent.describe());
    rec.push(&env, start);

    let prompt = prompt_message(task)?;
    rec.push(
        &env,
        EventKind::Message {
            role: Role::User,
            content: prompt.content.clone(),
            usage: None,
            cached: false,
        },
    );
    let mut conv = Conversation {
        system: task.system.clone(),
        tools: task.tools.clone(),
        messages: vec![prompt],
    };

    let max_rounds = task
        .loaded
        .task
        .user_agent
        .as_ref()
        .filter(|u| u.enabled)
        .map_or(0, |u| u.max_rounds);
    let real_start = Instant::now();
    let timeout_ns = u64::try_from(limits.timeout.as_nanos()).unwrap_or(u64::MAX);
    let mut state = ToolState::default();
    let mut usage = Usage::default();
    let mut calls: Vec<CallRecord> = Vec::new();
    let (mut turns, mut rounds, mut faults_seen) = (0u32, 0u32, 0u32);
    let mut cached_turns = 0u32;
    let mut error = None;

    let outcome = 'turns: loop {
        if turns >= limits.max_turns {
            break Outcome::MaxTurns;
        }
        if env.clock.elapsed_ns() >= timeout_ns || real_start.elapsed() >= limits.timeout {
            break Outcome::Timeout;
        }
        if limits.max_tokens.is_some_and(|max| usage.total() >= max) {
            break Outcome::TokenLimit;
        }
        let reply = match rt.block_on(agent.step(&conv)) {
            Ok(r) => r,
            Err(e) => {
                error = Some(e.to_string());
                break outcome_of(&e);
            }
        };
        turns += 1;
        cached_turns += u32::from(reply.cached);
        usage.add(reply.usage);
        env.clock.advance(reply.wait_ns);
        let message = Message {
            role: Role::Assistant,
            ..reply.message
        };
        rec.push(
            &env,
            EventKind::Message {
                role: Role::Assistant,
                content: message.content.clone(),
                usage: Some(reply.usage),
                cached: reply.cached,
            },
        );
        let tool_calls: Vec<(String, String, serde_json::Value)> = message
            .tool_calls()
            .map(|(id, name, input)| (id.to_string(), name.to_string(), input.clone()))
            .collect();
        conv.messages.push(message);

        if tool_calls.is_empty() {
            let Some(user) = user.as_deref_mut().filter(|_| rounds < max_rounds) else {
                break Outcome::FinalAnswer;
            };
            let answer = match rt.block_on(user.reply(&conv)) {
                Ok(a) => a,
                Err(e) => {
                    error = Some(format!("simulated user: {e}"));
                    break outcome_of(&e);
                }
            };
            rounds += 1;
            rec.push(
                &env,
                EventKind::UserTurn {
                    round: rounds,
                    text: answer.text.clone(),
                    done: answer.done,
                },
            );
            if answer.done {
                break Outcome::FinalAnswer;
            }
            conv.messages.push(Message::user(answer.text));
            continue;
        }

        let mut results = Vec::with_capacity(tool_calls.len());
        for (id, name, input) in tool_calls {
            rec.push(
                &env,
                EventKind::ToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    input: input.clone(),
                },
            );
            let result = match call_tool(harness, task, &mut env, &mut state, &name, &input) {
                Ok(result) => result,
                Err(e) if InstallationError::is(&e) => return Err(e),
                Err(e) => {
                    error = Some(format!("the {name} call could not be served: {e:#}"));
                    break 'turns Outcome::TaskError;
                }
            };
            let faulted = rec.drain_faults(&env);
            faults_seen += faulted;
            rec.push(
                &env,
                EventKind::ToolResult {
                    id: id.clone(),
                    name: name.clone(),
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
                },
            );
            calls.push(CallRecord {
                name,
                input,
                output: result.output.clone(),
                is_error: result.is_error,
                status: result.status,
                faulted: faulted > 0,
            });
            // The text, then the images the tool returned.
            let mut content = vec![Block::text(result.output)];
            content.extend(result.images.iter().map(|i| Block::Image {
                media_type: i.media_type.clone(),
                data: i.base64(),
            }));
            results.push(Block::ToolResult {
                tool_use_id: id,
                content,
                is_error: result.is_error,
            });
        }
        conv.messages.push(Message {
            role: Role::User,
            content: results,
        });
    };

    let final_text = conv
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant)
        .map(Message::text)
        .unwrap_or_default();
    let root_hash = env.vfs.root_hash().to_hex().to_string();
    // A task whose judge phase cannot run ends as that trial's task error, its trace kept.
    let (outcome, judged) = match outcome {
        Outcome::TaskError => (outcome, snapshot::Judged::nothing(&env.vfs)),
        _ => match snapshot::judge_phase(harness, task, &mut env, &mut rec) {
            Ok(judged) => (outcome, judged),
            Err(e) if InstallationError::is(&e) => return Err(e),
            Err(e) => {
                error = Some(format!("the Judge phase failed: {e:#}"));
                (Outcome::TaskError, snapshot::Judged::nothing(&env.vfs))
            }
        },
    };
    rec.push(
        &env,
        EventKind::TraceEnd {
            outcome,
            turns,
            user_rounds: rounds,
            usage,
            faults: faults_seen,
            final_text: final_text.clone(),
            root_hash: root_hash.clone(),
            error: error.clone(),
            limits: limits_hit(&env),
        },
    );

    let evidence = Evidence {
        prompt: task.loaded.task.prompt.text.clone(),
        messages: conv.messages,
        final_text,
        calls,
        audits: judged.audits,
        vfs: judged.vfs,
        commands: judged.commands,
        faults_seen,
        user_rounds: rounds,
        tampering: judged.tampering,
        filesystem_missing: None,
    };
    Ok(TrialOutput {
        events: rec.events,
        evidence,
        outcome,
        turns,
        user_rounds: rounds,
        cached_turns,
        usage,
        root_hash,
        error,
        seed: env.seed,
        limits: limits_hit(&env),
        vfs: env.vfs,
    })
}

/// How a model error (the agent's or the simulated user's) ends Execution: an
/// infrastructure error (the model API failed; kept out of scores and retried) or the agent's.
fn outcome_of(e: &AgentError) -> Outcome {
    match e {
        AgentError::Infra(_) => Outcome::InfraError,
        _ => Outcome::AgentError,
    }
}

/// The limits the trial hit: those that stopped a tool, and the filesystem quotas the guest
/// was refused by.
fn limits_hit(env: &TrialEnv) -> Vec<String> {
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

/// The `trace_start` event of a trial.
fn trace_start(task: &TaskEnv, env: &mut TrialEnv, trial: u32, agent: String) -> EventKind {
    EventKind::TraceStart {
        version: TRACE_VERSION,
        task_id: task.id().to_string(),
        task_hash: task.loaded.hash_hex(),
        trial,
        seed: env.seed,
        agent,
        system: task.system.clone(),
        tools: task.tools.iter().map(|t| t.name.clone()).collect(),
        faults: task
            .plan
            .rules()
            .iter()
            .enumerate()
            .map(|(i, r)| r.name.clone().unwrap_or_else(|| format!("rule {i}")))
            .collect(),
        root_hash: env.vfs.root_hash().to_hex().to_string(),
    }
}

/// The output of a trial that could not start (its agent or simulated user could not be
/// built from the task): a trace of `trace_start` and `trace_end` with the reason, as a task
/// error.
pub fn not_started(
    task: &TaskEnv,
    run_seed: u64,
    trial: u32,
    agent: String,
    error: String,
) -> TrialOutput {
    let mut env = task.fork(run_seed, trial);
    let mut rec = Recorder { events: Vec::new() };
    let start = trace_start(task, &mut env, trial, agent);
    rec.push(&env, start);
    let root_hash = env.vfs.root_hash().to_hex().to_string();
    rec.push(
        &env,
        EventKind::TraceEnd {
            outcome: Outcome::TaskError,
            turns: 0,
            user_rounds: 0,
            usage: Usage::default(),
            faults: 0,
            final_text: String::new(),
            root_hash: root_hash.clone(),
            error: Some(error.clone()),
            limits: Vec::new(),
        },
    );
    TrialOutput {
        events: rec.events,
        evidence: Evidence {
            prompt: task.loaded.task.prompt.text.clone(),
            vfs: env.vfs.fork(),
            ..Evidence::default()
        },
        outcome: Outcome::TaskError,
        turns: 0,
        user_rounds: 0,
        cached_turns: 0,
        usage: Usage::default(),
        root_hash,
        error: Some(error),
        limits: Vec::new(),
        seed: env.seed,
        vfs: env.vfs,
    }
}

/// The task prompt as the first user message: its text, then its attachments (images as
/// image blocks, text files inlined, anything else named).
fn prompt_message(task: &TaskEnv) -> Result<Message> {
    let t = &task.loaded.task;
    let mut content = vec![Block::text(t.prompt.text.clone())];
    for path in &t.prompt.attachments {
        let media = media_type(path);
        match task.loaded.read_task_file(path) {
            Ok(bytes) if media.is_some() => content.push(Block::Image {
                media_type: media.unwrap_or_default().to_string(),
                data: base64::engine::general_purpose::STANDARD.encode(&bytes),
            }),
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => content.push(Block::text(format!(
                    "<attachment path=\"{path}\">\n{text}\n</attachment>"
                ))),
                Err(_) => content.push(Block::text(format!(
                    "[attachment {path}: binary file, not shown]"
                ))),
            },
            Err(e) => content.push(Block::text(format!(
                "[attachment {path} could not be read: {e}]"
            ))),
        }
    }
    Ok(Message {
        role: Role::User,
        content,
    })
}

/// The image media type of `path`, if it names an image.
pub(crate) fn media_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit('.').next()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => return None,
    })
}
