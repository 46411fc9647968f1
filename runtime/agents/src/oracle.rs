//! The `oracle` and `scripted` agents: a fixed list of steps (tool calls, messages to the user,
//! a final answer). The oracle retries calls that failed transiently, waiting in virtual time
//! (honouring `retry_after_seconds`), so it exercises robustness; the scripted agent does not.

use async_trait::async_trait;
use serde_json::Value;

use crate::agent::{Agent, AgentError, Reply};
use crate::conversation::{Block, Conversation, Message, Role, Usage};

/// One step of a script.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Tool calls made together in one assistant message: (tool, arguments).
    Calls(Vec<(String, Value)>),
    /// A message without tool calls (in a multi-turn task, the simulated user answers it).
    Say(String),
}

/// How the oracle retries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts per call, the first included (1 = no retries).
    pub max_attempts: u32,
    /// The first backoff, in virtual nanoseconds; doubled per attempt.
    pub base_wait_ns: u64,
}

impl RetryPolicy {
    /// No retries (the scripted agent).
    pub const NONE: RetryPolicy = RetryPolicy {
        max_attempts: 1,
        base_wait_ns: 0,
    };

    /// The oracle's: up to 5 attempts, backoff 1 s, 2 s, 4 s, 8 s of virtual time.
    pub const ORACLE: RetryPolicy = RetryPolicy {
        max_attempts: 5,
        base_wait_ns: 1_000_000_000,
    };
}

/// Markers of a failure worth retrying: rate limits, server errors, timeouts, resets, damaged
/// bodies and injected I/O errors.
const TRANSIENT: &[&str] = &[
    "rate_limit",
    "internal_server_error",
    "service_unavailable",
    "timed out",
    "Server disconnected",
    "connection was reset",
    "(HTTP 429",
    "(HTTP 5",
    "Input/output error",
    "No space left on device",
    "Permission denied",
    "Expecting",
    "Unterminated",
    "Invalid control character",
    "Extra data",
    "codec can't decode",
];

/// Whether a failed tool result looks transient.
pub fn is_transient(text: &str) -> bool {
    TRANSIENT.iter().any(|m| text.contains(m))
}

/// The `retry_after_seconds` a rate-limit body asks for.
fn retry_after_ns(text: &str) -> Option<u64> {
    let i = text.find("retry_after_seconds")?;
    let rest = &text[i + "retry_after_seconds".len()..];
    let digits: String = rest
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let secs: f64 = digits.parse().ok()?;
    Some((secs * 1e9) as u64)
}

/// A call waiting for its result: (tool, arguments, attempts so far).
type Pending = Vec<(String, Value, u32)>;

/// Plays a fixed script.
pub struct ScriptAgent {
    /// `oracle` or `scripted:<file>`.
    name: String,
    /// The steps.
    steps: Vec<Step>,
    /// The final answer.
    answer: String,
    /// Retry behaviour.
    retry: RetryPolicy,
    /// The next step.
    next: usize,
    /// The calls of the last assistant message, in order, by call id.
    pending: Vec<(String, String, Value, u32)>,
    /// Whether the final answer was given.
    finished: bool,
}

impl ScriptAgent {
    /// The oracle: `steps` then `answer`, retrying transient failures.
    pub fn oracle(steps: Vec<Step>, answer: String) -> Self {
        Self::new("oracle".into(), steps, answer, RetryPolicy::ORACLE)
    }

    /// A script named `name` played with `retry`.
    pub fn new(name: String, steps: Vec<Step>, answer: String, retry: RetryPolicy) -> Self {
        ScriptAgent {
            name,
            steps,
            answer,
            retry,
            next: 0,
            pending: Vec::new(),
            finished: false,
        }
    }

    /// The calls of the last step that failed transiently and may be retried, with the wait
    /// before retrying them.
    fn to_retry(&self, conversation: &Conversation) -> (Pending, u64) {
        let Some(last) = conversation.last().filter(|m| m.role == Role::User) else {
            return (Vec::new(), 0);
        };
        let mut retry = Vec::new();
        let mut wait = 0u64;
        for block in &last.content {
            let Block::ToolResult {
                tool_use_id,
                content,
                is_error: true,
            } = block
            else {
                continue;
            };
            let Some((_, name, input, attempts)) =
                self.pending.iter().find(|(id, ..)| id == tool_use_id)
            else {
                continue;
            };
            let text = Message {
                role: Role::User,
                content: content.clone(),
            }
            .text();
            if *attempts >= self.retry.max_attempts || !is_transient(&text) {
                continue;
            }
            let backoff = self.retry.base_wait_ns << (attempts - 1).min(16);
            wait = wait.max(retry_after_ns(&text).unwrap_or(backoff));
            retry.push((name.clone(), input.clone(), attempts + 1));
        }
        (retry, wait)
    }

    /// An assistant message making `calls`, remembered as pending.
    fn call(&mut self, turn: usize, calls: Pending, wait_ns: u64) -> Reply {
        self.pending.clear();
        let mut content = Vec::new();
        for (i, (name, input, attempts)) in calls.into_iter().enumerate() {
            let id = format!("call_{turn}_{i}");
            content.push(Block::ToolUse {
                id: id.clone(),
                name: name.clone(),
                input: input.clone(),
            });
            self.pending.push((id, name, input, attempts));
        }
        Reply {
            message: Message {
                role: Role::Assistant,
                content,
            },
            usage: Usage::default(),
            wait_ns,
            cached: false,
        }
    }
}

#[async_trait]
impl Agent for ScriptAgent {
    fn describe(&self) -> String {
        self.name.clone()
    }

    async fn step(&mut self, conversation: &Conversation) -> Result<Reply, AgentError> {
        let turn = conversation.turns() + 1;
        let (retry, wait) = self.to_retry(conversation);
        if !retry.is_empty() {
            return Ok(self.call(turn, retry, wait));
        }
        self.pending.clear();
        let Some(step) = self.steps.get(self.next).cloned() else {
            if self.finished {
                return Err(AgentError::Exhausted(format!(
                    "{}: the script has no step after its final answer",
                    self.name
                )));
            }
            self.finished = true;
            return Ok(Reply {
                message: Message::assistant(self.answer.clone()),
                usage: Usage::default(),
                wait_ns: 0,
                cached: false,
            });
        };
        self.next += 1;
        Ok(match step {
            Step::Calls(calls) => {
                self.call(turn, calls.into_iter().map(|(n, v)| (n, v, 1)).collect(), 0)
            }
            Step::Say(text) => Reply {
                message: Message::assistant(text),
                usage: Usage::default(),
                wait_ns: 0,
                cached: false,
            },
        })
    }
}
