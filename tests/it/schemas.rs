//! The shipped JSON Schemas (`schemas/`) hold for what clawrun reads and writes: every bundled
//! task.yaml (and Claw-Eval's vendored ones) fits `task.schema.json`, which names exactly the
//! loader's fields and check types; every line of the golden traces and of a fresh run's
//! traces fits `trace.schema.json`, and together they use every event type. Broken inputs
//! fail them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use jsonschema::Validator;
use serde_json::Value;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The compiled schema `schemas/NAME`.
fn schema(name: &str) -> (Value, Validator) {
    let path = repo().join("schemas").join(name);
    let doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&doc)
        .unwrap_or_else(|e| panic!("{}: not a valid JSON Schema: {e}", path.display()));
    (doc, validator)
}

/// The problems of `value` under `validator`, one line each (`/path: message`).
fn problems(validator: &Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Every file named `name` at most `depth` folders below `dir`, sorted.
fn files_named(dir: &Path, name: &str, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() && depth > 0 {
            files_named(&p, name, depth - 1, out);
        } else if p.file_name().is_some_and(|n| n == name) {
            out.push(p);
        }
    }
    out.sort();
}

/// A YAML file as JSON (as the schema sees it).
fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_bundled_and_vendored_task_file_fits_the_task_schema() {
    let (_, validator) = schema("task.schema.json");
    let mut files = Vec::new();
    for dir in [
        "tasks",
        "tests/fixtures/suite/tasks",
        "third_party/claw-eval/tasks",
    ] {
        files_named(&repo().join(dir), "task.yaml", 2, &mut files);
    }
    assert!(files.len() > 130, "found only {} task files", files.len());
    let mut bad = Vec::new();
    for f in &files {
        for p in problems(&validator, &yaml(f)) {
            bad.push(format!("{}: {p}", f.display()));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_task_schema_names_exactly_the_loader_s_fields_and_check_types() {
    let (doc, _) = schema("task.schema.json");
    let fields: BTreeSet<&str> = doc["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let loader: BTreeSet<&str> = clawrun_task::load::TASK_FIELDS.iter().copied().collect();
    assert_eq!(fields, loader);
    let types: Vec<&str> = doc["$defs"]["check"]["properties"]["type"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(types, clawrun_task::check::CHECK_TYPES);
}

/// A change that breaks a task.
type Breaker = fn(&mut Value);

#[test]
fn broken_task_files_fail_the_task_schema_naming_the_field() {
    let (_, validator) = schema("task.schema.json");
    let task = yaml(&repo().join("tests/fixtures/suite/tasks/e2e_mail/task.yaml"));
    assert!(problems(&validator, &task).is_empty());
    let cases: [(&str, Breaker); 5] = [
        ("/scoring_components/0/check/min_calls", |t| {
            t["scoring_components"][0]["check"]["min_calls"] = "two".into();
        }),
        ("", |t| {
            t["promt"] = t["prompt"].clone();
        }),
        ("/scoring_components/1/check/type", |t| {
            t["scoring_components"][1]["check"]["type"] = "keyword_present".into();
        }),
        ("/rubric/0/check", |t| {
            t["rubric"][0]["check"]["patern"] = "x".into();
        }),
        ("", |t| {
            t.as_object_mut().unwrap().remove("prompt");
        }),
    ];
    for (path, break_it) in cases {
        let mut broken = task.clone();
        break_it(&mut broken);
        let found = problems(&validator, &broken);
        assert!(
            found.iter().any(|p| p.starts_with(&format!("{path}: "))),
            "{path}: {found:?}"
        );
    }
}

/// Validates every line of the traces in `files`; returns the event types seen.
fn check_traces(validator: &Validator, files: &[PathBuf]) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut bad = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let event: Value = serde_json::from_str(line).unwrap();
            seen.insert(event["type"].as_str().unwrap_or("?").to_string());
            for p in problems(validator, &event) {
                bad.push(format!("{}:{}: {p}", f.display(), i + 1));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    seen
}

/// The event types of `schemas/trace.schema.json`.
fn event_types(doc: &Value) -> BTreeSet<String> {
    doc["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let name = r["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
            doc["$defs"][name]["properties"]["type"]["const"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn golden_and_fresh_traces_fit_the_trace_schema_and_use_every_event_type() {
    let (doc, validator) = schema("trace.schema.json");
    let mut golden = Vec::new();
    files_named(
        &repo().join("snapshots/golden"),
        "trace.jsonl",
        2,
        &mut golden,
    );
    assert!(
        golden.len() > 80,
        "found only {} golden traces",
        golden.len()
    );
    let mut seen = check_traces(&validator, &golden);

    // A fresh run: a service task with faults (fault events) and a multi-turn task (user turns).
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let run = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["run", "--json", "-j", "1", "--trials", "2", "--seed", "1"])
        .args(["--faults", "claw-eval:0.5", "--suite"])
        .arg(repo().join("tests/fixtures/suite"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // One worker: the four traces are in one pack, one after another.
    let fresh = vec![out.join("traces/0.jsonl")];
    let pack = std::fs::read_to_string(&fresh[0]).unwrap();
    assert_eq!(pack.matches("\"type\":\"trace_start\"").count(), 4);
    seen.extend(check_traces(&validator, &fresh));

    // An agent program asking its model through the proxy (model_call events).
    let script = tmp.path().join("model.yaml");
    std::fs::write(&script, "rules:\n  - reply: {text: done}\n").unwrap();
    let program = tmp.path().join("agent.sh");
    std::fs::write(
        &program,
        "curl -sf -X POST \"$OPENAI_BASE_URL/chat/completions\" -H 'content-type: application/json' \\\n  -d '{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}'\n",
    )
    .unwrap();
    let out = tmp.path().join("cmd-run");
    let run = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["run", "e2e_mail", "--trials", "1", "--report", "none"])
        .arg(format!("--agent=cmd:sh {}", program.display()))
        .arg(format!("--model=scripted:{}", script.display()))
        .arg("--suite")
        .arg(repo().join("tests/fixtures/suite"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    seen.extend(check_traces(&validator, &[out.join("traces/0.jsonl")]));
    assert_eq!(seen, event_types(&doc), "event types seen vs the schema's");
}

#[test]
fn broken_trace_lines_fail_the_trace_schema() {
    let (_, validator) = schema("trace.schema.json");
    let good = serde_json::json!({"seq": 3, "t_ns": 5, "type": "tool_call", "id": "c1",
        "name": "Bash", "input": {"command": "ls"}});
    assert!(problems(&validator, &good).is_empty());
    let cases: [fn(&mut Value); 4] = [
        |e| e["type"] = "tool_called".into(),
        |e| {
            e.as_object_mut().unwrap().remove("id");
        },
        |e| e["seq"] = (-1).into(),
        |e| e["wall_clock"] = "2026-11-25T10:00:00Z".into(),
    ];
    for break_it in cases {
        let mut bad = good.clone();
        break_it(&mut bad);
        assert!(!validator.is_valid(&bad), "{bad}");
    }
}
