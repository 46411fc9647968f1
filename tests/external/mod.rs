//! Third-party clients of clawrun's external-agent endpoints (`scripts/agent-clients.sh`,
//! which `scripts/test.sh` runs): the official MCP Python SDK, and scripts for it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The folder `scripts/agent-clients.sh` installs into.
pub fn clients_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| repo().join("target"), |t| repo().join(t))
        .join("agent-clients")
}

/// The Python with the MCP SDK; panics with what to do when it cannot import it.
pub fn mcp_python() -> PathBuf {
    let python = clients_dir().join("py/bin/python");
    let ok = Command::new(&python)
        .args(["-c", "import mcp"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "{} cannot import the MCP SDK: run scripts/agent-clients.sh (scripts/test.sh does)",
        python.display()
    );
    python
}

/// The MCP client script (`tests/external/mcp_client.py`).
pub fn mcp_client() -> PathBuf {
    repo().join("tests/external/mcp_client.py")
}

/// A client script playing the oracle of the bundled task `task` (its calls in order, each
/// retried up to `retries` times on an error result, then `finish` with its answer).
pub fn oracle_script(task: &str, retries: u32) -> Value {
    let suite = clawrun::task::Suite::open(repo()).unwrap();
    let loaded = suite.load(&format!("tasks/{task}")).unwrap();
    let oracle = loaded.task.oracle.as_ref().unwrap();
    let calls: Vec<Value> = oracle
        .calls()
        .into_iter()
        .map(|(_, c)| json!({"name": c.call, "args": c.args}))
        .collect();
    json!({"calls": calls, "answer": oracle.answer, "retries": retries})
}

/// Writes `script` into `dir` and returns its path.
pub fn write_script(dir: &Path, script: &Value) -> PathBuf {
    let path = dir.join("script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    path
}

/// A mock-llm script playing the oracle of the bundled task `task` as a model: turn 0 makes
/// its first call, each later turn the next one (one call per turn, so that the order of the
/// calls is the script's), then the oracle's answer.
pub fn oracle_model_script(task: &str) -> Value {
    let script = oracle_script(task, 0);
    let mut rules: Vec<Value> = script["calls"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(turn, call)| {
            json!({"name": format!("call{turn}"), "match": {"turn": turn},
                   "reply": {"tool_calls": [{"name": call["name"], "arguments": call["args"]}]}})
        })
        .collect();
    let turn = rules.len();
    rules.push(
        json!({"name": "answer", "match": {"turn": turn}, "reply": {"text": script["answer"]}}),
    );
    json!({ "rules": rules })
}

/// `PATH` with the folder of the Codex CLI that `scripts/agent-clients.sh` installs in front;
/// panics with what to do when it is not there.
pub fn path_with_codex() -> std::ffi::OsString {
    let bin = clients_dir().join("node/node_modules/.bin");
    assert!(
        bin.join("codex").is_file(),
        "{} has no codex: run scripts/agent-clients.sh (scripts/test.sh does)",
        bin.display()
    );
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

/// `--agent cmd:...` running the small SDK-style agent program (`tests/external/tiny_agent.py`).
pub fn tiny_agent() -> String {
    format!(
        "cmd:{} {}",
        mcp_python().display(),
        repo().join("tests/external/tiny_agent.py").display()
    )
}
