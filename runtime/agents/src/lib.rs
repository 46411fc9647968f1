//! Agents for clawrun (ARCHITECTURE.md §7): the conversation an agent sees, the [`Agent`] trait, the
//! trace schema every trial records, and the drivers.
//!
//! - [`conversation`]: messages made of content blocks (text, image, tool use, tool result),
//!   tool specs, token usage; provider-neutral, converted to OpenAI / Anthropic wire formats
//!   by the clients.
//! - [`trace`]: the JSONL trace events (`trace_start` ... `trace_end`).
//! - [`agent`]: the [`Agent`] trait and its errors.
//! - [`oracle`], [`replay`]: the oracle / scripted and replay drivers.
//! - [`llm`]: the OpenAI-compatible and Anthropic clients and [`llm::LlmAgent`].
//! - [`mock`]: a scripted mock LLM server speaking both protocols (`clawrun mock-llm`).

#![warn(missing_docs)]

pub mod agent;
pub mod conversation;
pub mod llm;
pub mod mock;
pub mod oracle;
pub mod replay;
pub mod spelling;
pub mod trace;

pub use self::agent::{Agent, AgentError, Complete, Reply};
pub use self::conversation::{Block, Conversation, Message, Role, ToolSpec, Usage};
pub use self::oracle::{RetryPolicy, ScriptAgent, Step};
pub use self::replay::ReplayAgent;
