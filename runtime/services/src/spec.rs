//! The parts of a Claw-Eval `task.yaml` that concern services: `services:` entries and
//! `tool_endpoints:`. The types live in [`clawrun_task::service`] (shared with the task
//! loader) and are re-exported here.

pub use clawrun_task::service::{ServiceSpec, TaskServices, ToolEndpoint};
