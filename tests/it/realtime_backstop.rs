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
