//! Claw-Eval's own graders in the sandbox give the scores Claw-Eval's own code gives.
//!
//! The bundled Claw-Eval tasks are run with the oracle, careless and do-nothing agents under
//! injected faults, graded by each task's unmodified `grader.py` (the vendored checkout in
//! `third_party/claw-eval`) inside the WASI Python sandbox with clawrun's `pydantic` and
//! `openai` stand-ins, the judge a scripted model on loopback. The same exported evidence is
//! then graded by the same checkout under a native CPython with the real pydantic and openai
//! packages (`scripts/pyref.sh`), the judge the same scripted model reached over HTTP by the
//! real openai client. Every trial's status, scores, task score, verdict and judge call log
//! must be identical.

use std::path::{Path, PathBuf};
use std::process::Command;

use clawrun::agents::llm::{ModelConfig, Provider};
use clawrun::agents::mock::{Script, serve_mock_llm};
use clawrun::run::{AgentSpec, RunOptions, run};
use clawrun::trial::grading::GraderChoice;
use serde_json::Value;

use crate::pyref_support;
use pyref_support::reference_python;

/// The scripted judge both sides share: answers depend on the prompt, so a difference in the
/// evidence a grader shows its judge shows up as a difference in scores.
const JUDGE: &str = r###"
rules:
  - name: classification
    match: {last_contains: "msg_"}
    reply: {text: '{"score": 0.6, "reasoning": "scripted: mail", "msg_001": "urgent", "msg_002": "normal"}'}
  - name: safety-rubric
    match: {last_contains: "safety"}
    reply: {text: '```json\n{"score": 0.35, "reasoning": "scripted: safety rubric"}\n```'}
  - name: actions
    match: {system_contains: "actions the agent actually performed"}
    reply: {text: '{"score": 0.9, "reasoning": "scripted: actions"}'}
  - name: rubric
    match: {last_contains: "## Rubric"}
    reply: {text: '{"score": 0.7, "reasoning": "scripted: rubric"}'}
  - name: other
    match: {}
    reply: {text: '{"score": 0.5, "reasoning": "scripted: other"}'}
"###;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled tasks that have a Claw-Eval grader.
fn claw_eval_tasks() -> Vec<String> {
    let checkout = repo().join("third_party/claw-eval/tasks");
    let mut ids: Vec<String> = std::fs::read_dir(repo().join("tasks"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|id| {
            repo().join("tasks").join(id).join("task.yaml").is_file()
                && checkout.join(id).join("grader.py").is_file()
        })
        .collect();
    ids.sort();
    ids
}

/// Runs every task with `agent`, graded by Claw-Eval's graders in the sandbox; returns the run
/// folder's journal records.
fn run_sandboxed(
    agent: AgentSpec,
    judge: &ModelConfig,
    tasks: &[String],
    out: &Path,
) -> Vec<Value> {
    let mut options = RunOptions::new(repo(), agent, out);
    options.tasks = tasks.to_vec();
    options.faults = Some("claw-eval:0.3".into());
    options.seed = 11;
    options.jobs = 2;
    options.judge = Some(judge.clone());
    options.grader = GraderChoice::ClawEval;
    options.claw_eval = Some(repo().join("third_party/claw-eval"));
    run(&options).unwrap();
    std::fs::read_to_string(out.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The driver's result without what legitimately differs (the judge log's wall-clock
/// timestamps).
fn comparable(mut result: Value) -> Value {
    if let Some(calls) = result["judge_calls"].as_array_mut() {
        for c in calls {
            c.as_object_mut().unwrap().remove("timestamp");
        }
    }
    result
}

#[test]
fn claw_eval_graders_in_the_sandbox_score_as_claw_eval_does() {
    let python = reference_python();
    let tasks = claw_eval_tasks();
    assert!(tasks.len() >= 40, "bundled Claw-Eval tasks: {tasks:?}");
    let tmp = tempfile::tempdir().unwrap();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(serve_mock_llm(
            Script::parse(JUDGE, "judge script").unwrap(),
            "127.0.0.1:0".parse().unwrap(),
        ))
        .unwrap();
    let mut judge = ModelConfig::new(Provider::OpenAi, "scripted-judge");
    judge.base_url = Some(format!("{}/v1", server.url()));
    judge.api_key = Some("test-key".into());

    // The native side runs the same driver, copied away from clawrun's stand-ins so the real
    // packages are imported.
    let driver_dir = tmp.path().join("driver");
    std::fs::create_dir_all(&driver_dir).unwrap();
    std::fs::copy(
        repo().join("runtime/trial/src/claw_eval/python/clawrun_grade.py"),
        driver_dir.join("clawrun_grade.py"),
    )
    .unwrap();
    let checkout = repo().join("third_party/claw-eval");

    let mut jobs = Vec::new();
    let mut sandboxed = Vec::new();
    for (name, agent) in [
        ("oracle", AgentSpec::Oracle),
        ("careless", AgentSpec::Careless),
        ("idle", AgentSpec::Idle),
    ] {
        let out = tmp.path().join(name);
        for record in run_sandboxed(agent, &judge, &tasks, &out) {
            let task = record["task_id"].as_str().unwrap().to_string();
            if record["status"] == "infra_error" {
                panic!("{name} {task}: {record}");
            }
            assert_eq!(record["grader"], "claw-eval", "{name} {task}: {record}");
            let trial = out.join(&task).join(record["trial"].to_string());
            let evidence = trial.join("claw-eval");
            let grading: Value =
                serde_json::from_slice(&std::fs::read(evidence.join("grading.json")).unwrap())
                    .unwrap();
            let native_out = tmp.path().join(format!("{name}-{task}.json"));
            jobs.push(serde_json::json!([
                "--checkout",
                checkout,
                "--task-yaml",
                checkout.join("tasks").join(&task).join("task.yaml"),
                "--evidence",
                evidence,
                "--out",
                native_out,
                "--judge-model",
                "openai:scripted-judge",
                "--judge-base-url",
                format!("{}/v1", server.url()),
                "--judge-api-key",
                "test-key",
            ]));
            sandboxed.push((format!("{name} {task}"), record, grading, native_out));
        }
    }

    // One native interpreter grades every trial, as Claw-Eval's harness would. Graders' retry
    // sleeps are skipped: in the sandbox they pass in virtual time.
    let jobs_file = tmp.path().join("jobs.json");
    std::fs::write(&jobs_file, serde_json::to_vec(&jobs).unwrap()).unwrap();
    let native = Command::new(&python)
        .current_dir(tmp.path())
        .arg("-c")
        .arg(format!(
            "import json, sys, time\nsys.path.insert(0, {dir:?})\nimport clawrun_grade\n\
             time.sleep = lambda s: None\n\
             for job in json.load(open({jobs:?})):\n    clawrun_grade.main([str(a) for a in job])\n",
            dir = driver_dir.display().to_string(),
            jobs = jobs_file.display().to_string(),
        ))
        .output()
        .unwrap();
    assert!(
        native.status.success(),
        "the native grading failed: {}",
        String::from_utf8_lossy(&native.stderr)
    );

    let mut graded = 0;
    let mut differences = Vec::new();
    for (name, record, grading, native_out) in &sandboxed {
        let native: Value = serde_json::from_slice(&std::fs::read(native_out).unwrap()).unwrap();
        let mine = comparable(grading["result"].clone());
        let theirs = comparable(native.clone());
        if mine["status"] == "error" || theirs["status"] == "error" {
            // A grader that raises must raise on both sides (the last line names the error).
            let last = |v: &Value| {
                v["error"]
                    .as_str()
                    .unwrap_or_default()
                    .trim_end()
                    .lines()
                    .last()
                    .unwrap_or_default()
                    .to_string()
            };
            if mine["status"] != theirs["status"] || last(&mine) != last(&theirs) {
                differences.push(format!("{name}: sandbox {mine}\n  native {theirs}"));
            }
            continue;
        }
        if mine != theirs {
            differences.push(format!("{name}: sandbox {mine}\n  native {theirs}"));
            continue;
        }
        assert_eq!(mine["status"], "graded", "{name}: {mine}");
        graded += 1;
        // The journal's verdict is the grader's: Claw-Eval's task score and pass.
        let verdict = &record["verdict"];
        assert_eq!(verdict["score"], theirs["task_score"], "{name}");
        assert_eq!(verdict["passed"], theirs["passed"], "{name}");
        assert_eq!(
            verdict["completion"], theirs["scores"]["completion"],
            "{name}"
        );
        assert_eq!(verdict["safety"], theirs["scores"]["safety"], "{name}");
    }
    eprintln!(
        "{} trials: {graded} graded identically, {} failing identically on both sides",
        sandboxed.len(),
        sandboxed.len() - graded - differences.len()
    );
    assert!(
        differences.is_empty(),
        "{} of {} gradings differ:\n{}",
        differences.len(),
        sandboxed.len(),
        differences.join("\n")
    );
    // Nearly every trial is graded (with a judge, none needs one), and the scripted judge
    // was asked.
    assert!(
        graded * 10 >= sandboxed.len() * 9,
        "{graded} of {}",
        sandboxed.len()
    );
    assert!(!server.requests().is_empty());
}
