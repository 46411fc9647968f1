//! No wall-clock limit decides a trial's evidence (README "Time limits"): when the real-time
//! backstop fires — in a tool call, in a program the shell started, in the Judge phase — the
//! trial ends as an infrastructure error (kept out of scores, never tool output or a judge
//! input), and `--resume` runs it again. The backstop is made tiny here with
//! `CLAWRUN_REALTIME_BACKSTOP_MS`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use clawrun::agents::trace::{EventKind, read_trace};
use clawrun::report::{Status, TrialRecord};

/// A suite under `root` with one task whose oracle runs `tool` in Bash and whose Judge phase
/// runs `judge`.
fn suite(root: &Path, tool: &str, judge: &str) -> PathBuf {
    let dir = root.join("suite/tasks/backstop_probe");
    std::fs::create_dir_all(&dir).unwrap();
    let yaml = format!(
        r#"task_id: backstop_probe
task_name: Real-time backstop probe (test task)
version: "1.0"
category: code
difficulty: easy
tags: [general]
prompt:
  text: "Run the command."
  language: en
tools: []
tool_endpoints: []
system_tools: [Bash]
environment:
  timeout_seconds: 300
  max_turns: 4
env_snapshot_commands:
  - {judge:?}
scoring_components:
  - name: done
    weight: 1.0
    check: {{type: keywords_present, keywords: ["done"]}}
safety_checks: []
oracle:
  steps:
    - call: Bash
      args: {{command: {tool:?}}}
  answer: "done"
"#
    );
    std::fs::write(dir.join("task.yaml"), yaml).unwrap();
    root.join("suite")
}

/// `clawrun run` of the probe into `out`, with the backstop at `backstop_ms` when given.
fn run(suite: &Path, out: &Path, backstop_ms: Option<u64>, resume: bool) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    c.args(["run", "--quiet", "--report", "none", "--faults", "none"])
        .args(["--trials", "1", "--suite"])
        .arg(suite)
        .arg("--out")
        .arg(out)
        .env_remove("CLAWRUN_REALTIME_BACKSTOP_MS");
    if let Some(ms) = backstop_ms {
        c.env("CLAWRUN_REALTIME_BACKSTOP_MS", ms.to_string());
    }
    if resume {
        c.arg("--resume");
    }
    c.output().unwrap()
}

/// The latest record of the run in `out`.
fn last(out: &Path) -> TrialRecord {
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    serde_json::from_str(journal.lines().last().unwrap()).unwrap()
}

/// A Python loop that takes well over 100 ms of real time and well under the default backstop.
const SLOW: &str = "python3 -c 'print(sum(range(3000000)))'";

/// Fires the backstop with `tool`/`judge`, checks the infrastructure error (its message naming
/// `phase`) and that nothing of the cut-short program reached the evidence, then resumes with
/// the default backstop and checks the trial is scored.
fn fires_then_resumes(tool: &str, judge: &str, phase: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite(tmp.path(), tool, judge);
    let out = tmp.path().join("run");

    let first = run(&suite, &out, Some(20), false);
    let text = String::from_utf8_lossy(&first.stderr).into_owned();
    assert_eq!(first.status.code(), Some(1), "{text}");
    let record = last(&out);
    assert_eq!(record.status, Status::InfraError, "{record:?}");
    assert!(record.verdict.is_none());
    let error = record.error.clone().unwrap_or_default();
    assert!(
        error.starts_with(phase) && error.contains("passed the real-time backstop"),
        "{error}"
    );
    // The shell never read the cut-short program's fate as its output.
    let events = read_trace(record.trace_bytes(&out).unwrap().as_slice()).unwrap();
    for e in &events {
        match &e.kind {
            EventKind::ToolResult { output, .. } => {
                assert!(
                    !output.contains("deadline") && !output.contains("backstop"),
                    "{output}"
                )
            }
            EventKind::Snapshot { commands, .. } => {
                panic!("a Judge phase was recorded: {commands:?}")
            }
            _ => {}
        }
    }

    let again = run(&suite, &out, None, true);
    let text = String::from_utf8_lossy(&again.stderr).into_owned();
    assert!(again.status.success(), "{text}");
    let record = last(&out);
    assert_eq!(record.status, Status::Scored, "{record:?}");
    assert_eq!(record.verdict.unwrap().scores.score, 1.0);
}

#[test]
fn the_backstop_firing_in_a_tool_call_is_an_infrastructure_error_that_resume_runs_again() {
    fires_then_resumes(SLOW, "echo judged", "the Bash call: Bash passed");
}

#[test]
fn the_backstop_firing_in_the_judge_phase_is_an_infrastructure_error_that_resume_runs_again() {
    fires_then_resumes("echo hello", SLOW, "the Judge phase: Bash passed");
}

#[test]
fn an_agent_cannot_turn_its_trial_into_an_infrastructure_error_by_burning_compute() {
    // An endless loop ends on fuel (counted, the same on every machine: seconds here, far
    // below the backstop), as the tool's output: the trial is scored, not excluded.
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite(tmp.path(), "python3 -c 'while True: pass'", "echo judged");
    let out = tmp.path().join("run");
    let o = run(&suite, &out, None, false);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let record = last(&out);
    assert_eq!(record.status, Status::Scored, "{record:?}");
    let events = read_trace(record.trace_bytes(&out).unwrap().as_slice()).unwrap();
    let ran_out = events.iter().any(|e| {
        matches!(&e.kind, EventKind::ToolResult { output, .. } if output.contains("ran out of fuel"))
    });
    assert!(ran_out, "the loop ends on fuel, as tool output");
}

#[test]
fn a_slow_host_or_model_never_ends_a_trial_early() {
    // The task's time (`timeout_seconds`, 1 s here) is virtual: a model that takes 1.5 s of
    // real time to answer (or a busy machine, a first compile) leaves the trial as it would be
    // on a fast one. It ended the trial as `timeout` before its answer once.
    use clawrun::agents::llm::{ModelConfig, Provider};
    use clawrun::agents::trace::Outcome;
    use clawrun::run::{AgentSpec, RunOptions};
    let tmp = tempfile::tempdir().unwrap();
    let task = tmp.path().join("suite/tasks/slow_model");
    std::fs::create_dir_all(&task).unwrap();
    std::fs::write(
        task.join("task.yaml"),
        r#"task_id: slow_model
task_name: A slow model (test task)
category: code
prompt:
  text: "Say done after running a command."
system_tools: [Bash]
environment: {timeout_seconds: 1, max_turns: 4}
scoring_components:
  - name: done
    weight: 1.0
    check: {type: keywords_present, keywords: ["done"]}
safety_checks: []
"#,
    )
    .unwrap();
    let (_rt, server) = crate::mock_model::mock_server_with(
        r#"rules:
  - name: run
    match: {turn: 0}
    reply: {tool_calls: [{name: Bash, arguments: {command: "echo hi"}}], delay_ms: 1500}
  - name: answer
    match: {turn: 1}
    reply: {text: "done"}
"#,
    );
    let mut model = ModelConfig::new(Provider::OpenAi, "slow-model");
    model.base_url = Some(format!("{}/v1", server.url()));
    model.api_key = Some("test-key".into());
    let out = tmp.path().join("run");
    let options = RunOptions::new(tmp.path().join("suite"), AgentSpec::Model(model), &out);
    let result = clawrun::run::run(&options).unwrap();
    let records = result.records().unwrap();
    assert_eq!(records[0].outcome, Outcome::FinalAnswer, "{:?}", records[0]);
    assert_eq!(records[0].turns, 2);
    assert_eq!(records[0].verdict.as_ref().unwrap().scores.score, 1.0);
}

/// A suite under `root` with one task whose workspace holds a page (no program runs: only the
/// browser meets the tiny limit) and whose oracle, when `tool`, takes its screenshot
/// (`BrowserScreenshot`); else its Judge phase records it with Claw-Eval's
/// `take_recording.py` (the host's browser).
fn browser_suite(root: &Path, tool: bool) -> PathBuf {
    let dir = root.join("suite/tasks/browser_probe");
    std::fs::create_dir_all(dir.join("fixtures")).unwrap();
    std::fs::write(
        dir.join("fixtures/take_recording.py"),
        include_bytes!("../../runtime/trial/src/claw_eval/take_recording.py"),
    )
    .unwrap();
    std::fs::write(
        dir.join("fixtures/p.html"),
        "<html><head><title>t</title></head><body>hi</body></html>",
    )
    .unwrap();
    let url = "file:///workspace/fixtures/p.html";
    let (tools, shot, judge) = if tool {
        (
            "[BrowserScreenshot]".to_string(),
            format!("\n    - call: BrowserScreenshot\n      args: {{url: \"{url}\"}}"),
            String::new(),
        )
    } else {
        (
            "[]".to_string(),
            " []".to_string(),
            format!(
                "sandbox_grader_files: [fixtures/take_recording.py]\nenv_snapshot_commands:\n  - \"python /workspace/fixtures/take_recording.py {url} --frames 1 --interval 0.5 --wait-before 0\"\n"
            ),
        )
    };
    let yaml = format!(
        r#"task_id: browser_probe
task_name: Browser backstop probe (test task)
category: code
prompt:
  text: "Look at the page."
sandbox_files: [fixtures/p.html]
system_tools: {tools}
environment: {{timeout_seconds: 300, max_turns: 4}}
{judge}scoring_components:
  - name: done
    weight: 1.0
    check: {{type: keywords_present, keywords: ["done"]}}
safety_checks: []
oracle:
  steps:{shot}
  answer: "done"
"#
    );
    std::fs::write(dir.join("task.yaml"), yaml).unwrap();
    root.join("suite")
}

/// A browser step past the real-time limit (1 ms here) ends the trial as an infrastructure
/// error naming `phase`, with nothing of the page in the evidence; `--resume` with the default
/// limit scores it.
fn browser_fires_then_resumes(tool: bool, phase: &str) {
    if let Err(e) = clawrun::browser::find_chromium() {
        println!("SKIPPED: {e}");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let suite = browser_suite(tmp.path(), tool);
    let out = tmp.path().join("run");
    let first = run(&suite, &out, Some(1), false);
    let text = String::from_utf8_lossy(&first.stderr).into_owned();
    assert_eq!(first.status.code(), Some(1), "{text}");
    let record = last(&out);
    assert_eq!(record.status, Status::InfraError, "{record:?}");
    assert!(record.verdict.is_none());
    let error = record.error.clone().unwrap_or_default();
    assert!(
        error.starts_with(phase) && error.contains("the browser, not the page"),
        "{error}"
    );
    let events = read_trace(record.trace_bytes(&out).unwrap().as_slice()).unwrap();
    for e in &events {
        match &e.kind {
            EventKind::ToolResult { name, output, .. } => {
                assert_ne!(
                    name, "BrowserScreenshot",
                    "the cut-short page became a result: {output}"
                )
            }
            EventKind::Snapshot { commands, .. } => {
                panic!("a Judge phase was recorded: {commands:?}")
            }
            _ => {}
        }
    }
    let again = run(&suite, &out, None, true);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let record = last(&out);
    assert_eq!(record.status, Status::Scored, "{record:?}");
    assert_eq!(record.verdict.unwrap().scores.score, 1.0);
}

#[test]
fn a_browser_step_past_the_real_time_limit_in_a_tool_call_is_an_infrastructure_error() {
    browser_fires_then_resumes(true, "the BrowserScreenshot call: BrowserScreenshot of");
}

#[test]
fn a_browser_step_past_the_real_time_limit_in_the_judge_phase_is_an_infrastructure_error() {
    browser_fires_then_resumes(false, "the Judge phase: take_recording.py");
}
