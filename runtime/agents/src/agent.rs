//! The [`Agent`] trait: given the conversation so far, produce the next assistant message.

use async_trait::async_trait;

use crate::conversation::{Conversation, Message, Usage};

/// An agent's answer to one step.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The assistant message: text and tool-use blocks. No tool use = a final answer (or, in
    /// a multi-turn task, a turn the simulated user answers).
    pub message: Message,
    /// Tokens this step cost.
    pub usage: Usage,
    /// Virtual time the agent spent before replying, in nanoseconds (the oracle's backoff).
    pub wait_ns: u64,
    /// Whether the message was served from the response cache instead of the model (`--cache`).
    pub cached: bool,
}

/// Why an agent could not produce a step.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The model API failed after bounded retries (kept out of scores, retried with the same
    /// seed).
    #[error("infrastructure error: {0}")]
    Infra(String),
    /// The model cannot be used as configured (no API key for a public endpoint, a base URL
    /// that is not HTTP): the user's setting to fix, not a failure of the model API.
    #[error("{0}")]
    Setup(String),
    /// The agent's output could not be used (malformed tool call, unusable response).
    #[error("invalid agent output: {0}")]
    Invalid(String),
    /// A replayed trial went somewhere the recording did not.
    #[error("replay diverged at step {step}: {detail}")]
    Diverged {
        /// The 1-based assistant turn where the difference showed.
        step: usize,
        /// What differed (expected vs got).
        detail: String,
    },
    /// A scripted or oracle agent has no further step for this conversation.
    #[error("{0}")]
    Exhausted(String),
    /// An agent program failed (exited with an error status; the message says how).
    #[error("{0}")]
    Failed(String),
    /// The agent's model refused to answer past the trial's token limit (an agent program's
    /// proxy).
    #[error("token limit: {0}")]
    TokenLimit(String),
    /// The agent did not act before the trial's time ran out (an external agent waited on).
    #[error("timed out: {0}")]
    TimedOut(String),
}

/// An agent under evaluation (ARCHITECTURE.md §7).
#[async_trait]
pub trait Agent: Send {
    /// A short description for traces and reports, e.g. `oracle` or `openai:gpt-5`.
    fn describe(&self) -> String;

    /// The next assistant message for `conversation`.
    async fn step(&mut self, conversation: &Conversation) -> Result<Reply, AgentError>;

    /// Trace events the agent's own side produced since the last step (an agent program's
    /// model calls through clawrun's proxy), recorded before the step's message.
    fn take_events(&mut self) -> Vec<crate::trace::EventKind> {
        Vec::new()
    }
}

/// A model that completes a conversation with text (the LLM judge and the LLM-played user
/// use it; tests substitute fakes).
#[async_trait]
pub trait Complete: Send + Sync {
    /// Describes the model, e.g. `openai:gpt-5-mini`, for logs and cache keys.
    fn describe(&self) -> String;

    /// The model's answer text and token usage for `conversation`.
    async fn complete(&self, conversation: &Conversation) -> Result<(String, Usage), AgentError>;
}
