//! Fault-decision benchmarks (DESIGN §10 target: one decision <= 100 ns):
//! - `faults/decide_claw_eval`: the `claw-eval` preset at rate 0.3, POST calls over 12 service
//!   endpoints, through the injector (the production path: point lookup and counter, filters,
//!   the seeded draw — one keyed BLAKE3 compression per 4 calls of a (point, rule), cached in
//!   between — and an event on a fault);
//! - `faults/decide_5_rules`: a 5-rule plan (globs over services, tools, http, fs; weighted
//!   kinds, a latency range, exact calls, a max_count) over 24 points of all categories;
//! - `faults/decide_fs_hook_5_rules`: the same plan asked through the sandbox's fs hook
//!   (builds the `fs:<op>:<path>` point per call);
//! - `faults/plan_decide_pure_5_rules`: the plan's stateless decision (glob matching and the
//!   point digest every time: what the injector caches), for reference.

use std::hint::black_box;

use clawrun::faults::point::{self, Call};
use clawrun::faults::{FaultInjector, FaultKind, FaultPlan, Rule, Trigger, preset};
use clawrun::sandbox::fault::{FsCall, FsFaultHook, FsOp};
use criterion::Criterion;

/// Drain the events now and then so the bench measures decisions, not a growing Vec.
const DRAIN_AT: usize = 4096;

fn service_calls() -> Vec<(String, &'static str)> {
    [
        ("gmail", "/gmail/send"),
        ("gmail", "/gmail/messages"),
        ("gmail", "/gmail/messages/get"),
        ("gmail", "/gmail/drafts/save"),
        ("calendar", "/calendar/events"),
        ("calendar", "/calendar/events/create"),
        ("todo", "/todo/tasks"),
        ("todo", "/todo/tasks/update"),
        ("crm", "/crm/customers"),
        ("crm", "/crm/export"),
        ("kb", "/kb/search"),
        ("notes", "/notes/list"),
    ]
    .into_iter()
    .map(|(s, p)| (point::service(s, p), p))
    .collect()
}

fn five_rule_plan() -> FaultPlan {
    FaultPlan::new(
        2026,
        vec![
            Rule::new(
                "service:gmail/send",
                FaultKind::Status500,
                Trigger::Calls(vec![1, 4]),
            ),
            Rule::new("service:*", FaultKind::Status500, Trigger::Probability(0.1))
                .with_kinds(vec![
                    (
                        FaultKind::Status429 {
                            retry_after_secs: 2,
                        }
                        .into(),
                        1.0,
                    ),
                    (FaultKind::Status503.into(), 1.0),
                    ("latency:100-900".parse().unwrap(), 2.0),
                ])
                .methods(["POST"])
                .exclude_suffixes(["/audit", "/reset"]),
            Rule::new("tool:Bash", FaultKind::Timeout, Trigger::Probability(0.05)).max_count(1000),
            Rule::new(
                "http:*.local/*",
                FaultKind::MalformedJson,
                Trigger::Probability(0.02),
            ),
            Rule::new(
                "fs:write:/workspace/*",
                FaultKind::Enospc,
                Trigger::Probability(0.01),
            )
            .or_point("fs:open:/workspace/data/*"),
        ],
    )
    .expect("valid plan")
}

fn mixed_points() -> Vec<String> {
    let mut points: Vec<String> = service_calls().into_iter().map(|(p, _)| p).collect();
    points.extend(["Bash", "Read", "Grep"].map(point::tool));
    points.extend((0..3).map(|i| point::http("crm.local", &format!("/crm/customers/{i}"))));
    points.extend((0..3).map(|i| point::fs(FsOp::Write, &format!("/workspace/out{i}.txt"))));
    points.extend((0..3).map(|i| point::fs(FsOp::Open, &format!("/workspace/data/in{i}.csv"))));
    points
}

fn bench_decisions(c: &mut Criterion) {
    let calls = service_calls();
    let mut inj = FaultInjector::new(preset::claw_eval(2026, 0.3).expect("preset"));
    let mut i = 0usize;
    c.bench_function("faults/decide_claw_eval", |b| {
        b.iter(|| {
            let (point, path) = &calls[i % calls.len()];
            i = i.wrapping_add(1);
            let fault = inj.decide(&Call::service(point, path, "POST", false));
            if inj.events().len() >= DRAIN_AT {
                inj.drain_events();
            }
            black_box(fault)
        })
    });

    let points = mixed_points();
    let mut inj = FaultInjector::new(five_rule_plan());
    let mut i = 0usize;
    c.bench_function("faults/decide_5_rules", |b| {
        b.iter(|| {
            let p = &points[i % points.len()];
            i = i.wrapping_add(1);
            let fault = inj.decide(&Call::new(p).with_method("POST"));
            if inj.events().len() >= DRAIN_AT {
                inj.drain_events();
            }
            black_box(fault)
        })
    });

    let fs_calls: Vec<(FsOp, String)> = (0..6)
        .map(|i| (FsOp::Write, format!("/workspace/out{i}.txt")))
        .chain((0..6).map(|i| (FsOp::Read, format!("/workspace/data/in{i}.csv"))))
        .collect();
    let mut inj = FaultInjector::new(five_rule_plan());
    let mut i = 0usize;
    c.bench_function("faults/decide_fs_hook_5_rules", |b| {
        b.iter(|| {
            let (op, path) = &fs_calls[i % fs_calls.len()];
            i = i.wrapping_add(1);
            let fault = inj.on_call(&FsCall { op: *op, path });
            if inj.events().len() >= DRAIN_AT {
                inj.drain_events();
            }
            black_box(fault)
        })
    });

    let plan = five_rule_plan();
    let mut i = 0u64;
    c.bench_function("faults/plan_decide_pure_5_rules", |b| {
        b.iter(|| {
            let p = &points[(i % points.len() as u64) as usize];
            i += 1;
            black_box(plan.decide(
                &Call::new(p).with_method("POST"),
                i / points.len() as u64 + 1,
            ))
        })
    });
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_decisions(&mut c);
    c.final_summary();
}
