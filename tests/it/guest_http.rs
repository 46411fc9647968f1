//! Guests' wasi:http requests go to the in-process router and nowhere else: a guest sees an
//! injected 500, retries and succeeds; unknown destinations are "destination not found".

use crate::common;
use std::sync::{Arc, Mutex};

use clawrun::sandbox::RunConfig;
use clawrun::sandbox::Status;
use clawrun::sandbox::http::{GuestHttpError, GuestRequest, GuestResponse, HttpRouter};
use common::*;

/// Answers `POST http://gmail.local/gmail/send` with 500 on the first call, then 200; records
/// what it saw.
struct FlakyMail {
    seen: Arc<Mutex<Vec<GuestRequest>>>,
}

impl HttpRouter for FlakyMail {
    fn route(&mut self, req: &GuestRequest) -> Result<GuestResponse, GuestHttpError> {
        let mut seen = self.seen.lock().unwrap();
        seen.push(req.clone());
        if req.authority != "gmail.local" {
            return Err(GuestHttpError::DestinationNotFound);
        }
        let (status, body) = if seen.len() == 1 {
            (500, r#"{"error":"internal_server_error"}"#.to_string())
        } else {
            (
                200,
                format!(
                    r#"{{"status":"sent","echo":{}}}"#,
                    String::from_utf8_lossy(&req.body)
                ),
            )
        };
        Ok(GuestResponse {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.into_bytes(),
        })
    }
}

#[test]
fn a_guest_sees_an_injected_500_then_succeeds_on_retry() {
    let seen: Arc<Mutex<Vec<GuestRequest>>> = Arc::default();
    let out = run_with(
        &program("httpget", Target::P2),
        vfs_with_dirs(&[]),
        &[],
        &[
            "POST",
            "http://gmail.local/gmail/send",
            r#"{"to":"a@b.c"}"#,
            "3",
        ],
        RunConfig {
            http: Box::new(FlakyMail { seen: seen.clone() }),
            ..RunConfig::default()
        },
    );
    assert_eq!(out.status, Status::Exited(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "attempt 1: status 500\nattempt 2: status 200\nbody: {\"status\":\"sent\",\"echo\":{\"to\":\"a@b.c\"}}\n"
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].method, "POST");
    assert_eq!(seen[0].path_and_query, "/gmail/send");
    assert_eq!(seen[0].body, br#"{"to":"a@b.c"}"#);
    assert!(
        seen[0]
            .headers
            .contains(&("content-type".into(), "application/json".into()))
    );
}

#[test]
fn without_a_router_no_destination_exists() {
    let out = run(
        &program("httpget", Target::P2),
        vfs_with_dirs(&[]),
        &[],
        &["GET", "http://example.com/", "", "1"],
    );
    assert_eq!(
        stdout(&out),
        "attempt 1: error ErrorCode::DestinationNotFound\nattempt 2: error ErrorCode::DestinationNotFound\nbody: \n"
    );
}

#[test]
fn transport_errors_reach_the_guest_as_error_codes() {
    struct Broken;
    impl HttpRouter for Broken {
        fn route(&mut self, req: &GuestRequest) -> Result<GuestResponse, GuestHttpError> {
            Err(if req.path_and_query == "/reset" {
                GuestHttpError::ConnectionReset
            } else {
                GuestHttpError::Timeout
            })
        }
    }
    for (path, want) in [
        ("/reset", "ConnectionTerminated"),
        ("/slow", "ConnectionReadTimeout"),
    ] {
        let out = run_with(
            &program("httpget", Target::P2),
            vfs_with_dirs(&[]),
            &[],
            &["GET", &format!("http://svc.local{path}")],
            RunConfig {
                http: Box::new(Broken),
                ..RunConfig::default()
            },
        );
        assert_eq!(
            stdout(&out),
            format!("attempt 1: error ErrorCode::{want}\nbody: \n")
        );
    }
}

/// Always answers 200 with the request body echoed.
struct Echo;

impl HttpRouter for Echo {
    fn route(&mut self, req: &GuestRequest) -> Result<GuestResponse, GuestHttpError> {
        Ok(GuestResponse {
            status: 200,
            headers: vec![("content-type".into(), "application/json".into())],
            body: format!(r#"{{"ok":true,"path":"{}"}}"#, req.path_and_query).into_bytes(),
        })
    }
}

#[test]
fn a_fault_plan_in_front_of_the_router_injects_a_500_the_guest_retries_past() {
    use clawrun::faults::{
        FaultInjector, FaultyRouter, PlanOptions, SharedInjector, plan_from_yaml,
    };
    let plan = plan_from_yaml(
        "rules:\n  - point: \"http:gmail.local/*\"\n    kind: status500\n    calls: [1]\n",
        "test-plan.yaml",
        &PlanOptions::new(7),
    )
    .unwrap();
    let injector = SharedInjector::new(FaultInjector::new(plan));
    let out = run_with(
        &program("httpget", Target::P2),
        vfs_with_dirs(&[]),
        &[],
        &[
            "POST",
            "http://gmail.local/gmail/send",
            r#"{"to":"x"}"#,
            "2",
        ],
        RunConfig {
            http: Box::new(FaultyRouter::new(Box::new(Echo), injector.clone())),
            ..RunConfig::default()
        },
    );
    assert_eq!(
        stdout(&out),
        "attempt 1: status 500\nattempt 2: status 200\nbody: {\"ok\":true,\"path\":\"/gmail/send\"}\n"
    );
    let events = injector.drain_events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(&*events[0].point, "http:gmail.local/gmail/send");
    assert_eq!(events[0].call, 1);
}

#[test]
fn a_guest_calling_the_gmail_service_sees_an_injected_500_then_succeeds_on_retry() {
    use clawrun::faults::{
        FaultInjector, FaultyRouter, PlanOptions, SharedInjector, plan_from_yaml,
    };
    use clawrun::sandbox::clock::VirtualClock;
    use clawrun::services::{self, GuestRouter, Router, ServiceSet, TaskServices, UtcInstant};

    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("third_party/claw-eval");
    let yaml = std::fs::read_to_string(root.join("tasks/T002_email_triage/task.yaml")).unwrap();
    let spec = TaskServices::from_yaml(&yaml).unwrap();
    let clock = VirtualClock::default();
    let now = UtcInstant::from_duration(clock.wall());
    let set = ServiceSet::load(
        &root,
        &spec.services,
        &services::FixtureOptions::default(),
        now,
        cap_std::ambient_authority(),
    )
    .unwrap();
    let router = Router::new(&set);
    let shared = Arc::new(Mutex::new(set));
    let plan = plan_from_yaml(
        "rules:\n  - point: \"http:gmail.local/*\"\n    kind: status500\n    calls: [1]\n",
        "plan.yaml",
        &PlanOptions::new(1),
    )
    .unwrap();
    let injector = SharedInjector::new(FaultInjector::new(plan));
    let guest_router = GuestRouter::new(shared.clone(), router, clock);
    let out = run_with(
        &program("httpget", Target::P2),
        vfs_with_dirs(&[]),
        &[],
        &[
            "POST",
            "http://gmail.local/gmail/messages/get",
            r#"{"message_id": "msg_002"}"#,
            "2",
        ],
        RunConfig {
            http: Box::new(FaultyRouter::new(Box::new(guest_router), injector.clone())),
            ..RunConfig::default()
        },
    );
    let text = stdout(&out);
    assert!(
        text.starts_with("attempt 1: status 500\nattempt 2: status 200\nbody: {"),
        "{text}"
    );
    assert!(text.contains("\"message_id\":\"msg_002\""), "{text}");
    // The service saw only the retried request.
    let audit = shared.lock().unwrap().audit("gmail").unwrap();
    let calls = audit
        .as_object()
        .unwrap()
        .get("calls")
        .unwrap()
        .as_array()
        .unwrap()
        .len();
    assert_eq!(calls, 1);
    assert_eq!(injector.drain_events().len(), 1);
}
