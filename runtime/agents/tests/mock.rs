//! The mock LLM server itself: script loading errors, routes, raw responses, rule state.

mod common;

use std::io::Write;

use clawrun_agents::mock::{MockLlmError, Script, run_mock_llm};
use common::mock;
use serde_json::{Value, json};

/// Writes `text` to a temporary `.yaml` file.
fn script_file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f
}

#[test]
fn script_errors_carry_file_line_and_column() {
    let f = script_file("rules:\n  - match: {turn: 0}\n    reply:\n      txt: hello\n");
    let err = Script::load(f.path()).unwrap_err();
    let shown = err.to_string();
    let prefix = format!("{}:4:", f.path().display());
    assert!(shown.starts_with(&prefix), "{shown}");
    assert!(shown.contains("txt"), "{shown}");

    // Wrong type.
    let f = script_file("rules:\n  - match: {turn: first}\n    reply: {text: x}\n");
    let err = Script::load(f.path()).unwrap_err();
    assert_eq!(err.line, Some(2), "{err}");

    // Semantic checks point at the rule.
    let f = script_file(
        "rules:\n  - reply: {text: a}\n\n  - name: half\n    reply: {retry_after: 3}\n",
    );
    let err = Script::load(f.path()).unwrap_err();
    assert_eq!(err.line, Some(4), "{err}");
    assert!(err.message.contains("rule `half`"), "{err}");

    // JSON works, with positions too.
    let f = script_file("{\"rules\": [\n  {\"reply\": {\"text\": 1}, \"oops\": true}\n]}\n");
    let err = Script::load(f.path()).unwrap_err();
    assert_eq!(err.line, Some(2), "{err}");

    let err = Script::load(std::path::Path::new("/nonexistent/script.yaml")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("/nonexistent/script.yaml: cannot read"),
        "{err}"
    );
}

#[tokio::test]
async fn run_mock_llm_reports_script_errors() {
    let f = script_file("rules:\n  - reply: {status: 700}\n");
    let err = run_mock_llm(f.path(), 0).await.unwrap_err();
    assert!(matches!(err, MockLlmError::Script(_)), "{err:?}");
    assert!(err.to_string().contains("400..=599"), "{err}");
}

#[tokio::test]
async fn raw_responses() {
    let server = mock(
        "rules:\n  - match: {protocol: anthropic}\n    reply: {text: from anthropic}\n  - match: {model: special}\n    reply: {text: special}\n  - reply: {text: plain, tool_calls: [{name: A, arguments: {x: 1}}, {name: B, id: mine}]}\n",
    )
    .await;
    let http = http();
    let post = |path: &str, body: Value| {
        http.post(format!("{}{path}", server.url()))
            .body(body.to_string())
            .send()
    };
    let r = post(
        "/chat/completions",
        json!({"model": "m", "messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"},
        {"role": "user", "content": "again"}]}),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("date").is_none(), "no date header");
    let v: Value = r.json_body().await;
    assert_eq!(v["model"], "m");
    let calls = &v["choices"][0]["message"]["tool_calls"];
    assert_eq!(calls[0]["id"], "call_1_0");
    assert_eq!(calls[0]["function"]["arguments"], "{\"x\":1}");
    assert_eq!(calls[1]["id"], "mine");
    assert_eq!(calls[1]["function"]["arguments"], "{}");
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");

    let v: Value = post(
        "/v1/chat/completions",
        json!({"model": "special", "messages": []}),
    )
    .await
    .unwrap()
    .json_body()
    .await;
    assert_eq!(v["choices"][0]["message"]["content"], "special");

    let v: Value = post("/v1/messages", json!({"model": "special", "messages": []}))
        .await
        .unwrap()
        .json_body()
        .await;
    assert_eq!(
        v["content"],
        json!([{"type": "text", "text": "from anthropic"}])
    );
    assert_eq!(v["stop_reason"], "end_turn");

    let r = post("/v2/other", json!({})).await.unwrap();
    assert_eq!(r.status(), 404);
    let r = http
        .post(format!("{}/v1/messages", server.url()))
        .body("not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = r.json_body().await;
    assert_eq!(v["type"], "error");
    assert!(v["error"]["message"].as_str().unwrap().contains("not JSON"));
    let r = http
        .get(format!("{}/v1/messages", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);

    let statuses: Vec<u16> = server.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200, 200, 404, 400, 400]);
    assert_eq!(server.requests()[0].turn, 1);
    assert_eq!(server.requests()[0].rule, Some(2));
}

#[tokio::test]
async fn times_limits_a_rule_then_falls_through() {
    let server = mock(
        "rules:\n  - times: 2\n    reply: {status: 500, message: boom}\n  - reply: {text: ok}\n",
    )
    .await;
    let http = http();
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let r = http
            .post(format!("{}/v1/chat/completions", server.url()))
            .body(r#"{"model": "m", "messages": []}"#)
            .send()
            .await
            .unwrap();
        statuses.push(r.status().as_u16());
    }
    assert_eq!(statuses, [500, 500, 200, 200]);
}

#[tokio::test]
async fn retry_after_header_is_sent() {
    let server = mock("rules:\n  - reply: {status: 429, retry_after: 7}\n").await;
    let http = http();
    let r = http
        .post(format!("{}/v1/messages", server.url()))
        .body(r#"{"model": "m", "messages": []}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 429);
    assert_eq!(r.headers()["retry-after"], "7");
    let v: Value = r.json_body().await;
    assert_eq!(v["error"]["type"], "rate_limit_error");
}

/// A plain HTTP client for poking the mock.
fn http() -> reqwest::Client {
    clawrun_agents::llm::install_crypto_provider();
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// Reads a JSON body.
trait JsonBody {
    /// The body as JSON.
    async fn json_body(self) -> Value;
}

impl JsonBody for reqwest::Response {
    async fn json_body(self) -> Value {
        serde_json::from_slice(&self.bytes().await.unwrap()).unwrap()
    }
}

#[test]
fn the_documented_example_parses() {
    let doc = include_str!("../MOCK_LLM.md");
    let start = doc
        .find("```yaml\n")
        .expect("MOCK_LLM.md has a YAML example")
        + 8;
    let end = start + doc[start..].find("```").unwrap();
    let script = Script::parse(&doc[start..end], "MOCK_LLM.md").unwrap();
    let names: Vec<_> = script
        .rules
        .iter()
        .filter_map(|r| r.name.as_deref())
        .collect();
    assert_eq!(names, ["read-first", "flaky", "answer", "judge"]);
    assert_eq!(script.rules[1].times, Some(2));
}
