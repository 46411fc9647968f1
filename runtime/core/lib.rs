//! clawrun: run Claw-Eval-style agent evaluations without Docker.
//!
//! Task environments and agent tools run as WASI components inside wasmtime ([`sandbox`]),
//! over an in-memory, copy-on-write, blake3 content-addressed filesystem ([`vfs`]).

pub use clawrun_agents as agents;
pub use clawrun_browser as browser;
pub use clawrun_external as external;
pub use clawrun_faults as faults;
pub use clawrun_fuzz as fuzz;
pub use clawrun_hostcall as hostcall;
pub use clawrun_judge as judge;
pub use clawrun_report as report;
pub use clawrun_run as run;
pub use clawrun_sandbox as sandbox;
pub use clawrun_sandbox::{python, tools};
pub use clawrun_services as services;
pub use clawrun_task as task;
pub use clawrun_trial as trial;
pub use clawrun_trial::claw_eval;
pub use clawrun_vfs as vfs;
pub use clawrun_web as web;

pub mod cli;
