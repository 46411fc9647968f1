//! `clawrun mcp` driven by a real third-party MCP client (the official MCP Python SDK): it lists
//! the trial's tools, calls them through faults, finishes; the run folder holds the trace and
//! the verdict, as for any run.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::external::{mcp_client, mcp_python, oracle_script, repo, write_script};

/// The run's one journal record.
fn record(run: &Path) -> Value {
    let text = std::fs::read_to_string(run.join("journal.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "{text}");
    serde_json::from_str(lines[0]).unwrap()
}

/// The trial's trace events.
fn trace(run: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["trace"])
        .arg(run.join("T002_email_triage/0"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The client's report, from its stdout.
fn report(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "client failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_sdk_client_over_stdio_lists_calls_through_faults_and_finishes() {
    let tmp = tempfile::tempdir().unwrap();
    // The first two message reads fail with 500: the client sees error results and retries.
    let plan = tmp.path().join("faults.yaml");
    std::fs::write(
        &plan,
        "rules:\n  - point: service:gmail/messages/get\n    kind: status500\n    calls: [1, 2]\n",
    )
    .unwrap();
    let script = write_script(tmp.path(), &oracle_script("T002_email_triage", 3));
    let run = tmp.path().join("run");
    let out = Command::new(mcp_python())
        .arg(mcp_client())
        .arg(&script)
        .arg("--stdio")
        .arg(env!("CARGO_BIN_EXE_clawrun"))
        .args(["mcp", "T002_email_triage", "--suite"])
        .arg(repo())
        .arg("--faults")
        .arg(&plan)
        .arg("--out")
        .arg(&run)
        .output()
        .unwrap();
    let report = report(&out);
    assert_eq!(report["server"], "clawrun");
    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for tool in [
        "Bash",
        "Read",
        "gmail_list_messages",
        "gmail_get_message",
        "finish",
    ] {
        assert!(tools.contains(&tool), "{tool} not listed: {tools:?}");
    }
    let list = &report["tools"][tools
        .iter()
        .position(|t| *t == "gmail_list_messages")
        .unwrap()];
    assert_eq!(list["schema"]["properties"]["days_back"]["type"], "integer");
    // Both faults were seen as error results and recovered from.
    let attempts = report["attempts"].as_array().unwrap();
    let errors: Vec<&Value> = attempts.iter().filter(|a| a["is_error"] == true).collect();
    assert_eq!(errors.len(), 2, "{attempts:?}");
    assert!(errors.iter().all(|a| a["name"] == "gmail_get_message"));
    assert_eq!(attempts.len(), 9 + 2);
    assert!(
        report["finish"].as_str().unwrap().contains("recorded"),
        "{report}"
    );

    // The run folder: judged like any run, the faults and every call in the trace.
    let record = record(&run);
    assert_eq!(record["agent"], "mcp");
    assert_eq!(record["status"], "scored");
    assert_eq!(record["verdict"]["passed"], true, "{record}");
    assert_eq!(record["verdict"]["faults_seen"], 2, "{record}");
    assert!(run.join("report.html").is_file());
    let events = trace(&run);
    let calls = events.iter().filter(|e| e["type"] == "tool_call").count();
    let faults = events.iter().filter(|e| e["type"] == "fault").count();
    assert_eq!((calls, faults), (11, 2));
    let end = events.last().unwrap();
    assert_eq!(end["type"], "trace_end");
    assert_eq!(end["outcome"], "final_answer");
    assert!(end["final_text"].as_str().unwrap().contains("Needs reply"));

    // The recorded trial replays: same hashes, same score.
    let replay = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .arg("replay")
        .arg(&run)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(replay.status.success(), "{text}");
    assert!(text.contains("1 identical, 0 diverged"), "{text}");
}

#[test]
fn the_sdk_client_over_streamable_http_plays_the_trial_to_a_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let script = write_script(tmp.path(), &oracle_script("T002_email_triage", 0));
    let run = tmp.path().join("run");
    let mut server = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args([
            "mcp",
            "T002_email_triage",
            "--listen",
            "127.0.0.1:0",
            "--faults",
            "none",
        ])
        .arg("--suite")
        .arg(repo())
        .arg("--out")
        .arg(&run)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL announced: {line}"))
        .to_string();
    let out = Command::new(mcp_python())
        .arg(mcp_client())
        .arg(&script)
        .args(["--url", &url])
        .output()
        .unwrap();
    let report = report(&out);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert!(server.wait().unwrap().success(), "{rest}");
    assert!(rest.contains("passed"), "{rest}");
    assert_eq!(report["attempts"].as_array().unwrap().len(), 9);
    assert!(
        report["attempts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["is_error"] == false)
    );
    let record = record(&run);
    assert_eq!(record["verdict"]["passed"], true, "{record}");
    assert_eq!(record["turns"], 10);
}
