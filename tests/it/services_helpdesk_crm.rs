//! helpdesk and crm on the shared fixtures (T018/T024 declare no fixture, so upstream serves the
//! Chinese twins' data: T017zh, T023zh).

use crate::services_support;
use clawrun::services::{FixtureOptions, FixturePolicy, ServiceRequest, ServiceSet};
use services_support::*;

#[test]
fn helpdesk_lists_open_tickets_by_default() {
    let mut s = load("T018_ticket_triage");
    let v = ok(&mut s, "helpdesk", "/helpdesk/tickets", "");
    assert_eq!(v.get("total"), Some(&j("10")));
    let first = &v.get("tickets").unwrap().as_array().unwrap()[0];
    assert_eq!(
        keys(first),
        [
            "ticket_id",
            "title",
            "reporter",
            "department",
            "priority",
            "status",
            "created_at"
        ]
    );
    assert_eq!(
        ok(
            &mut s,
            "helpdesk",
            "/helpdesk/tickets",
            r#"{"status": "closed"}"#
        )
        .get("total"),
        Some(&j("0"))
    );
    assert_eq!(
        ok(
            &mut s,
            "helpdesk",
            "/helpdesk/tickets",
            r#"{"status": "all"}"#
        )
        .get("total"),
        Some(&j("10"))
    );
    assert_eq!(
        ok(
            &mut s,
            "helpdesk",
            "/helpdesk/tickets",
            r#"{"status": "Open"}"#
        )
        .get("total"),
        Some(&j("0")),
        "exact match"
    );
    let a = audit(&s, "helpdesk");
    assert_eq!(
        a.get("calls").unwrap().as_array().unwrap()[0]
            .get("request_body")
            .unwrap()
            .to_compact(),
        r#"{"status":"open"}"#
    );
}

#[test]
fn helpdesk_get_returns_full_tickets() {
    let mut s = load("T018_ticket_triage");
    let v = ok(
        &mut s,
        "helpdesk",
        "/helpdesk/tickets/get",
        r#"{"ticket_id": "TK-1010"}"#,
    );
    assert_eq!(
        keys(&v),
        [
            "ticket_id",
            "title",
            "description",
            "reporter",
            "department",
            "priority",
            "status",
            "created_at",
            "tags"
        ]
    );
    assert_eq!(v.get("priority"), Some(&j(r#""low""#)));
    assert_eq!(
        post(
            &mut s,
            "helpdesk",
            "/helpdesk/tickets/get",
            r#"{"ticket_id": "TK-9999"}"#
        ),
        (200, r#"{"error":"Ticket TK-9999 not found"}"#.into())
    );
    assert_eq!(
        post(
            &mut s,
            "helpdesk",
            "/helpdesk/tickets/get",
            r#"{"ticket_id": 1001}"#
        )
        .0,
        422
    );
}

#[test]
fn helpdesk_update_overwrites_non_null_fields_and_logs_copies() {
    let mut s = load("T018_ticket_triage");
    let v = ok(
        &mut s,
        "helpdesk",
        "/helpdesk/tickets/update",
        r#"{"ticket_id": "TK-1001", "priority": "high", "category": "hardware", "tags": null, "status": "closed"}"#,
    );
    let t = v.get("ticket").unwrap();
    assert_eq!(v.get("status"), Some(&j(r#""updated""#)));
    assert_eq!(t.get("priority"), Some(&j(r#""high""#)));
    assert_eq!(
        t.get("status"),
        Some(&j(r#""open""#)),
        "status cannot be changed by update"
    );
    assert_eq!(
        *keys(t).last().unwrap(),
        "category",
        "a new key is appended"
    );
    // Empty strings and empty lists are applied.
    let v = ok(
        &mut s,
        "helpdesk",
        "/helpdesk/tickets/update",
        r#"{"ticket_id": "TK-1001", "priority": "", "tags": []}"#,
    );
    assert_eq!(v.get("ticket").unwrap().get("priority"), Some(&j(r#""""#)));
    assert_eq!(v.get("ticket").unwrap().get("tags"), Some(&j("[]")));
    // Only the id: still an update.
    ok(
        &mut s,
        "helpdesk",
        "/helpdesk/tickets/update",
        r#"{"ticket_id": "TK-1002"}"#,
    );
    assert_eq!(
        post(
            &mut s,
            "helpdesk",
            "/helpdesk/tickets/update",
            r#"{"ticket_id": "TK-0"}"#
        ),
        (200, r#"{"error":"Ticket TK-0 not found"}"#.into())
    );
    let a = audit(&s, "helpdesk");
    assert_eq!(keys(&a), ["calls", "closed", "updated_tickets"]);
    assert_eq!(
        column(&a, "updated_tickets", "ticket_id"),
        ["TK-1001", "TK-1001", "TK-1002"]
    );
    assert_eq!(column(&a, "updated_tickets", "priority"), ["high", "", ""]);
    assert_eq!(a.get("calls").unwrap().as_array().unwrap().len(), 4);
    let req = &a.get("calls").unwrap().as_array().unwrap()[0]
        .get("request_body")
        .unwrap()
        .to_compact();
    assert_eq!(
        req,
        r#"{"ticket_id":"TK-1001","priority":"high","tags":null,"category":"hardware"}"#
    );
    // The stored ticket reflects the updates.
    let t = ok(
        &mut s,
        "helpdesk",
        "/helpdesk/tickets/get",
        r#"{"ticket_id": "TK-1001"}"#,
    );
    assert_eq!(t.get("category"), Some(&j(r#""hardware""#)));
}

#[test]
fn helpdesk_close_sets_status_and_resolution() {
    let mut s = load("T018_ticket_triage");
    let v = ok(
        &mut s,
        "helpdesk",
        "/helpdesk/tickets/close",
        r#"{"ticket_id": "TK-1010", "resolution": "Duplicate"}"#,
    );
    assert_eq!(v.get("status"), Some(&j(r#""closed""#)));
    let t = v.get("ticket").unwrap();
    assert_eq!(
        (t.get("status"), t.get("resolution")),
        (Some(&j(r#""closed""#)), Some(&j(r#""Duplicate""#)))
    );
    assert_eq!(*keys(t).last().unwrap(), "resolution");
    // Closing again works and overwrites the resolution.
    ok(
        &mut s,
        "helpdesk",
        "/helpdesk/tickets/close",
        r#"{"ticket_id": "TK-1010", "resolution": "Again"}"#,
    );
    assert_eq!(
        ok(&mut s, "helpdesk", "/helpdesk/tickets", "").get("total"),
        Some(&j("9"))
    );
    assert_eq!(
        ok(
            &mut s,
            "helpdesk",
            "/helpdesk/tickets",
            r#"{"status": "closed"}"#
        )
        .get("total"),
        Some(&j("1"))
    );
    assert_eq!(
        post(&mut s, "helpdesk", "/helpdesk/tickets/close", r#"{"ticket_id": "TK-1010"}"#),
        (422, r#"{"detail":[{"type":"missing","loc":["body","resolution"],"msg":"Field required","input":{"ticket_id":"TK-1010"}}]}"#.into())
    );
    let a = audit(&s, "helpdesk");
    assert_eq!(column(&a, "closed", "resolution"), ["Duplicate", "Again"]);
    assert_eq!(a.get("updated_tickets"), Some(&j("[]")));
}

#[test]
fn helpdesk_reset_restores_the_fixture() {
    let mut s = load("T018_ticket_triage");
    ok(
        &mut s,
        "helpdesk",
        "/helpdesk/tickets/close",
        r#"{"ticket_id": "TK-1001", "resolution": "x"}"#,
    );
    let r = s
        .route("helpdesk", &ServiceRequest::post("/helpdesk/reset"), NOW)
        .unwrap();
    assert_eq!(r.body_bytes(), br#"{"status":"reset"}"#);
    assert_eq!(
        ok(&mut s, "helpdesk", "/helpdesk/tickets", "").get("total"),
        Some(&j("10"))
    );
    assert_eq!(audit(&s, "helpdesk").get("closed"), Some(&j("[]")));
}

#[test]
fn english_tasks_can_opt_into_their_own_fixture() {
    let t = task("T018_ticket_triage");
    let upstream = ServiceSet::load(
        &root(),
        &t.services,
        &FixtureOptions::default(),
        NOW,
        cap_std::ambient_authority(),
    )
    .unwrap();
    let own = FixtureOptions {
        policy: FixturePolicy::TaskLocal(root().join("tasks/T018_ticket_triage")),
    };
    let local = ServiceSet::load(
        &root(),
        &t.services,
        &own,
        NOW,
        cap_std::ambient_authority(),
    )
    .unwrap();
    let title = |s: &ServiceSet| {
        s.get("helpdesk")
            .unwrap()
            .records()
            .get(0)
            .unwrap()
            .data()
            .get_str("title")
            .unwrap()
            .to_string()
    };
    assert_ne!(title(&upstream), title(&local));
    assert!(
        title(&local).is_ascii(),
        "the English copy: {}",
        title(&local)
    );
}

#[test]
fn crm_filters_and_projects_customers() {
    let mut s = load("T024_crm_data_export");
    let v = ok(&mut s, "crm", "/crm/customers", "");
    assert_eq!(v.get("total"), Some(&j("8")));
    let first = &v.get("customers").unwrap().as_array().unwrap()[0];
    assert_eq!(
        keys(first),
        [
            "customer_id",
            "name",
            "contact_person",
            "tier",
            "status",
            "industry",
            "annual_revenue"
        ]
    );
    assert_eq!(
        column(
            &ok(&mut s, "crm", "/crm/customers", r#"{"tier": "VIP"}"#),
            "customers",
            "customer_id"
        ),
        ["CUS-001", "CUS-003", "CUS-005", "CUS-007"]
    );
    assert_eq!(
        column(
            &ok(
                &mut s,
                "crm",
                "/crm/customers",
                r#"{"tier": "VIP", "industry": "科技"}"#
            ),
            "customers",
            "customer_id"
        ),
        ["CUS-001", "CUS-005"]
    );
    assert_eq!(
        column(
            &ok(&mut s, "crm", "/crm/customers", r#"{"status": "churned"}"#),
            "customers",
            "customer_id"
        ),
        ["CUS-008"]
    );
    // Empty strings and nulls do not filter.
    assert_eq!(
        ok(
            &mut s,
            "crm",
            "/crm/customers",
            r#"{"status": "", "tier": null}"#
        )
        .get("total"),
        Some(&j("8"))
    );
    assert_eq!(
        ok(&mut s, "crm", "/crm/customers", r#"{"tier": "vip"}"#).get("total"),
        Some(&j("0"))
    );
    let a = audit(&s, "crm");
    assert_eq!(
        a.get("calls").unwrap().as_array().unwrap()[0]
            .get("request_body")
            .unwrap()
            .to_compact(),
        r#"{"status":null,"tier":null,"industry":null}"#
    );
}

#[test]
fn crm_get_and_export() {
    let mut s = load("T024_crm_data_export");
    let v = ok(
        &mut s,
        "crm",
        "/crm/customers/get",
        r#"{"customer_id": "CUS-007"}"#,
    );
    assert_eq!(v.get("annual_revenue"), Some(&j("12000000")));
    assert!(v.get("notes").is_some(), "full record");
    assert_eq!(
        post(
            &mut s,
            "crm",
            "/crm/customers/get",
            r#"{"customer_id": "CUS-999"}"#
        ),
        (200, r#"{"error":"Customer CUS-999 not found"}"#.into())
    );
    let (status, body) = post(
        &mut s,
        "crm",
        "/crm/export",
        r#"{"title": "VIP", "customer_ids": ["CUS-001", "CUS-404"], "summary": "两位"}"#,
    );
    assert_eq!(status, 200);
    assert_eq!(
        body,
        r#"{"status":"exported","report":{"title":"VIP","customer_ids":["CUS-001","CUS-404"],"summary":"两位","timestamp":"2026-03-05T10:20:30.123456+00:00"}}"#
    );
    let (status, body) = post(
        &mut s,
        "crm",
        "/crm/export",
        r#"{"title": "VIP", "customer_ids": "CUS-001", "summary": 3}"#,
    );
    assert_eq!(status, 422);
    assert_eq!(
        body,
        r#"{"detail":[{"type":"list_type","loc":["body","customer_ids"],"msg":"Input should be a valid list","input":"CUS-001"},{"type":"string_type","loc":["body","summary"],"msg":"Input should be a valid string","input":3}]}"#
    );
    let (_, body) = post(
        &mut s,
        "crm",
        "/crm/export",
        r#"{"title": "x", "customer_ids": [1, "a", null], "summary": "s"}"#,
    );
    assert_eq!(
        body,
        r#"{"detail":[{"type":"string_type","loc":["body","customer_ids",0],"msg":"Input should be a valid string","input":1},{"type":"string_type","loc":["body","customer_ids",2],"msg":"Input should be a valid string","input":null}]}"#
    );
    let a = audit(&s, "crm");
    assert_eq!(keys(&a), ["calls", "exported_reports"]);
    assert_eq!(column(&a, "exported_reports", "title"), ["VIP"]);
    assert_eq!(a.get("calls").unwrap().as_array().unwrap().len(), 3);
}
