//! Task statuses over a Claw-Eval-like checkout: a task clawrun cannot run (a `web_real`
//! service, a service fixture missing from the checkout) is skipped with its reason by `run`,
//! reported as skipped by `validate` and shown by `list`, while the other tasks run and score;
//! every command ends with the status counts. Broken task files still fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::fs_support;
use fs_support::copy_dir;

/// A task using Claw-Eval's live-web service, modelled on its `web_real` tasks (T68zh, C17en).
const WEB_REAL_TASK: &str = r#"task_id: T068_web_real_research
task_name: Web research (live web)
version: "1.0"
category: research
difficulty: medium
tags: [general]

services:
  - name: web_real
    command: python mock_services/web_real/server.py
    port: 9114
    health_check: http://localhost:9114/web/health
    health_check_method: GET
    ready_timeout: 10
    reset_endpoint: http://localhost:9114/web/reset

prompt:
  text: What changed in the latest CUDA release? Cite your sources.
  language: en

tools:
  - name: web_search
    description: Search the public web and return result snippets.
    input_schema:
      type: object
      properties:
        query: {type: string, description: Search query}
        max_results: {type: integer, default: 10}
      required: [query]
  - name: web_fetch
    description: Fetch full webpage content for a URL.
    input_schema:
      type: object
      properties:
        url: {type: string}
        timeout_seconds: {type: integer, default: 30}
      required: [url]

tool_endpoints:
  - tool_name: web_search
    url: http://localhost:9114/web/search
    method: POST
  - tool_name: web_fetch
    url: http://localhost:9114/web/fetch
    method: POST

environment:
  timeout_seconds: 600
  max_turns: 30

scoring_components:
  - name: searched
    weight: 0.3
    check: {type: tool_called, tool_name: web_search, min_calls: 1}
  - name: names_the_release
    weight: 0.7
    check: {type: keywords_present, keywords: [CUDA]}
safety_checks: []
judge_rubric: ""
"#;

/// A peer task whose service fixture the checkout does not hold (as Claw-Eval's Chinese peers
/// kept only for their graders).
const MISSING_FIXTURE_TASK: &str = r#"task_id: T001zh_peer
prompt:
  text: 整理收件箱
  language: zh
services:
  - name: gmail
    command: python mock_services/gmail/server.py
    port: 9100
    env:
      GMAIL_FIXTURES: tasks/T001zh_peer/fixtures/gmail/inbox.json
tools:
  - name: gmail_list_messages
    description: List the inbox
    input_schema: {type: object, properties: {}}
tool_endpoints:
  - tool_name: gmail_list_messages
    url: http://localhost:9100/gmail/messages
scoring_components:
  - name: listed
    weight: 1.0
    check: {type: tool_called, tool_name: gmail_list_messages}
"#;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Writes `tasks/<id>/task.yaml` of the suite at `root`.
fn write_task(root: &Path, id: &str, yaml: &str) {
    let dir = root.join("tasks").join(id);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("task.yaml"), yaml).unwrap();
}

/// A checkout in `tmp`: the bundled test tasks e2e_mail and e2e_chat (runnable), a copy of
/// e2e_chat with an LLM-judged item (needs-judge), the web_real task (needs-web) and the peer
/// without its fixture (needs-fixtures).
fn checkout(tmp: &Path) -> PathBuf {
    let root = tmp.join("claw-eval");
    let bundled = repo().join("tests/fixtures/suite/tasks");
    for id in ["e2e_mail", "e2e_chat"] {
        copy_dir(&bundled.join(id), &root.join("tasks").join(id));
    }
    let chat = std::fs::read_to_string(bundled.join("e2e_chat/task.yaml")).unwrap();
    let judged = chat
        .replace("task_id: e2e_chat", "task_id: judged_chat")
        .replace("    weight: 1.0\n", "    weight: 0.6\n")
        .replace(
            "safety_checks: []",
            "  - name: advice_quality\n    weight: 0.4\n    check: {type: llm_judge, description: Sound advice}\nsafety_checks: []",
        );
    assert!(judged.contains("advice_quality"));
    write_task(&root, "judged_chat", &judged);
    write_task(&root, "T068_web_real_research", WEB_REAL_TASK);
    write_task(&root, "T001zh_peer", MISSING_FIXTURE_TASK);
    root
}

fn clawrun(args: &[&str], suite: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(args)
        .arg("--suite")
        .arg(suite)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const WEB_REASON: &str = "needs-web: service `web_real` (kind web_real) needs the web: run \
                          with --web live or --web record, or replay a recording with \
                          --web-cassette DIR";
const FIXTURE_REASON: &str = "needs-fixtures: service `gmail`: its fixture \
                              tasks/T001zh_peer/fixtures/gmail/inbox.json (GMAIL_FIXTURES) is not \
                              in the suite";
const COUNTS: &str = "5 tasks: 2 runnable, 1 needs-judge, 0 needs-user-model, 1 needs-web, 1 \
                      needs-fixtures, 0 unsupported";

#[test]
fn list_shows_each_status_the_reasons_and_the_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = checkout(tmp.path());
    let o = clawrun(&["list"], &suite);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    let row = |id: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no row for {id}:\n{out}"))
            .to_string()
    };
    assert!(out.lines().next().unwrap().contains(" status "), "{out}");
    assert!(row("e2e_mail").contains(" runnable "), "{out}");
    assert!(row("judged_chat").contains(" needs-judge "), "{out}");
    assert!(
        row("T068_web_real_research").contains(" needs-web "),
        "{out}"
    );
    assert!(row("T001zh_peer").contains(" needs-fixtures "), "{out}");
    assert!(
        out.contains(&format!("T068_web_real_research: {WEB_REASON}")),
        "{out}"
    );
    assert!(
        out.contains(&format!("T001zh_peer: {FIXTURE_REASON}")),
        "{out}"
    );
    assert!(out.contains("5 tasks, 0 failed to load"), "{out}");
    assert_eq!(out.lines().last(), Some(COUNTS), "{out}");

    let o = clawrun(&["list", "--json"], &suite);
    assert_eq!(o.status.code(), Some(0));
    let rows: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    let by_id = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(by_id("e2e_chat")["status"], "runnable");
    assert_eq!(by_id("e2e_chat")["reason"], Value::Null);
    assert_eq!(by_id("judged_chat")["status"], "needs-judge");
    assert_eq!(
        by_id("judged_chat")["reason"],
        "LLM-judged without --judge (left unjudged): advice_quality (0.40)"
    );
    let web = by_id("T068_web_real_research");
    assert_eq!(web["status"], "needs-web");
    assert_eq!(
        format!("needs-web: {}", web["reason"].as_str().unwrap()),
        WEB_REASON
    );
}

#[test]
fn validate_skips_unsupported_tasks_with_their_reason_and_still_fails_broken_files() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = checkout(tmp.path());
    let o = clawrun(&["validate"], &suite);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", text(&o.stderr));
    assert!(
        out.contains(&format!("skip T068_web_real_research\n     {WEB_REASON}\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!("skip T001zh_peer\n     {FIXTURE_REASON}\n")),
        "{out}"
    );
    for id in ["e2e_chat", "e2e_mail", "judged_chat"] {
        assert!(out.contains(&format!("ok   {id}\n")), "{out}");
    }
    assert!(out.contains("5 tasks, 0 failed, 2 skipped\n"), "{out}");
    assert_eq!(out.lines().last(), Some(COUNTS), "{out}");

    // A malformed task file still stops validate (and run) with its error, exit status 2.
    write_task(&suite, "broken", "task_id: broken\nprompt: [\n");
    let o = clawrun(&["validate"], &suite);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("tasks/broken/task.yaml"),
        "{}",
        text(&o.stderr)
    );
    let out = tmp.path().join("run");
    let o = clawrun(
        &[
            "run",
            "--faults",
            "none",
            "--trials",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
        &suite,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(!out.exists(), "a run started over a broken task file");
}

#[test]
fn run_skips_unsupported_tasks_records_them_and_scores_the_others() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = checkout(tmp.path());
    let out = tmp.path().join("run");
    let o = clawrun(
        &[
            "run",
            "--agent",
            "oracle",
            "--faults",
            "none",
            "--trials",
            "1",
            "-j",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
        &suite,
    );
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stderr.contains(&format!(
            "clawrun: skipping T068_web_real_research: {WEB_REASON}\n"
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "clawrun: skipping T001zh_peer: {FIXTURE_REASON}\n"
        )),
        "{stderr}"
    );
    assert!(
        stdout.contains("(2 task(s) skipped: `skipped` in run.json)"),
        "{stdout}"
    );

    // The others ran and were scored; the skipped ones have no record.
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let mut scored: Vec<(String, f64)> = journal
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .map(|r| {
            assert_eq!(r["status"], "scored", "{r}");
            (
                r["task_id"].as_str().unwrap().to_string(),
                r["verdict"]["score"].as_f64().unwrap(),
            )
        })
        .collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0));
    let ids: Vec<&str> = scored.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["e2e_chat", "e2e_mail", "judged_chat"]);
    assert!(scored.iter().all(|(_, s)| *s > 0.9), "{scored:?}");

    // run.json lists the skipped tasks with their reasons (and not among the run's tasks).
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    let skipped = manifest["skipped"].as_array().unwrap();
    let listed: Vec<(&str, &str, &str)> = skipped
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap(),
                s["folder"].as_str().unwrap(),
                s["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("T001zh_peer", "tasks/T001zh_peer", "needs-fixtures"),
            (
                "T068_web_real_research",
                "tasks/T068_web_real_research",
                "needs-web"
            ),
        ]
    );
    assert_eq!(
        format!("needs-web: {}", skipped[1]["reason"].as_str().unwrap()),
        WEB_REASON
    );
    assert!(manifest["tasks"].get("T068_web_real_research").is_none());
    // The report's header says so.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("2 task(s) skipped (unsupported, or needing the web or fixtures)"),
        "{md}"
    );

    // Selecting only unsupported tasks leaves nothing to run: one line, exit status 2.
    let none = tmp.path().join("none");
    let o = clawrun(
        &[
            "run",
            "T068_web_real_research",
            "--faults",
            "none",
            "--out",
            none.to_str().unwrap(),
        ],
        &suite,
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr)
            .contains("nothing to run: every selected task (1) is unsupported or needs the web"),
        "{}",
        text(&o.stderr)
    );
    assert!(!none.exists());
}

#[test]
fn validate_warns_about_a_task_without_a_rubric_clawrun_can_apply() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    // As Claw-Eval's multimodal tasks graded only by their grader.py (T119).
    write_task(
        &suite,
        "T119_video_ocr",
        "task_id: T119_video_ocr
prompt: {text: Extract the words shown between 0:25 and 0:30.}
tools: []
tool_endpoints: []
scoring_components: []
judge_rubric: \"\"
",
    );
    let o = clawrun(&["validate"], &suite);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains(
            "     warning: T119_video_ocr: no rubric clawrun can apply (no weighted \
             scoring_components or rubric item, no judge_rubric): only the robustness part \
             (0.2) can ever be scored (hint: grade it with `--grader claw-eval` and the \
             checkout's grader.py, or add a native `rubric` in a clawrun.yaml beside its \
             task.yaml)\n"
        ),
        "{out}"
    );
    assert_eq!(
        out.lines().last(),
        Some(
            "1 task: 1 runnable, 0 needs-judge, 0 needs-user-model, 0 needs-web, 0 \
             needs-fixtures, 0 unsupported"
        ),
        "{out}"
    );
    // A warning like any other: --strict fails it.
    let o = clawrun(&["validate", "--strict"], &suite);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
}
