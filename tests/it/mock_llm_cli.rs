//! `clawrun mock-llm`: serves a script on loopback in both protocols; a bad script is a
//! one-line error with its line and column.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

/// POSTs `body` to `path` on `port`; returns the raw HTTP response.
fn post(port: u16, path: &str, body: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

#[test]
fn mock_llm_serves_both_protocols_from_a_script() {
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("script.yaml");
    std::fs::write(
        &script,
        "rules:\n  - match: {turn: 0}\n    reply: {text: \"hello from the script\"}\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["mock-llm", "--port", "0", "--script"])
        .arg(&script)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .trim()
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {line:?}"));

    let openai = post(
        port,
        "/v1/chat/completions",
        r#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#,
    );
    let anthropic = post(
        port,
        "/v1/messages",
        r#"{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}"#,
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(openai.starts_with("HTTP/1.1 200"), "{openai}");
    assert!(
        openai.contains("hello from the script") && openai.contains("\"choices\""),
        "{openai}"
    );
    assert!(anthropic.starts_with("HTTP/1.1 200"), "{anthropic}");
    assert!(
        anthropic.contains("hello from the script") && anthropic.contains("\"content\""),
        "{anthropic}"
    );
}

#[test]
fn a_bad_script_is_a_one_line_error_with_its_position() {
    let tmp = tempfile::tempdir().unwrap();
    let script = tmp.path().join("bad.yaml");
    std::fs::write(
        &script,
        "rules:\n  - match: {turn: zero}\n    reply: {text: x}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["mock-llm", "--port", "0", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.yaml:2:"), "{err}");
}
