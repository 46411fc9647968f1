//! A finished trial's evidence rebuilt from its trace, for judging it again without running it
//! (`clawrun judge`): the conversation (prompt, assistant turns, tool results, simulated-user
//! turns) as the agent saw it, the tool calls with their status and faults, the audit logs,
//! the Judge-phase command outputs, the tampering found, the final text.
//!
//! What the trace does not keep: the final filesystem (only its root hashes, and
//! `env_snapshot_files` as hashes and sizes) and the bytes of images tools returned (their
//! hashes; the judge's conversation shows images by media type only, so nothing it reads is
//! lost). The evidence says so ([`Evidence::filesystem_missing`]), and the judge leaves
//! checks that read files to the run's own verdict
//! ([`clawrun_judge::rejudge_with_log`]).

use clawrun_agents::trace::{Event, EventKind};
use clawrun_agents::{Block, Message, Role};
use clawrun_judge::{Audits, CallRecord, Evidence};

/// Why evidence rebuilt from a trace has no filesystem.
pub const NO_FILES: &str = "the trace keeps no files (only the workspace's root hashes)";

/// The evidence of the trial recorded in `events`, whose task prompt is `prompt`. Fails,
/// saying why, on a trace that is not one finished trial (no `trace_end`, a tool result
/// without its call).
pub fn evidence_from_trace(events: &[Event], prompt: &str) -> Result<Evidence, String> {
    let mut messages: Vec<Message> = Vec::new();
    let mut calls: Vec<CallRecord> = Vec::new();
    // The tool results of the latest assistant turn, sent back as one user message.
    let mut results: Vec<Block> = Vec::new();
    let mut call: Option<(&str, &serde_json::Value)> = None;
    let mut faults = 0u32;
    let mut audits = Audits::default();
    let mut commands = Vec::new();
    let mut tampering = Vec::new();
    let mut end = None;
    let flush = |results: &mut Vec<Block>, messages: &mut Vec<Message>| {
        if !results.is_empty() {
            messages.push(Message {
                role: Role::User,
                content: std::mem::take(results),
            });
        }
    };
    for event in events {
        if end.is_some() {
            return Err(format!("event {} comes after trace_end", event.seq));
        }
        match &event.kind {
            EventKind::TraceStart { .. } => {}
            EventKind::Message { role, content, .. } => {
                flush(&mut results, &mut messages);
                messages.push(Message {
                    role: *role,
                    content: content.clone(),
                });
            }
            EventKind::ToolCall { id, input, .. } => {
                call = Some((id, input));
                faults = 0;
            }
            EventKind::Fault { .. } => faults += 1,
            EventKind::ModelCall { .. } => {}
            EventKind::ToolResult {
                id,
                name,
                output,
                is_error,
                status,
                images,
                ..
            } => {
                let input = match call.take() {
                    Some((called, input)) if called == id => input.clone(),
                    _ => {
                        return Err(format!(
                            "event {}: the result of {name} call {id} has no tool_call before it",
                            event.seq
                        ));
                    }
                };
                calls.push(CallRecord {
                    name: name.clone(),
                    input,
                    output: output.clone(),
                    is_error: *is_error,
                    status: *status,
                    faulted: faults > 0,
                });
                // The images' bytes are not in the trace: the blocks keep their media type.
                let mut content = vec![Block::text(output.clone())];
                content.extend(images.iter().map(|i| Block::Image {
                    media_type: i.media_type.clone(),
                    data: String::new(),
                }));
                results.push(Block::ToolResult {
                    tool_use_id: id.clone(),
                    content,
                    is_error: *is_error,
                });
            }
            EventKind::UserTurn { text, done, .. } => {
                flush(&mut results, &mut messages);
                // The closing `[DONE]` reply ends the dialogue without entering it.
                if !done {
                    messages.push(Message::user(text.clone()));
                }
            }
            EventKind::Snapshot {
                commands: c,
                tampering: t,
                ..
            } => {
                flush(&mut results, &mut messages);
                commands.clone_from(c);
                tampering.clone_from(t);
            }
            EventKind::Audit { service, data } => {
                audits.insert(service.clone(), data.clone());
            }
            EventKind::TraceEnd {
                final_text,
                faults,
                user_rounds,
                ..
            } => {
                flush(&mut results, &mut messages);
                end = Some((final_text.clone(), *faults, *user_rounds));
            }
        }
    }
    let Some((final_text, faults_seen, user_rounds)) = end else {
        return Err("the trace has no trace_end: the trial did not finish".into());
    };
    Ok(Evidence {
        prompt: prompt.to_string(),
        messages,
        final_text,
        calls,
        audits,
        vfs: clawrun_vfs::Vfs::new(),
        commands,
        faults_seen,
        user_rounds,
        tampering,
        filesystem_missing: Some(NO_FILES.to_string()),
    })
}
