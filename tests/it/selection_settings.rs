//! Issue 12's task selection (`--limit`, `--tags`, `--category`, `--group`, `--exclude`,
//! `clawrun list --json`) and model settings (`--temperature`, `--base-url`, ...,
//! `--model-config`), through the `clawrun` binary.

use crate::mock_model;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use clawrun::agents::mock::MockLlm;
use mock_model::mock_server;

use serde_json::Value;

/// The test suite (tasks e2e_mail and e2e_chat).
fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite")
}

/// `clawrun` with `args`, the model environment cleared, plus `env`.
fn clawrun(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    cmd.args(args)
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

/// The ids `clawrun list --json` prints with `filters`.
fn listed(filters: &[&str]) -> Vec<String> {
    let suite = suite();
    let mut args = vec!["list", "--json", "--suite", suite.to_str().unwrap()];
    args.extend_from_slice(filters);
    let out = clawrun(&args, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    rows.iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn list_json_rows_and_filters() {
    let suite = suite();
    let out = clawrun(&["list", "--json", "--suite", suite.to_str().unwrap()], &[]);
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        rows[1],
        serde_json::json!({"id": "e2e_mail", "folder": "tasks/e2e_mail",
            "category": "communication", "group": "general", "tags": ["general"],
            "status": "runnable", "reason": null})
    );
    assert_eq!(listed(&[]), ["e2e_chat", "e2e_mail"]);
    assert_eq!(listed(&["--limit", "1"]), ["e2e_chat"]);
    assert_eq!(listed(&["--tags", "nope,user_agent"]), ["e2e_chat"]);
    assert_eq!(listed(&["--tags", "general"]), ["e2e_chat", "e2e_mail"]);
    assert_eq!(listed(&["--category", "communication"]), ["e2e_mail"]);
    assert_eq!(listed(&["--group", "multi-turn"]), ["e2e_chat"]);
    assert_eq!(listed(&["--exclude", "e2e_c*"]), ["e2e_mail"]);
}

#[test]
fn empty_selection_is_a_usage_error_naming_the_filters() {
    let suite = suite();
    let suite = suite.to_str().unwrap();
    let out = clawrun(&["list", "--suite", suite, "--category", "nope"], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--category nope"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let out = clawrun(
        &[
            "run",
            "--suite",
            suite,
            "--group",
            "multimodal",
            "--exclude",
            "e2e_*",
            "--out",
            run_dir.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--group multimodal --exclude e2e_*"), "{err}");
    assert!(!run_dir.exists(), "no run folder for an empty selection");
}

#[test]
fn run_plays_only_the_selected_tasks() {
    let suite = suite();
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let out = clawrun(
        &[
            "run",
            "--suite",
            suite.to_str().unwrap(),
            "--exclude",
            "e2e_chat",
            "--trials",
            "1",
            "--faults",
            "none",
            "-j",
            "1",
            "--json",
            "--out",
            run_dir.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let journal = std::fs::read_to_string(run_dir.join("journal.jsonl")).unwrap();
    let ids: Vec<String> = journal
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["task_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids, ["e2e_mail"]);
}

/// The bodies of the chat requests `server` received (the probe left out).
fn chat_bodies(server: &MockLlm) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.protocol.is_some())
        .map(|r| r.body)
        .collect()
}

/// `run e2e_mail` (1 trial, no faults) into `out` with `extra` flags and `env`.
fn run_mail(out: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let suite = suite();
    let cache = out.with_extension("cache");
    let mut args = vec![
        "run",
        "e2e_mail",
        "--suite",
        suite.to_str().unwrap(),
        "--trials",
        "1",
        "--faults",
        "none",
        "-j",
        "1",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let mut env = env.to_vec();
    env.push(("CLAWRUN_CACHE_DIR", cache.to_str().unwrap()));
    clawrun(&args, &env)
}

/// `run.json` of run `out`.
fn manifest(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap()
}

#[test]
fn agent_flags_reach_the_model_and_run_json() {
    let (_rt, server) = mock_server();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let base = format!("{}/v1", server.url());
    let r = run_mail(
        &out,
        &[
            "--agent",
            "openai:mock-model",
            "--base-url",
            &base,
            "--temperature",
            "0.7",
            "--timeout",
            "30",
            "--max-retries",
            "1",
            "--max-connections",
            "2",
        ],
        &[],
    );
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let bodies = chat_bodies(&server);
    assert!(!bodies.is_empty(), "--base-url is where the requests go");
    for b in &bodies {
        assert_eq!(b["temperature"], serde_json::json!(0.7), "{b}");
    }
    let agent = &manifest(&out)["models"]["agent"];
    assert_eq!(agent["temperature"], serde_json::json!(0.7));
    assert_eq!(agent["base_url"], serde_json::json!(base));
    assert_eq!(agent["timeout"], serde_json::json!(30.0));
    assert_eq!(agent["max_retries"], serde_json::json!(1));
    assert_eq!(agent["max_connections"], serde_json::json!(2));

    // --resume with another temperature is refused, naming the setting.
    let r = run_mail(
        &out,
        &[
            "--agent",
            "openai:mock-model",
            "--base-url",
            &base,
            "--temperature",
            "0.2",
            "--resume",
        ],
        &[],
    );
    assert_ne!(r.status.code(), Some(0));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("models.agent.temperature"), "{err}");
}

#[test]
fn model_config_file_sets_agent_and_judge() {
    let (_rt, agent_server) = mock_server();
    let (_rt2, judge_server) = mock_server();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("models.yaml");
    std::fs::write(
        &file,
        format!(
            "agent:\n  model: openai:file-model\n  base_url: {}/v1\n  temperature: 0.3\n\
             judge:\n  model: openai:judge-model\n  base_url: {}/v1\n  api_key_env: MY_JUDGE_KEY\n  temperature: 0.1\n",
            agent_server.url(),
            judge_server.url()
        ),
    )
    .unwrap();
    let out = dir.path().join("run");
    let r = run_mail(
        &out,
        &["--model-config", file.to_str().unwrap()],
        &[("MY_JUDGE_KEY", "judge-secret")],
    );
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let bodies = chat_bodies(&agent_server);
    assert!(!bodies.is_empty());
    for b in &bodies {
        assert_eq!(b["model"], "file-model", "{b}");
        assert_eq!(b["temperature"], serde_json::json!(0.3), "{b}");
    }
    // The judge's endpoint was probed with the key named by api_key_env.
    let judge_requests = judge_server.requests();
    assert!(
        judge_requests.iter().any(|q| q
            .headers
            .iter()
            .any(|(k, v)| k == "authorization" && v == "Bearer judge-secret")),
        "{:?}",
        judge_requests.iter().map(|q| &q.path).collect::<Vec<_>>()
    );
    let m = manifest(&out);
    assert_eq!(m["agent"], "openai:file-model");
    assert_eq!(m["judge"], "openai:judge-model");
    assert_eq!(m["models"]["judge"]["temperature"], serde_json::json!(0.1));

    // A flag overrides the file for the agent.
    let out2 = dir.path().join("run2");
    let before = chat_bodies(&agent_server).len();
    let r = run_mail(
        &out2,
        &[
            "--model-config",
            file.to_str().unwrap(),
            "--temperature",
            "0.9",
        ],
        &[("MY_JUDGE_KEY", "judge-secret")],
    );
    assert_eq!(
        r.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&r.stderr)
    );
    let bodies = chat_bodies(&agent_server);
    assert!(bodies.len() > before);
    for b in &bodies[before..] {
        assert_eq!(b["temperature"], serde_json::json!(0.9), "{b}");
    }
}

#[test]
fn bad_model_config_is_one_line_naming_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("judge:\n  model: openai:j\n  temprature: 1\n", "temprature"),
        (
            "judge:\n  model: openai:j\n  temperature: -1\n",
            "judge.temperature",
        ),
        ("user_model:\n  temperature: 1\n", "user_model.model"),
        (
            "judge:\n  model: openai:j\n  api_key_env: CLAWRUN_TEST_UNSET_KEY\n",
            "judge.api_key_env",
        ),
        (
            "agent:\n  model: openai:m\n  base_url: localhost:1\n",
            "agent.base_url",
        ),
    ];
    for (i, (text, field)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("m{i}.yaml"));
        std::fs::write(&file, text).unwrap();
        let out = dir.path().join(format!("run{i}"));
        let r = run_mail(&out, &["--model-config", file.to_str().unwrap()], &[]);
        assert_eq!(r.status.code(), Some(2), "{text}");
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains(file.to_str().unwrap()) && err.contains(field),
            "{err}"
        );
        assert!(!out.exists());
    }
    // Agent model flags without a model agent are refused.
    let out = dir.path().join("oracle");
    let r = run_mail(&out, &["--temperature", "0.5"], &[]);
    assert_eq!(r.status.code(), Some(2));
}

#[test]
fn limit_takes_the_tasks_a_run_without_a_judge_can_score_first() {
    // The bundled suite sorts three multi-turn tasks that need a judge first (C01zh, C04zh,
    // C16en); without --judge, --limit 3 spends the run on three it can score.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let ran = clawrun(
        &[
            "run",
            "--suite",
            repo.to_str().unwrap(),
            "--agent",
            "oracle",
            "--trials",
            "1",
            "--limit",
            "3",
            "--faults",
            "none",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let mut ids: Vec<String> = journal
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["task_id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "T002_email_triage",
            "T004_calendar_scheduling",
            "T006_email_reply_draft"
        ]
    );
    // `list` keeps the plain order: the first by id, whatever they need.
    let listed = clawrun(
        &[
            "list",
            "--json",
            "--suite",
            repo.to_str().unwrap(),
            "--limit",
            "1",
        ],
        &[],
    );
    let rows: Vec<Value> = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(rows[0]["id"], "C01zh_mortgage_prepay");
}
