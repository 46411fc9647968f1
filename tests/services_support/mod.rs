//! Shared helpers for the service tests: the shared Claw-Eval fixtures, a fixed virtual clock,
//! and request shorthands.

#![allow(dead_code)]

use std::path::PathBuf;

use clawrun::services::{
    FixtureOptions, Json, ServiceRequest, ServiceResponse, ServiceSet, ServiceSpec, TaskServices,
    UtcInstant, json,
};

/// The shared Claw-Eval data (the directory holding `tasks/`).
pub fn root() -> PathBuf {
    std::env::var_os("CLAW_EVAL_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("third_party/claw-eval"))
}

/// 2026-03-05T10:20:30.123456Z: the virtual "now" of the tests.
pub const NOW: UtcInstant = UtcInstant::from_unix_micros(1_772_706_030_123_456);

/// A later virtual time (one hour on).
pub const LATER: UtcInstant = UtcInstant::from_unix_micros(1_772_706_030_123_456 + 3_600_000_000);

/// The service sections of task `id`.
pub fn task(id: &str) -> TaskServices {
    let text = std::fs::read_to_string(root().join("tasks").join(id).join("task.yaml"))
        .expect("task.yaml");
    TaskServices::from_yaml(&text).expect("task.yaml parses")
}

/// The services of task `id`, loaded at [`NOW`].
pub fn load(id: &str) -> ServiceSet {
    ServiceSet::load(
        &root(),
        &task(id).services,
        &FixtureOptions::default(),
        NOW,
        cap_std::ambient_authority(),
    )
    .expect("services load")
}

/// One service of kind/name `name` with fixture variable `var` = `path` (relative to the root).
pub fn load_one(name: &str, var: &str, path: &str) -> ServiceSet {
    let spec = ServiceSpec::named(name).with_env(var, path);
    ServiceSet::load(
        &root(),
        &[spec],
        &FixtureOptions::default(),
        NOW,
        cap_std::ambient_authority(),
    )
    .expect("service loads")
}

/// `POST path` with a raw body (as JSON content) to `svc`.
pub fn post_raw(set: &mut ServiceSet, svc: &str, path: &str, body: &str) -> ServiceResponse {
    let req = ServiceRequest::post(path)
        .with_header("content-type", "application/json")
        .with_body(body);
    set.route(svc, &req, NOW).expect("service exists")
}

/// `POST path` with a JSON body; returns the status and the compact body.
pub fn post(set: &mut ServiceSet, svc: &str, path: &str, body: &str) -> (u16, String) {
    let r = post_raw(set, svc, path, body);
    (r.status, String::from_utf8(r.body_bytes()).unwrap())
}

/// `POST path` expecting 200 JSON; returns the parsed body.
pub fn ok(set: &mut ServiceSet, svc: &str, path: &str, body: &str) -> Json {
    let r = post_raw(set, svc, path, body);
    assert_eq!(
        r.status,
        200,
        "{path} {body}: {}",
        String::from_utf8_lossy(&r.body_bytes())
    );
    r.json_body().expect("json").clone()
}

/// The audit of `svc`.
pub fn audit(set: &ServiceSet, svc: &str) -> Json {
    set.audit(svc).expect("service exists")
}

/// Parses JSON text (test expectations).
pub fn j(text: &str) -> Json {
    json::parse(text).expect("valid JSON")
}

/// The values of `key` in each element of array `v[list]`.
pub fn column(v: &Json, list: &str, key: &str) -> Vec<String> {
    v.get(list)
        .and_then(Json::as_array)
        .unwrap_or(&[])
        .iter()
        .map(|e| {
            e.get(key)
                .map(|x| x.as_str().map_or_else(|| x.to_compact(), str::to_string))
                .unwrap_or_default()
        })
        .collect()
}

/// The keys of an object, in order.
pub fn keys(v: &Json) -> Vec<&str> {
    v.as_object().expect("object").keys().collect()
}
