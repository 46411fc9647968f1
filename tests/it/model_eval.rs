//! Issue 12 (evaluating real models), through the `clawrun` binary against the mock LLM server:
//! repeated trials are independent samples (the response cache is off by default, and with
//! `--cache` it is keyed by the trial seed), cached turns are marked and counted; a dead
//! endpoint stops the run with one line naming it; bad arguments are refused with exit 2 before
//! a run folder exists.

use crate::mock_model;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use clawrun::agents::mock::MockLlm;
use mock_model::{mock_server, mock_server_with};

use clawrun::agents::trace::{EventKind, read_trace};

/// The test suite (tasks e2e_mail and e2e_chat).
fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite")
}

/// `clawrun` with `args`, the model environment cleared and the cache under `cache`.
fn clawrun(args: &[&str], cache: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    cmd.args(args)
        .env("CLAWRUN_CACHE_DIR", cache)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENROUTER_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// Chat requests the server received (the start-up probe's `GET /v1/models` left out).
fn chat_requests(server: &MockLlm) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.protocol.is_some())
        .count()
}

/// `run` of e2e_mail × 3 trials, seed 5, with the mock model into `out`, plus `extra` flags.
fn run_mail(server: &MockLlm, out: &Path, cache: &Path, extra: &[&str]) -> Output {
    run_mail_seed(server, out, cache, "5", extra)
}

/// Like [`run_mail`] with run seed `seed`.
fn run_mail_seed(server: &MockLlm, out: &Path, cache: &Path, seed: &str, extra: &[&str]) -> Output {
    let suite = suite();
    let base = format!("{}/v1", server.url());
    let mut args = vec![
        "run",
        "e2e_mail",
        "--suite",
        suite.to_str().unwrap(),
        "--agent",
        "openai:mock-model",
        "--trials",
        "3",
        "--faults",
        "none",
        "-j",
        "1",
        "--seed",
        seed,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    clawrun(&args, cache, &[("OPENAI_BASE_URL", &base)])
}

/// The `cached` flags of the assistant messages of trial `trial` in run `out`.
fn cached_flags(out: &Path, trial: u32) -> Vec<bool> {
    let trace = crate::common::trial_trace(out, "e2e_mail", trial);
    let events = read_trace(trace.as_slice()).unwrap();
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Message {
                role: clawrun::agents::Role::Assistant,
                cached,
                ..
            } => Some(*cached),
            _ => None,
        })
        .collect()
}

/// The `cached_turns` of each journal record of run `out`.
fn journal_cached_turns(out: &Path) -> Vec<u64> {
    std::fs::read_to_string(out.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v.get("cached_turns").and_then(|c| c.as_u64()).unwrap_or(0)
        })
        .collect()
}

#[test]
fn every_trial_is_a_sample_and_a_cached_rerun_says_so() {
    let (_rt, server) = mock_server();
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");

    // Default (no --cache): every trial asks the model, although the requests are identical.
    let out = run_mail(&server, &tmp.path().join("plain"), &cache, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(chat_requests(&server), 3, "one request per trial");
    assert!(
        !cache.join("llm").exists(),
        "no model response is cached without --cache"
    );

    // --cache on a cold cache: still one request per trial (keyed by the trial seed).
    let first = tmp.path().join("first");
    let out = run_mail(&server, &first, &cache, &["--cache"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        chat_requests(&server),
        6,
        "trials do not share cache entries"
    );
    for trial in 0..3 {
        assert_eq!(cached_flags(&first, trial), [false]);
    }
    assert_eq!(journal_cached_turns(&first), [0, 0, 0]);

    // The same run again with --cache: served from the cache, and the run says so.
    let second = tmp.path().join("second");
    let out = run_mail(&server, &second, &cache, &["--cache"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(chat_requests(&server), 6, "no request reached the model");
    for trial in 0..3 {
        assert_eq!(cached_flags(&second, trial), [true], "trial {trial}");
    }
    assert_eq!(journal_cached_turns(&second), [1, 1, 1]);
    assert!(stdout.contains("cached turns: 3"), "{stdout}");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(second.join("run.json")).unwrap()).unwrap();
    assert_eq!(manifest["cache"], true);

    // Another seed is another set of samples: the cache does not serve it.
    let other = tmp.path().join("other-seed");
    let out = run_mail_seed(&server, &other, &cache, "6", &["--cache"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(chat_requests(&server), 9);

    // Resuming the cached run without --cache is refused (it would mix the two).
    let out = run_mail(&server, &second, &cache, &["--resume"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("cache") && stderr.contains("pass --cache"),
        "{stderr}"
    );
}

/// A loopback port nobody listens on.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// `run` of e2e_mail with `agent` into `out` plus `extra`, with `env` set.
fn run_agent(agent: &str, out: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let suite = suite();
    let mut args = vec![
        "run",
        "e2e_mail",
        "--suite",
        suite.to_str().unwrap(),
        "--agent",
        agent,
        "--faults",
        "none",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    clawrun(&args, &out.with_extension("cache"), env)
}

#[test]
fn a_dead_endpoint_stops_the_run_with_one_line_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let port = closed_port();
    let base = format!("http://127.0.0.1:{port}/v1");
    let endpoint = format!("127.0.0.1:{port}");

    // The probe finds it before the run folder exists.
    let out = tmp.path().join("probed");
    let o = run_agent(
        "openai:m",
        &out,
        &["--trials", "1"],
        &[("OPENAI_BASE_URL", &base)],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("clawrun: error: --agent: openai:m at "),
        "{stderr}"
    );
    assert!(
        stderr.contains(&endpoint) && stderr.contains("--no-probe"),
        "{stderr}"
    );
    assert!(!out.exists(), "no run folder is made");

    // Without the probe, the first trial gives up after a few attempts and the run stops.
    let out = tmp.path().join("unprobed");
    let o = run_agent(
        "openai:m",
        &out,
        &["--no-probe", "--trials", "3"],
        &[("OPENAI_BASE_URL", &base)],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let last = stderr.trim_end().lines().last().unwrap();
    assert!(
        last.starts_with("clawrun: error: the run stopped"),
        "{stderr}"
    );
    assert!(
        last.contains(&format!("cannot reach http://{endpoint}")),
        "{stderr}"
    );
    // The retries were visible: the model's first, then a count (not a line per attempt).
    assert_eq!(stderr.matches("retrying in").count(), 1, "{stderr}");
    assert!(
        stderr.contains(
            "clawrun: openai:m: further retries are counted, not printed (-v prints each)"
        ),
        "{stderr}"
    );
    // The run stopped: the other trials were not each retried to exhaustion.
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap_or_default();
    assert!(journal.lines().count() < 9, "{journal}");

    // -v prints every attempt.
    let out = tmp.path().join("verbose");
    let o = run_agent(
        "openai:m",
        &out,
        &["--no-probe", "--trials", "1", "-j", "1", "-v"],
        &[("OPENAI_BASE_URL", &base)],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.matches("retrying in").count() > 1, "{stderr}");
    assert!(!stderr.contains("further retries are counted"), "{stderr}");
}

#[test]
fn a_silent_endpoint_fails_the_probe_in_seconds_saying_what_it_waits_for() {
    // Accepts connections and never answers (the run's --timeout is 300 s).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let held = std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming().take(8) {
            open.push(stream);
        }
        std::thread::sleep(std::time::Duration::from_secs(60));
    });
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("probed");
    let base = format!("http://127.0.0.1:{port}/v1");
    let o = run_agent(
        "openai:m",
        &out,
        &["--trials", "1"],
        &[("OPENAI_BASE_URL", &base)],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("clawrun: waiting for openai:m at ")
            && stderr.contains("to answer the probe"),
        "{stderr}"
    );
    assert!(
        stderr.contains("no answer to `GET ")
            && stderr.contains("the server accepts connections but does not answer"),
        "{stderr}"
    );
    // The probe's own limit (10 s), not the run's 300 s --timeout, and two silent tries,
    // not four.
    assert!(stderr.contains("within 10 s"), "{stderr}");
    assert!(stderr.contains("(2 attempts)"), "{stderr}");
    assert!(!out.exists(), "no run folder is made");
    drop(held);
}

#[test]
fn trials_ending_as_infrastructure_errors_make_the_exit_status_non_zero() {
    let (_rt, server) = mock_server_with("rules:\n  - reply: {status: 400}\n");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let base = format!("{}/v1", server.url());
    let o = run_agent(
        "openai:m",
        &out,
        &["--trials", "1"],
        &[("OPENAI_BASE_URL", &base)],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("1 trial(s) ended as infrastructure errors"),
        "{stderr}"
    );
    assert!(
        out.join("report.html").is_file(),
        "the report is still written"
    );
}

#[test]
fn bad_arguments_exit_2_before_a_run_folder_exists() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let out = tmp.path().join("run");
    let o = out.to_str().unwrap();
    let refused: &[&[&str]] = &[
        &["run", "--trials", "0", "--out", o],
        &["run", "-j", "0", "--out", o],
        &["report", o, "--k", "0"],
        &["run", "--agent", "bard:x", "--out", o],
    ];
    for args in refused {
        let r = clawrun(args, &cache, &[]);
        assert_eq!(
            r.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
    }
    let missing = tmp.path().join("missing.yaml");
    let cases: Vec<(String, &str)> = vec![
        (format!("scripted:{}", missing.display()), "missing.yaml"),
        (
            format!("replay:{}", tmp.path().display()),
            "not a run folder",
        ),
        ("openai:gpt-x".into(), "OPENAI_API_KEY"),
        ("openrouter:some/model".into(), "OPENROUTER_API_KEY"),
    ];
    for (agent, needle) in cases {
        let r = run_agent(&agent, &out, &[], &[]);
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{agent}: {stderr}");
        assert!(stderr.contains(needle), "{agent}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{agent}: {stderr}");
        assert!(!out.exists(), "{agent}: no run folder is made");
    }
    // A judge without a key is found before the run too.
    let r = run_agent("oracle", &out, &["--judge", "openai:gpt-x"], &[]);
    assert_eq!(
        r.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    assert!(!out.exists());
}

/// A missing API key is the user's setting to fix: one line naming the flag and the variable,
/// exit status 2, no run folder, for every command that takes a model (`mcp --judge` included,
/// which once ignored its judge, and an agent program's `--model`).
#[test]
fn a_missing_key_is_a_usage_error_naming_the_flag_and_the_variable() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite();
    let suite = suite.to_str().unwrap();
    let out = tmp.path().join("run");
    let out = out.to_str().unwrap();
    for (args, flag) in [
        (
            vec![
                "run", "e2e_mail", "--suite", suite, "--agent", "openai:m", "--out", out,
            ],
            "--agent openai:m",
        ),
        (
            vec![
                "run",
                "e2e_mail",
                "--suite",
                suite,
                "--judge",
                "anthropic:j",
                "--out",
                out,
            ],
            "--judge anthropic:j",
        ),
        (
            vec![
                "mcp", "e2e_mail", "--suite", suite, "--judge", "openai:j", "--out", out,
            ],
            "--judge openai:j",
        ),
        (
            vec![
                "run", "e2e_mail", "--suite", suite, "--agent", "cmd:true", "--model", "openai:p",
                "--out", out,
            ],
            "--model openai:p",
        ),
    ] {
        let o = clawrun(&args, &tmp.path().join("cache"), &[]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!("clawrun: error: {flag}: no API key for https://")),
            "{stderr}"
        );
        assert!(stderr.contains("_API_KEY"), "{stderr}");
        assert!(!stderr.contains("infrastructure"), "{stderr}");
        assert!(!Path::new(out).exists(), "{args:?}: no run folder");
    }
}
