//! Service benchmarks (DESIGN §10): an in-process service call (target p50 <= 20 us: request
//! bytes in, validation, handler, audit entry, response bytes out) and forking a task's
//! services for a trial. Also printed: exact p50/p99 of a few calls over fresh forks.

#[path = "../tests/services_support/mod.rs"]
mod services_support;

use std::hint::black_box;
use std::time::Instant;

use clawrun::services::{ServiceRequest, ServiceSet};
use criterion::{BatchSize, Criterion};
use services_support::{NOW, load};

/// (bench id, task, service, path, body)
const CALLS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "gmail_get",
        "T002_email_triage",
        "gmail",
        "/gmail/messages/get",
        r#"{"message_id": "msg_004"}"#,
    ),
    (
        "gmail_list",
        "T002_email_triage",
        "gmail",
        "/gmail/messages",
        r#"{"days_back": 7}"#,
    ),
    (
        "gmail_send",
        "T002_email_triage",
        "gmail",
        "/gmail/send",
        r#"{"to": "a@b.c", "subject": "s", "body": "hello"}"#,
    ),
    (
        "calendar_list",
        "T004_calendar_scheduling",
        "calendar",
        "/calendar/events",
        r#"{"date": "2026-03-06"}"#,
    ),
    (
        "helpdesk_update",
        "T018_ticket_triage",
        "helpdesk",
        "/helpdesk/tickets/update",
        r#"{"ticket_id": "TK-1003", "priority": "high"}"#,
    ),
    (
        "kb_search",
        "T016_kb_search",
        "kb",
        "/kb/search",
        r#"{"query": "VPN 密码"}"#,
    ),
    (
        "validation_422",
        "T002_email_triage",
        "gmail",
        "/gmail/send",
        r#"{"to": 5}"#,
    ),
];

fn request(path: &str, body: &str) -> ServiceRequest {
    ServiceRequest::post(path)
        .with_header("content-type", "application/json")
        .with_body(body)
}

/// A fork whose `svc` has already been copied out of the shared base (as after a trial's first
/// call), so the measurement is the call alone.
fn warm_fork(base: &ServiceSet, svc: &str) -> ServiceSet {
    let mut s = base.fork();
    s.get_mut(svc).expect("service");
    s
}

fn bench_calls(c: &mut Criterion) {
    for &(id, task, svc, path, body) in CALLS {
        let base = load(task);
        let req = request(path, body);
        c.bench_function(&format!("services/call/{id}"), |b| {
            b.iter_batched_ref(
                || warm_fork(&base, svc),
                |s| black_box(s.route(svc, &req, NOW).expect("service").body_bytes()),
                BatchSize::SmallInput,
            )
        });
    }
}

fn bench_fork(c: &mut Criterion) {
    let base = load("T040_onboarding_coordinator");
    c.bench_function("services/fork/T040_six_services", |b| {
        b.iter(|| black_box(base.fork()))
    });
    let req = request("/todo/tasks/create", r#"{"title": "x"}"#);
    c.bench_function("services/fork_and_first_write/T040", |b| {
        b.iter(|| {
            let mut s = base.fork();
            black_box(s.route("todo", &req, NOW).expect("service").status)
        })
    });
}

fn percentiles() {
    println!("\nexact percentiles (fresh warm fork per call, 20k samples):");
    for &(id, task, svc, path, body) in CALLS {
        let base = load(task);
        let req = request(path, body);
        let mut samples: Vec<u128> = (0..20_000)
            .map(|_| {
                let mut s = warm_fork(&base, svc);
                let t = Instant::now();
                black_box(s.route(svc, &req, NOW).expect("service").body_bytes());
                t.elapsed().as_nanos()
            })
            .collect();
        samples.sort_unstable();
        let p = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize] as f64 / 1000.0;
        println!(
            "  {id:<16} p50 {:>7.2} us   p99 {:>7.2} us",
            p(0.5),
            p(0.99)
        );
    }
    let base = load("T040_onboarding_coordinator");
    let mut samples: Vec<u128> = (0..20_000)
        .map(|_| {
            let t = Instant::now();
            black_box(base.fork());
            t.elapsed().as_nanos()
        })
        .collect();
    samples.sort_unstable();
    println!(
        "  fork T040 (6 services) p50 {:.3} us",
        samples[samples.len() / 2] as f64 / 1000.0
    );
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_calls(&mut c);
    bench_fork(&mut c);
    c.final_summary();
    percentiles();
}
