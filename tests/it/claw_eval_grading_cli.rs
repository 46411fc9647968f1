//! `clawrun run` over a Claw-Eval checkout grades each task with its own `grader.py`: a grader
//! that needs a judge leaves the trial unjudged (never crashed, never scored without it), a
//! grader that raises scores the trial 0 naming the error, `--grader both` keeps clawrun's
//! verdict beside Claw-Eval's and the report compares them, and `--grader claw-eval` without a
//! checkout is refused. Also: clawrun's `pydantic` stand-in against the real pydantic.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::pyref_support;
use pyref_support::reference_python;

use crate::fs_support;
use fs_support::copy_dir;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn clawrun(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn journal(run: &Path) -> Vec<Value> {
    std::fs::read_to_string(run.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const GRADED: &str = "T086_pinbench_calendar_event_creation";
const NEEDS_JUDGE: &str = "T012_expense_report";

/// A checkout with the vendored package, a task whose grader scores without a judge, one whose
/// grader needs a judge (and its peer grader and fixtures), and a copy of the first whose
/// grader raises.
fn checkout(root: &Path) {
    let vendored = repo().join("third_party/claw-eval");
    copy_dir(&vendored.join("src"), &root.join("src"));
    for task in [GRADED, NEEDS_JUDGE, "T011zh_expense_report"] {
        copy_dir(
            &vendored.join("tasks").join(task),
            &root.join("tasks").join(task),
        );
    }
    let broken = root.join("tasks/T086_broken");
    copy_dir(&vendored.join("tasks").join(GRADED), &broken);
    let yaml = std::fs::read_to_string(broken.join("task.yaml"))
        .unwrap()
        .replace(&format!("task_id: {GRADED}"), "task_id: T086_broken");
    std::fs::write(broken.join("task.yaml"), yaml).unwrap();
    std::fs::write(
        broken.join("grader.py"),
        "from claw_eval.graders.base import AbstractGrader\n\n\
         class Broken(AbstractGrader):\n    def grade(self, messages, dispatches, task, **kw):\n        \
         raise ValueError('the grader broke on purpose')\n",
    )
    .unwrap();
}

#[test]
fn a_checkout_is_graded_by_its_own_graders() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("claw-eval");
    checkout(&suite);
    let out = tmp.path().join("run");
    let o = clawrun(&[
        "run",
        "--suite",
        suite.to_str().unwrap(),
        "--agent",
        "idle",
        "--trials",
        "1",
        "--faults",
        "none",
        "--grader",
        "both",
        "-j",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let records = journal(&out);
    let by = |id: &str| {
        records
            .iter()
            .find(|r| r["task_id"] == id)
            .unwrap_or_else(|| panic!("no record of {id}: {records:?}"))
    };

    // Graded by its grader.py, without a judge: Claw-Eval's scores, clawrun's verdict beside.
    let graded = by(GRADED);
    assert_eq!(graded["grader"], "claw-eval");
    assert_eq!(graded["status"], "scored");
    let v = &graded["verdict"];
    assert_eq!(v["items"][0]["name"], "grader.py");
    assert_eq!(v["items"][0]["source"], "claw_eval_grader");
    assert!(graded["native_verdict"]["items"].is_array(), "{graded}");
    let grading: Value = serde_json::from_slice(
        &std::fs::read(out.join(GRADED).join("0/claw-eval/grading.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(grading["result"]["status"], "graded");
    assert_eq!(grading["result"]["task_score"], v["score"]);
    assert!(out.join(GRADED).join("0/claw-eval/trace.jsonl").is_file());

    // Needs a judge: unjudged with the reason, not a crash and not a score.
    let judged = by(NEEDS_JUDGE);
    assert_eq!(judged["status"], "scored", "{judged}");
    let item = &judged["verdict"]["items"][0];
    assert_eq!(item["score"], Value::Null);
    assert!(
        item["evidence"]
            .as_str()
            .unwrap()
            .contains("needs an LLM judge"),
        "{item}"
    );
    assert_eq!(judged["verdict"]["unjudged_weight"], 1.0);

    // A grader that raises (as upstream graders do on malformed tool arguments an agent can
    // send): the trial scores 0, never left out of the scores (which would raise the mean).
    let broken = by("T086_broken");
    assert_eq!(broken["status"], "scored", "{broken}");
    assert_eq!(broken["verdict"]["score"], 0.0, "{broken}");
    assert_eq!(broken["verdict"]["passed"], false, "{broken}");
    let evidence = broken["verdict"]["items"][0]["evidence"].as_str().unwrap();
    assert!(
        evidence.contains("ValueError: the grader broke on purpose")
            && evidence.contains("T086_broken/0/claw-eval/grading.json"),
        "{evidence}"
    );

    // The report compares the two graders.
    let report = clawrun(&["report", out.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(
        text.contains("GRADERS: CLAW-EVAL'S GRADER.PY VS CLAWRUN'S RUBRIC"),
        "{text}"
    );
    let json = clawrun(&["report", out.to_str().unwrap(), "--json"]);
    let summary: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(
        summary["summary"]["graders"]["unjudged"].as_u64().is_some(),
        "{summary}"
    );
}

#[test]
fn claw_eval_grading_needs_a_checkout() {
    let tmp = tempfile::tempdir().unwrap();
    let o = clawrun(&[
        "run",
        "--suite",
        repo().join("tasks").to_str().unwrap(),
        "--grader",
        "claw-eval",
        "--out",
        tmp.path().join("run").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--grader claw-eval needs a Claw-Eval checkout: pass --claw-eval PATH"),
        "{}",
        stderr(&o)
    );
    assert!(!tmp.path().join("run").exists());
    let o = clawrun(&[
        "run",
        "--claw-eval",
        tmp.path().to_str().unwrap(),
        "--out",
        tmp.path().join("run").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is not a Claw-Eval checkout: it has no src/claw_eval/__init__.py"),
        "{}",
        stderr(&o)
    );
}

/// clawrun's `pydantic` stand-in gives what the real pydantic gives over the vendored
/// checkout's models, traces, errors and graders (`tests/claw_eval_py/check_pydantic_shim.py`).
#[test]
fn the_pydantic_stand_in_matches_the_real_pydantic() {
    let python = reference_python();
    let o = Command::new(&python)
        .arg(repo().join("tests/claw_eval_py/check_pydantic_shim.py"))
        .arg(repo().join("third_party/claw-eval"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );
}

/// A browser task as Claw-Eval writes them (M002's shape): its grader subclasses
/// `webpage_grader`'s `DynamicWebpageGrader`, which reaches `judge.evaluate_visual` only
/// through a relative import (`from .visual_grader import VisualGraderMixin`).
const VISION_TASK: &str = r#"task_id: M900_world_clock
task_name: World Clock Dashboard (test copy)
version: "2.0"
category: multimodal_webpage
difficulty: medium
tags: [multimodal]
services: []
prompt:
  text: Generate /workspace/output.html with animated analog clocks.
  language: en
tools: []
tool_endpoints: []
sandbox_grader_files:
  - fixtures/take_recording.py
env_snapshot_commands:
  - "python /workspace/fixtures/take_recording.py file:///workspace/output.html --frames 10 --interval 0.5 --wait-before 2"
env_snapshot_files:
  - /workspace/grading_frames/*.png
environment:
  timeout_seconds: 600
  max_turns: 30
scoring_components: []
safety_checks: []
expected_actions: []
judge_rubric: ""
primary_dimensions: [completion, robustness]
"#;

#[test]
fn a_grader_reaching_evaluate_visual_through_a_relative_import_needs_a_vision_judge() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claw-eval");
    copy_dir(&repo().join("third_party/claw-eval/src"), &root.join("src"));
    let task = root.join("tasks/M900_world_clock");
    std::fs::create_dir_all(task.join("fixtures")).unwrap();
    std::fs::write(task.join("task.yaml"), VISION_TASK).unwrap();
    std::fs::write(
        task.join("grader.py"),
        "from claw_eval.graders.webpage_grader import DynamicWebpageGrader\n\n\
         class WorldClockGrader(DynamicWebpageGrader):\n    VISUAL_RUBRIC = 'clocks'\n",
    )
    .unwrap();
    std::fs::write(
        task.join("fixtures/take_recording.py"),
        include_bytes!("../../runtime/trial/src/claw_eval/take_recording.py"),
    )
    .unwrap();
    let o = clawrun(&["list", "--json", "--suite", root.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    let row = rows.iter().find(|r| r["id"] == "M900_world_clock").unwrap();
    assert_eq!(row["status"], "needs-judge", "{row}");
    let reason = row["reason"].as_str().unwrap();
    assert!(reason.starts_with("needs a vision judge"), "{reason}");
    assert!(
        reason.contains("src/claw_eval/graders/visual_grader.py: judge.evaluate_visual"),
        "{reason}"
    );
}
