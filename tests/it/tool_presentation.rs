//! The sandbox tools as the model is offered them, against Claw-Eval's own
//! `runner/sandbox_tools.py` (`third_party/claw-eval`, read by native Python): the same nine,
//! in the same order, with the same names, descriptions and schemas; and a task that defines
//! one of them itself (C04's `Bash`) keeps its own text, as Claw-Eval's loop keeps it.

use std::path::Path;
use std::process::Command;

use clawrun::trial::presentation::{SYSTEM_TOOLS, system_tool};
use serde_json::{Value, json};

use crate::pyref_support::reference_python;

#[test]
fn the_nine_sandbox_tools_are_claw_eval_s() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("third_party/claw-eval/src");
    let out = Command::new(reference_python())
        .env("PYTHONPATH", &src)
        .args([
            "-c",
            "import json; from claw_eval.runner.sandbox_tools import SANDBOX_TOOLS as T; \
             print(json.dumps([{'name': t.name, 'description': t.description, \
             'input_schema': t.input_schema} for t in T]))",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours: Vec<Value> = SYSTEM_TOOLS
        .iter()
        .map(|name| {
            let spec = system_tool(name).unwrap();
            json!({"name": spec.name, "description": spec.description, "input_schema": spec.input_schema})
        })
        .collect();
    assert_eq!(Value::Array(ours), theirs);
}

#[test]
fn a_task_s_own_definition_of_a_sandbox_tool_keeps_the_task_s_text() {
    let suite = Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = clawrun::task::Suite::open(suite).unwrap();
    let folder = suite.find("C04zh_image_processing").unwrap().unwrap();
    let env = clawrun::trial::TaskEnv::prepare(suite.load(&folder).unwrap(), None).unwrap();
    let names: Vec<&str> = env.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Bash",
            "Read",
            "Write",
            "Edit",
            "Glob",
            "Grep",
            "BrowserScreenshot",
            "ReadMedia",
            "Download"
        ]
    );
    assert_eq!(
        env.tools[0].description,
        "在沙箱环境中执行 shell 命令，返回 stdout/stderr。"
    );
}
