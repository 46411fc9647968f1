//! The `replay` agent: re-issues a recorded trace's assistant turns and reports the first place
//! where the tools answered differently than they did in the recording.

use async_trait::async_trait;

use crate::agent::{Agent, AgentError, Reply};
use crate::conversation::{Block, Conversation, Message, Role, Usage};
use crate::trace::{Event, EventKind};

/// One recorded assistant turn and what its tool calls returned.
#[derive(Clone, Debug)]
struct Turn {
    /// The assistant message.
    message: Message,
    /// Its token usage.
    usage: Usage,
    /// Virtual time between the previous event and this turn (the agent's wait).
    wait_ns: u64,
    /// Whether the recorded turn came from the response cache (replayed as such, so the
    /// re-run trace equals the recording).
    cached: bool,
    /// (call id, tool, output, is_error) of each tool result that followed.
    results: Vec<(String, String, String, bool)>,
}

/// Replays the assistant turns of a recorded trace (`source` names the recording).
pub struct ReplayAgent {
    /// The recorded agent's name (a replay presents itself as the agent it replays, so the
    /// re-run trace is byte-identical to the recording).
    recorded_agent: String,
    /// The recorded turns.
    turns: Vec<Turn>,
}

impl ReplayAgent {
    /// A replay of `events` (one trial's trace); `source` names it in messages.
    pub fn new(source: impl Into<String>, events: &[Event]) -> Self {
        let mut turns: Vec<Turn> = Vec::new();
        let source = source.into();
        let recorded_agent = events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::TraceStart { agent, .. } => Some(agent.clone()),
                _ => None,
            })
            .unwrap_or_else(|| format!("replay:{source}"));
        let mut prev_t = events.first().map_or(0, |e| e.t_ns);
        for e in events {
            match &e.kind {
                EventKind::Message {
                    role: Role::Assistant,
                    content,
                    usage,
                    cached,
                } => turns.push(Turn {
                    cached: *cached,
                    message: Message {
                        role: Role::Assistant,
                        content: content.clone(),
                    },
                    usage: usage.unwrap_or_default(),
                    wait_ns: e.t_ns.saturating_sub(prev_t),
                    results: Vec::new(),
                }),
                EventKind::ToolResult {
                    id,
                    name,
                    output,
                    is_error,
                    ..
                } => {
                    if let Some(t) = turns.last_mut() {
                        t.results
                            .push((id.clone(), name.clone(), output.clone(), *is_error));
                    }
                }
                _ => {}
            }
            prev_t = e.t_ns;
        }
        ReplayAgent {
            recorded_agent,
            turns,
        }
    }

    /// How many assistant turns the recording holds.
    pub fn len(&self) -> usize {
        self.turns.len()
    }

    /// Whether the recording holds no assistant turn.
    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }
}

/// Shortens `s` for a divergence message.
fn excerpt(s: &str) -> String {
    const MAX: usize = 200;
    if s.chars().count() <= MAX {
        return format!("{s:?}");
    }
    let cut: String = s.chars().take(MAX).collect();
    format!("{cut:?}...")
}

#[async_trait]
impl Agent for ReplayAgent {
    fn describe(&self) -> String {
        self.recorded_agent.clone()
    }

    async fn step(&mut self, conversation: &Conversation) -> Result<Reply, AgentError> {
        let step = conversation.turns();
        if step > 0 {
            let prev = &self.turns[step - 1];
            let got: Vec<(&str, String, bool)> = conversation
                .last()
                .filter(|m| m.role == Role::User)
                .map(|m| {
                    m.content
                        .iter()
                        .filter_map(|b| match b {
                            Block::ToolResult {
                                tool_use_id,
                                content,
                                is_error,
                            } => {
                                let text = Message {
                                    role: Role::User,
                                    content: content.clone(),
                                }
                                .text();
                                Some((tool_use_id.as_str(), text, *is_error))
                            }
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default();
            if !prev.results.is_empty() {
                if got.len() != prev.results.len() {
                    return Err(AgentError::Diverged {
                        step,
                        detail: format!(
                            "expected {} tool results, got {}",
                            prev.results.len(),
                            got.len()
                        ),
                    });
                }
                for ((id, name, want, want_err), (got_id, got_text, got_err)) in
                    prev.results.iter().zip(&got)
                {
                    if id != got_id || want != got_text || want_err != got_err {
                        return Err(AgentError::Diverged {
                            step,
                            detail: format!(
                                "{name} (call {id}) returned {} (error: {got_err}), recorded {} (error: {want_err})",
                                excerpt(got_text),
                                excerpt(want)
                            ),
                        });
                    }
                }
            }
        }
        let Some(turn) = self.turns.get(step) else {
            return Err(AgentError::Diverged {
                step: step + 1,
                detail: format!(
                    "the recording ends after {} assistant turns but the trial asked for another",
                    self.turns.len()
                ),
            });
        };
        Ok(Reply {
            message: turn.message.clone(),
            usage: turn.usage,
            wait_ns: turn.wait_ns,
            cached: turn.cached,
        })
    }
}
