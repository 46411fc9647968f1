//! Judge-time recordings of a Claw-Eval-style M task (M002's shape: the agent writes an
//! animated page, the Judge phase runs `python /workspace/fixtures/take_recording.py ...`), in
//! a real headless Chromium: the frames land in `/workspace/grading_frames/`, the script's own
//! JSON line is the command's output, and two runs give the same frames. Prints `SKIPPED:`
//! without Chromium.

use clawrun::agents::trace::{EventKind, SnapshotFile, read_trace};
use clawrun::browser::find_chromium;
use clawrun::run::{AgentSpec, RunOptions, run};

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

/// One oracle run of the task; the Judge phase's command outputs and snapshot files.
fn record_once(
    tmp: &std::path::Path,
    name: &str,
) -> (Vec<(String, i32, String)>, Vec<SnapshotFile>) {
    let suite = tmp.join(format!("suite-{name}"));
    let task = suite.join("tasks/M900_clock_page");
    std::fs::create_dir_all(task.join("fixtures")).unwrap();
    std::fs::write(task.join("task.yaml"), TASK).unwrap();
    std::fs::write(task.join("fixtures/take_recording.py"), TAKE_RECORDING).unwrap();
    let out = tmp.join(format!("run-{name}"));
    let mut options = RunOptions::new(suite, AgentSpec::Oracle, &out);
    options.tasks = vec!["M900_clock_page".into()];
    let result = run(&options).unwrap();
    let records = result.records().unwrap();
    let trace = records[0].trace_bytes(&out).unwrap();
    let events = read_trace(trace.as_slice()).unwrap();
    events
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
