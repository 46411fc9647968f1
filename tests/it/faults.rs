//! Fault plans and the injector: seeded determinism, the `claw-eval` preset (mix, rate,
//! eligibility, exact bytes), exact call numbers and `max_count`, plans from YAML and the CLI
//! with precise errors.

use std::collections::BTreeMap;

use clawrun::faults::point::{self, Call};
use clawrun::faults::preset::{self, CLAW_EVAL_EXEMPT_SUFFIXES};
use clawrun::faults::response::{RATE_LIMIT_BODY, SERVER_ERROR_BODY};
use clawrun::faults::{
    FaultEvent, FaultInjector, FaultKind, FaultPlan, FaultsSection, KindSpec, PlanError,
    PlanOptions, PlanSource, Pos, Rule, Trigger, plan_from_cli, plan_from_yaml,
};
use clawrun::sandbox::clock::VirtualClock;

/// A plan mixing probability rules, weighted kinds, a latency range and exact calls.
fn mixed_plan(seed: u64) -> FaultPlan {
    FaultPlan::new(
        seed,
        vec![
            Rule::new(
                "service:gmail/*",
                FaultKind::Status500,
                Trigger::Probability(0.2),
            )
            .with_kinds(vec![
                (FaultKind::Status500.into(), 1.0),
                (
                    FaultKind::Status429 {
                        retry_after_secs: 2,
                    }
                    .into(),
                    2.0,
                ),
                ("latency:10-900".parse().unwrap(), 1.0),
            ]),
            Rule::new("tool:*", FaultKind::Timeout, Trigger::Probability(0.1)),
            Rule::new(
                "http:*",
                FaultKind::MalformedJson,
                Trigger::Calls(vec![2, 7]),
            ),
            Rule::new(
                "fs:write:/workspace/*",
                FaultKind::Enospc,
                Trigger::Probability(0.05),
            ),
        ],
    )
    .unwrap()
}

/// 40 points over all four categories.
fn points() -> Vec<String> {
    let mut points = Vec::new();
    for endpoint in [
        "/gmail/send",
        "/gmail/messages",
        "/gmail/messages/get",
        "/gmail/drafts/save",
    ] {
        points.push(point::service("gmail", endpoint));
    }
    for tool in ["Bash", "Read", "Write", "Edit", "Glob", "Grep"] {
        points.push(point::tool(tool));
    }
    for i in 0..10 {
        points.push(point::http("crm.local", &format!("/crm/customers/{i}")));
        points.push(format!("fs:write:/workspace/f{i}.txt"));
        points.push(format!("fs:read:/workspace/f{i}.txt"));
    }
    points
}

/// Every point called `rounds` times, round robin, through one injector.
fn run_round_robin(plan: FaultPlan, rounds: usize) -> Vec<FaultEvent> {
    let mut inj = FaultInjector::new(plan);
    let points = points();
    for _ in 0..rounds {
        for p in &points {
            inj.decide(&Call::new(p).with_method("POST"));
        }
    }
    inj.drain_events()
}

#[test]
fn same_seed_same_faults_different_seed_different_faults() {
    let a = run_round_robin(mixed_plan(42), 200);
    let b = run_round_robin(mixed_plan(42), 200);
    assert!(a.len() > 300, "too few faults to compare: {}", a.len());
    assert_eq!(a, b);
    let c = run_round_robin(mixed_plan(43), 200);
    assert_ne!(a, c);
    // Every kind of the weighted rule showed up, and latencies stay in their range.
    let kinds: std::collections::BTreeSet<&str> = a.iter().map(|e| e.kind.name()).collect();
    for k in [
        "status500",
        "status429",
        "latency",
        "timeout",
        "malformed_json",
        "enospc",
    ] {
        assert!(kinds.contains(k), "{k} never injected: {kinds:?}");
    }
    for e in &a {
        if let FaultKind::Latency { millis } = e.kind {
            assert!((10..=900).contains(&millis), "{e:?}");
        }
    }
    // Exact calls: every http point faults on its 2nd and 7th call only.
    let http: Vec<u64> = a
        .iter()
        .filter(|e| &*e.point == "http:crm.local/crm/customers/3")
        .map(|e| e.call)
        .collect();
    assert_eq!(http, [2, 7]);
}

#[test]
fn a_decision_depends_only_on_its_own_point_and_counter() {
    let plan = mixed_plan(7);
    let points = points();
    // Order A: round robin. Order B: each point's calls in one burst, points in reverse, with a
    // stride that interleaves them differently.
    let mut in_order = FaultInjector::new(plan.clone());
    let mut a: BTreeMap<(String, u64), Option<FaultKind>> = BTreeMap::new();
    for round in 1..=60u64 {
        for p in &points {
            let f = in_order.decide(&Call::new(p).with_method("POST"));
            a.insert((p.clone(), round), f.map(|f| f.kind));
        }
    }
    let mut shuffled = FaultInjector::new(plan.clone());
    let mut b = BTreeMap::new();
    let mut counters: BTreeMap<&str, u64> = BTreeMap::new();
    let n = points.len();
    for step in 0..n * 60 {
        // A fixed permutation of the call sequence: point index (step * 17 + step / n) mod n.
        let p = &points[(step * 17 + step / n) % n];
        let c = counters.entry(p).or_default();
        if *c == 60 {
            continue;
        }
        *c += 1;
        let f = shuffled.decide(&Call::new(p).with_method("POST"));
        b.insert((p.clone(), *c), f.map(|f| f.kind));
    }
    for p in &points {
        for round in (counters[p.as_str()] + 1)..=60 {
            let f = shuffled.decide(&Call::new(p).with_method("POST"));
            b.insert((p.clone(), round), f.map(|f| f.kind));
        }
    }
    assert_eq!(a, b);
    // ... and equals the plan's pure decision for (point, counter).
    for ((p, n), kind) in &a {
        let pure = plan.decide(&Call::new(p).with_method("POST"), *n);
        assert_eq!(pure.map(|f| f.kind), *kind, "{p} call {n}");
    }
}

/// `n` eligible Claw-Eval requests spread over a dozen endpoints of three services.
fn claw_eval_counts(rate: f64, n: usize) -> (BTreeMap<&'static str, usize>, Vec<u64>) {
    let mut inj = FaultInjector::new(preset::claw_eval(2026, rate).unwrap());
    let endpoints = [
        ("gmail", "/gmail/send"),
        ("gmail", "/gmail/messages"),
        ("gmail", "/gmail/messages/get"),
        ("gmail", "/gmail/drafts/save"),
        ("calendar", "/calendar/events"),
        ("calendar", "/calendar/events/create"),
        ("calendar", "/calendar/events/delete"),
        ("todo", "/todo/tasks"),
        ("todo", "/todo/tasks/create"),
        ("todo", "/todo/tasks/update"),
        ("crm", "/crm/customers"),
        ("crm", "/crm/export"),
    ];
    let points: Vec<(String, &str)> = endpoints
        .iter()
        .map(|(s, p)| (point::service(s, p), *p))
        .collect();
    let mut counts = BTreeMap::new();
    let mut latencies = Vec::new();
    for i in 0..n {
        let (point, path) = &points[i % points.len()];
        let call = Call::service(point, path, "POST", false);
        let name = match inj.decide(&call).map(|f| f.kind) {
            None => "none",
            Some(FaultKind::Status429 {
                retry_after_secs: 2,
            }) => "429",
            Some(FaultKind::Status500) => "500",
            Some(FaultKind::Latency { millis }) => {
                latencies.push(millis);
                "slow"
            }
            Some(other) => panic!("unexpected kind {other}"),
        };
        *counts.entry(name).or_default() += 1;
    }
    (counts, latencies)
}

fn pct(count: usize, of: usize) -> f64 {
    100.0 * count as f64 / of as f64
}

#[test]
fn claw_eval_mix_at_rate_one_is_35_35_30() {
    const N: usize = 100_000;
    let (counts, latencies) = claw_eval_counts(1.0, N);
    assert_eq!(counts.get("none"), None, "rate 1.0 injects every time");
    for (name, want) in [("429", 35.0), ("500", 35.0), ("slow", 30.0)] {
        let got = pct(counts[name], N);
        assert!((got - want).abs() <= 1.0, "{name}: {got:.2}% vs {want}%");
    }
    assert!(latencies.iter().all(|ms| (2000..=4000).contains(ms)));
    let mean = latencies.iter().sum::<u64>() as f64 / latencies.len() as f64;
    assert!((mean - 3000.0).abs() < 20.0, "mean latency {mean}");
    assert!(latencies.contains(&2000) || latencies.iter().any(|&m| m < 2010));
    assert!(latencies.iter().any(|&m| m > 3990));
}

#[test]
fn claw_eval_at_rate_0_3_fires_30_percent() {
    const N: usize = 100_000;
    let (counts, _) = claw_eval_counts(0.3, N);
    let fired = N - counts["none"];
    let got = pct(fired, N);
    assert!((got - 30.0).abs() <= 1.0, "{got:.2}%");
    // The mix holds among the faults too.
    for (name, want) in [("429", 35.0), ("500", 35.0), ("slow", 30.0)] {
        let got = pct(counts[name], fired);
        assert!((got - want).abs() <= 1.5, "{name}: {got:.2}% of faults");
    }
}

#[test]
fn claw_eval_never_fires_on_ineligible_calls() {
    let mut inj = FaultInjector::new(preset::claw_eval(1, 1.0).unwrap());
    let send = point::service("gmail", "/gmail/send");
    for _ in 0..200 {
        // Not POST (methods are compared exactly, as Starlette's request.method is).
        for method in ["GET", "PUT", "DELETE", "PATCH", "post"] {
            assert_eq!(
                inj.decide(&Call::service(&send, "/gmail/send", method, false)),
                None
            );
        }
        // Health probes.
        assert_eq!(
            inj.decide(&Call::service(&send, "/gmail/send", "POST", true)),
            None
        );
        // Exempt suffixes, including on unknown paths (the test is on the raw path).
        for suffix in CLAW_EVAL_EXEMPT_SUFFIXES {
            for path in [
                format!("/gmail{suffix}"),
                format!("/x{suffix}"),
                suffix.to_string(),
            ] {
                let p = point::service("gmail", &path);
                assert_eq!(
                    inj.decide(&Call::service(&p, &path, "POST", false)),
                    None,
                    "{path}"
                );
            }
        }
        // A query string does not hide the suffix.
        let p = point::service("gmail", "/gmail/audit?x=1");
        assert_eq!(
            inj.decide(&Call::service(&p, "/gmail/audit?x=1", "POST", false)),
            None
        );
        // Not a service call: sandbox tools, guest http, the filesystem.
        assert_eq!(
            inj.decide(&Call::new("tool:Bash").with_method("POST")),
            None
        );
        assert_eq!(
            inj.decide(&Call::new("http:gmail.local/gmail/send").with_method("POST")),
            None
        );
        assert_eq!(inj.decide(&Call::new("fs:write:/workspace/x")), None);
    }
    assert!(inj.events().is_empty());
    // The header must be exactly `1`: other values are not health probes.
    assert!(!point::is_health_check(Some("true")));
    let fault = inj.decide(&Call::service(
        &send,
        "/gmail/send",
        "POST",
        point::is_health_check(Some("0")),
    ));
    assert!(fault.is_some());
    // Suffix tests are on the path's end only.
    let p = point::service("gmail", "/gmail/audit/list");
    assert!(
        inj.decide(&Call::service(&p, "/gmail/audit/list", "POST", false))
            .is_some()
    );
}

#[test]
fn claw_eval_faults_carry_claw_eval_bytes_and_virtual_time() {
    let clock = VirtualClock::default();
    let mut inj = FaultInjector::new(preset::claw_eval(9, 1.0).unwrap()).with_clock(clock.clone());
    let send = point::service("gmail", "/gmail/send");
    let mut seen = BTreeMap::new();
    let mut slept_ms = 0;
    for _ in 0..60 {
        let before = clock.elapsed_ns();
        let fault = inj
            .decide(&Call::service(&send, "/gmail/send", "POST", false))
            .unwrap();
        match fault.kind {
            FaultKind::Latency { millis } => {
                slept_ms += millis;
                assert_eq!(clock.elapsed_ns() - before, millis * 1_000_000);
                assert_eq!(
                    fault.kind.response(),
                    None,
                    "served normally after the delay"
                );
            }
            kind => {
                let r = kind.response().unwrap();
                assert_eq!(clock.elapsed_ns(), before);
                seen.insert(r.status, r);
            }
        }
    }
    let r429 = &seen[&429];
    assert_eq!(r429.body, RATE_LIMIT_BODY);
    assert_eq!(
        r429.body,
        r#"{"error":"rate_limit_exceeded","message":"Too many requests. Please retry after a short delay.","retry_after_seconds":2}"#
    );
    assert!(r429.headers.contains(&("retry-after", "2".to_string())));
    assert_eq!(seen[&500].body, SERVER_ERROR_BODY);
    assert_eq!(
        seen[&500].body,
        r#"{"error":"internal_server_error","message":"An unexpected error occurred. Please try again."}"#
    );
    assert_eq!(clock.elapsed_ns(), slept_ms * 1_000_000);
    // Events: named after the preset, timed before their own latency.
    let events = inj.drain_events();
    assert_eq!(events.len(), 60);
    assert!(
        events
            .iter()
            .all(|e| e.rule_name.as_deref() == Some("claw-eval"))
    );
    assert!(
        events
            .windows(2)
            .all(|w| w[0].at_virtual_ns <= w[1].at_virtual_ns)
    );
    assert_eq!(
        events.iter().map(|e| e.call).collect::<Vec<_>>(),
        (1..=60).collect::<Vec<_>>()
    );
}

#[test]
fn exact_call_numbers_are_per_point() {
    let plan = FaultPlan::new(
        0,
        vec![Rule::new(
            "tool:*",
            FaultKind::Status503,
            Trigger::Calls(vec![5, 1, 3, 3]),
        )],
    )
    .unwrap();
    let mut inj = FaultInjector::new(plan);
    let mut fired: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for i in 0..24 {
        let tool = ["tool:Bash", "tool:Read", "tool:Grep"][i % 3];
        if let Some(f) = inj.decide(&Call::new(tool)) {
            assert_eq!(f.kind, FaultKind::Status503);
            fired.entry(tool).or_default().push(f.call);
        }
    }
    for tool in ["tool:Bash", "tool:Read", "tool:Grep"] {
        assert_eq!(fired[tool], [1, 3, 5], "{tool}");
        assert_eq!(inj.calls(tool), 8);
    }
}

#[test]
fn max_count_caps_a_rule_across_points_and_lets_later_rules_fire() {
    let plan = FaultPlan::new(
        11,
        vec![
            Rule::new("service:*", FaultKind::Status500, Trigger::Probability(1.0)).max_count(3),
            Rule::new(
                "service:gmail/*",
                FaultKind::Status503,
                Trigger::Calls(vec![1, 2, 3, 4]),
            ),
        ],
    )
    .unwrap();
    let mut inj = FaultInjector::new(plan);
    let mut kinds = Vec::new();
    for round in 0..4 {
        for p in ["service:gmail/send", "service:todo/tasks"] {
            let f = inj.decide(&Call::new(p));
            kinds.push((round, p, f.map(|f| (f.rule, f.kind))));
        }
    }
    let fired_500 = kinds
        .iter()
        .filter(|(_, _, f)| matches!(f, Some((0, _))))
        .count();
    assert_eq!(fired_500, 3);
    assert_eq!(inj.fired(0), 3);
    // After the cap: gmail falls through to rule 1 (its 3rd and 4th calls), todo gets nothing.
    assert_eq!(kinds[5], (2, "service:todo/tasks", None));
    assert_eq!(
        kinds[6],
        (3, "service:gmail/send", Some((1, FaultKind::Status503)))
    );
    assert_eq!(kinds[7], (3, "service:todo/tasks", None));
}

const FULL_PLAN: &str = r#"
seed: 77
preset: claw-eval
rate: 0.25
rules:
  - name: flaky-send
    point: service:gmail/send
    kinds: {status429: 2, "status429:5": 1, latency:100-500: 1}
    probability: 0.5
    max_count: 2
    methods: [post]
    exclude_suffixes: [/dry_run]
  - points: [fs:write:/workspace/out/*, "fs:open:/workspace/data/*"]
    kind: short_write:3
    calls: [1, 2]
    skip_health_checks: false
  - point: tool:Bash
    kind: timeout
    calls: 4
"#;

#[test]
fn a_full_plan_parses_into_the_rules_it_says() {
    let plan = plan_from_yaml(FULL_PLAN, "plan.yaml", &PlanOptions::new(1)).unwrap();
    assert_eq!(plan.seed(), 77);
    let rules = plan.rules();
    assert_eq!(rules.len(), 4, "3 rules + the preset after them");
    assert_eq!(rules[0].name.as_deref(), Some("flaky-send"));
    assert_eq!(rules[0].points, ["service:gmail/send"]);
    assert_eq!(
        rules[0].kinds,
        [
            (
                KindSpec::Fixed(FaultKind::Status429 {
                    retry_after_secs: 2
                }),
                2.0
            ),
            (
                KindSpec::Fixed(FaultKind::Status429 {
                    retry_after_secs: 5
                }),
                1.0
            ),
            (
                KindSpec::LatencyRange {
                    min_millis: 100,
                    max_millis: 500
                },
                1.0
            ),
        ]
    );
    assert_eq!(rules[0].trigger, Trigger::Probability(0.5));
    assert_eq!(rules[0].max_count, Some(2));
    assert_eq!(rules[0].methods, ["POST"]);
    assert_eq!(rules[0].exclude_suffixes, ["/dry_run"]);
    assert!(rules[0].skip_health_checks);
    assert_eq!(rules[1].points.len(), 2);
    assert_eq!(
        rules[1].kinds,
        [(KindSpec::Fixed(FaultKind::ShortWrite { max_bytes: 3 }), 1.0)]
    );
    assert_eq!(rules[1].trigger, Trigger::Calls(vec![1, 2]));
    assert!(!rules[1].skip_health_checks);
    assert_eq!(rules[2].trigger, Trigger::Calls(vec![4]));
    assert_eq!(rules[3], preset::claw_eval_rule(0.25));
    // The same plan as JSON (through the same parser) is the same plan.
    let json = serde_json::to_string_pretty(&plan).unwrap();
    let again = plan_from_yaml(&json, "plan.json", &PlanOptions::new(1)).unwrap();
    assert_eq!(again, plan);
    assert_eq!(run_round_robin(again, 50), run_round_robin(plan, 50));
}

#[test]
fn a_task_faults_section_deserialises_inside_a_task() {
    #[derive(serde::Deserialize)]
    struct Task {
        #[allow(dead_code)]
        task_id: String,
        #[serde(default)]
        faults: Option<FaultsSection>,
    }
    let text = "task_id: T001\nfaults:\n  preset: claw-eval\n  rules:\n    - point: tool:Bash\n      kind: eio\n      calls: [1]\n";
    let task: Task = serde_saphyr::from_str(text).unwrap();
    let section = task.faults.unwrap();
    let source = PlanSource {
        origin: "tasks/T001/task.yaml",
        field: "faults",
    };
    let err = section.compile(source, &PlanOptions::new(3)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tasks/T001/task.yaml:6:13: faults.rules[0].kind: `eio` cannot be injected at tool: \
         points (hint: eio, enospc, eacces and short_write apply to fs: points only)"
    );
    // `preset: claw-eval` without a rate takes ERROR_RATE, as Claw-Eval does (default 0).
    let text = "task_id: T001\nfaults:\n  preset: claw-eval\n";
    let task: Task = serde_saphyr::from_str(text).unwrap();
    let plan = task
        .faults
        .unwrap()
        .compile(source, &PlanOptions::new(3))
        .unwrap();
    assert_eq!(plan.rules()[0].trigger, Trigger::Probability(0.0));
    let options = PlanOptions {
        seed: 3,
        error_rate: Some("0.4".into()),
    };
    let task: Task = serde_saphyr::from_str(text).unwrap();
    let plan = task.faults.unwrap().compile(source, &options).unwrap();
    assert_eq!(plan.rules()[0].trigger, Trigger::Probability(0.4));
    assert_eq!(plan.seed(), 3, "no seed: the run's");
    // No section, or an empty one: no faults.
    let task: Task = serde_saphyr::from_str("task_id: T001\nfaults:\n").unwrap();
    assert!(
        task.faults
            .is_none_or(|f| f.compile(source, &options).unwrap().is_empty())
    );
}

/// Parses `text` as a plan file and returns its error.
fn broken(text: &str) -> PlanError {
    plan_from_yaml(text, "plan.yaml", &PlanOptions::new(0)).unwrap_err()
}

#[test]
fn an_unknown_kind_is_named_with_its_line_and_the_valid_kinds() {
    let e = broken(
        "rules:\n  - point: service:gmail/send\n    kind: status502\n    probability: 0.5\n",
    );
    assert_eq!(e.field, "rules[0].kind");
    assert_eq!(
        e.pos,
        Some(Pos {
            line: 3,
            column: 11
        })
    );
    assert_eq!(e.message, "unknown fault kind `status502`");
    let hint = e.hint.as_deref().unwrap();
    assert!(
        hint.starts_with("did you mean `status500`? valid kinds: status429[:SECS], status500"),
        "{hint}"
    );
    assert!(
        e.to_string()
            .starts_with("plan.yaml:3:11: rules[0].kind: unknown fault kind `status502` (hint: ")
    );
    // In a weighted map, the path names the entry.
    let e = broken(
        "rules:\n  - point: tool:Bash\n    kinds: {timeout: 1, conection_reset: 2}\n    calls: [1]\n",
    );
    assert_eq!(e.field, "rules[0].kinds.conection_reset");
    assert_eq!(
        e.pos,
        Some(Pos {
            line: 3,
            column: 25
        })
    );
    assert!(
        e.hint
            .unwrap()
            .starts_with("did you mean `connection_reset`?")
    );
}

#[test]
fn a_misspelt_field_is_named_with_a_suggestion() {
    let e = broken("rules:\n  - point: tool:Bash\n    kind: timeout\n    probabilty: 0.5\n");
    assert_eq!(
        e.to_string(),
        "plan.yaml:4:5: rules[0].probabilty: unknown field `probabilty` (hint: did you mean \
         `probability`? valid fields: name, point, points, kind, kinds, probability, calls, \
         max_count, methods, exclude_suffixes, skip_health_checks)"
    );
    let e = broken("seed: 1\nrulez: []\n");
    assert_eq!(
        (e.field.as_str(), e.pos),
        ("rulez", Some(Pos { line: 2, column: 1 }))
    );
    assert!(e.hint.unwrap().starts_with("did you mean `rules`?"));
}

#[test]
fn conflicting_or_missing_triggers_are_refused() {
    let e = broken(
        "rules:\n  - point: tool:Bash\n    kind: timeout\n    probability: 0.5\n    calls: [1]\n",
    );
    assert_eq!(e.field, "rules[0].calls");
    assert_eq!(e.pos, Some(Pos { line: 5, column: 5 }));
    assert_eq!(e.message, "`calls` given after `probability`");
    assert!(e.hint.unwrap().contains("not both"));
    let e = broken("rules:\n  - point: tool:Bash\n    kind: timeout\n");
    assert_eq!(e.field, "rules[0]");
    assert_eq!(e.pos, Some(Pos { line: 2, column: 5 }));
    assert_eq!(e.message, "the rule has no `probability` or `calls`");
}

#[test]
fn bad_values_point_at_the_value() {
    // Probability out of range.
    let e = broken("rules:\n  - point: tool:Bash\n    kind: timeout\n    probability: 1.5\n");
    assert_eq!(
        (e.field.as_str(), e.pos),
        (
            "rules[0].probability",
            Some(Pos {
                line: 4,
                column: 18
            })
        )
    );
    assert_eq!(e.message, "probability must be within 0..=1, not 1.5");
    // A point without a category, second in its list.
    let e =
        broken("rules:\n  - points: [tool:Bash, gmail/send]\n    kind: timeout\n    calls: [1]\n");
    assert_eq!(
        (e.field.as_str(), e.pos),
        (
            "rules[0].points[1]",
            Some(Pos {
                line: 2,
                column: 25
            })
        )
    );
    assert_eq!(
        e.message,
        "`gmail/send` does not start with service:, http:, tool: or fs:"
    );
    // An fs op that does not exist.
    let e = broken("rules:\n  - point: fs:chmod:/workspace/*\n    kind: eacces\n    calls: [1]\n");
    assert_eq!(e.field, "rules[0].point");
    assert!(e.hint.unwrap().contains("open, read, write, stat, readdir"));
    // Call numbers start at 1.
    let e = broken("rules:\n  - point: tool:Bash\n    kind: timeout\n    calls: [2, 0]\n");
    assert_eq!(
        (e.field.as_str(), e.pos),
        (
            "rules[0].calls[1]",
            Some(Pos {
                line: 4,
                column: 16
            })
        )
    );
    // A string where a number belongs.
    let e = broken("rules:\n  - point: tool:Bash\n    kind: timeout\n    max_count: two\n");
    assert_eq!(e.message, "expected a whole number, found a string");
    assert_eq!(
        e.pos,
        Some(Pos {
            line: 4,
            column: 16
        })
    );
    // A bad glob.
    let e = broken("rules:\n  - point: 'tool:[Bash'\n    kind: timeout\n    calls: [1]\n");
    assert!(
        e.message.starts_with("`tool:[Bash` is not a valid glob: "),
        "{e}"
    );
    // The preset's rate.
    let e = broken("preset: claw-eval\nrate: 2\n");
    assert_eq!(
        (e.field.as_str(), e.pos),
        ("rate", Some(Pos { line: 2, column: 7 }))
    );
    let e = broken("rate: 0.5\n");
    assert_eq!(
        e.message,
        "`rate` is the rate of a preset, but there is no preset"
    );
    let e = broken("preset: claw_eval\n");
    assert_eq!(e.message, "unknown preset `claw_eval`");
    // Not a mapping at all.
    let e = broken("- rules\n");
    assert_eq!(
        e.message,
        "expected a mapping with seed, preset, rate and rules, found a list"
    );
}

#[test]
fn yaml_syntax_errors_carry_line_and_column() {
    let e = broken("rules:\n  - point: tool:Bash\n   kind: timeout\n");
    assert_eq!(e.field, "");
    assert_eq!(e.pos.map(|p| p.line), Some(3));
    assert!(e.message.starts_with("invalid YAML: "), "{e}");
    assert!(e.to_string().starts_with("plan.yaml:3:"), "{e}");
    let e = broken("rules: [\n");
    assert_eq!(
        e.to_string(),
        "plan.yaml:1:8: invalid YAML: unclosed bracket '[' (hint: check the indentation and quoting around this line)"
    );
}

#[test]
fn plans_from_the_command_line() {
    let opts = PlanOptions::new(5);
    assert!(plan_from_cli("none", &opts).unwrap().is_empty());
    let p = plan_from_cli("claw-eval:0.3", &opts).unwrap();
    assert_eq!(p, preset::claw_eval(5, 0.3).unwrap());
    // Plain `claw-eval`: ERROR_RATE semantics (unset: 0, i.e. nothing is injected).
    let p = plan_from_cli("claw-eval", &opts).unwrap();
    assert_eq!(p.rules()[0].trigger, Trigger::Probability(0.0));
    let env = PlanOptions {
        seed: 5,
        error_rate: Some("0.25".into()),
    };
    assert_eq!(
        plan_from_cli("claw-eval", &env).unwrap(),
        preset::claw_eval(5, 0.25).unwrap()
    );
    let bad_env = PlanOptions {
        seed: 5,
        error_rate: Some("lots".into()),
    };
    let e = plan_from_cli("claw-eval", &bad_env).unwrap_err();
    assert!(
        e.message
            .starts_with("environment variable ERROR_RATE: `lots` is not a rate"),
        "{e}"
    );
    for bad in [
        "claw-eval:1.5",
        "claw-eval:-0.1",
        "claw-eval:abc",
        "claw-eval:",
    ] {
        let e = plan_from_cli(bad, &opts).unwrap_err();
        assert_eq!(e.file, "--faults");
        assert!(
            e.hint.as_deref().unwrap().contains("claw-eval:RATE"),
            "{bad}: {e}"
        );
    }
    assert_eq!(
        plan_from_cli("claw-eval:1.5", &opts).unwrap_err().message,
        "`claw-eval:1.5`: the rate must be a number within 0..=1, not 1.5"
    );
    let e = plan_from_cli("/nonexistent/plan.yaml", &opts).unwrap_err();
    assert_eq!(
        e.message,
        "`/nonexistent/plan.yaml` is neither a preset nor an existing plan file"
    );
    // A plan file, YAML or JSON; errors name the file.
    let dir = tempfile::tempdir().unwrap();
    let yaml = dir.path().join("plan.yaml");
    std::fs::write(&yaml, FULL_PLAN).unwrap();
    assert_eq!(
        plan_from_cli(yaml.to_str().unwrap(), &opts)
            .unwrap()
            .rules()
            .len(),
        4
    );
    let json = dir.path().join("plan.json");
    std::fs::write(
        &json,
        r#"{"rules": [{"point": "tool:Bash", "kind": "timeout", "calls": [1, "x"]}]}"#,
    )
    .unwrap();
    let e = plan_from_cli(json.to_str().unwrap(), &opts).unwrap_err();
    assert_eq!(e.file, json.display().to_string());
    assert_eq!(
        (e.field.as_str(), e.pos),
        (
            "rules[0].calls[1]",
            Some(Pos {
                line: 1,
                column: 67
            })
        )
    );
}

#[test]
fn events_serialise_for_the_trace() {
    let event = FaultEvent {
        point: "service:gmail/send".into(),
        rule: 0,
        rule_name: Some("claw-eval".into()),
        kind: FaultKind::Latency { millis: 2731 },
        call: 3,
        at_virtual_ns: 1_000,
    };
    let json = serde_json::to_string(&event).unwrap();
    assert_eq!(
        json,
        r#"{"point":"service:gmail/send","rule":0,"rule_name":"claw-eval","kind":"latency:2731","call":3,"at_virtual_ns":1000}"#
    );
    assert_eq!(serde_json::from_str::<FaultEvent>(&json).unwrap(), event);
}

/// The fault events of every trial of a one-task run with `--faults plan` and `--seed seed`,
/// by trial.
fn fault_events_of_run(plan: &str, seed: u64) -> Vec<Vec<String>> {
    use clawrun::run::{AgentSpec, RunOptions, run};
    let tmp = tempfile::tempdir().unwrap();
    let plan_file = tmp.path().join("plan.yaml");
    std::fs::write(&plan_file, plan).unwrap();
    let out = tmp.path().join("run");
    let mut options = RunOptions::new(env!("CARGO_MANIFEST_DIR"), AgentSpec::Oracle, &out);
    options.tasks = vec!["T002_email_triage".into()];
    options.trials = 4;
    options.seed = seed;
    options.faults = Some(plan_file.display().to_string());
    run(&options).unwrap();
    (0..4)
        .map(|trial| {
            let trace =
                String::from_utf8(crate::common::trial_trace(&out, "T002_email_triage", trial))
                    .unwrap();
            trace
                .lines()
                .filter(|l| l.contains("\"type\":\"fault\""))
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    format!("{} {} {}", v["point"], v["kind"], v["call"])
                })
                .collect()
        })
        .collect()
}

/// A plan's own `seed:` decides its faults (the run's `--seed` does not); without one, the
/// run's seed does.
#[test]
fn a_plan_seed_decides_the_faults_and_the_run_seed_otherwise() {
    let rules =
        "rules:\n  - point: \"service:gmail/*\"\n    kind: status500\n    probability: 0.5\n";
    let seeded = |s: u64| format!("seed: {s}\n{rules}");
    let a = fault_events_of_run(&seeded(1), 5);
    assert!(a.iter().any(|t| !t.is_empty()), "{a:?}");
    assert_eq!(
        a,
        fault_events_of_run(&seeded(1), 6),
        "the plan's seed wins over --seed"
    );
    assert_ne!(
        a,
        fault_events_of_run(&seeded(2), 5),
        "another plan seed, other faults"
    );
    let unseeded = fault_events_of_run(rules, 5);
    assert_ne!(
        unseeded,
        fault_events_of_run(rules, 6),
        "without seed: the run's seed"
    );
}
