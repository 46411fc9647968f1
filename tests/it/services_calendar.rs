//! calendar on the shared fixtures: date shifting, day windows, per-user views, create (ids,
//! verbatim times, the naive-time hazard), delete, validation, audit and reset.

use crate::services_support;
use clawrun::services::ServiceRequest;
use services_support::*;

#[test]
fn events_move_to_tomorrow_and_sort_by_start() {
    let mut s = load("T004_calendar_scheduling");
    // The earliest event (09:00Z on the fixture's 2026-03-02) lands tomorrow at 09:00Z.
    let v = ok(
        &mut s,
        "calendar",
        "/calendar/events",
        r#"{"date": "2026-03-06"}"#,
    );
    assert_eq!(v.get("total"), Some(&j("7")));
    assert_eq!(
        column(&v, "events", "event_id"),
        [
            "evt_001", "evt_002", "evt_003", "evt_006", "evt_004", "evt_005", "evt_007"
        ]
    );
    assert_eq!(
        column(&v, "events", "start_time")[0],
        "2026-03-06T09:00:00Z"
    );
    assert_eq!(column(&v, "events", "end_time")[6], "2026-03-06T18:00:00Z");
    let fixture = j(&std::fs::read_to_string(
        root().join("tasks/T004_calendar_scheduling/fixtures/calendar/events.json"),
    )
    .unwrap());
    let first = &v.get("events").unwrap().as_array().unwrap()[0];
    assert_eq!(
        keys(first),
        keys(&fixture.as_array().unwrap()[0]),
        "full records in fixture key order"
    );
    // The prompt's date no longer has events (upstream behaviour).
    assert_eq!(
        ok(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "2026-03-02"}"#
        )
        .get("total"),
        Some(&j("0"))
    );
}

#[test]
fn no_body_means_the_literal_default_date_but_an_object_needs_date() {
    let mut s = load("T004_calendar_scheduling");
    assert_eq!(
        post(&mut s, "calendar", "/calendar/events", ""),
        (200, r#"{"events":[],"total":0}"#.into())
    );
    let a = audit(&s, "calendar");
    assert_eq!(
        a.get("calls").unwrap().as_array().unwrap()[0]
            .get("request_body")
            .unwrap()
            .to_compact(),
        r#"{"date":"2026-03-02","days":1}"#
    );
    assert_eq!(
        post(&mut s, "calendar", "/calendar/events", "{}"),
        (422, r#"{"detail":[{"type":"missing","loc":["body","date"],"msg":"Field required","input":{}}]}"#.into())
    );
}

#[test]
fn date_parsing_is_strptime() {
    let mut s = load("T004_calendar_scheduling");
    assert_eq!(
        ok(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "2026-3-6"}"#
        )
        .get("total"),
        Some(&j("7"))
    );
    assert_eq!(
        ok(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "2026-03- 6"}"#
        )
        .get("total"),
        Some(&j("7"))
    );
    for bad in [
        "03/06/2026",
        "2026-03-06T00:00",
        "2026-02-30",
        "tomorrow",
        "",
    ] {
        let (status, body) = post(
            &mut s,
            "calendar",
            "/calendar/events",
            &format!(r#"{{"date": "{bad}"}}"#),
        );
        assert_eq!(
            (status, body),
            (200, format!(r#"{{"error":"Invalid date format: {bad}"}}"#))
        );
    }
    assert_eq!(
        audit(&s, "calendar")
            .get("calls")
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        7,
        "invalid dates are logged"
    );
}

#[test]
fn day_windows_span_days_and_overflow_like_python() {
    let mut s = load("T040_onboarding_coordinator");
    // +08:00 fixture: 09:00+08:00 lands tomorrow at 09:00, shown as 17:00 "Z" (8 h late).
    let v = ok(
        &mut s,
        "calendar",
        "/calendar/events",
        r#"{"date": "2026-03-06", "days": 2}"#,
    );
    assert_eq!(
        column(&v, "events", "start_time"),
        [
            "2026-03-06T17:00:00Z",
            "2026-03-06T18:30:00Z",
            "2026-03-06T22:00:00Z"
        ]
    );
    assert_eq!(
        ok(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "2026-03-06", "days": 0}"#
        )
        .get("total"),
        Some(&j("0"))
    );
    assert_eq!(
        ok(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "2026-03-07", "days": -1}"#
        )
        .get("total"),
        Some(&j("0"))
    );
    assert_eq!(
        post(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "9999-12-31", "days": 1}"#
        )
        .0,
        500
    );
    assert_eq!(
        post(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "2026-03-06", "days": 1000000000}"#
        )
        .0,
        500
    );
}

#[test]
fn user_events_match_attendee_substrings() {
    let mut s = load("T040_onboarding_coordinator");
    let v = ok(
        &mut s,
        "calendar",
        "/calendar/user_events",
        r#"{"user": "zhangwei", "date": "2026-03-06"}"#,
    );
    assert_eq!(column(&v, "events", "event_id"), ["evt_501", "evt_503"]);
    assert_eq!(keys(&v), ["events", "total", "user"]);
    assert_eq!(v.get("user"), Some(&j(r#""zhangwei""#)));
    let v = ok(
        &mut s,
        "calendar",
        "/calendar/user_events",
        r#"{"user": "ZhangWei", "date": "2026-03-06"}"#,
    );
    assert_eq!(v.get("total"), Some(&j("0")), "case-sensitive");
    let v = ok(
        &mut s,
        "calendar",
        "/calendar/user_events",
        r#"{"user": "x", "date": "March 9"}"#,
    );
    assert_eq!(
        v.to_compact(),
        r#"{"error":"Invalid date format: March 9"}"#
    );
    let (status, body) = post(
        &mut s,
        "calendar",
        "/calendar/user_events",
        r#"{"user": "x"}"#,
    );
    assert_eq!(
        (status, body.as_str()),
        (
            422,
            r#"{"detail":[{"type":"missing","loc":["body","date"],"msg":"Field required","input":{"user":"x"}}]}"#
        )
    );
}

#[test]
fn create_numbers_by_count_and_stores_times_verbatim() {
    let mut s = load("T004_calendar_scheduling");
    let v = ok(
        &mut s,
        "calendar",
        "/calendar/events/create",
        r#"{"title": "Sync", "start_time": "2026-03-06T15:00:00Z", "end_time": "2026-03-06T15:30:00+00:00", "attendees": ["Mike Li"]}"#,
    );
    assert_eq!(
        v.to_compact(),
        r#"{"status":"created","event":{"event_id":"evt_008","title":"Sync","start_time":"2026-03-06T15:00:00Z","end_time":"2026-03-06T15:30:00+00:00","attendees":["Mike Li"],"location":"","recurring":false}}"#
    );
    let day = ok(
        &mut s,
        "calendar",
        "/calendar/events",
        r#"{"date": "2026-03-06"}"#,
    );
    assert_eq!(day.get("total"), Some(&j("8")));
    assert_eq!(column(&day, "events", "event_id")[5], "evt_008");
    let a = audit(&s, "calendar");
    assert_eq!(keys(&a), ["calls", "deleted", "created_events"]);
    assert_eq!(
        a.get("created_events").unwrap().to_compact(),
        format!("[{}]", v.get("event").unwrap().to_compact())
    );
    let (status, body) = post(
        &mut s,
        "calendar",
        "/calendar/events/create",
        r#"{"title": "x", "start_time": 5, "end_time": "y", "attendees": "all"}"#,
    );
    assert_eq!(status, 422);
    assert!(
        body.contains(r#"{"type":"string_type","loc":["body","start_time"]"#)
            && body.contains(r#""loc":["body","attendees"]"#),
        "{body}"
    );
}

#[test]
fn a_naive_created_time_breaks_listing_but_not_get_or_delete() {
    let mut s = load("T004_calendar_scheduling");
    ok(
        &mut s,
        "calendar",
        "/calendar/events/create",
        r#"{"title": "Naive", "start_time": "2026-03-10T15:00:00", "end_time": "x"}"#,
    );
    assert_eq!(
        post(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "2026-03-06"}"#
        ),
        (500, "Internal Server Error".into())
    );
    assert_eq!(
        post(
            &mut s,
            "calendar",
            "/calendar/user_events",
            r#"{"user": "a", "date": "2026-03-06"}"#
        )
        .0,
        500
    );
    // An invalid date is still answered before the events are parsed.
    assert_eq!(
        post(&mut s, "calendar", "/calendar/events", r#"{"date": "bad"}"#).0,
        200
    );
    assert_eq!(
        ok(
            &mut s,
            "calendar",
            "/calendar/events/get",
            r#"{"event_id": "evt_008"}"#
        )
        .get("title"),
        Some(&j(r#""Naive""#))
    );
    ok(
        &mut s,
        "calendar",
        "/calendar/events/delete",
        r#"{"event_id": "evt_008"}"#,
    );
    assert_eq!(
        ok(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "2026-03-06"}"#
        )
        .get("total"),
        Some(&j("7"))
    );
    // Compact and space-separated forms parse, as in Python.
    ok(
        &mut s,
        "calendar",
        "/calendar/events/create",
        r#"{"title": "C", "start_time": "20260306T235959Z", "end_time": ""}"#,
    );
    ok(
        &mut s,
        "calendar",
        "/calendar/events/create",
        r#"{"title": "S", "start_time": "2026-03-06 08:00:00+00:00", "end_time": ""}"#,
    );
    let v = ok(
        &mut s,
        "calendar",
        "/calendar/events",
        r#"{"date": "2026-03-06"}"#,
    );
    assert_eq!(v.get("total"), Some(&j("9")));
    assert_eq!(
        column(&v, "events", "title")[0],
        "S",
        "sorted by start_time text: a space sorts before T"
    );
    assert_eq!(
        column(&v, "events", "title").last().unwrap(),
        "C",
        "compact form sorts last"
    );
}

#[test]
fn delete_logs_the_event_and_ids_can_then_collide() {
    let mut s = load("T004_calendar_scheduling");
    let v = ok(
        &mut s,
        "calendar",
        "/calendar/events/delete",
        r#"{"event_id": "evt_001"}"#,
    );
    assert_eq!(v.get("status"), Some(&j(r#""deleted""#)));
    assert_eq!(
        v.get("event").unwrap().get("title"),
        Some(&j(r#""Daily Standup""#))
    );
    assert_eq!(
        post(
            &mut s,
            "calendar",
            "/calendar/events/delete",
            r#"{"event_id": "evt_001"}"#
        ),
        (200, r#"{"error":"Event evt_001 not found"}"#.into())
    );
    let created = ok(
        &mut s,
        "calendar",
        "/calendar/events/create",
        r#"{"title": "X", "start_time": "2026-03-06T20:00:00Z", "end_time": "2026-03-06T21:00:00Z"}"#,
    );
    assert_eq!(
        created.get("event").unwrap().get("event_id"),
        Some(&j(r#""evt_007""#)),
        "6 events + 1, colliding with the fixture's evt_007"
    );
    // get finds the first match: the fixture's evt_007.
    assert_eq!(
        ok(
            &mut s,
            "calendar",
            "/calendar/events/get",
            r#"{"event_id": "evt_007"}"#
        )
        .get("title"),
        Some(&j(r#""Sarah Wang - User Testing Session""#))
    );
    let a = audit(&s, "calendar");
    assert_eq!(column(&a, "deleted", "event_id"), ["evt_001"]);
    assert_eq!(a.get("calls").unwrap().as_array().unwrap().len(), 4);
}

#[test]
fn empty_fixture_and_reset() {
    let mut s = load("T086_pinbench_calendar_event_creation");
    assert_eq!(
        ok(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "2026-03-06"}"#
        )
        .get("total"),
        Some(&j("0"))
    );
    let v = ok(
        &mut s,
        "calendar",
        "/calendar/events/create",
        r#"{"title": "Q1 roadmap", "start_time": "2026-03-10T14:00:00Z", "end_time": "2026-03-10T15:00:00Z", "attendees": ["alex@example.com"], "location": "Zoom"}"#,
    );
    assert_eq!(
        v.get("event").unwrap().get("event_id"),
        Some(&j(r#""evt_001""#))
    );
    let r = s
        .route("calendar", &ServiceRequest::post("/calendar/reset"), LATER)
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(
        audit(&s, "calendar").to_compact(),
        r#"{"calls":[],"deleted":[],"created_events":[]}"#
    );
    assert_eq!(
        ok(
            &mut s,
            "calendar",
            "/calendar/events",
            r#"{"date": "2026-03-10"}"#
        )
        .get("total"),
        Some(&j("0"))
    );
}
