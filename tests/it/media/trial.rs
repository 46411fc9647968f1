//! A Claw-Eval video task end to end: `M090_video_movie_qa_wedding` (its task.yaml and
//! grader.py as upstream has them, `tests/fixtures/claw_eval_media`) with a clip made here
//! standing in for its video. A scripted model calls `ReadMedia`, writes its answer and
//! finishes; the model's next request holds the frames as images; the task's grader runs with
//! a scripted judge; `clawrun replay` of the run is identical.

use std::path::Path;
use std::process::Command;

use base64::Engine as _;
use clawrun::agents::llm::{ModelConfig, Provider, install_crypto_provider};
use clawrun::agents::mock::{Script, serve_mock_llm};
use clawrun::run::{AgentSpec, RunOptions, run};
use clawrun::trial::grading::GraderChoice;

const TASK: &str = "M090_video_movie_qa_wedding";

const AGENT: &str = r#"
rules:
  - name: look
    match: {turn: 0}
    reply:
      tool_calls:
        - {name: ReadMedia, arguments: {path: /workspace/fixtures/video.mp4, max_frames: 4, fps: 0.5}}
  - name: write
    match: {turn: 1}
    reply:
      tool_calls:
        - {name: Write, arguments: {file_path: /workspace/answer.txt, content: "(1) 新郎 (2) 小明 (3) 不知道"}}
  - name: answer
    match: {turn: 2}
    reply: {text: "答案已保存到 /workspace/answer.txt"}
"#;

const JUDGE: &str = r#"
rules:
  - name: score
    reply: {text: '{"score": 0.5, "reasoning": "scripted"}'}
"#;

/// The clip: 12 s of `testsrc2` at 640x360, H.264 in MP4.
fn make_clip(path: &Path) -> bool {
    let ok = Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-f", "lavfi", "-i"])
        .arg("testsrc2=duration=12:size=640x360:rate=25")
        .args(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-y"])
        .arg(path)
        .status();
    ok.is_ok_and(|s| s.success())
}

#[test]
fn a_claw_eval_video_task_shows_the_model_frames_grades_and_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("claw-eval");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate::fs_support::copy_dir(&repo.join("third_party/claw-eval/src"), &root.join("src"));
    let task = root.join("tasks").join(TASK);
    crate::fs_support::copy_dir(
        &repo.join("tests/fixtures/claw_eval_media").join(TASK),
        &task,
    );
    std::fs::create_dir_all(task.join("fixtures")).unwrap();
    if !make_clip(&task.join("fixtures/video.mp4")) {
        println!("SKIPPED: native ffmpeg is not installed (apt-get install ffmpeg)");
        return;
    }
    install_crypto_provider();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let serve = |script: &str| {
        rt.block_on(serve_mock_llm(
            Script::parse(script, "script").unwrap(),
            "127.0.0.1:0".parse().unwrap(),
        ))
        .unwrap()
    };
    let (agent_server, judge_server) = (serve(AGENT), serve(JUDGE));
    let model = |name: &str, url: String| {
        let mut m = ModelConfig::new(Provider::OpenAi, name);
        m.base_url = Some(format!("{url}/v1"));
        m.api_key = Some("test-key".into());
        m.accepts_images = true;
        m
    };
    let out = tmp.path().join("run");
    let agent = model("mock-agent", agent_server.url());
    let mut options = RunOptions::new(root.clone(), AgentSpec::Model(agent), &out);
    options.tasks = vec![TASK.into()];
    options.judge = Some(model("mock-judge", judge_server.url()));
    options.grader = GraderChoice::ClawEval;
    options.claw_eval = Some(root.clone());
    options.seed = 3;
    let result = run(&options).unwrap();
    let records = result.records().unwrap();
    let record = &records[0];
    let verdict = record.verdict.as_ref().expect("a verdict");
    assert_eq!(verdict.items[0].name, "grader.py");
    // The grader read answer.txt and asked the judge: completion is the judge's 0.5.
    assert_eq!(verdict.items[0].score, Some(0.5), "{verdict:?}");
    assert_eq!(judge_server.requests().len(), 1);

    // The request after ReadMedia: the tool's JSON text, then its four frames as JPEG images
    // at the clip's size, taken at 0, 2, 4 and 6 s.
    let requests = agent_server.requests();
    assert_eq!(requests.len(), 3);
    let messages = requests[1].body["messages"].as_array().unwrap();
    let tool = messages
        .iter()
        .find(|m| m["role"] == "tool")
        .expect("a tool message");
    let content = tool["content"].as_str().unwrap();
    // The tool's JSON text, then a line per image (OpenAI's tool messages carry no images).
    let (json_line, marks) = content.split_once('\n').unwrap();
    assert_eq!(marks.lines().count(), 4, "{content}");
    let text: serde_json::Value = serde_json::from_str(json_line).unwrap();
    assert_eq!(text["media_type"], "video");
    assert_eq!(text["metadata"]["width"], 640);
    assert_eq!(text["metadata"]["duration_s"], 12.0);
    assert_eq!(
        (text["frame_count"].as_i64(), text["frames_shown"].as_i64()),
        (Some(4), Some(4))
    );
    let images: Vec<Vec<u8>> = messages
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|p| p["type"] == "image_url")
        .map(|p| {
            let url = p["image_url"]["url"].as_str().unwrap().to_string();
            let data = url
                .strip_prefix("data:image/jpeg;base64,")
                .expect("a JPEG data URL");
            base64::engine::general_purpose::STANDARD
                .decode(data)
                .unwrap()
        })
        .collect();
    assert_eq!(images.len(), 4, "the frames did not reach the model");
    for jpeg in &images {
        assert_eq!(&jpeg[..3], b"\xff\xd8\xff", "not a JPEG");
    }
    assert_ne!(
        images[0], images[1],
        "two frames of a moving clip are the same image"
    );

    // Replay: the same trial, byte for byte. `clawrun replay` calls no model, the judge
    // included, so it replays a run made without one (the grader then scores the answer 0).
    let bare = tmp.path().join("bare");
    let mut options = options.clone();
    options.out = bare.clone();
    options.judge = None;
    let result = run(&options).unwrap();
    let records = result.records().unwrap();
    assert_eq!(
        records[0].trace_hash, record.trace_hash,
        "the judge is not in the trace"
    );
    let replayed = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .arg("replay")
        .arg(&bare)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&replayed.stdout),
        String::from_utf8_lossy(&replayed.stderr)
    );
    assert!(replayed.status.success(), "{said}");
    assert!(said.contains(&format!("same {TASK}/0")), "{said}");
}
