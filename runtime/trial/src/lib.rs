//! A trial, Setup -> Execution -> Judge (ARCHITECTURE.md §2).
//!
//! - [`setup`]: a task's [`TaskEnv`] — base workspace snapshot, loaded services, tools, system
//!   prompt, fault plan — built once per task and forked per trial in O(1).
//! - [`execution`]: a trial's inputs ([`TrialInputs`]) and output; the agent loop, over the
//!   steps of `steps.rs` (limits on turns, virtual time, tokens: counted, never timed; the
//!   agent's turn, a simulated user's round, tool calls); the Judge phase and the trace's end.
//! - [`recorder`]: the trace as it is recorded: every step is an event at virtual time, faults
//!   drained in after each tool call.
//! - [`prompt`]: the task prompt and its attachments as the first user message.
//! - [`dispatch`]: a tool call goes to a guest tool over the trial's VFS or to a service;
//!   [`browser_tool`]: `BrowserScreenshot` on the host's headless Chromium.
//! - [`snapshot`]: the Judge phase's evidence: grader files enter, snapshot commands run, files
//!   and audits are collected; [`recording`]: Claw-Eval's `take_recording.py` done on the
//!   host's browser.
//! - [`recorded`]: a finished trial's evidence rebuilt from its trace (re-judging).
//! - [`seal`]: judge files enter through paths the agent cannot have shaped; links planted
//!   towards them are tampering.
//! - [`user`]: the simulated user (scripted rules or an LLM playing the persona).
//! - [`presentation`]: Claw-Eval's system prompt and tool specs.
//! - [`grading`]: which grader judges each task (`--grader`); [`judgement`]: a played trial's
//!   verdict by that grading, clawrun's rubric or the task's Claw-Eval `grader.py`
//!   ([`claw_eval`]: the checkout, the evidence exported as Claw-Eval writes it, the grading
//!   run in the Python sandbox, the judge's door).

#![deny(missing_docs)]

pub mod browser_tool;
pub mod claw_eval;
pub mod dispatch;
pub mod execution;
pub mod firewall;
pub mod grading;
pub mod judgement;
pub mod network;
pub mod page_web;
pub mod presentation;
pub mod prompt;
pub mod recorded;
pub mod recorder;
pub mod recording;
pub mod seal;
pub mod setup;
pub mod snapshot;
mod steps;
pub mod user;

pub use self::execution::{FaultSlot, Limits, TrialInputs, TrialOutput};
pub use self::setup::{Harness, TaskEnv, TrialEnv};
pub use self::user::{LlmUser, ReplayUser, SimulatedUser, UserReply};
