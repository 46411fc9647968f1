//! `clawrun services` answers curl on loopback with the same bytes as an in-process call, and
//! its audit and reset endpoints work through the same code.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use clawrun::sandbox::clock::VirtualClock;
use clawrun::services::{
    FixtureOptions, Method, ServiceRequest, ServiceSet, TaskServices, UtcInstant,
};

fn claw_eval_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("third_party/claw-eval")
}

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(task: &str, port_base: u16, extra: &[&str]) -> (Server, Vec<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["services", "--task"])
        .arg(claw_eval_root().join("tasks").join(task))
        .args(["--port-base", &port_base.to_string()])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start clawrun services");
    let mut lines = Vec::new();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "server exited: {lines:?}"
        );
        if line.starts_with("serving ") {
            break;
        }
        lines.push(line.trim_end().to_string());
    }
    (Server(child), lines)
}

/// `curl -s -X METHOD url [-d body]`: the response body, and the status on the last line.
fn curl(method: &str, url: &str, body: Option<&str>) -> (Vec<u8>, u16) {
    let mut cmd = Command::new("curl");
    cmd.args(["-s", "-X", method, "-w", "\n%{http_code}", url]);
    if let Some(body) = body {
        cmd.args(["-H", "content-type: application/json", "-d", body]);
    }
    let out = cmd.output().expect("curl");
    let split = out.stdout.iter().rposition(|&b| b == b'\n').unwrap();
    let status = std::str::from_utf8(&out.stdout[split + 1..])
        .unwrap()
        .parse()
        .unwrap();
    (out.stdout[..split].to_vec(), status)
}

fn in_process(task: &str) -> ServiceSet {
    let text = std::fs::read_to_string(claw_eval_root().join("tasks").join(task).join("task.yaml"))
        .unwrap();
    let spec = TaskServices::from_yaml(&text).unwrap();
    let now = UtcInstant::from_duration(VirtualClock::default().wall());
    ServiceSet::load(
        &claw_eval_root(),
        &spec.services,
        &FixtureOptions::default(),
        now,
        cap_std::ambient_authority(),
    )
    .unwrap()
}

#[test]
fn curl_on_loopback_gets_the_in_process_bytes_and_audit_and_reset_work() {
    let base = 30_000 + (std::process::id() % 20_000) as u16;
    let (_server, lines) = start("T002_email_triage", base, &[]);
    assert_eq!(lines, vec![format!("gmail        http://127.0.0.1:{base}")]);
    let url = |path: &str| format!("http://127.0.0.1:{base}{path}");

    let mut set = in_process("T002_email_triage");
    let now = UtcInstant::from_duration(VirtualClock::default().wall());
    let calls = [
        ("POST", "/gmail/messages", Some(r#"{"max_results": 3}"#)),
        (
            "POST",
            "/gmail/messages/get",
            Some(r#"{"message_id": "msg_002"}"#),
        ),
        (
            "POST",
            "/gmail/messages/get",
            Some(r#"{"message_id": "nope"}"#),
        ),
        ("POST", "/gmail/messages/get", Some("{not json")),
        (
            "POST",
            "/gmail/send",
            Some(r#"{"to": "a@b.c", "subject": "hi", "body": "x"}"#),
        ),
        ("GET", "/gmail/audit", None),
    ];
    for (method, path, body) in calls {
        let (got, status) = curl(method, &url(path), body);
        let mut req = ServiceRequest::new(Method::parse(method), path);
        if let Some(body) = body {
            req = req
                .with_header("content-type", "application/json")
                .with_body(body);
        }
        let want = set.route("gmail", &req, now).unwrap();
        assert_eq!(status, want.status, "{method} {path}");
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want.body_bytes()),
            "{method} {path}"
        );
    }
    // The audit saw the send; reset forgets it.
    let (audit, _) = curl("GET", &url("/gmail/audit"), None);
    assert!(String::from_utf8_lossy(&audit).contains("a@b.c"));
    let (_, status) = curl("POST", &url("/gmail/reset"), None);
    assert_eq!(status, 200);
    let (audit, _) = curl("GET", &url("/gmail/audit"), None);
    assert!(
        !String::from_utf8_lossy(&audit).contains("a@b.c"),
        "{}",
        String::from_utf8_lossy(&audit)
    );
}

#[test]
fn a_task_without_its_folder_is_a_one_line_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["services", "--task", "/nonexistent/task"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot read '/nonexistent/task/task.yaml'"),
        "{err}"
    );
}

#[test]
fn faults_answer_instead_of_the_service_which_never_sees_them() {
    let base = 10_000 + (std::process::id() % 20_000) as u16;
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.yaml");
    std::fs::write(
        &plan,
        "rules:\n  - point: service:gmail/messages\n    kind: status500\n    calls: [1]\n",
    )
    .unwrap();
    let (_server, _) = start(
        "T002_email_triage",
        base,
        &["--faults", plan.to_str().unwrap()],
    );
    let url = |path: &str| format!("http://127.0.0.1:{base}{path}");
    let (body, status) = curl("POST", &url("/gmail/messages"), Some("{}"));
    assert_eq!(status, 500);
    assert_eq!(
        body,
        clawrun::faults::response::SERVER_ERROR_BODY.as_bytes()
    );
    let (_, status) = curl("POST", &url("/gmail/messages"), Some("{}"));
    assert_eq!(status, 200);
    // Only the request that reached the service is in its audit log.
    let (audit, status) = curl("GET", &url("/gmail/audit"), None);
    assert_eq!(status, 200);
    let audit = String::from_utf8_lossy(&audit);
    assert_eq!(
        audit.matches("\"endpoint\":\"/gmail/messages\"").count(),
        1,
        "{audit}"
    );
}

#[test]
fn the_claw_eval_preset_never_touches_audit_reset_or_gets() {
    let base = 50_000 + (std::process::id() % 10_000) as u16;
    let (_server, _) = start(
        "T002_email_triage",
        base,
        &["--faults", "claw-eval:1.0", "--seed", "3"],
    );
    let url = |path: &str| format!("http://127.0.0.1:{base}{path}");
    let mut statuses = Vec::new();
    for _ in 0..6 {
        statuses.push(curl("POST", &url("/gmail/messages"), Some("{}")).1);
    }
    // At rate 1.0 every POST is faulted: 429, 500, or latency (then served: 200).
    assert!(
        statuses.iter().all(|s| [200, 429, 500].contains(s)),
        "{statuses:?}"
    );
    assert!(statuses.iter().any(|&s| s != 200), "{statuses:?}");
    let served = statuses.iter().filter(|&&s| s == 200).count();
    for _ in 0..3 {
        let (audit, status) = curl("GET", &url("/gmail/audit"), None);
        assert_eq!(status, 200);
        let audit = String::from_utf8_lossy(&audit);
        assert_eq!(
            audit.matches("\"endpoint\":\"/gmail/messages\"").count(),
            served,
            "{audit}"
        );
    }
    assert_eq!(curl("POST", &url("/gmail/reset"), None).1, 200);
}
