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
