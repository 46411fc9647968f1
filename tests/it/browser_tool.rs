//! `BrowserScreenshot` through a whole trial, in a real headless Chromium: the agent writes a
//! page, asks for its frames, and they reach the model as images inside the tool result
//! (the trace keeps them by hash) — the same bytes a direct capture of that page gives — and
//! `clawrun replay` of the run is byte-identical; a page's `http(s)` requests are answered by
//! the run's web layer (a cassette in `--web replay`), refused with the web off. Prints
//! `SKIPPED:` without Chromium.

use std::process::Command;

use clawrun::agents::llm::{ModelConfig, Provider, install_crypto_provider};
use clawrun::agents::mock::{Script, serve_mock_llm};
use clawrun::agents::trace::{EventKind, read_trace};
use clawrun::browser::{Browser, BrowserConfig, Capture, find_chromium};
use clawrun::run::{AgentSpec, RunOptions, run};
use clawrun::vfs::Vfs;
use serde_json::json;

const PAGE: &str = "<html><head><title>Sales dashboard</title><style>body{margin:0;background:#123}h1{color:#fc0;font:40px 'DejaVu Sans'}</style></head><body><h1>Q3 sales: 4.2M</h1></body></html>";

const TASK: &str = r#"
task_id: page_preview
task_name: Preview a page (test task)
version: "1.0"
category: multimodal_webpage
difficulty: easy
tags: [multimodal]
prompt:
  text: "Write /workspace/output.html and preview it."
  language: en
tools: []
tool_endpoints: []
system_tools: [Write, BrowserScreenshot]
environment:
  timeout_seconds: 300
  max_turns: 5
scoring_components:
  - name: answered
    weight: 1.0
    check: {type: keywords_present, keywords: ["dashboard"]}
safety_checks: []
oracle:
  steps: []
  answer: "dashboard"
"#;

/// The mock model: write the page, take two frames over one second, answer.
fn script() -> String {
    let write = json!({"name": "Write", "arguments": {"file_path": "/workspace/output.html", "content": PAGE}});
    let shot = json!({"name": "BrowserScreenshot", "arguments": {"url": "file:///workspace/output.html", "wait_seconds": 1, "frame_count": 2}});
    format!(
        "rules:\n  - name: write\n    match: {{turn: 0}}\n    reply: {{tool_calls: [{write}]}}\n  \
         - name: shot\n    match: {{turn: 1}}\n    reply: {{tool_calls: [{shot}]}}\n  \
         - name: answer\n    match: {{turn: 2}}\n    reply: {{text: \"The dashboard shows Q3 sales.\"}}\n"
    )
}

#[test]
fn browser_screenshot_frames_reach_the_model_as_images_and_replay_identically() {
    if let Err(e) = find_chromium() {
        println!("SKIPPED: {e}");
        return;
    }
    install_crypto_provider();
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    let task = suite.join("tasks/page_preview");
    std::fs::create_dir_all(&task).unwrap();
    std::fs::write(task.join("task.yaml"), TASK).unwrap();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(serve_mock_llm(
            Script::parse(&script(), "script").unwrap(),
            "127.0.0.1:0".parse().unwrap(),
        ))
        .unwrap();
    let mut model = ModelConfig::new(Provider::Anthropic, "mock-model");
    model.base_url = Some(server.url());
    model.api_key = Some("test-key".into());
    model.cache_dir = Some(tmp.path().join("cache"));
    let out = tmp.path().join("run");
    let mut options = RunOptions::new(suite.clone(), AgentSpec::Model(model), &out);
    options.tasks = vec!["page_preview".into()];
    options.seed = 3;
    let result = run(&options).unwrap();
    let records = result.records().unwrap();
    let record = &records[0];
    assert!(record.verdict.as_ref().unwrap().scores.passed, "{record:?}");

    // The third request carries the screenshot's result: Claw-Eval's text, then two PNGs.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let last = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    let block = &last["content"][0];
    assert_eq!(block["type"], "tool_result");
    let content = block["content"].as_array().unwrap();
    assert_eq!(
        content[0]["text"],
        "{\"url\": \"file:///workspace/output.html\", \"title\": \"Sales dashboard\", \
         \"body_text\": \"Q3 sales: 4.2M\", \"text_summary\": \"Page: Sales dashboard. Captured 2 \
         frame(s) over 1.0s.\", \"frame_count\": 2, \"frames_shown\": 2}"
    );
    assert_eq!(content.len(), 3);
    let sent: Vec<Vec<u8>> = content[1..]
        .iter()
        .map(|c| {
            assert_eq!(c["source"]["media_type"], "image/png");
            base64_decode(c["source"]["data"].as_str().unwrap())
        })
        .collect();

    // The trace names the frames by hash; they are what a direct capture of the page gives.
    let trace = record.trace_bytes(&out).unwrap();
    let events = read_trace(trace.as_slice()).unwrap();
    let images = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ToolResult { name, images, .. } if name == "BrowserScreenshot" => {
                Some(images.clone())
            }
            _ => None,
        })
        .unwrap();
    let hashes: Vec<String> = sent
        .iter()
        .map(|b| blake3::hash(b).to_hex().to_string())
        .collect();
    assert_eq!(
        images.iter().map(|i| i.hash.clone()).collect::<Vec<_>>(),
        hashes
    );
    let mut vfs = Vfs::new();
    vfs.create_dir_all("/workspace").unwrap();
    vfs.write_file("/workspace/output.html", PAGE.as_bytes())
        .unwrap();
    let direct = Browser::new(BrowserConfig::default())
        .capture(
            &vfs,
            &Capture::screenshot(
                "file:///workspace/output.html",
                std::time::Duration::ZERO,
                1.0,
                2,
            ),
        )
        .unwrap();
    assert_eq!(direct.frames.len(), 2);
    for (frame, sent) in direct.frames.iter().zip(&sent) {
        assert!(
            frame.png == *sent,
            "a frame differs from a direct capture of the page"
        );
    }

    // Replayed from its trace, the trial gives the same trace byte for byte.
    let replay = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["replay", "--suite"])
        .arg(&suite)
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&replay.stdout);
    assert!(
        replay.status.success() && stdout.contains("1 trials replayed, 1 identical, 0 diverged"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&replay.stderr)
    );
}

fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

/// A page that takes its title from a script on the web.
const WEB_PAGE: &str = "<html><head><title>offline</title><script src=\"https://cdn.example/app.js\"></script></head><body>page</body></html>";

const WEB_TASK: &str = r#"
task_id: page_with_web_script
task_name: A page with a script from the web (test task)
version: "1.0"
category: multimodal_webpage
difficulty: easy
tags: [multimodal]
prompt:
  text: "Preview /workspace/output.html."
  language: en
tools: []
tool_endpoints: []
system_tools: [BrowserScreenshot]
environment:
  timeout_seconds: 300
  max_turns: 3
scoring_components:
  - name: answered
    weight: 1.0
    check: {type: keywords_present, keywords: ["page"]}
safety_checks: []
oracle:
  steps:
    - call: BrowserScreenshot
      args: {url: "file:///workspace/output.html", frame_count: 1, wait_seconds: 0}
  answer: "page"
"#;

#[test]
fn a_pages_web_requests_go_through_the_runs_web_layer() {
    use clawrun::web::{Cassette, Fetched, WebMode, WebOptions, WebRequest, WebResponse};
    if let Err(e) = find_chromium() {
        println!("SKIPPED: {e}");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    let task = suite.join("tasks/page_with_web_script");
    std::fs::create_dir_all(task.join("workspace")).unwrap();
    std::fs::write(
        task.join("task.yaml"),
        WEB_TASK.replace(
            "tool_endpoints: []",
            "tool_endpoints: []\nworkspace: workspace",
        ),
    )
    .unwrap();
    std::fs::write(task.join("workspace/output.html"), WEB_PAGE).unwrap();
    let cassette_dir = tmp.path().join("cassette");
    let cassette = Cassette::create(&cassette_dir).unwrap();
    let body = b"document.title = 'from the cassette';".to_vec();
    cassette
        .put(
            &WebRequest::fetch("https://cdn.example/app.js").unwrap(),
            &Fetched::Response(WebResponse {
                status: 200,
                url: "https://cdn.example/app.js".into(),
                content_type: Some("text/javascript".into()),
                body: body.into(),
                truncated: false,
            }),
            5,
            0,
        )
        .unwrap();
    drop(cassette);

    let title = |web: WebOptions, name: &str| -> String {
        let out = tmp.path().join(name);
        let mut options = RunOptions::new(suite.clone(), AgentSpec::Oracle, &out);
        options.tasks = vec!["page_with_web_script".into()];
        options.web = web;
        let result = run(&options).unwrap();
        let records = result.records().unwrap();
        let trace = records[0].trace_bytes(&out).unwrap();
        read_trace(trace.as_slice())
            .unwrap()
            .into_iter()
            .find_map(|e| match e.kind {
                EventKind::ToolResult { name, output, .. } if name == "BrowserScreenshot" => {
                    let v: serde_json::Value = serde_json::from_str(&output).unwrap();
                    Some(v["title"].as_str().unwrap().to_string())
                }
                _ => None,
            })
            .unwrap()
    };
    let replay = WebOptions {
        mode: Some(WebMode::Replay),
        cassette: Some(cassette_dir),
        ..WebOptions::default()
    };
    assert_eq!(title(replay, "replay"), "from the cassette");
    let off = WebOptions {
        mode: Some(WebMode::Off),
        ..WebOptions::default()
    };
    assert_eq!(title(off, "off"), "offline");
}
