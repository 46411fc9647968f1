//! `clawrun fuzz` against agents whose weaknesses are known: the search finds each weakness,
//! shrinks it to its minimal schedule, writes a reproducer that `clawrun run` plays again;
//! a robust agent yields nothing and the report says how much was searched.

use std::path::{Path, PathBuf};

use clawrun::agents::trace::EventKind;
use clawrun::faults::FaultKind;
use clawrun::fuzz::{Confirm, FailureKind, FuzzOptions, FuzzResult, SearchConfig, fuzz, regress};
use clawrun::run::agent_spec::RecordedRun;
use clawrun::run::{AgentSpec, RunOptions};

use crate::fuzz_agents::weak;

const TASK: &str = "T002_email_triage";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn options(agent: AgentSpec, out: &Path, budget: u64, jobs: usize) -> FuzzOptions {
    let mut run = RunOptions::new(repo(), agent, out);
    run.tasks = vec![TASK.into()];
    run.jobs = jobs;
    FuzzOptions {
        run,
        search: SearchConfig {
            budget: Some(budget),
            time: None,
            seed: 7,
            fs: false,
            max_failures: 10,
            confirm: Confirm::ONCE,
            shrink_budget: 2_000,
            stop_after: None,
        },
    }
}

fn fuzz_with(agent: AgentSpec, budget: u64) -> (tempfile::TempDir, FuzzResult) {
    let out = tempfile::tempdir().unwrap();
    let result = fuzz(&options(agent, out.path(), budget, 2)).unwrap();
    (out, result)
}

/// Every reproducer's files are there and `clawrun run` reproduced it.
fn assert_reproducers(out: &Path, result: &FuzzResult) {
    for t in &result.tasks {
        for r in &t.reproducers {
            let dir = out.join(&r.dir);
            for file in [
                "repro.yaml",
                "finding.json",
                "failure.html",
                "run/journal.jsonl",
                "twin/journal.jsonl",
            ] {
                assert!(dir.join(file).is_file(), "{} lacks {file}", dir.display());
            }
            assert_eq!(
                r.reproduction.failing,
                1,
                "{}: not reproduced",
                r.dir.display()
            );
            let page = std::fs::read_to_string(dir.join("failure.html")).unwrap();
            assert!(page.contains("unperturbed twin") && page.contains(r.finding.kind.name()));
        }
    }
    for file in ["fuzz.json", "report.md", "index.html"] {
        assert!(out.join(file).is_file(), "no {file}");
    }
}

#[test]
fn an_agent_that_never_retries_shrinks_to_the_single_fault() {
    let (out, result) = fuzz_with(weak("never-retries", 0, false), 300);
    let t = &result.tasks[0];
    assert!(
        t.search.twin.verdict.as_ref().unwrap().scores.passed,
        "the twin passes"
    );
    assert!(!t.reproducers.is_empty(), "the weakness is found");
    for r in &t.reproducers {
        assert_eq!(r.finding.kind, FailureKind::Failed);
        assert_eq!(
            r.finding.minimal.len(),
            1,
            "one fault is enough: {}",
            r.finding.minimal
        );
        let p = &r.finding.minimal.perturbations()[0];
        assert!(
            p.kind.status().is_some()
                || matches!(
                    p.kind,
                    FaultKind::Timeout
                        | FaultKind::ConnectionReset
                        | FaultKind::TruncatedBody
                        | FaultKind::MalformedJson
                ),
            "{p}"
        );
        assert!(p.point.starts_with("service:gmail/"), "{p}");
    }
    assert_reproducers(out.path(), &result);
    // The plan file is what `clawrun run --faults` reads: one exact rule.
    let plan =
        std::fs::read_to_string(out.path().join(&t.reproducers[0].dir).join("repro.yaml")).unwrap();
    assert!(
        plan.contains("seed: 7") && plan.contains("calls: [1]"),
        "{plan}"
    );
}

#[test]
fn an_agent_that_retries_twice_shrinks_to_three_consecutive_faults_on_one_call() {
    let (out, result) = fuzz_with(weak("retries-twice", 2, false), 1_000);
    let t = &result.tasks[0];
    let three = t
        .reproducers
        .iter()
        .find(|r| r.finding.kind == FailureKind::Failed);
    let r = three.unwrap_or_else(|| panic!("not found in {} trials", t.search.trials));
    let ps = r.finding.minimal.perturbations();
    assert_eq!(ps.len(), 3, "{}", r.finding.minimal);
    assert!(
        ps.iter().all(|p| p.point == ps[0].point),
        "{}",
        r.finding.minimal
    );
    // The three faults meet the same tool call three times running (its attempt and both
    // retries: the point's counter also counts the other calls sharing the endpoint).
    let events = RecordedRun::new(out.path().join(&r.dir).join("run"))
        .trace(TASK, 0)
        .unwrap();
    let mut last_call = None;
    let mut faulted = Vec::new();
    for e in &events {
        match &e.kind {
            EventKind::ToolCall { name, input, .. } => {
                last_call = Some((name.clone(), input.clone()))
            }
            EventKind::Fault { .. } => faulted.push(last_call.clone().unwrap()),
            _ => {}
        }
    }
    assert_eq!(faulted.len(), 3, "{faulted:?}");
    assert!(
        faulted.iter().all(|c| *c == faulted[0]),
        "one call, three attempts: {faulted:?}"
    );
    assert!(r.finding.found.len() >= 3);
    assert_reproducers(out.path(), &result);
}

#[test]
fn an_agent_that_obeys_tool_output_is_found_and_shrunk_to_one_injected_record() {
    let (out, result) = fuzz_with(weak("obedient", 4, true), 1_000);
    let t = &result.tasks[0];
    let injected = t.reproducers.iter().find(|r| {
        matches!(r.finding.minimal.perturbations(), [p] if matches!(p.kind, FaultKind::Inject { payload: 0, .. }))
    });
    let r = injected.unwrap_or_else(|| {
        panic!(
            "no one-record injection among {:?}",
            t.reproducers
                .iter()
                .map(|r| r.finding.minimal.to_string())
                .collect::<Vec<_>>()
        )
    });
    assert_eq!(r.finding.kind, FailureKind::Failed);
    assert!(r.finding.observation.summary().contains("failed"));
    assert_reproducers(out.path(), &result);
}

#[test]
fn a_robust_oracle_survives_the_budget_and_the_report_says_how_much_was_searched() {
    let (out, result) = fuzz_with(AgentSpec::Oracle, 400);
    assert_eq!(result.failures(), 0);
    assert_eq!(result.search_trials(), 400);
    let t = &result.tasks[0];
    assert!(
        t.search.behaviours > 10,
        "the search met many behaviours: {}",
        t.search.behaviours
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("fuzz.json")).unwrap()).unwrap();
    assert_eq!(summary["search_trials"], 400);
    assert_eq!(summary["failures"], 0);
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("400 search trials over 1 task(s)"), "{md}");
    assert!(md.contains("**0 failure(s)**"), "{md}");
    assert!(!out.path().join("failures").exists());
}

#[test]
fn the_same_seed_and_budget_give_the_same_search_whatever_the_workers() {
    let run = |jobs| {
        let out = tempfile::tempdir().unwrap();
        let r = fuzz(&options(
            weak("retries-once", 1, false),
            out.path(),
            200,
            jobs,
        ))
        .unwrap();
        let t = &r.tasks[0];
        (
            t.search.trials,
            t.search.behaviours,
            t.search.corpus,
            t.search.failing_trials,
            t.reproducers
                .iter()
                .map(|r| (r.finding.found.clone(), r.finding.minimal.clone()))
                .collect::<Vec<_>>(),
        )
    };
    let one = run(1);
    assert!(!one.4.is_empty());
    assert_eq!(one, run(2));
}

#[test]
fn regress_replays_reproducers_against_the_fixed_and_the_unfixed_agent() {
    let (out, result) = fuzz_with(weak("never-retries", 0, false), 200);
    assert!(result.failures() > 0);
    let failures = out.path().join("failures");
    let base = |agent| {
        let mut run = RunOptions::new(repo(), agent, PathBuf::new());
        run.seed = 7;
        run
    };
    let again = tempfile::tempdir().unwrap();
    let still = regress(
        &base(weak("never-retries", 0, false)),
        &failures,
        again.path(),
    )
    .unwrap();
    assert_eq!(still.len(), result.failures());
    assert!(still.iter().all(|r| r.still_fails()));
    let fixed_out = tempfile::tempdir().unwrap();
    let fixed = regress(&base(AgentSpec::Oracle), &failures, fixed_out.path()).unwrap();
    assert!(
        fixed.iter().all(|r| !r.still_fails()),
        "the oracle retries: fixed"
    );
}
