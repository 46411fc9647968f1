//! A trial, Setup -> Execution -> Judge (ARCHITECTURE.md §2).
//!
//! - [`setup`]: a task's [`TaskEnv`] — base workspace snapshot, loaded services, tools, system
//!   prompt, fault plan — built once per task and forked per trial in O(1).
//! - [`execution`]: the agent loop; every step is a trace event; limits on turns, virtual and
//!   real time, tokens.
//! - [`dispatch`]: a tool call goes to a guest tool over the trial's VFS or to a service.
//! - [`snapshot`]: the Judge phase's evidence: grader files enter, snapshot commands run, files
//!   and audits are collected.
//! - [`recorded`]: a finished trial's evidence rebuilt from its trace (re-judging).
//! - [`seal`]: judge files enter through paths the agent cannot have shaped; links planted
//!   towards them are tampering.
//! - [`user`]: the simulated user (scripted rules or an LLM playing the persona).
//! - [`presentation`]: Claw-Eval's system prompt and tool specs.

pub mod dispatch;
pub mod execution;
pub mod firewall;
pub mod network;
pub mod presentation;
pub mod recorded;
pub mod seal;
pub mod setup;
pub mod snapshot;
pub mod user;

pub use self::execution::{Limits, TrialOutput, run_trial};
pub use self::setup::{Harness, TaskEnv, TrialEnv};
pub use self::user::{LlmUser, ReplayUser, SimulatedUser, UserReply};
