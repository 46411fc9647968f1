//! Mock services compatible with Claw-Eval's, with audit logs (ARCHITECTURE.md §6).
//!
//! Each Claw-Eval mock server (gmail, calendar, todo, contacts, finance, notes, kb, helpdesk,
//! inventory, rss, crm, config, scheduler, web, ocr, caption, documents) is a short declaration
//! ([`engine::ServiceDef`]) interpreted by one generic engine that reproduces FastAPI's
//! behaviour: routing (404/405/307), pydantic validation with the exact 422 bodies, Python JSON
//! semantics (key order, integers vs floats, `repr` floats), audit logs and reset. The
//! behavioural specification is `third_party/claw-eval/SERVICES.md`.
//!
//! * [`ServiceSet::load`] reads a task's `services:` fixtures once; [`ServiceSet::fork`] gives
//!   each trial its own copy in O(number of services) (records and logs are persistent).
//! * [`ServiceSet::route`] answers a [`ServiceRequest`] at a virtual time; nothing reads the
//!   wall clock. Date shifting (gmail, calendar) is relative to the load/reset time passed in.
//! * [`Router`] maps a task's `http://localhost:<port>/...` URLs and `http://<name>.local/...`
//!   to instances; [`dispatch()`] reproduces how Claw-Eval's runner turns a tool call into a
//!   request and a response into the text the model sees; [`GuestRouter`] serves guests'
//!   `wasi:http` requests from the same services; [`server`] serves them on loopback with hyper
//!   for agents outside the process (`clawrun services`).

#![deny(missing_docs)]

pub mod audit;
pub mod builtin;
pub mod dispatch;
pub mod engine;
pub mod excerpt;
pub mod faulted;
pub mod guest;
pub mod http;
pub mod json;
pub mod load;
pub mod pdf;
pub mod py;
pub mod router;
pub mod server;
pub mod set;
pub mod spec;
pub mod stall;
pub mod store;
pub mod time;
pub mod validate;

pub use dispatch::{
    Dispatch, Presented, dispatch, dispatch_with_faults, parse_arguments, present, present_bytes,
};
pub use engine::{Service, ServiceDef};
pub use faulted::{Routed, route_with_faults};
pub use guest::{GuestRouter, SharedServices};
pub use http::{Body, Headers, Method, ServiceRequest, ServiceResponse};
pub use json::{Json, Obj};
pub use load::{FixtureOptions, FixturePolicy, FixtureRoot, LoadError};
pub use router::{NotFound, Router, Target};
pub use set::ServiceSet;
pub use spec::{ServiceSpec, TaskServices, ToolEndpoint};
pub use time::UtcInstant;

#[cfg(test)]
mod py_vectors;
#[cfg(test)]
mod tests;
