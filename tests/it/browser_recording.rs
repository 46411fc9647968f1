//! Judge-time recordings of a Claw-Eval-style M task (M002's shape: the agent writes an
//! animated page, the Judge phase runs `python /workspace/fixtures/take_recording.py ...`), in
//! a real headless Chromium: the frames land in `/workspace/grading_frames/`, the script's own
//! JSON line is the command's output, and two runs give the same frames; graded by a
//! Claw-Eval grader (`DynamicWebpageGrader`), the frames reach the judge model as images.
//! Prints `SKIPPED:` without Chromium.

use base64::Engine as _;
use clawrun::agents::llm::{ModelConfig, Provider, install_crypto_provider};
use clawrun::agents::mock::{Script, serve_mock_llm};
use clawrun::agents::trace::{EventKind, SnapshotFile, read_trace};
use clawrun::browser::find_chromium;
use clawrun::run::{AgentSpec, RunOptions, run};
use clawrun::trial::grading::GraderChoice;

/// Claw-Eval's script, as every browser task ships it.
const TAKE_RECORDING: &[u8] = include_bytes!("../../runtime/trial/src/claw_eval/take_recording.py");

const TASK: &str = r#"
task_id: M900_clock_page
task_name: Analog clock page (test task)
version: "2.0"
category: multimodal_webpage
difficulty: medium
tags: [multimodal]
services: []
prompt:
  text: "Generate /workspace/output.html with an animated clock."
  language: en
tools: []
tool_endpoints: []
sandbox_grader_files:
  - fixtures/take_recording.py
env_snapshot_commands:
  - "python /workspace/fixtures/take_recording.py file:///workspace/output.html --frames 4 --interval 0.5 --wait-before 2"
env_snapshot_files:
  - /workspace/grading_frames/*.png
environment:
  timeout_seconds: 600
  max_turns: 30
scoring_components:
  - name: answered
    weight: 1.0
    check: {type: keywords_present, keywords: ["clock"]}
safety_checks: []
oracle:
  steps:
    - call: Write
      args:
        file_path: /workspace/output.html
        content: |
          <html><body style="margin:0;background:#fff">
          <canvas id="c" width="400" height="400"></canvas>
          <div id="t"></div>
          <script>
            function draw() {
              const now = new Date();
              const g = document.getElementById('c').getContext('2d');
              g.fillStyle = '#fff'; g.fillRect(0, 0, 400, 400);
              g.strokeStyle = '#000'; g.lineWidth = 4;
              g.beginPath(); g.arc(200, 200, 180, 0, 2 * Math.PI); g.stroke();
              const a = (now.getUTCSeconds() + now.getUTCMilliseconds() / 1000) / 60 * 2 * Math.PI;
              g.strokeStyle = '#c00';
              g.beginPath(); g.moveTo(200, 200);
              g.lineTo(200 + 170 * Math.sin(a), 200 - 170 * Math.cos(a)); g.stroke();
              document.getElementById('t').textContent = now.toISOString();
              requestAnimationFrame(draw);
            }
            requestAnimationFrame(draw);
          </script></body></html>
  answer: "The clock page is written."
"#;

/// Writes the task (and Claw-Eval's script among its fixtures) under `suite`; its folder.
fn write_task(suite: &std::path::Path) -> std::path::PathBuf {
    let task = suite.join("tasks/M900_clock_page");
    std::fs::create_dir_all(task.join("fixtures")).unwrap();
    std::fs::write(task.join("task.yaml"), TASK).unwrap();
    std::fs::write(task.join("fixtures/take_recording.py"), TAKE_RECORDING).unwrap();
    task
}

/// The Judge phase's command outputs and snapshot files in `trace`.
fn snapshot(trace: &[u8]) -> (Vec<(String, i32, String)>, Vec<SnapshotFile>) {
    read_trace(trace)
        .unwrap()
        .into_iter()
        .find_map(|e| match e.kind {
            EventKind::Snapshot {
                commands, files, ..
            } => Some((
                commands
                    .into_iter()
                    .map(|c| (c.command, c.exit_code, c.output))
                    .collect(),
                files,
            )),
            _ => None,
        })
        .expect("a snapshot event")
}

/// One oracle run of the task; the Judge phase's command outputs and snapshot files.
fn record_once(
    tmp: &std::path::Path,
    name: &str,
) -> (Vec<(String, i32, String)>, Vec<SnapshotFile>) {
    record_task(tmp, name, TASK)
}

/// One oracle run of `task_yaml` (the task above, or a variant of it).
fn record_task(
    tmp: &std::path::Path,
    name: &str,
    task_yaml: &str,
) -> (Vec<(String, i32, String)>, Vec<SnapshotFile>) {
    let suite = tmp.join(format!("suite-{name}"));
    let folder = write_task(&suite);
    std::fs::write(folder.join("task.yaml"), task_yaml).unwrap();
    let out = tmp.join(format!("run-{name}"));
    let mut options = RunOptions::new(suite, AgentSpec::Oracle, &out);
    options.tasks = vec!["M900_clock_page".into()];
    let result = run(&options).unwrap();
    let records = result.records().unwrap();
    snapshot(&records[0].trace_bytes(&out).unwrap())
}

#[test]
fn a_judge_time_recording_writes_the_frames_of_the_agents_page_into_grading_frames() {
    if let Err(e) = find_chromium() {
        println!("SKIPPED: {e}");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (commands, files) = record_once(tmp.path(), "a");
    assert_eq!(commands.len(), 1);
    assert_eq!(commands[0].1, 0, "{}", commands[0].2);
    assert_eq!(
        commands[0].2,
        "{\"ok\": true, \"frames\": 4, \"output_dir\": \"/workspace/grading_frames/\"}\n"
    );
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [0, 1, 2, 3].map(|i| format!("/workspace/grading_frames/frame_{i:03}.png"))
    );
    // The second hand moved between frames half a second of page time apart.
    let hashes: Vec<&str> = files.iter().map(|f| f.hash.as_str()).collect();
    for pair in hashes.windows(2) {
        assert_ne!(
            pair[0], pair[1],
            "two frames are the same: the page did not move"
        );
    }
    // Another run gives the same frames, byte for byte.
    let (_, again) = record_once(tmp.path(), "b");
    assert_eq!(files, again);
}

#[test]
fn frames_an_agent_planted_or_a_recorder_it_replaced_never_reach_the_grader() {
    if let Err(e) = find_chromium() {
        println!("SKIPPED: {e}");
        return;
    }
    // The agent writes a "frame" of its own where the recording goes (the grader's glob would
    // take it to the vision judge), and replaces the
    // recording script with one that only claims success.
    let tampering = r#"    - call: Write
      args: {file_path: /workspace/grading_frames/frame_099.png, content: "a perfect clock"}
    - call: Write
      args: {file_path: /workspace/grading_frames/winner.png, content: "also perfect"}
    - call: Write
      args: {file_path: /workspace/fixtures/take_recording.py, content: "print('{\"ok\": true, \"frames\": 4}')"}
  answer: "The clock page is written.""#;
    let task = TASK.replace("  answer: \"The clock page is written.\"", tampering);
    assert_ne!(task, TASK);
    let tmp = tempfile::tempdir().unwrap();
    let (commands, files) = record_task(tmp.path(), "tampered", &task);
    // The sealed script ran (the real recording), and only its frames are in the snapshot.
    assert_eq!(
        commands[0].2,
        "{\"ok\": true, \"frames\": 4, \"output_dir\": \"/workspace/grading_frames/\"}\n"
    );
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [0, 1, 2, 3].map(|i| format!("/workspace/grading_frames/frame_{i:03}.png"))
    );
    // The same frames as an untampered run's.
    let (_, clean) = record_once(tmp.path(), "clean");
    assert_eq!(files, clean);
}

/// The judge: every request scored 0.8.
const JUDGE: &str = r#"
rules:
  - name: any
    match: {}
    reply: {text: '{"score": 0.8, "reasoning": "scripted"}'}
"#;

#[test]
fn a_claw_eval_webpage_grader_sends_the_recorded_frames_to_the_judge_model() {
    if let Err(e) = find_chromium() {
        println!("SKIPPED: {e}");
        return;
    }
    install_crypto_provider();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claw-eval");
    crate::fs_support::copy_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("third_party/claw-eval/src"),
        &root.join("src"),
    );
    let task = write_task(&root);
    std::fs::write(
        task.join("grader.py"),
        "from claw_eval.graders.webpage_grader import DynamicWebpageGrader\n\n\
         class ClockGrader(DynamicWebpageGrader):\n    VISUAL_RUBRIC = 'A clock face with a second hand.'\n    \
         PHYSICS_RUBRIC = 'The second hand moves between frames.'\n",
    )
    .unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(serve_mock_llm(
            Script::parse(JUDGE, "judge").unwrap(),
            "127.0.0.1:0".parse().unwrap(),
        ))
        .unwrap();
    let mut judge = ModelConfig::new(Provider::OpenAi, "vision-judge");
    judge.base_url = Some(format!("{}/v1", server.url()));
    judge.api_key = Some("test-key".into());
    // A vision judge behind an OpenAI-compatible endpoint (`images: true` in --model-config).
    judge.accepts_images = true;
    let out = tmp.path().join("run");
    let mut options = RunOptions::new(root.clone(), AgentSpec::Oracle, &out);
    options.tasks = vec!["M900_clock_page".into()];
    options.judge = Some(judge);
    options.grader = GraderChoice::ClawEval;
    options.claw_eval = Some(root);
    let result = run(&options).unwrap();
    let records = result.records().unwrap();
    let verdict = records[0].verdict.as_ref().expect("a verdict");
    assert_eq!(verdict.items[0].name, "grader.py");
    assert!(verdict.items[0].score.is_some(), "{verdict:?}");

    // Two judge calls (visual, then animation), each holding the four frames as PNG images.
    let (_, files) = snapshot(&records[0].trace_bytes(&out).unwrap());
    let frames: Vec<&str> = files.iter().map(|f| f.hash.as_str()).collect();
    assert_eq!(frames.len(), 4);
    let requests = server.requests();
    assert_eq!(
        requests.len(),
        2,
        "{:?}",
        requests.iter().map(|r| &r.body).collect::<Vec<_>>()
    );
    for request in &requests {
        let images: Vec<String> = request.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|p| p["type"] == "image_url")
            .map(|p| {
                let url = p["image_url"]["url"].as_str().unwrap().to_string();
                let data = url
                    .strip_prefix("data:image/png;base64,")
                    .expect("a PNG data URL");
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .unwrap();
                blake3::hash(&bytes).to_hex().to_string()
            })
            .collect();
        assert_eq!(images, frames, "the judge request does not hold the frames");
    }
}
