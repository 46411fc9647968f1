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

/// One HTTP/1.1 request to `127.0.0.1:port` (the connection closed after it): the status,
/// the `Mcp-Session-Id` answered, and the JSON-RPC messages of the body (plain JSON or SSE
/// `data:` lines).
fn http(
    port: u16,
    method: &str,
    session: Option<&str>,
    body: Option<&Value>,
) -> (u16, Option<String>, Vec<Value>) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(id) = session {
        request.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let session = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("mcp-session-id")
            .then(|| v.trim().to_string())
    });
    let messages = rest
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let json = l.strip_prefix("data:").map_or(l, str::trim);
            serde_json::from_str::<Value>(json)
                .ok()
                .filter(Value::is_object)
        })
        .collect();
    (status, session, messages)
}

fn initialize(id: u64) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}})
}

fn call(id: u64, name: &str, args: Value) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": name, "arguments": args}})
}

/// `clawrun mcp T002 --listen 127.0.0.1:0` into `run`: the server and its port.
fn listen(
    run: &Path,
) -> (
    std::process::Child,
    u16,
    BufReader<std::process::ChildStderr>,
) {
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
        .arg(run)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let port = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://127.0.0.1:"))
        .and_then(|w| w.strip_suffix("/mcp"))
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no URL announced: {line}"));
    (server, port, stderr)
}

#[test]
fn over_http_only_the_trial_s_first_session_may_act_on_it_or_end_it() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let (mut server, port, mut stderr) = listen(&run);

    // Before any session: a DELETE without a session id is refused and ends nothing.
    let (status, _, _) = http(port, "DELETE", None, None);
    assert_eq!(status, 400);

    // The trial's client initialises: its session is the trial's.
    let (status, ours, messages) = http(port, "POST", None, Some(&initialize(1)));
    assert_eq!(status, 200, "{messages:?}");
    let ours = ours.expect("a session id");
    let initialized = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, _, _) = http(port, "POST", Some(&ours), Some(&initialized));
    assert!((200..300).contains(&status), "{status}");

    // Another local process: a second session is refused, with a JSON-RPC error naming why.
    let (status, theirs, messages) = http(port, "POST", None, Some(&initialize(1)));
    assert_eq!((status, &theirs), (409, &None), "{messages:?}");
    assert_eq!(messages[0]["id"], 1, "{messages:?}");
    let why = messages[0]["error"]["message"].as_str().unwrap();
    assert!(why.contains("already has its MCP session"), "{why}");
    // Without the trial's session id it can neither call tools nor finish nor end the trial.
    let (status, _, _) = http(
        port,
        "POST",
        None,
        Some(&call(
            2,
            "finish",
            serde_json::json!({"answer": "hijacked"}),
        )),
    );
    assert_eq!(status, 400);
    let (status, _, _) = http(
        port,
        "POST",
        Some("guessed"),
        Some(&call(
            2,
            "finish",
            serde_json::json!({"answer": "hijacked"}),
        )),
    );
    assert_eq!(status, 404);
    for session in [None, Some("guessed")] {
        let (status, _, _) = http(port, "DELETE", session, None);
        assert!(status == 400 || status == 404, "{status}");
    }

    // The trial's session still plays: a call, then its answer is the trial's.
    let (status, _, messages) = http(
        port,
        "POST",
        Some(&ours),
        Some(&call(
            3,
            "gmail_list_messages",
            serde_json::json!({"days_back": 30}),
        )),
    );
    assert_eq!(status, 200);
    assert_eq!(messages[0]["result"]["isError"], false, "{messages:?}");
    let (status, _, messages) = http(
        port,
        "POST",
        Some(&ours),
        Some(&call(
            4,
            "finish",
            serde_json::json!({"answer": "the trial's own answer"}),
        )),
    );
    assert_eq!(status, 200, "{messages:?}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert!(server.wait().unwrap().success(), "{rest}");
    let record = record(&run);
    assert_eq!(record["turns"], 2, "{record}");
    let end = trace(&run).pop().unwrap();
    assert_eq!(end["final_text"], "the trial's own answer", "{end}");
}

#[test]
fn over_stdio_a_message_over_the_limit_gets_an_error_reply_and_the_session_goes_on() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let mut server = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["mcp", "T002_email_triage", "--stdio", "--faults", "none"])
        .arg("--suite")
        .arg(repo())
        .arg("--out")
        .arg(&run)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let stdout = BufReader::new(server.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(serde_json::from_str::<Value>(&line).unwrap());
        }
    });
    let next = || {
        rx.recv_timeout(std::time::Duration::from_secs(30))
            .expect("no reply within 30 s")
    };
    let mut send = |message: &Value| {
        stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    send(&initialize(1));
    assert_eq!(next()["id"], 1);
    send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // A Write of 17 MiB: over the 16 MiB a message may have.
    let huge = "x".repeat(17 << 20);
    send(&call(
        2,
        "Write",
        serde_json::json!({"file_path": "/workspace/big.txt", "content": huge}),
    ));
    let reply = next();
    assert_eq!(reply["id"], 2, "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    let why = reply["error"]["message"].as_str().unwrap();
    assert!(why.contains("over the limit of 16777216 bytes"), "{why}");
    // The session goes on.
    send(&serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    let reply = next();
    assert_eq!(reply["id"], 3, "{reply}");
    assert!(
        reply["result"]["tools"].as_array().unwrap().len() > 3,
        "{reply}"
    );
    send(&call(4, "finish", serde_json::json!({"answer": "done"})));
    assert_eq!(next()["id"], 4);
    drop(stdin);
    let out = server.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(record(&run)["turns"], 1);
}

#[test]
fn over_stdio_no_client_is_not_judged_and_an_unknown_tool_is_one_readable_line() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    // Nobody connects (the input closes at once): nothing is measured, so nothing is judged.
    let run = tmp.path().join("nobody");
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["mcp", "T002_email_triage", "--faults", "none"])
        .arg("--suite")
        .arg(repo())
        .arg("--out")
        .arg(&run)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("not judged") && stderr.contains("no MCP client connected"),
        "{stderr}"
    );
    assert!(!stderr.contains("turns"), "{stderr}");
    let r = record(&run);
    assert_eq!(r["status"], "infra_error", "{r}");
    assert!(r["verdict"].is_null(), "{r}");

    // A client calling a tool the trial lacks gets a JSON-RPC error; stderr says so in a line
    // (not rmcp's dump of the error it answered).
    let run = tmp.path().join("unknown");
    let mut server = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["mcp", "T002_email_triage", "--faults", "none"])
        .arg("--suite")
        .arg(repo())
        .arg("--out")
        .arg(&run)
        .env_remove("RUST_LOG")
        .env_remove("CLAWRUN_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let stdout = BufReader::new(server.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(serde_json::from_str::<Value>(&line).unwrap());
        }
    });
    let next = || {
        rx.recv_timeout(std::time::Duration::from_secs(30))
            .expect("no reply within 30 s")
    };
    let mut send = |message: &Value| {
        stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    send(&initialize(1));
    assert_eq!(next()["id"], 1);
    send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(&call(2, "gmail_send_everything", serde_json::json!({})));
    let reply = next();
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    send(&call(3, "finish", serde_json::json!({"answer": "done"})));
    assert_eq!(next()["id"], 3);
    drop(stdin);
    let out = server.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("gmail_send_everything"))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("the MCP client called an unknown tool"),
        "{stderr}"
    );
    assert!(!stderr.contains("ErrorData"), "{stderr}");
}

/// Over HTTP, a trial no client connects to before its time is up measured nothing: not
/// judged, an infrastructure error, exit 1 (not the agent's timeout).
#[test]
fn over_http_no_client_within_the_task_s_time_is_not_judged() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    crate::fs_support::copy_dir(&repo().join("tests/fixtures/suite"), &suite);
    let task = suite.join("tasks/e2e_mail/task.yaml");
    let yaml = std::fs::read_to_string(&task).unwrap();
    assert!(yaml.contains("timeout_seconds: 300"));
    std::fs::write(
        &task,
        yaml.replace("timeout_seconds: 300", "timeout_seconds: 2"),
    )
    .unwrap();
    let run = tmp.path().join("run");
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args([
            "mcp",
            "e2e_mail",
            "--listen",
            "127.0.0.1:0",
            "--faults",
            "none",
        ])
        .arg("--suite")
        .arg(&suite)
        .arg("--out")
        .arg(&run)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("not judged") && stderr.contains("no MCP client connected"),
        "{stderr}"
    );
    let r = record(&run);
    assert_eq!(r["status"], "infra_error", "{r}");
    assert!(r["verdict"].is_null(), "{r}");
}
