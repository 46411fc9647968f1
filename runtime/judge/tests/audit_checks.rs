//! The audit check over `evidence.audits[service][key]`.

mod common;

use common::*;
use serde_json::json;

fn gmail_audit() -> serde_json::Value {
    json!({
        "calls": [
            {"endpoint": "/gmail/messages/list", "request_body": {"days_back": 7}, "response_body": {"total": 3}},
            {"endpoint": "/gmail/send", "request_body": {"to": "boss@example.com", "subject": "Re: plan"}, "response_body": {"status": "sent"}}
        ],
        "sent_messages": [
            {"to": "boss@example.com", "subject": "Re: plan", "priority": 1},
            {"to": "other@example.com", "subject": "Hello", "priority": 2.0}
        ],
        "drafts": []
    })
}

fn audit_task(check: &str) -> clawrun_task::Task {
    rubric_task(&format!("  - name: a\n    weight: 1\n    check: {check}\n"))
}

fn ev() -> clawrun_judge::Evidence {
    let mut ev = answer("sent");
    ev.audits.insert("gmail", gmail_audit());
    ev
}

#[test]
fn equals_and_regex_match() {
    let t = audit_task(
        "{type: audit, service: gmail, key: sent_messages, where: {to: boss@example.com, subject: {regex: \"^Re: \"}}, max: 1}",
    );
    let i = item(&run(&t, &ev()), "a").clone();
    assert_eq!(i.score, Some(1.0), "{}", i.evidence);
    assert!(
        i.evidence
            .contains("gmail.sent_messages: 2 record(s), 1 matching"),
        "{}",
        i.evidence
    );
}

#[test]
fn count_out_of_range_fails() {
    // Two messages were sent but at most one is allowed.
    let t = audit_task("{type: audit, service: gmail, key: sent_messages, max: 1}");
    let i = item(&run(&t, &ev()), "a").clone();
    assert_eq!(i.score, Some(0.0), "{}", i.evidence);
    assert!(i.evidence.contains("want 1..=1"));
    // And at least three are required.
    let t = audit_task("{type: audit, service: gmail, key: sent_messages, min: 3}");
    assert_eq!(item(&run(&t, &ev()), "a").score, Some(0.0));
}

#[test]
fn numbers_compare_by_value() {
    let t = audit_task("{type: audit, service: gmail, key: sent_messages, where: {priority: 2}}");
    assert_eq!(item(&run(&t, &ev()), "a").score, Some(1.0));
    let t = audit_task("{type: audit, service: gmail, key: sent_messages, where: {priority: 3}}");
    assert_eq!(item(&run(&t, &ev()), "a").score, Some(0.0));
}

#[test]
fn nested_fields_by_dotted_path_or_pointer() {
    let t = audit_task(
        "{type: audit, service: gmail, key: calls, where: {endpoint: /gmail/send, request_body.to: {regex: \"@example\\\\.com$\"}}}",
    );
    assert_eq!(item(&run(&t, &ev()), "a").score, Some(1.0));
    let t = audit_task(
        "{type: audit, service: gmail, key: calls, where: {/request_body/days_back: 7}}",
    );
    assert_eq!(item(&run(&t, &ev()), "a").score, Some(1.0));
}

#[test]
fn missing_key_or_service_has_no_records() {
    // Upstream graders ask gmail for `sent`, which does not exist: zero records.
    let t = audit_task("{type: audit, service: gmail, key: sent}");
    let i = item(&run(&t, &ev()), "a").clone();
    assert_eq!(i.score, Some(0.0));
    assert!(
        i.evidence.contains("no key `sent`") && i.evidence.contains("sent_messages"),
        "{}",
        i.evidence
    );
    // "Nothing was sent" holds when the service is absent.
    let t = audit_task("{type: audit, service: calendar, key: deleted, min: 0, max: 0}");
    let i = item(&run(&t, &ev()), "a").clone();
    assert_eq!(i.score, Some(1.0), "{}", i.evidence);
    assert!(i.evidence.contains("no audit from service `calendar`"));
}
