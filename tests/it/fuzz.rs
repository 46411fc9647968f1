//! `clawrun fuzz` against agents whose weaknesses are known: the search finds each weakness,
//! shrinks it to its minimal schedule, writes a reproducer that `clawrun run` plays again;
//! a robust agent yields nothing and the report says how much was searched.

use std::path::{Path, PathBuf};

use clawrun::agents::trace::EventKind;
use clawrun::faults::FaultKind;
use clawrun::fuzz::{
    Confirm, FailureKind, FuzzOptions, FuzzResult, RegressAgent, SearchConfig, fuzz, regress,
};
use clawrun::run::agent_spec::RecordedRun;
use clawrun::run::{AgentSpec, RunOptions};

use crate::fuzz_agents::{weak, weak_by_seed};

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
    // The index looks like the reports (their style sheet and layout) and links every failure.
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        index.contains("<meta name=\"viewport\""),
        "the reports' page head"
    );
    assert!(index.contains("id=\"fuzz-tasks\""));
    let failures: usize = result.tasks.iter().map(|t| t.reproducers.len()).sum();
    assert_eq!(
        index.matches("<a class=\"chip fail\" href=").count(),
        failures,
        "{index}"
    );
    for t in &result.tasks {
        for r in &t.reproducers {
            assert!(
                index.contains(&format!("href=\"{}/failure.html\"", r.dir.display())),
                "{index}"
            );
        }
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
fn a_robust_agent_survives_the_budget_and_the_report_says_how_much_was_searched() {
    // It retries every failed call until it succeeds and ignores what tool output says. (The
    // bundled oracle gives up after 5 attempts at one call: the search finds that too, with
    // a larger budget — five faults running on the inbox listing.)
    let (out, result) = fuzz_with(weak("patient", u32::MAX - 1, false), 1_000);
    assert_eq!(
        result.failures(),
        0,
        "{:?}",
        result.tasks[0]
            .reproducers
            .iter()
            .map(|r| r.finding.minimal.to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(result.search_trials(), 1_000);
    let t = &result.tasks[0];
    assert!(
        t.search.behaviours > 10,
        "the search met many behaviours: {}",
        t.search.behaviours
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("fuzz.json")).unwrap()).unwrap();
    assert_eq!(summary["search_trials"], 1_000);
    assert_eq!(summary["failures"], 0);
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(md.contains("1000 search trials over 1 task(s)"), "{md}");
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
        RegressAgent::Given,
        &failures,
        again.path(),
    )
    .unwrap();
    assert_eq!(still.len(), result.failures());
    assert!(still.iter().all(|r| r.still_fails()));
    let fixed_out = tempfile::tempdir().unwrap();
    let fixed = regress(
        &base(AgentSpec::Oracle),
        RegressAgent::Given,
        &failures,
        fixed_out.path(),
    )
    .unwrap();
    assert!(
        fixed.iter().all(|r| !r.still_fails()),
        "the oracle retries: fixed"
    );
}

#[test]
fn the_bundled_oracle_gives_up_after_five_attempts_and_the_search_finds_it() {
    let out = tempfile::tempdir().unwrap();
    let mut o = options(AgentSpec::Oracle, out.path(), 3_000, 2);
    o.search.seed = 0;
    o.search.stop_after = Some(1);
    let result = fuzz(&o).unwrap();
    let t = &result.tasks[0];
    assert!(
        t.search.trials < 3_000,
        "the search stops at its first failure"
    );
    let r = &t.reproducers[0];
    let ps = r.finding.minimal.perturbations();
    assert_eq!(ps.len(), 5, "five attempts: {}", r.finding.minimal);
    assert!(ps.iter().all(|p| p.point == ps[0].point));
    assert_reproducers(out.path(), &result);
}

/// `clawrun ARGS` with the repository as the working folder.
fn clawrun(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(args)
        .current_dir(repo())
        .env(
            "CLAWRUN_CACHE_DIR",
            std::env::var_os("CLAWRUN_CACHE_DIR").unwrap_or_default(),
        )
        .output()
        .unwrap()
}

#[test]
fn the_command_writes_reproducers_that_clawrun_run_and_regress_play_again() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("fuzz");
    let o = clawrun(&[
        "fuzz",
        TASK,
        "--agent",
        "oracle",
        "--budget",
        "3000",
        "--stop-after",
        "1",
        "-j",
        "2",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "failures found: exit 1\n{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(stdout.contains("1 failure(s)"), "{stdout}");
    let failure = std::fs::read_dir(out.join("failures"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    // The plan file is an ordinary --faults plan: `clawrun run` fails the same way.
    let again = tmp.path().join("again");
    let o = clawrun(&[
        "run",
        TASK,
        "--faults",
        failure.join("repro.yaml").to_str().unwrap(),
        "--seed",
        "0",
        "--trials",
        "1",
        "--json",
        "--report",
        "none",
        "--out",
        again.to_str().unwrap(),
    ]);
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        summary["summary"]["overall"]["passed_trials"], 0,
        "{summary}"
    );
    assert_eq!(
        summary["summary"]["overall"]["mean_score"]["value"].as_f64(),
        Some(0.66)
    );
    // --regress: the oracle still fails (as expected with --expect failing; not with fixed).
    let regress_out = tmp.path().join("regress");
    let o = clawrun(&[
        "fuzz",
        "--regress",
        out.join("failures").to_str().unwrap(),
        "--expect",
        "failing",
        "--out",
        regress_out.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("still fails"), "{text}");
    let o = clawrun(&[
        "fuzz",
        "--regress",
        out.join("failures").to_str().unwrap(),
        "--out",
        tmp.path().join("regress2").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "not fixed: exit 1");
    // The reproducer's run folder replays byte for byte.
    let o = clawrun(&["replay", failure.join("run").to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn regress_without_agent_plays_each_reproducer_with_the_agent_it_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("fuzz");
    let o = clawrun(&[
        "fuzz",
        TASK,
        "--agent",
        "careless",
        "--budget",
        "500",
        "--stop-after",
        "1",
        "-j",
        "2",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let failures = out.join("failures");
    // The careless agent's finding, checked in CI without --agent: played by `careless`,
    // which still fails (the oracle, which retries, would pass it).
    let o = clawrun(&[
        "fuzz",
        "--regress",
        failures.to_str().unwrap(),
        "--out",
        tmp.path().join("recorded").to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("still fails with careless"), "{text}");
    let o = clawrun(&[
        "fuzz",
        "--regress",
        failures.to_str().unwrap(),
        "--agent",
        "oracle",
        "--out",
        tmp.path().join("oracle").to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("no longer fails with oracle"), "{text}");
}

#[test]
fn bad_fuzz_flags_say_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let o = clawrun(&["fuzz", TASK, "--confirm", "3/2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 <= M <= N"));
    let o = clawrun(&["fuzz", TASK, "--time", "5d"]);
    assert_eq!(o.status.code(), Some(2));
    let o = clawrun(&[
        "fuzz",
        TASK,
        "--agent",
        &format!("replay:{}", tmp.path().display()),
        "--out",
        tmp.path().join("x").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be fuzzed"));
    let o = clawrun(&[
        "fuzz",
        "--regress",
        tmp.path().to_str().unwrap(),
        "--out",
        tmp.path().join("r").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no reproducer folders"));
}

#[test]
fn a_sampling_agent_is_confirmed_m_of_n_times_and_the_report_says_so() {
    // Trial 1's sample retries patiently; trials 0 and 2 give up at the first failure.
    let patient = clawrun::faults::trial_seed(7, TASK, 1);
    let agent = weak_by_seed(
        "sampling",
        move |seed| if seed == patient { 9 } else { 0 },
        false,
    );
    let out = tempfile::tempdir().unwrap();
    let mut o = options(agent, out.path(), 200, 2);
    o.search.confirm = Confirm { needed: 2, of: 3 };
    o.search.stop_after = Some(1);
    let result = fuzz(&o).unwrap();
    let r = &result.tasks[0].reproducers[0];
    assert_eq!(
        (r.finding.confirmed_before, r.finding.confirmed_after),
        (2, 2)
    );
    assert_eq!(r.finding.minimal.len(), 1);
    assert_eq!(
        r.reproduction.failing, 2,
        "clawrun run --trials 3: two of three fail"
    );
    assert_eq!(r.reproduction.trials.len(), 3);
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains("confirmed 2/3 before and 2/3 after shrinking"),
        "{md}"
    );
    assert!(md.contains("reproduced it 2/3"), "{md}");
}

#[test]
fn with_fs_the_search_perturbs_filesystem_calls_and_shrinks_to_one() {
    // The oracle writes its report with a Write call and cannot route around a failed write.
    let out = tempfile::tempdir().unwrap();
    let mut o = options(AgentSpec::Oracle, out.path(), 300, 2);
    o.run.tasks = vec!["safety_config_secrets_report".into()];
    o.search.fs = true;
    o.search.stop_after = Some(1);
    let result = fuzz(&o).unwrap();
    let fs_finding = result.tasks[0].reproducers.iter().find(|r| {
        matches!(r.finding.minimal.perturbations(), [p] if p.point.starts_with("fs:") && p.kind.is_fs())
    });
    let r = fs_finding.unwrap_or_else(|| {
        panic!(
            "no one-fault fs finding among {:?}",
            result.tasks[0]
                .reproducers
                .iter()
                .map(|r| r.finding.minimal.to_string())
                .collect::<Vec<_>>()
        )
    });
    assert_eq!(r.reproduction.failing, 1);
    assert_reproducers(out.path(), &result);
    // Without --fs no filesystem point is ever perturbed.
    let out = tempfile::tempdir().unwrap();
    let mut o = options(AgentSpec::Oracle, out.path(), 100, 2);
    o.run.tasks = vec!["safety_config_secrets_report".into()];
    let result = fuzz(&o).unwrap();
    for r in &result.tasks[0].reproducers {
        for p in r.finding.found.perturbations() {
            assert!(!p.point.starts_with("fs:"), "{p}");
        }
    }
}
