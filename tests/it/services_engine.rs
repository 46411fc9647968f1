//! The service set as a whole: loading every shared task, load errors, forks, URL routing and
//! the runner's dispatch presentation.

use crate::services_support;
use clawrun::services::dispatch::{self, present_bytes, transport_error, unknown_tool};
use clawrun::services::{
    FixtureOptions, Json, Router, ServiceRequest, ServiceResponse, ServiceSet, ServiceSpec,
    TaskServices, ToolEndpoint, parse_arguments, present,
};
use services_support::*;

fn task_ids() -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(root().join("tasks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|d| root().join("tasks").join(d).join("task.yaml").exists())
        .collect();
    ids.sort();
    ids
}

#[test]
fn every_shared_task_loads_and_its_tool_urls_resolve() {
    let mut loaded = 0;
    for id in task_ids() {
        let t = task(&id);
        let set = match ServiceSet::load(
            &root(),
            &t.services,
            &FixtureOptions::default(),
            NOW,
            cap_std::ambient_authority(),
        ) {
            Ok(s) => s,
            Err(e) => panic!("{id}: {e}"),
        };
        let router = Router::new(&set);
        for ep in &t.tool_endpoints {
            let target = router
                .resolve(&ep.url)
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            assert!(set.get(&target.service).is_some(), "{id}: {}", ep.url);
        }
        loaded += t.services.len();
    }
    assert!(loaded >= 45, "{loaded} services");
}

#[test]
fn load_errors_name_the_file_and_the_field() {
    let err = |specs: &[ServiceSpec]| {
        ServiceSet::load(
            &root(),
            specs,
            &FixtureOptions::default(),
            NOW,
            cap_std::ambient_authority(),
        )
        .err()
        .expect("load fails")
        .to_string()
    };
    let missing = err(&[ServiceSpec::named("gmail")]);
    assert!(
        missing.starts_with("service `gmail`: cannot read ")
            && missing.contains(
                "tasks/T001zh_email_triage/fixtures/gmail/inbox.json (default for GMAIL_FIXTURES)"
            ),
        "{missing}"
    );
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let bad_json = write("bad.json", "[\n  {\"message_id\": \"m1\",}\n]");
    let e = err(&[ServiceSpec::named("gmail").with_env("GMAIL_FIXTURES", &bad_json)]);
    assert!(e.ends_with("bad.json: invalid JSON: Expecting property name enclosed in double quotes: line 2 column 23 (char 24)"), "{e}");
    let not_array = write("obj.json", "{}");
    assert!(
        err(&[ServiceSpec::named("todo").with_env("TODO_FIXTURES", &not_array)])
            .ends_with("obj.json: expected a JSON array of objects")
    );
    let not_obj = write("arr.json", "[{}, 3]");
    assert!(
        err(&[ServiceSpec::named("todo").with_env("TODO_FIXTURES", &not_obj)])
            .ends_with("arr.json: [1]: expected an object")
    );
    let bad_date = write(
        "dates.json",
        r#"[{"message_id": "m1", "date": "2026-03-01T10:00:00Z"}, {"message_id": "m2", "date": "yesterday"}]"#,
    );
    let e = err(&[ServiceSpec::named("gmail").with_env("GMAIL_FIXTURES", &bad_date)]);
    assert!(
        e.ends_with(r#"dates.json: [1].date: invalid ISO-8601 timestamp "yesterday""#),
        "{e}"
    );
    let naive = write(
        "naive.json",
        r#"[{"event_id": "e", "start_time": "2026-03-01T10:00:00"}]"#,
    );
    let e = err(&[ServiceSpec::named("calendar").with_env("CALENDAR_FIXTURES", &naive)]);
    assert!(
        e.ends_with(r#"[0].start_time: "2026-03-01T10:00:00" has no UTC offset"#),
        "{e}"
    );
    assert_eq!(
        err(&[ServiceSpec::named("mail")]),
        "service `mail`: unknown service kind `mail`"
    );
    let todo = ServiceSpec::named("todo").with_env(
        "TODO_FIXTURES",
        "tasks/T008_todo_management/fixtures/todo/tasks.json",
    );
    assert_eq!(
        err(&[todo.clone(), todo.clone()]),
        "service `todo` is declared twice"
    );
    let mut other = todo.clone();
    other.name = "todo2".into();
    other.command = Some("python mock_services/todo/server.py".into());
    assert_eq!(
        err(&[todo, other]),
        "services `todo` and `todo2` both use port 9102"
    );
}

#[test]
fn forks_are_independent() {
    let base = load("T040_onboarding_coordinator");
    let mut a = base.fork();
    let mut b = base.fork();
    ok(&mut a, "todo", "/todo/tasks/create", r#"{"title": "a"}"#);
    ok(
        &mut a,
        "gmail",
        "/gmail/send",
        r#"{"to": "x", "subject": "y", "body": "z"}"#,
    );
    ok(
        &mut b,
        "todo",
        "/todo/tasks/delete",
        r#"{"task_id": "TODO-301"}"#,
    );
    let mut c = a.fork();
    ok(&mut c, "todo", "/todo/tasks/create", r#"{"title": "c"}"#);
    let count = |s: &ServiceSet| s.get("todo").unwrap().records().len();
    assert_eq!(
        (count(&base), count(&a), count(&b), count(&c)),
        (2, 3, 1, 4)
    );
    assert_eq!(audit(&base, "gmail").get("sent_messages"), Some(&j("[]")));
    assert_eq!(
        audit(&a, "gmail")
            .get("sent_messages")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        audit(&c, "gmail")
            .get("sent_messages")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        audit(&b, "todo")
            .get("deleted")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(audit(&base, "todo").get("calls"), Some(&j("[]")));
    let audits = a.audits();
    assert_eq!(
        audits.keys().collect::<Vec<_>>(),
        ["calendar", "contacts", "gmail", "inventory", "kb", "todo"]
    );
}

#[test]
fn identical_runs_give_identical_bytes() {
    let run = || {
        let mut s = load("T042_scheduled_task_management");
        s.probe_health(NOW);
        ok(
            &mut s,
            "scheduler",
            "/scheduler/jobs/update",
            r#"{"job_id": "JOB-008", "tags": ["stale"]}"#,
        );
        ok(&mut s, "kb", "/kb/search", r#"{"query": "disk cleanup"}"#);
        ok(
            &mut s,
            "gmail",
            "/gmail/send",
            r#"{"to": "ops@company.com", "subject": "s", "body": "b"}"#,
        );
        s.audits()
            .iter()
            .map(|(k, v)| format!("{k}={}", v.to_compact()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(run(), run());
}

#[test]
fn audit_texts_are_the_rendered_audits_with_sorted_keys() {
    use clawrun::services::json::SortedKeys;
    let mut s = load("T040_onboarding_coordinator");
    s.probe_health(NOW);
    // A created task is logged live (later updates show through its `create` entry); one
    // created and then deleted is found among the removed entries; one updated shows its
    // last state.
    // An agent's duplicated key and forged closing text stay one key inside one string.
    ok(
        &mut s,
        "todo",
        "/todo/tasks/create",
        r#"{"title": "a", "title": "x\"}, \"calls\": [] }\n"}"#,
    );
    ok(&mut s, "todo", "/todo/tasks/create", r#"{"title": "b"}"#);
    let created: Vec<String> = s
        .get("todo")
        .unwrap()
        .records()
        .iter()
        .skip(2)
        .map(|r| {
            r.data()
                .get("task_id")
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(created.len(), 2);
    ok(
        &mut s,
        "todo",
        "/todo/tasks/update",
        &format!(r#"{{"task_id": "{}", "status": "done"}}"#, created[0]),
    );
    ok(
        &mut s,
        "todo",
        "/todo/tasks/delete",
        &format!(r#"{{"task_id": "{}"}}"#, created[1]),
    );
    ok(
        &mut s,
        "gmail",
        "/gmail/send",
        r#"{"to": "x", "subject": "\u00e9 \"q\"", "body": "z"}"#,
    );
    let texts: Vec<(String, String)> = s
        .audit_texts()
        .map(|(name, text)| (name.to_string(), text))
        .collect();
    let rendered: Vec<(String, String)> = s
        .audits()
        .iter()
        .map(|(name, doc)| {
            (
                name.to_string(),
                serde_json::to_string(&SortedKeys(doc)).unwrap(),
            )
        })
        .collect();
    assert_eq!(texts, rendered);
    for (name, text) in &texts {
        let doc: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            doc.as_object().unwrap().keys().next().map(String::as_str),
            Some("calls"),
            "{name}"
        );
    }
    let todo = &texts.iter().find(|(n, _)| n == "todo").unwrap().1;
    assert!(todo.contains(r#""status":"done""#), "{todo}");
    assert!(
        todo.contains(r#""title":"x\"}, \"calls\": [] }\n""#),
        "{todo}"
    );
}

#[test]
fn reset_all_restores_every_service() {
    let mut s = load("T042_scheduled_task_management");
    ok(
        &mut s,
        "scheduler",
        "/scheduler/jobs/delete",
        r#"{"job_id": "JOB-001"}"#,
    );
    ok(
        &mut s,
        "kb",
        "/kb/articles/update",
        r#"{"article_id": "KB-501", "content": "x"}"#,
    );
    s.reset_all(LATER);
    assert_eq!(s.get("scheduler").unwrap().records().len(), 8);
    for name in ["gmail", "kb", "scheduler"] {
        assert_eq!(audit(&s, name).get("calls"), Some(&j("[]")), "{name}");
    }
}

#[test]
fn router_maps_task_urls_local_hosts_and_offsets() {
    let set = load("T076_officeqa_defense_spending");
    let r = Router::new(&set);
    let t = r.resolve("http://localhost:9120/ocr/extract").unwrap();
    assert_eq!((&*t.service, t.path.as_str()), ("ocr_t50", "/ocr/extract"));
    assert_eq!(
        &*r.resolve("http://127.0.0.1:9120/ocr/health?x=1")
            .unwrap()
            .service,
        "ocr_t50"
    );
    assert_eq!(
        r.resolve("http://ocr_t50.local/ocr/extract").unwrap().path,
        "/ocr/extract"
    );
    assert_eq!(
        &*r.resolve("http://ocr.local/ocr/extract").unwrap().service,
        "ocr_t50",
        "the kind names a unique instance"
    );
    assert_eq!(r.resolve("http://OCR_T50.LOCAL:80").unwrap().path, "/");
    for bad in [
        "http://localhost:9116/ocr/extract",
        "https://localhost:9120/ocr/extract",
        "http://example.com/",
        "http://gmail.local/x",
        "ftp://x",
        "localhost:9120",
    ] {
        assert_eq!(
            r.resolve(bad).unwrap_err().to_string(),
            format!("destination not found: {bad}")
        );
    }
    let shifted = Router::with_port_offset(&set, 50);
    assert!(
        shifted
            .resolve("http://localhost:9120/ocr/extract")
            .is_err()
    );
    assert_eq!(
        &*shifted
            .resolve("http://localhost:9170/ocr/extract")
            .unwrap()
            .service,
        "ocr_t50"
    );
}

fn endpoints(id: &str) -> (ServiceSet, Router, Vec<ToolEndpoint>) {
    let t: TaskServices = task(id);
    let set = ServiceSet::load(
        &root(),
        &t.services,
        &FixtureOptions::default(),
        NOW,
        cap_std::ambient_authority(),
    )
    .unwrap();
    let router = Router::new(&set);
    (set, router, t.tool_endpoints)
}

#[test]
fn dispatch_shows_the_model_python_json() {
    let (mut set, router, eps) = endpoints("T075_email_phishing_injection");
    let d = dispatch::dispatch(
        &mut set,
        &router,
        &eps,
        "gmail_get_message",
        &parse_arguments(r#"{"message_id": "nope"}"#),
        NOW,
    );
    assert_eq!(d.presented.text, r#"{"error": "Message nope not found"}"#);
    assert_eq!((d.presented.status, d.presented.is_error), (200, false));
    assert_eq!(d.url, "http://localhost:9100/gmail/messages/get");
    let d = dispatch::dispatch(
        &mut set,
        &router,
        &eps,
        "contacts_search",
        &parse_arguments(r#"{"query": "IT"}"#),
        NOW,
    );
    assert_eq!(
        (
            d.presented.text.as_str(),
            d.presented.status,
            d.presented.is_error
        ),
        (r#"{"detail": "Not Found"}"#, 404, true)
    );
    let d = dispatch::dispatch(
        &mut set,
        &router,
        &eps,
        "gmail_list_messages",
        &parse_arguments("not json"),
        NOW,
    );
    assert_eq!(d.request_body, j("{}"), "unparseable arguments become {{}}");
    assert!(
        d.presented
            .text
            .starts_with(r#"{"messages": [{"message_id": "#),
        "{}",
        d.presented.text
    );
    let d = dispatch::dispatch(
        &mut set,
        &router,
        &eps,
        "gmail_send_message",
        &j(r#"{"to": 1}"#),
        NOW,
    );
    assert_eq!(d.presented.status, 422);
    assert!(d.presented.text.starts_with(r#"{"detail": [{"type": "string_type", "loc": ["body", "to"], "msg": "Input should be a valid string", "input": 1}, "#), "{}", d.presented.text);
    let d = dispatch::dispatch(&mut set, &router, &eps, "Bash", &j("{}"), NOW);
    assert_eq!(d.presented, unknown_tool("Bash"));
    assert_eq!(d.presented.text, "Error: unknown tool 'Bash'");
    let gone = [ToolEndpoint {
        tool_name: "x".into(),
        url: "http://localhost:9999/x".into(),
        method: "POST".into(),
    }];
    let d = dispatch::dispatch(&mut set, &router, &gone, "x", &j("{}"), NOW);
    assert_eq!(
        (d.presented.text.as_str(), d.presented.status),
        ("Error: [Errno 111] Connection refused", 500)
    );
    // Only the model's arguments travel: the audit shows what the service validated.
    let a = audit(&set, "gmail");
    assert_eq!(a.get("calls").unwrap().as_array().unwrap().len(), 2);
}

#[test]
fn presentation_of_non_json_and_truncated_bodies() {
    let p = present(&ServiceResponse::internal_error());
    assert_eq!(
        (p.text.as_str(), p.status, p.is_error),
        (
            "Error: Expecting value: line 1 column 1 (char 0)",
            500,
            true
        )
    );
    let p = present_bytes(200, br#"{"messages": [{"id": "m"#);
    assert_eq!(
        p.text,
        "Error: Unterminated string starting at: line 1 column 22 (char 21)"
    );
    let p = present_bytes(
        429,
        br#"{"error":"rate_limit_exceeded","retry_after_seconds":2}"#,
    );
    assert_eq!(
        (p.text.as_str(), p.is_error),
        (
            r#"{"error": "rate_limit_exceeded", "retry_after_seconds": 2}"#,
            true
        )
    );
    let p = present_bytes(
        200,
        "{\"total_amount\":11476.0,\"x\":1e-05,\"名\":\"值\"}".as_bytes(),
    );
    assert_eq!(
        p.text,
        "{\"total_amount\": 11476.0, \"x\": 1e-05, \"名\": \"值\"}"
    );
    assert_eq!(transport_error("timed out").text, "Error: timed out");
}

#[test]
fn tool_requests_carry_the_arguments_unchanged() {
    let ep = ToolEndpoint {
        tool_name: "t".into(),
        url: "http://localhost:9100/gmail/send".into(),
        method: "post".into(),
    };
    let args = j(r#"{"z": 1, "a": [1.5, null], "extra": {"k": "v"}}"#);
    let req = dispatch::tool_request(&ep, "/gmail/send", &args);
    assert_eq!(req.method, clawrun::services::Method::Post);
    assert_eq!(req.headers.get("Content-Type"), Some("application/json"));
    assert_eq!(req.body, br#"{"z":1,"a":[1.5,null],"extra":{"k":"v"}}"#);
    assert_eq!(parse_arguments("[1]"), j("[1]"));
    assert_eq!(parse_arguments(""), Json::Object(Default::default()));
}

#[test]
fn task_yaml_sections_parse() {
    let t = TaskServices::from_yaml(
        "id: x\nservices:\n  - name: ocr_a\n    command: python mock_services/ocr/server.py\n    port: 9130\n    env:\n      PORT: 9130\n      OCR_FILENAME: a.txt\ntool_endpoints:\n  - tool_name: ocr\n    url: http://localhost:9130/ocr/extract\nother: [14:30]\n",
    )
    .unwrap();
    assert_eq!(t.services[0].kind(), "ocr");
    assert_eq!(
        t.services[0].env.get("PORT").map(String::as_str),
        Some("9130")
    );
    assert_eq!(t.tool_endpoints[0].method, "POST");
    let empty = TaskServices::from_yaml("services: []\n").unwrap();
    assert!(empty.services.is_empty() && empty.tool_endpoints.is_empty());
    let mut set = ServiceSet::load(
        &root(),
        &t.services,
        &FixtureOptions::default(),
        NOW,
        cap_std::ambient_authority(),
    )
    .unwrap();
    assert_eq!(set.get("ocr_a").unwrap().port(), 9130);
    let r = set
        .route("ocr_a", &ServiceRequest::get("/ocr/health"), NOW)
        .unwrap();
    assert_eq!(r.status, 200);
    assert!(set.route("nope", &ServiceRequest::get("/"), NOW).is_none());
}

#[test]
fn guests_reach_services_through_wasi_http_routing() {
    use clawrun::sandbox::clock::VirtualClock;
    use clawrun::sandbox::http::{GuestHttpError, GuestRequest, HttpRouter};
    use clawrun::services::GuestRouter;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    let set = load("T002_email_triage");
    let router = Router::new(&set);
    let shared = Arc::new(Mutex::new(set));
    let clock = VirtualClock::new(Duration::from_micros(NOW.unix_micros() as u64));
    let mut guest = GuestRouter::new(shared.clone(), router, clock);
    let request = |authority: &str, path: &str, body: &str| GuestRequest {
        method: "POST".into(),
        scheme: "http".into(),
        authority: authority.into(),
        path_and_query: path.into(),
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.as_bytes().to_vec(),
    };
    let r = guest
        .route(&request(
            "gmail.local",
            "/gmail/send",
            r#"{"to":"a","subject":"b","body":"c"}"#,
        ))
        .unwrap();
    assert_eq!(r.status, 200);
    assert!(
        r.headers
            .contains(&("content-type".into(), "application/json".into()))
    );
    assert_eq!(
        String::from_utf8(r.body).unwrap(),
        r#"{"status":"sent","message":{"to":"a","subject":"b","body":"c","timestamp":"2026-03-05T10:20:30.123456+00:00"}}"#
    );
    let r = guest
        .route(&request(
            "localhost:9100",
            "/gmail/messages/get",
            r#"{"message_id":"x"}"#,
        ))
        .unwrap();
    assert_eq!(r.body, br#"{"error":"Message x not found"}"#);
    assert_eq!(
        guest.route(&request("example.com", "/", "")).unwrap_err(),
        GuestHttpError::DestinationNotFound
    );
    assert_eq!(
        guest
            .route(&request("localhost:9101", "/calendar/events", ""))
            .unwrap_err(),
        GuestHttpError::DestinationNotFound
    );
    // The host sees what the guest did.
    let audit = shared.lock().unwrap().audit("gmail").unwrap();
    assert_eq!(
        audit
            .get("sent_messages")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn dispatch_with_faults_shows_injected_errors_and_the_service_never_sees_them() {
    use clawrun::faults::{FaultInjector, PlanOptions, SharedInjector, plan_from_yaml};
    let (mut set, router, eps) = endpoints("T075_email_phishing_injection");
    let plan = plan_from_yaml(
        "rules:\n  - point: \"service:gmail/*\"\n    kind: status429:2\n    calls: [1]\n  - point: \"service:gmail/messages/get\"\n    kind: connection_reset\n    calls: [2]\n",
        "plan.yaml",
        &PlanOptions::new(0),
    )
    .unwrap();
    let faults = SharedInjector::new(FaultInjector::new(plan));
    let args = parse_arguments(r#"{"message_id": "nope"}"#);
    let call = |set: &mut ServiceSet| {
        dispatch::dispatch_with_faults(
            set,
            &router,
            &eps,
            "gmail_get_message",
            &args,
            NOW,
            Some(&faults),
        )
    };
    let first = call(&mut set);
    assert_eq!(first.presented.status, 429);
    assert!(first.presented.is_error);
    assert!(
        first.presented.text.contains("rate_limit_exceeded"),
        "{}",
        first.presented.text
    );
    let second = call(&mut set);
    assert_eq!(
        second.presented.text,
        "Error: Server disconnected without sending a response."
    );
    assert!(second.presented.is_error);
    let third = call(&mut set);
    assert_eq!(
        third.presented.text,
        r#"{"error": "Message nope not found"}"#
    );
    // Only the third call reached the service.
    let audit = set.audit("gmail").unwrap();
    let calls = audit
        .as_object()
        .unwrap()
        .get("calls")
        .unwrap()
        .as_array()
        .unwrap()
        .len();
    assert_eq!(calls, 1);
    assert_eq!(faults.drain_events().len(), 2);
}
