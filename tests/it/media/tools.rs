//! The media component as agents reach it: `ffprobe` and `ffmpeg` in the Bash tool (a program
//! the shell starts over the same files), `ReadMedia` on a video and a picture, and `Download`,
//! through the Toolbox as a trial calls them.

use std::process::Command;
use std::sync::LazyLock;

use clawrun::tools::{ToolCall, ToolEnv, ToolOutcome, ToolState, Toolbox, fuel_for};
use serde_json::{Value, json};

use super::*;

static TOOLBOX: LazyLock<Toolbox> = LazyLock::new(Toolbox::new);

fn call(name: &str, args: Value, vfs: Vfs) -> ToolOutcome {
    TOOLBOX
        .call(
            &SANDBOX,
            ToolCall {
                name,
                args: &args,
                state: &ToolState::default(),
            },
            vfs,
            &ToolEnv::default(),
        )
        .unwrap()
}

#[test]
fn bash_runs_ffprobe_as_the_graders_do_and_ffmpeg_writes_a_frame() {
    let Some(clips) = &*CLIPS else { return };
    // The env snapshot command of Claw-Eval's video-editing graders, as in M029.
    let probe = "ffprobe -v quiet -print_format json -show_format -show_streams h264.mp4";
    let out = call("Bash", json!({ "command": probe }), vfs(clips));
    assert!(!out.is_error, "{}", out.output);
    let ours: Value = serde_json::from_str(&out.output).expect("ffprobe's JSON");
    let native = Command::new("ffprobe")
        .current_dir(clips.dir.path())
        .args(probe.split(' ').skip(1))
        .output()
        .unwrap();
    let native: Value = serde_json::from_slice(&native.stdout).unwrap();
    assert_eq!(ours["format"]["duration"], native["format"]["duration"]);
    assert_eq!(ours["streams"][0]["codec_name"], "h264");
    assert_eq!(ours["streams"][0]["width"], native["streams"][0]["width"]);
    assert_eq!(
        ours["streams"][0]["nb_frames"],
        native["streams"][0]["nb_frames"]
    );

    // A frame grab lands in the shell's filesystem, where the next command sees it.
    let grab = "mkdir -p frames && ffmpeg -v error -ss 2 -i vp9.webm -frames:v 1 frames/at2.png \
                && ls frames && ffmpeg -bogus 1 x.png; echo status=$?";
    let out = call("Bash", json!({ "command": grab }), out.vfs);
    assert!(out.output.starts_with("at2.png\n"), "{}", out.output);
    assert!(
        out.output.contains("option -bogus is not supported"),
        "{}",
        out.output
    );
    assert!(out.output.ends_with("status=1\n"), "{}", out.output);
    let png = out.vfs.read_file(&format!("{DIR}/frames/at2.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    // Its fuel is the Bash call's: the same command on the same files costs the same.
    let again = call("Bash", json!({ "command": probe }), vfs(clips));
    assert_eq!(
        again.fuel_used,
        call("Bash", json!({ "command": probe }), vfs(clips)).fuel_used
    );
}

#[test]
fn read_media_answers_a_video_and_a_picture_with_images_for_the_model() {
    let Some(clips) = &*CLIPS else { return };
    let out = call(
        "ReadMedia",
        json!({"path": "h264.mp4", "max_frames": 3, "fps": 1, "start_time": 1}),
        vfs(clips),
    );
    assert!(!out.is_error, "{}", out.output);
    let text: Value = serde_json::from_str(&out.output).unwrap();
    assert_eq!(text["media_type"], "video");
    assert_eq!(text["metadata"]["codec"], "h264");
    assert_eq!(
        (
            text["metadata"]["width"].as_i64(),
            text["frame_count"].as_i64()
        ),
        (Some(640), Some(3))
    );
    assert_eq!(out.images.len(), 3);
    assert!(out.images.iter().all(|i| i.media_type == "image/jpeg"));

    // A picture: its size and format, the picture itself as JPEG for the model.
    let grab = call(
        "Bash",
        json!({"command": "ffmpeg -v error -i h264.mp4 -frames:v 1 -vf scale=320:180 pic.png"}),
        vfs(clips),
    );
    let out = call(
        "ReadMedia",
        json!({"path": "/workspace/pic.png"}),
        grab.vfs.clone(),
    );
    assert_eq!(
        out.output,
        r#"{"media_type": "image", "metadata": {"width": 320, "height": 180, "format": ".png"}, "text_summary": "Image: 320x180, .png", "frame_count": 1, "frames_shown": 1}"#
    );
    assert_eq!(out.images[0].media_type, "image/jpeg");
    // As Claw-Eval's dispatcher shows a media tool's answer, counts added, even to an error.
    let out = call("ReadMedia", json!({"path": "nope.mp4"}), grab.vfs);
    assert_eq!(
        out.output,
        r#"{"error": "File not found: nope.mp4", "frame_count": 0, "frames_shown": 0}"#
    );
}

#[test]
fn read_media_fuel_grows_with_the_frames_asked_and_is_bounded() {
    let fuel =
        |frames: Value| fuel_for("ReadMedia", &json!({"path": "v.mp4", "max_frames": frames}));
    assert!(fuel(json!(8)) < fuel(json!(16)));
    assert_eq!(fuel(json!(64)), fuel(json!(100_000)));
    assert_eq!(fuel(json!("8")), fuel(json!(8)));
    assert_eq!(
        fuel_for("ReadMedia", &json!({"path": "v.mp4"})),
        fuel(json!(8))
    );
}

#[test]
fn download_gives_a_file_as_claw_eval_s_server_does() {
    let Some(clips) = &*CLIPS else { return };
    let out = call("Download", json!({"path": "vp9.webm"}), vfs(clips));
    let text: Value = serde_json::from_str(&out.output).unwrap();
    assert_eq!(text["mime_type"], "video/webm");
    let bytes = std::fs::read(clips.path("vp9.webm")).unwrap();
    assert_eq!(text["size_bytes"], bytes.len());
    use base64::Engine as _;
    let back = base64::engine::general_purpose::STANDARD
        .decode(text["content_b64"].as_str().unwrap())
        .unwrap();
    assert_eq!(back, bytes);
    let out = call(
        "Download",
        json!({"path": "vp9.webm", "max_bytes": 10}),
        vfs(clips),
    );
    assert_eq!(
        out.output,
        format!(
            r#"{{"error": "File too large: {} bytes (max 10)"}}"#,
            bytes.len()
        )
    );
}
