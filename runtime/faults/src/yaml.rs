//! The positioned YAML/JSON node tree, shared with task files: it lives in
//! [`clawrun_task::yaml`] and is re-exported here so `faults::yaml::{Node, Value}` keep working.

pub use clawrun_task::yaml::*;
