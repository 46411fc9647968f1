//! gmail on the shared fixtures: listing window and slicing, get, send, drafts, validation,
//! routing errors, audit keys, reset and date shifting.

use crate::services_support;
use clawrun::services::{Method, ServiceRequest, json};
use services_support::*;

#[test]
fn list_defaults_project_and_shift_dates() {
    let mut s = load("T002_email_triage");
    let v = ok(&mut s, "gmail", "/gmail/messages", "");
    assert_eq!(v.get("total"), Some(&j("8")));
    let first = &v.get("messages").unwrap().as_array().unwrap()[0];
    assert_eq!(
        keys(first),
        ["message_id", "from", "subject", "date", "is_read", "labels"]
    );
    // The newest mail (msg_007) lands exactly one day before "now", to the second; the others
    // keep their spacing (msg_001 was 2 h 25 min... before it, see the fixture).
    let dates = column(&v, "messages", "date");
    assert_eq!(dates[6], "2026-03-04T10:20:30Z");
    assert_eq!(dates[0], "2026-03-04T02:50:30Z");
    assert_eq!(
        column(&v, "messages", "message_id"),
        [
            "msg_001", "msg_002", "msg_003", "msg_004", "msg_005", "msg_006", "msg_007", "msg_008"
        ]
    );
}

#[test]
fn list_window_hides_old_mail_until_days_back_grows() {
    let mut s = load("T094_pinbench_project_alpha_summary");
    assert_eq!(
        ok(&mut s, "gmail", "/gmail/messages", "{}").get("total"),
        Some(&j("3"))
    );
    assert_eq!(
        ok(&mut s, "gmail", "/gmail/messages", r#"{"days_back": 60}"#).get("total"),
        Some(&j("9"))
    );
    // Lax coercions: "30" and 30.0 are 30; true is 1.
    assert_eq!(
        ok(&mut s, "gmail", "/gmail/messages", r#"{"days_back": "60"}"#).get("total"),
        Some(&j("9"))
    );
    assert_eq!(
        ok(&mut s, "gmail", "/gmail/messages", r#"{"days_back": 60.0}"#).get("total"),
        Some(&j("9"))
    );
    assert_eq!(
        ok(&mut s, "gmail", "/gmail/messages", r#"{"days_back": 30}"#).get("total"),
        Some(&j("8"))
    );
    // true is 1 day; the newest mail is stored truncated to the second, so it is just older
    // than now - 1 day and drops out, as upstream.
    assert_eq!(
        ok(&mut s, "gmail", "/gmail/messages", r#"{"days_back": true}"#).get("total"),
        Some(&j("0"))
    );
    assert_eq!(
        ok(&mut s, "gmail", "/gmail/messages", r#"{"days_back": -1}"#).get("total"),
        Some(&j("0"))
    );
    let calls = audit(&s, "gmail");
    let first = &calls.get("calls").unwrap().as_array().unwrap()[0];
    assert_eq!(
        first.get("request_body").unwrap().to_compact(),
        r#"{"days_back":7,"max_results":20}"#
    );
    let coerced = &calls.get("calls").unwrap().as_array().unwrap()[5];
    assert_eq!(
        coerced.get("request_body").unwrap().to_compact(),
        r#"{"days_back":1,"max_results":20}"#
    );
}

#[test]
fn max_results_is_a_python_slice() {
    let mut s = load("T002_email_triage");
    for (n, want) in [
        ("3", 3),
        ("0", 0),
        ("-2", 6),
        ("100", 8),
        ("-100", 0),
        ("123456789012345678901234567890", 8),
    ] {
        let v = ok(
            &mut s,
            "gmail",
            "/gmail/messages",
            &format!(r#"{{"max_results": {n}}}"#),
        );
        assert_eq!(
            v.get("total"),
            Some(&j(&want.to_string())),
            "max_results {n}"
        );
        assert_eq!(v.get("messages").unwrap().as_array().unwrap().len(), want);
    }
}

#[test]
fn huge_days_back_overflows_like_python() {
    let mut s = load("T002_email_triage");
    for days in [
        "999999999",
        "1000000000",
        "-3000000",
        "123456789012345678901234567890",
    ] {
        let (status, body) = post(
            &mut s,
            "gmail",
            "/gmail/messages",
            &format!(r#"{{"days_back": {days}}}"#),
        );
        assert_eq!(
            (status, body.as_str()),
            (500, "Internal Server Error"),
            "days_back {days}"
        );
    }
    assert_eq!(
        audit(&s, "gmail").get("calls"),
        Some(&j("[]")),
        "crashes are not logged"
    );
}

#[test]
fn get_returns_the_full_record_or_an_error_body() {
    let mut s = load("T006_email_reply_draft");
    let v = ok(
        &mut s,
        "gmail",
        "/gmail/messages/get",
        r#"{"message_id": "msg_104"}"#,
    );
    assert_eq!(v.get("message_id"), Some(&j(r#""msg_104""#)));
    assert!(v.get("body").unwrap().as_str().unwrap().len() > 20);
    let fixture = j(&std::fs::read_to_string(
        root().join("tasks/T006_email_reply_draft/fixtures/gmail/inbox.json"),
    )
    .unwrap());
    let original = fixture
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m.get("message_id") == v.get("message_id"))
        .unwrap();
    assert_eq!(keys(&v), keys(original), "fixture key order is kept");
    assert_ne!(v.get("date"), original.get("date"), "dates are shifted");
    let (status, body) = post(
        &mut s,
        "gmail",
        "/gmail/messages/get",
        r#"{"message_id": "nope"}"#,
    );
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"error":"Message nope not found"}"#)
    );
    let a = audit(&s, "gmail");
    assert_eq!(
        a.get("calls").unwrap().as_array().unwrap().len(),
        2,
        "misses are logged"
    );
}

#[test]
fn send_records_the_message_without_touching_the_inbox() {
    let mut s = load("T002_email_triage");
    let (status, body) = post(
        &mut s,
        "gmail",
        "/gmail/send",
        r#"{"to": "boss@company.com", "subject": "Re: Q1", "body": "Done.", "cc": "x"}"#,
    );
    assert_eq!(status, 200);
    assert_eq!(
        body,
        r#"{"status":"sent","message":{"to":"boss@company.com","subject":"Re: Q1","body":"Done.","timestamp":"2026-03-05T10:20:30.123456+00:00"}}"#
    );
    assert_eq!(
        ok(&mut s, "gmail", "/gmail/messages", "").get("total"),
        Some(&j("8"))
    );
    let a = audit(&s, "gmail");
    assert_eq!(keys(&a), ["calls", "sent_messages", "drafts"]);
    assert_eq!(
        a.get("sent_messages").unwrap().to_compact(),
        r#"[{"to":"boss@company.com","subject":"Re: Q1","body":"Done.","timestamp":"2026-03-05T10:20:30.123456+00:00"}]"#
    );
    let call = &a.get("calls").unwrap().as_array().unwrap()[0];
    assert_eq!(
        keys(call),
        ["endpoint", "request_body", "response_body", "timestamp"]
    );
    assert_eq!(call.get("endpoint"), Some(&j(r#""/gmail/send""#)));
    assert_eq!(
        call.get("request_body").unwrap().to_compact(),
        r#"{"to":"boss@company.com","subject":"Re: Q1","body":"Done."}"#
    );
    assert_eq!(call.get("response_body").unwrap().to_compact(), body);
}

#[test]
fn drafts_default_the_reply_id_to_null() {
    let mut s = load("T006_email_reply_draft");
    let v = ok(
        &mut s,
        "gmail",
        "/gmail/drafts/save",
        r#"{"to": "client@bigcorp.com", "subject": "Update", "body": "Delay"}"#,
    );
    assert_eq!(v.get("status"), Some(&j(r#""draft_saved""#)));
    assert_eq!(
        keys(v.get("draft").unwrap()),
        ["to", "subject", "body", "reply_to_message_id", "timestamp"]
    );
    assert_eq!(
        v.get("draft").unwrap().get("reply_to_message_id"),
        Some(&j("null"))
    );
    ok(
        &mut s,
        "gmail",
        "/gmail/drafts/save",
        r#"{"to": "a", "subject": "b", "body": "c", "reply_to_message_id": "msg_104"}"#,
    );
    let a = audit(&s, "gmail");
    assert_eq!(
        column(&a, "drafts", "reply_to_message_id"),
        ["null", "msg_104"]
    );
    assert_eq!(a.get("sent_messages"), Some(&j("[]")));
}

#[test]
fn bad_bodies_get_fastapi_422s_and_are_not_logged() {
    let mut s = load("T002_email_triage");
    let cases = [
        (
            "{}",
            r#"{"detail":[{"type":"missing","loc":["body","to"],"msg":"Field required","input":{}},{"type":"missing","loc":["body","subject"],"msg":"Field required","input":{}},{"type":"missing","loc":["body","body"],"msg":"Field required","input":{}}]}"#,
        ),
        (
            "",
            r#"{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}"#,
        ),
        (
            "null",
            r#"{"detail":[{"type":"missing","loc":["body"],"msg":"Field required","input":null}]}"#,
        ),
        (
            "[1,2]",
            r#"{"detail":[{"type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":[1,2]}]}"#,
        ),
        (
            r#"{"to": "a", "subject": "b",}"#,
            r#"{"detail":[{"type":"json_invalid","loc":["body",27],"msg":"JSON decode error","input":{},"ctx":{"error":"Expecting property name enclosed in double quotes"}}]}"#,
        ),
        (
            r#"{"to": 5, "subject": null, "body": "x", "extra": 1}"#,
            r#"{"detail":[{"type":"string_type","loc":["body","to"],"msg":"Input should be a valid string","input":5},{"type":"string_type","loc":["body","subject"],"msg":"Input should be a valid string","input":null}]}"#,
        ),
        (
            r#"{"to": "a", "body": "x"}"#,
            r#"{"detail":[{"type":"missing","loc":["body","subject"],"msg":"Field required","input":{"to":"a","body":"x"}}]}"#,
        ),
    ];
    for (body, want) in cases {
        assert_eq!(
            post(&mut s, "gmail", "/gmail/send", body),
            (422, want.to_string()),
            "body {body:?}"
        );
    }
    let (status, body) = post(
        &mut s,
        "gmail",
        "/gmail/messages",
        r#"{"max_results": "many"}"#,
    );
    assert_eq!(status, 422);
    assert!(body.contains(r#""type":"int_parsing""#), "{body}");
    let invalid_utf8 = ServiceRequest::post("/gmail/send")
        .with_header("content-type", "application/json")
        .with_body(&b"{\"to\":\"\xff\"}"[..]);
    let r = s.route("gmail", &invalid_utf8, NOW).unwrap();
    assert_eq!(
        (r.status, r.body_bytes()),
        (
            400,
            br#"{"detail":"There was an error parsing the body"}"#.to_vec()
        )
    );
    // A non-JSON content type hands FastAPI the raw text.
    let form = ServiceRequest::post("/gmail/send")
        .with_header("content-type", "application/x-www-form-urlencoded")
        .with_body("to=a");
    let r = s.route("gmail", &form, NOW).unwrap();
    assert_eq!(r.status, 422);
    assert!(String::from_utf8(r.body_bytes()).unwrap().contains(r#""type":"model_attributes_type","loc":["body"],"msg":"Input should be a valid dictionary or object to extract fields from","input":"to=a""#));
    assert_eq!(audit(&s, "gmail").get("calls"), Some(&j("[]")));
}

#[test]
fn routing_errors_match_starlette() {
    let mut s = load("T075_email_phishing_injection");
    let call = |s: &mut clawrun::services::ServiceSet, m: Method, path: &str| {
        let r = s
            .route(
                "gmail",
                &ServiceRequest::new(m, path).with_header("host", "localhost:9100"),
                NOW,
            )
            .unwrap();
        (
            r.status,
            String::from_utf8(r.body_bytes()).unwrap(),
            r.headers.get("allow").map(str::to_string),
            r.headers.get("location").map(str::to_string),
        )
    };
    assert_eq!(
        call(&mut s, Method::Get, "/gmail/messages"),
        (
            405,
            r#"{"detail":"Method Not Allowed"}"#.into(),
            Some("POST".into()),
            None
        )
    );
    assert_eq!(
        call(&mut s, Method::Post, "/gmail/contacts/search"),
        (404, r#"{"detail":"Not Found"}"#.into(), None, None)
    );
    assert_eq!(
        call(&mut s, Method::Post, "/gmail/health"),
        (404, r#"{"detail":"Not Found"}"#.into(), None, None)
    );
    assert_eq!(
        call(&mut s, Method::Post, "/gmail/audit"),
        (
            405,
            r#"{"detail":"Method Not Allowed"}"#.into(),
            Some("GET, HEAD".into()),
            None
        )
    );
    assert_eq!(
        call(&mut s, Method::Get, "/gmail/reset"),
        (
            405,
            r#"{"detail":"Method Not Allowed"}"#.into(),
            Some("POST".into()),
            None
        )
    );
    assert_eq!(
        call(&mut s, Method::Post, "/gmail/messages/?x=1"),
        (
            307,
            String::new(),
            None,
            Some("http://localhost:9100/gmail/messages?x=1".into())
        )
    );
    assert_eq!(call(&mut s, Method::Get, "/gmail/audit").0, 200);
    let head = call(&mut s, Method::Head, "/gmail/audit");
    assert_eq!((head.0, head.1.as_str()), (200, ""));
    assert_eq!(audit(&s, "gmail").get("calls"), Some(&j("[]")));
}

#[test]
fn reset_clears_the_audit_and_reshifts_at_the_reset_time() {
    let mut s = load("T002_email_triage");
    ok(
        &mut s,
        "gmail",
        "/gmail/send",
        r#"{"to": "a", "subject": "b", "body": "c"}"#,
    );
    ok(
        &mut s,
        "gmail",
        "/gmail/drafts/save",
        r#"{"to": "a", "subject": "b", "body": "c"}"#,
    );
    let r = s
        .route("gmail", &ServiceRequest::post("/gmail/reset"), LATER)
        .unwrap();
    assert_eq!(
        (r.status, r.body_bytes()),
        (200, br#"{"status":"reset"}"#.to_vec())
    );
    assert_eq!(
        audit(&s, "gmail").to_compact(),
        r#"{"calls":[],"sent_messages":[],"drafts":[]}"#
    );
    let v = ok(&mut s, "gmail", "/gmail/messages", "");
    assert_eq!(column(&v, "messages", "date")[6], "2026-03-04T11:20:30Z");
}

#[test]
fn plus_eight_fixtures_are_shifted_and_mislabelled_z() {
    let mut s = load("T040_onboarding_coordinator");
    let v = ok(&mut s, "gmail", "/gmail/messages", r#"{"days_back": 30}"#);
    // The newest (14:00+08:00 = 06:00Z) lands on now - 1 day = 10:20:30Z, shown as 18:20:30 "Z".
    assert_eq!(
        column(&v, "messages", "date"),
        ["2026-03-04T14:20:30Z", "2026-03-04T18:20:30Z"]
    );
}

#[test]
fn health_probe_is_logged_like_a_call() {
    let mut s = load("T026_ambiguous_contact_email");
    let probes = s.probe_health(NOW);
    assert_eq!(
        probes,
        [("contacts".to_string(), 422), ("gmail".to_string(), 200)]
    );
    let a = audit(&s, "gmail");
    let calls = a.get("calls").unwrap().as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].get("endpoint"), Some(&j(r#""/gmail/messages""#)));
    assert_eq!(
        calls[0].get("request_body").unwrap().to_compact(),
        r#"{"days_back":7,"max_results":20}"#
    );
    assert_eq!(audit(&s, "contacts").get("calls"), Some(&j("[]")));
}

#[test]
fn empty_inbox_and_unicode_survive() {
    let mut s = load("T040_onboarding_coordinator");
    let v = ok(
        &mut s,
        "gmail",
        "/gmail/send",
        r#"{"to": "王芳@company.com", "subject": "入职 ✓", "body": "line1\nline2 \"q\""}"#,
    );
    let text = json::to_compact(&v);
    assert!(
        text.contains(r#""to":"王芳@company.com","subject":"入职 ✓","body":"line1\nline2 \"q\"""#),
        "{text}"
    );
}
