//! Issue 12's task selection (`--limit`, `--tags`, `--category`, `--group`, `--exclude`,
//! `clawrun list --json`) and model settings (`--temperature`, `--base-url`, ...,
//! `--model-config`), through the `clawrun` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
            "category": "communication", "group": "general", "tags": ["general"]})
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
