//! Multimodal `Read`: through the Toolbox a PDF comes back as page-by-page text and a PNG as an
//! image; through a whole trial the image reaches the model as an image block inside the tool
//! result, and the trace records it by hash, without its bytes.

use crate::common;
use std::sync::LazyLock;

use clawrun::agents::llm::{ModelConfig, Provider, install_crypto_provider};
use clawrun::agents::mock::{Script, serve_mock_llm};
use clawrun::agents::trace::{EventKind, read_trace};
use clawrun::run::{AgentSpec, RunOptions, run};
use clawrun::tools::{ToolCall, ToolEnv, ToolOutcome, ToolState, Toolbox, WORKSPACE};
use clawrun::vfs::Vfs;
use common::SANDBOX;
use serde_json::{Value, json};

static TOOLBOX: LazyLock<Toolbox> = LazyLock::new(Toolbox::new);

const REPORT_PDF: &[u8] = include_bytes!("../../guest_tools/pdf/tests/fixtures/report.pdf");
const CHART_PNG: &[u8] = include_bytes!("../../guest_tools/read/tests/fixtures/chart.png");

fn workspace(files: &[(&str, &[u8])]) -> Vfs {
    let mut vfs = Vfs::new();
    vfs.create_dir_all(WORKSPACE).unwrap();
    for (path, data) in files {
        vfs.write_file(&format!("{WORKSPACE}/{path}"), data)
            .unwrap();
    }
    vfs
}

fn read(args: Value, vfs: Vfs) -> ToolOutcome {
    TOOLBOX
        .call(
            &SANDBOX,
            ToolCall {
                name: "Read",
                args: &args,
                state: &ToolState::default(),
            },
            vfs,
            &ToolEnv::default(),
        )
        .unwrap()
}

#[test]
fn read_returns_a_pdfs_text_page_by_page() {
    let vfs = workspace(&[("report.pdf", REPORT_PDF)]);
    let out = read(json!({"file_path": "report.pdf"}), vfs.clone());
    assert!(!out.is_error, "{}", out.output);
    assert!(out.images.is_empty());
    assert!(out.output.starts_with("--- page 1 ---\n"), "{}", out.output);
    assert!(out.output.contains("--- page 2 ---\nQuarterly figures\n"));
    let row = out.output.lines().find(|l| l.contains("Q2 2025")).unwrap();
    let cells: Vec<&str> = row
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(cells, ["Q2 2025", "1,315,750.00", "1,002,100.00", "23.8%"]);

    let out = read(
        json!({"file_path": "/workspace/report.pdf", "pages": "3"}),
        vfs,
    );
    assert_eq!(
        out.output,
        "--- page 3 ---\nOutlook\nGuidance: revenue of 6.1 million USD for 2026, with a target \
         margin of 28%.\n\n(Showing page 3 of 3.)"
    );
}

#[test]
fn read_returns_a_png_as_an_image() {
    let out = read(
        json!({"file_path": "chart.png"}),
        workspace(&[("chart.png", CHART_PNG)]),
    );
    assert!(!out.is_error, "{}", out.output);
    assert_eq!(
        out.output,
        "Image /workspace/chart.png (PNG image, 40x30 pixels, 122 bytes) is attached below."
    );
    assert_eq!(out.images.len(), 1);
    assert_eq!(out.images[0].media_type, "image/png");
    assert_eq!(out.images[0].bytes, CHART_PNG);
}

#[test]
fn read_carries_an_image_of_a_few_megabytes_and_refuses_larger_ones() {
    // A PNG signature and header, padded: Read sends bytes as they are, without decoding.
    let mut big = CHART_PNG.to_vec();
    big.resize(3 << 20, 7);
    let out = read(
        json!({"file_path": "big.png"}),
        workspace(&[("big.png", &big)]),
    );
    assert!(!out.is_error, "{}", out.output);
    assert_eq!(out.images[0].bytes.len(), 3 << 20);
    big.resize(4 << 20, 7);
    let out = read(
        json!({"file_path": "big.png"}),
        workspace(&[("big.png", &big)]),
    );
    assert!(out.is_error);
    assert!(out.images.is_empty());
    assert!(
        out.output.contains("is too large to show: 4,194,304 bytes"),
        "{}",
        out.output
    );
}

const TASK: &str = r#"
task_id: media_read
task_name: Read a chart (test task)
version: "1.0"
category: images
difficulty: easy
tags: [multimodal]
prompt:
  text: "What does chart.png show?"
  language: en
tools: []
tool_endpoints: []
system_tools: [Read]
workspace: workspace
environment:
  timeout_seconds: 300
  max_turns: 4
scoring_components:
  - name: answered
    weight: 1.0
    check: {type: keywords_present, keywords: ["red"]}
safety_checks: []
oracle:
  steps:
    - call: Read
      args: {file_path: chart.png}
  answer: "A red rectangle."
"#;

const SCRIPT: &str = r#"
rules:
  - name: read
    match: {turn: 0}
    reply:
      tool_calls:
        - {name: Read, arguments: {file_path: chart.png}}
  - name: answer
    match: {turn: 1}
    reply: {text: "A red rectangle on white."}
"#;

#[test]
fn images_reach_the_model_inside_tool_results_and_the_trace_by_hash() {
    install_crypto_provider();
    let tmp = tempfile::tempdir().unwrap();
    let task = tmp.path().join("suite/tasks/media_read");
    std::fs::create_dir_all(task.join("workspace")).unwrap();
    std::fs::write(task.join("task.yaml"), TASK).unwrap();
    std::fs::write(task.join("workspace/chart.png"), CHART_PNG).unwrap();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(serve_mock_llm(
            Script::parse(SCRIPT, "script").unwrap(),
            "127.0.0.1:0".parse().unwrap(),
        ))
        .unwrap();
    let mut model = ModelConfig::new(Provider::Anthropic, "mock-model");
    model.base_url = Some(server.url());
    model.api_key = Some("test-key".into());
    model.cache_dir = Some(tmp.path().join("cache"));
    let out = tmp.path().join("run");
    let mut options = RunOptions::new(tmp.path().join("suite"), AgentSpec::Model(model), &out);
    options.tasks = vec!["media_read".into()];
    options.seed = 7;
    let result = run(&options).unwrap();
    let records = result.records().unwrap();
    let record = &records[0];
    assert!(record.verdict.as_ref().unwrap().scores.passed, "{record:?}");

    // The second request carries the tool result: the text, then the image.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let data = base64_of(CHART_PNG);
    let last = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    let result_block = &last["content"][0];
    assert_eq!(result_block["type"], "tool_result");
    assert_eq!(
        result_block["content"],
        json!([
            {"type": "text", "text": "Image /workspace/chart.png (PNG image, 40x30 pixels, 122 bytes) is attached below."},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
        ])
    );

    // The trace names the image by hash and size; its bytes stay out.
    let trace = record.trace_bytes(&out).unwrap();
    assert!(!String::from_utf8_lossy(&trace).contains(&data));
    let events = read_trace(trace.as_slice()).unwrap();
    let images = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ToolResult { images, .. } => Some(images.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(images.len(), 1);
    assert_eq!(images[0].media_type, "image/png");
    assert_eq!(images[0].hash, blake3::hash(CHART_PNG).to_hex().to_string());
    assert_eq!(images[0].size, CHART_PNG.len() as u64);
    let text = String::from_utf8(trace).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("\"tool_result\""))
        .unwrap();
    let v: Value = serde_json::from_str(line).unwrap();
    assert_eq!(
        v["images"],
        json!([{"media_type": "image/png", "hash": images[0].hash, "size": 122}])
    );
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[test]
fn old_traces_without_images_still_read() {
    let line = r#"{"seq":3,"t_ns":0,"type":"tool_result","id":"c","name":"Read","output":"x","is_error":false}"#;
    let events = read_trace(std::io::BufReader::new(line.as_bytes())).unwrap();
    match &events[0].kind {
        EventKind::ToolResult { images, .. } => assert!(images.is_empty()),
        other => panic!("{other:?}"),
    }
    // And a call without images writes no `images` field.
    let back = serde_json::to_string(&events[0]).unwrap();
    assert!(!back.contains("images"), "{back}");
}
