//! `curl` and `wget` in the Bash tool, over the sandbox's `wasi:http`: the embedded Bash
//! component runs real command lines against a trial's mock services (through
//! [`GuestRouter`], as a trial wires it) and against canned routers; a differential check
//! compares its output with the host's real curl on a loopback server.
//!
//! The Bash tool is run with `Sandbox::run` directly (not `Toolbox::call`) so each call can be
//! given its HTTP router.

use crate::common;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::{Arc, LazyLock, Mutex};

use clawrun::sandbox::clock::VirtualClock;
use clawrun::sandbox::http::{GuestHttpError, GuestRequest, GuestResponse, HttpRouter};
use clawrun::sandbox::{Mount, Program, RunConfig, Status};
use clawrun::services::{self, GuestRouter, Router, ServiceSet, TaskServices, UtcInstant};
use clawrun::tools::{BASH_FUEL, WORKSPACE};
use clawrun::vfs::Vfs;
use common::SANDBOX;
use serde_json::Value;

static BASH: LazyLock<Program> = LazyLock::new(|| {
    SANDBOX
        .load(clawrun::tools::component("Bash").expect("the Bash tool is embedded"))
        .expect("load Bash")
});

/// What one Bash call left: the text the model reads (with `[exit code: N]` when not 0),
/// the exit code and the filesystem.
struct Call {
    text: String,
    code: i32,
    vfs: Vfs,
}

/// Runs `command` as one Bash tool call over `vfs`, its HTTP served by `router`.
fn bash(command: &str, vfs: Vfs, router: Box<dyn HttpRouter>) -> Call {
    let request = serde_json::json!({
        "args": {"command": command},
        "state": {"cwd": WORKSPACE, "env": {}},
    });
    let run = SANDBOX
        .run(
            &BASH,
            vfs,
            RunConfig {
                args: vec!["Bash".into()],
                stdin: serde_json::to_vec(&request).unwrap(),
                mounts: vec![Mount {
                    guest_path: "/".into(),
                    writable: true,
                }],
                fuel: BASH_FUEL,
                http: router,
                ..RunConfig::default()
            },
        )
        .expect("run Bash");
    assert_eq!(
        run.status,
        Status::Exited(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let response: Value = serde_json::from_slice(&run.stdout).expect("Bash answers JSON");
    Call {
        text: response["output"].as_str().unwrap().to_string(),
        code: response["exit_code"].as_i64().unwrap() as i32,
        vfs: run.vfs,
    }
}

fn workspace() -> Vfs {
    let mut vfs = Vfs::new();
    vfs.create_dir_all(WORKSPACE).unwrap();
    vfs
}

/// A trial of Claw-Eval's T002 (the gmail service on `localhost:9100` / `gmail.local`).
struct Trial {
    services: Arc<Mutex<ServiceSet>>,
    clock: VirtualClock,
}

impl Trial {
    fn email_triage() -> Self {
        let root =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("third_party/claw-eval");
        let yaml = std::fs::read_to_string(root.join("tasks/T002_email_triage/task.yaml")).unwrap();
        let spec = TaskServices::from_yaml(&yaml).unwrap();
        let clock = VirtualClock::default();
        let now = UtcInstant::from_duration(clock.wall());
        let set = ServiceSet::load(
            &root,
            &spec.services,
            &services::FixtureOptions::default(),
            now,
            cap_std::ambient_authority(),
        )
        .unwrap();
        Trial {
            services: Arc::new(Mutex::new(set)),
            clock,
        }
    }

    fn router(&self) -> Box<dyn HttpRouter> {
        let router = Router::new(&self.services.lock().unwrap());
        Box::new(GuestRouter::new(
            self.services.clone(),
            router,
            self.clock.clone(),
        ))
    }

    fn bash(&self, command: &str) -> Call {
        bash(command, workspace(), self.router())
    }

    /// The gmail audit's calls as (endpoint, request body).
    fn calls(&self) -> Vec<(String, Value)> {
        let audit = self.services.lock().unwrap().audit("gmail").unwrap();
        let audit = audit.to_serde();
        audit["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["endpoint"].as_str().unwrap().to_string(),
                    c["request_body"].clone(),
                )
            })
            .collect()
    }
}

#[test]
fn curl_posts_json_to_a_service_and_the_audit_shows_the_call() {
    let trial = Trial::email_triage();
    let call = trial.bash(
        "curl -s -X POST http://localhost:9100/gmail/messages -H 'Content-Type: application/json' \
         -d '{\"max_results\": 2}' | jq '.messages | length'",
    );
    assert_eq!((call.text.as_str(), call.code), ("2\n", 0));
    let call = trial.bash(
        "curl -s --json '{\"message_id\": \"msg_002\"}' http://gmail.local/gmail/messages/get | jq -r .message_id",
    );
    assert_eq!(call.text, "msg_002\n");
    let calls = trial.calls();
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!(calls[0].0, "/gmail/messages");
    assert_eq!(calls[0].1["max_results"], 2);
    assert_eq!(calls[1].0, "/gmail/messages/get");
    assert_eq!(calls[1].1, serde_json::json!({"message_id": "msg_002"}));
}

#[test]
fn curl_writes_files_reports_status_codes_and_fails_on_404() {
    let trial = Trial::email_triage();
    let call = trial.bash(
        "curl -sS -o inbox.json -w '%{http_code} %{content_type}\\n' -X POST http://gmail.local/gmail/messages \
         && jq '.messages[0].message_id' inbox.json",
    );
    assert_eq!(call.code, 0, "{}", call.text);
    let mut lines = call.text.lines();
    assert_eq!(lines.next(), Some("200 application/json"));
    assert!(lines.next().unwrap().starts_with("\"msg_"), "{}", call.text);
    let saved = call.vfs.read_file("/workspace/inbox.json").unwrap();
    let inbox: Value = serde_json::from_slice(&saved).unwrap();
    assert!(inbox["messages"].as_array().unwrap().len() > 2);

    let call = trial.bash("curl -sS -w '%{http_code}' http://gmail.local/gmail/nope -o /dev/null");
    assert_eq!((call.text.as_str(), call.code), ("404", 0));
    let call = trial.bash("curl -sSf http://gmail.local/gmail/nope; echo \"status $?\"");
    assert_eq!(
        call.text,
        "curl: (22) The requested URL returned error: 404\nstatus 22\n"
    );
    let call = trial.bash("curl -sf http://gmail.local/gmail/nope");
    assert_eq!((call.text.as_str(), call.code), ("[exit code: 22]", 22));
    // Graders snapshot services with GET on the audit endpoint.
    let call = trial.bash("curl -s http://localhost:9100/gmail/audit | jq '.calls | length'");
    assert_eq!(call.text, "1\n");
}

#[test]
fn wget_downloads_from_a_service() {
    let trial = Trial::email_triage();
    let call = trial.bash(
        "wget -q -O msg.json --header 'Content-Type: application/json' \
         --post-data '{\"message_id\": \"msg_001\"}' http://gmail.local/gmail/messages/get \
         && jq -r .message_id msg.json; wget -q http://gmail.local/gmail/audit; ls",
    );
    assert_eq!(call.text, "msg_001\naudit\nmsg.json\n");
    let call = trial
        .bash("wget -O - http://gmail.local/gmail/nope > log.txt 2>&1; echo $?; tail -n 3 log.txt");
    assert_eq!(
        call.text,
        "8\nHTTP request sent, awaiting response... 404 Not Found\n2026-01-01 00:00:00 ERROR 404: Not Found.\n\n"
    );
    assert_eq!(trial.calls().len(), 1);
}

#[test]
fn unknown_hosts_are_unresolvable_like_real_curl_and_wget() {
    let trial = Trial::email_triage();
    let call = trial.bash("curl -sS https://example.com/paper.pdf -o paper.pdf");
    assert_eq!(
        (call.text.as_str(), call.code),
        (
            "curl: (6) Could not resolve host: example.com\n[exit code: 6]",
            6
        )
    );
    let call = trial.bash("curl -s http://localhost:9999/x; echo $?");
    assert_eq!(call.text, "7\n");
    let call = trial.bash("wget -nv http://example.com/; echo $?");
    assert_eq!(
        call.text,
        "wget: unable to resolve host address ‘example.com’\n4\n"
    );
}

/// Serves `GET /bytes` (every byte value, twice) and echoes anything else's method and body.
struct Bytes;

fn all_bytes() -> Vec<u8> {
    (0..=255u8).chain(0..=255u8).collect()
}

impl HttpRouter for Bytes {
    fn route(&mut self, req: &GuestRequest) -> Result<GuestResponse, GuestHttpError> {
        if req.authority != "files.local" {
            return Err(GuestHttpError::DestinationNotFound);
        }
        let body = if req.path_and_query == "/bytes" {
            all_bytes()
        } else {
            let mut b = format!("{} {} ", req.method, req.path_and_query).into_bytes();
            b.extend_from_slice(&req.body);
            b
        };
        Ok(GuestResponse {
            status: 200,
            headers: vec![("content-length".into(), body.len().to_string())],
            body,
        })
    }
}

#[test]
fn binary_bodies_arrive_byte_exact_in_files_and_pipes() {
    let call = bash(
        "curl -s -o b.bin http://files.local/bytes && wget -q http://files.local/bytes \
         && cmp_len=$(wc -c < b.bin) && echo $cmp_len && curl -s http://files.local/bytes | sha256sum",
        workspace(),
        Box::new(Bytes),
    );
    let mut lines = call.text.lines();
    assert_eq!(lines.next(), Some("512"));
    let digest = {
        use sha2::Digest;
        sha2::Sha256::digest(all_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    assert_eq!(lines.next(), Some(format!("{digest}  -").as_str()));
    assert_eq!(call.vfs.read_file("/workspace/b.bin").unwrap(), all_bytes());
    assert_eq!(call.vfs.read_file("/workspace/bytes").unwrap(), all_bytes());

    // An uploaded file goes out byte-exact too.
    let mut vfs = workspace();
    vfs.write_file("/workspace/up.bin", &all_bytes()).unwrap();
    let call = bash(
        "curl -s --data-binary @up.bin http://files.local/up -o echo.bin",
        vfs,
        Box::new(Bytes),
    );
    let mut want = b"POST /up ".to_vec();
    want.extend(all_bytes());
    assert_eq!(call.vfs.read_file("/workspace/echo.bin").unwrap(), want);
}

/// The canned responses of the differential check: status, headers (as sent), body.
fn canned(
    path: &str,
) -> (
    u16,
    &'static str,
    Vec<(&'static str, String)>,
    &'static [u8],
) {
    match path {
        "/json" => (
            200,
            "OK",
            vec![("Content-Type", "application/json".into())],
            br#"{"ok":true}"#,
        ),
        "/missing" => (
            404,
            "Not Found",
            vec![("Content-Type", "application/json".into())],
            br#"{"error":"not found"}"#,
        ),
        "/redir" => (302, "Found", vec![("Location", "/json".into())], b""),
        // No Content-Length: the body ends when the connection closes.
        "/nolen" => (
            200,
            "OK",
            vec![("Content-Type", "text/plain".into())],
            b"hello world",
        ),
        _ => (500, "Internal Server Error", vec![], b"?"),
    }
}

/// The canned responses for the sandbox.
struct Canned;

impl HttpRouter for Canned {
    fn route(&mut self, req: &GuestRequest) -> Result<GuestResponse, GuestHttpError> {
        if !req.authority.starts_with("127.0.0.1:") || req.authority.ends_with(":1") {
            return Err(GuestHttpError::DestinationNotFound);
        }
        let (status, _, mut headers, body) = canned(&req.path_and_query);
        if req.path_and_query != "/nolen" {
            headers.push(("Content-Length", body.len().to_string()));
        }
        Ok(GuestResponse {
            status,
            headers: headers
                .into_iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v))
                .collect(),
            body: if req.method == "HEAD" {
                Vec::new()
            } else {
                body.to_vec()
            },
        })
    }
}

/// Serves the canned responses over HTTP/1.1 on loopback (keep-alive, one thread per
/// connection); returns the port.
fn loopback_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream));
        }
    });
    port
}

fn serve(stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_string();
        let path = parts.next().unwrap_or("/").to_string();
        let mut length = 0usize;
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            if h == "\r\n" {
                break;
            }
            if let Some((k, v)) = h.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let (status, reason, headers, body) = canned(&path);
        let mut response = format!("HTTP/1.1 {status} {reason}\r\n");
        for (k, v) in headers {
            response.push_str(&format!("{k}: {v}\r\n"));
        }
        let close = path == "/nolen";
        if close {
            response.push_str("Connection: close\r\n\r\n");
        } else {
            response.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        }
        let mut bytes = response.into_bytes();
        if method != "HEAD" {
            bytes.extend_from_slice(body);
        }
        if out.write_all(&bytes).is_err() || close {
            return;
        }
    }
}

/// Runs `command` with the host's bash and real curl, stdout and stderr in one pipe (as the
/// tool shows them); returns the text and exit status.
fn host(command: &str) -> (String, i32) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("{{ {command}\n}} 2>&1"))
        .env("LC_ALL", "C")
        .output()
        .expect("running the host's bash (curl must be installed: the CI installs it)");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// Masks what depends on the host's real time: `after 0 ms` in a refused connection's
/// message, and the speed columns of the progress meter (its layout, sizes and percentages
/// are compared).
fn timeless(text: &str) -> String {
    let text = regex::Regex::new(r"after \d+ ms")
        .unwrap()
        .replace_all(text, "after N ms");
    regex::Regex::new(r"(\r[ 0-9]{3} [ 0-9kMG.]{5}  [ 0-9]{3} [ 0-9kMG.]{5}  [ 0-9]{3} [ 0-9kMG.]{5}  )[ 0-9kMG.]{5}  [ 0-9kMG.]{5}( [-0-9: ]{8} [-0-9: ]{8} [-0-9: ]{8} )[ 0-9kMG.]{5}")
        .unwrap()
        .replace_all(&text, "${1}SPEED  SPEED${2}SPEED")
        .into_owned()
}

/// What the tool shows for `output` and `status`: the `[exit code: N]` line when not 0 (see
/// `guest_tools/bash/src/lib.rs`; the outputs here are far below the length cap).
fn tool_text(output: &str, status: i32) -> String {
    let mut text = output.to_string();
    if status != 0 {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("[exit code: {status}]"));
    }
    text
}

#[test]
fn output_matches_the_hosts_curl_on_a_loopback_server() {
    let version = Command::new("curl").arg("--version").output();
    assert!(
        version.is_ok_and(|v| v.status.success()),
        "this test compares with the host's curl: install curl"
    );
    let port = loopback_server();
    let base = format!("http://127.0.0.1:{port}");
    let commands = [
        format!("curl -sS {base}/json"),
        format!("curl -sS -i {base}/json"),
        format!("curl -sS -I {base}/json"),
        format!("curl -sS -iL {base}/redir"),
        format!(
            "curl -sS -L -w ' %{{http_code}} %{{num_redirects}} %{{url_effective}}\\n' {base}/redir"
        ),
        format!("curl -sS -w '%{{http_code}} %{{redirect_url}} %{{size_download}}' {base}/redir"),
        format!(
            "curl -sS -w '%{{http_code}} %{{content_type}} %{{size_download}}\\n' -o /dev/null {base}/json {base}/missing"
        ),
        format!("curl -sS -f {base}/missing; echo \" -> $?\""),
        format!("curl -sS --fail-with-body {base}/missing"),
        format!("curl -sS -D - -o /dev/null {base}/missing"),
        format!("curl -sS -w '%{{header_json}}' -o /dev/null {base}/json"),
        format!("curl -sSf {base}/json {base}/missing -w '[%{{http_code}}]'"),
        "curl -sS http://127.0.0.1:1/json; echo \" -> $?\"".to_string(),
        format!("curl -sv {base}/json"),
        format!("curl -sv -d x=1 {base}/json"),
        format!("curl -sS -d 'a=1&b=2' -w ' %{{size_upload}} %{{method}}' {base}/json"),
        format!("curl -sS --json '{{\"k\": 1}}' -X PUT -w ' %{{method}}' {base}/json"),
        format!("curl -sS -L --max-redirs 0 {base}/redir; echo \" -> $?\""),
        format!("curl {base}/json"),
        format!("curl -o /dev/null {base}/json"),
        format!("curl {base}/nolen"),
        format!("curl -d abc {base}/nolen"),
        format!("curl -f {base}/missing"),
        "curl http://127.0.0.1:1/json".to_string(),
        "curl -sS 'http://'; echo \" -> $?\"".to_string(),
        "curl -sS ftpx://127.0.0.1/x".to_string(),
        "curl --max-time=3 x".to_string(),
        "curl -s".to_string(),
        "curl".to_string(),
        format!("curl -sS -w '%{{http_code}} %{{bogus}}' -o /dev/null {base}/json"),
    ];
    let mut mismatches = Vec::new();
    for command in &commands {
        let ours = bash(command, workspace(), Box::new(Canned));
        let ours_text = timeless(&ours.text);
        let (theirs, their_code) = host(command);
        let theirs = timeless(&tool_text(&theirs, their_code));
        if (ours_text.as_str(), ours.code) != (theirs.as_str(), their_code) {
            mismatches.push(format!(
                "$ {command}\n  sandbox ({}): {ours_text:?}\n  host    ({their_code}): {theirs:?}",
                ours.code
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
