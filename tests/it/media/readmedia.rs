//! ReadMedia against the `ffmpeg` run of Claw-Eval's sandbox server and what its dispatcher
//! shows the model.

use std::process::Command;

use clawrun::sandbox::Status;
use serde_json::{Value, json};

use super::*;

/// The metadata Claw-Eval's `_read_video` takes from native ffprobe.
fn claw_eval_metadata(probe: &Value) -> Value {
    let video = probe["streams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["codec_type"] == "video")
        .unwrap();
    let duration: f64 = video["duration"]
        .as_str()
        .map(|d| d.parse().unwrap())
        .filter(|d| *d != 0.0)
        .or_else(|| {
            probe["format"]["duration"]
                .as_str()
                .map(|d| d.parse().unwrap())
        })
        .unwrap();
    let (n, d) = video["r_frame_rate"]
        .as_str()
        .unwrap()
        .split_once('/')
        .unwrap();
    let fps = n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap();
    json!({
        "duration_s": duration,
        "fps": (fps * 100.0).round() / 100.0,
        "width": video["width"],
        "height": video["height"],
        "codec": video["codec_name"],
    })
}

#[test]
fn readmedia_equals_claw_evals_ffmpeg_run() {
    let Some(clips) = &*CLIPS else { return };
    let requests = [
        json!({"path": "CLIP"}),
        json!({"path": "CLIP", "start_time": 2.5, "end_time": 8, "fps": 0.5}),
        json!({"path": "CLIP", "fps": 2, "max_frames": 5, "screen_size": "320x240"}),
        json!({"path": "CLIP", "start_time": 10, "max_frames": 20, "fps": 3}),
    ];
    for clip in CLIP_NAMES {
        let probe = Command::new("ffprobe")
            .current_dir(clips.dir.path())
            .args([
                "-v",
                "quiet",
                "-print_format",
                "json",
                "-show_format",
                "-show_streams",
                clip,
            ])
            .output()
            .unwrap();
        let probe: Value = serde_json::from_slice(&probe.stdout).unwrap();
        let metadata = claw_eval_metadata(&probe);
        for request in &requests {
            let mut request = request.clone();
            request["path"] = json!(clip);
            // Claw-Eval's command, as `_read_video` builds it.
            let start = request["start_time"].as_f64().unwrap_or(0.0);
            let end = request["end_time"]
                .as_f64()
                .unwrap_or(metadata["duration_s"].as_f64().unwrap());
            let fps = request["fps"].as_f64().unwrap_or(1.0);
            let max_frames = request["max_frames"].as_i64().unwrap_or(8);
            let scratch = tempfile::tempdir().unwrap();
            let mut args: Vec<String> = vec!["-y".into()];
            if start > 0.0 {
                args.extend(["-ss".into(), format!("{start:?}")]);
            }
            args.extend(["-i".into(), clips.path(clip).to_str().unwrap().into()]);
            args.extend(["-t".into(), format!("{:?}", end - start)]);
            let mut vf = format!("fps={fps:?}");
            if let Some(size) = request["screen_size"].as_str() {
                let d: i64 = size
                    .split('x')
                    .map(|p| p.parse::<i64>().unwrap())
                    .max()
                    .unwrap();
                vf = format!(
                    "{vf},scale='min({d},iw)':min'({d},ih)':force_original_aspect_ratio=decrease"
                );
            }
            args.extend(["-vf".into(), vf, "-frames:v".into(), max_frames.to_string()]);
            args.push(
                scratch
                    .path()
                    .join("frame_%04d.jpg")
                    .to_str()
                    .unwrap()
                    .into(),
            );
            let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
            native_ffmpeg(scratch.path(), &arg_refs).unwrap();
            let mut native: Vec<PathBuf> = std::fs::read_dir(scratch.path())
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            native.sort();

            let body = request.to_string();
            let ran = run(vfs(clips), &["readmedia", &body], b"");
            assert_eq!(ran.status, Status::Exited(0), "{}", text(&ran.stderr));
            let answer: Value = serde_json::from_slice(&ran.stdout).unwrap();
            assert_eq!(answer["media_type"], "video");
            assert_eq!(answer["metadata"], metadata, "{clip} {request}");
            let frames = answer["frames"].as_array().unwrap();
            assert_eq!(frames.len(), native.len(), "{clip} {request}: frame count");
            assert_eq!(
                answer["text_summary"],
                format!(
                    "Video: {:.1}s, {}x{}, {:.0}fps. Extracted {} frames.",
                    metadata["duration_s"].as_f64().unwrap(),
                    metadata["width"],
                    metadata["height"],
                    metadata["fps"].as_f64().unwrap(),
                    native.len()
                )
            );
            for (i, (frame, native_frame)) in frames.iter().zip(&native).enumerate() {
                assert_eq!(frame["index"], i);
                let expected = ((start + i as f64 / fps.max(0.001)) * 100.0).round() / 100.0;
                assert_eq!(
                    frame["timestamp_s"].as_f64(),
                    Some(expected),
                    "{clip} {request}: frame {i}"
                );
                assert_eq!(frame["mime_type"], "image/png");
                let png = base64_decode(frame["image_b64"].as_str().unwrap());
                let ours = scratch.path().join(format!("ours_{i}.png"));
                std::fs::write(&ours, png).unwrap();
                assert_eq!(
                    size(&ours),
                    size(native_frame),
                    "{clip} {request}: frame {i} size"
                );
                let db = psnr(native_frame, &ours);
                assert!(
                    db >= SAME_FRAME_JPEG_DB,
                    "{clip} {request}: frame {i} is another picture ({db:.2} dB)"
                );
            }
        }
    }
}

#[test]
fn readmedia_tool_shows_the_model_what_claw_evals_dispatcher_does() {
    let Some(clips) = &*CLIPS else { return };
    let request =
        json!({"args": {"path": "h264.mp4", "fps": 2, "max_frames": 70}, "state": {"cwd": DIR}});
    let ran = run(vfs(clips), &[], request.to_string().as_bytes());
    assert_eq!(ran.status, Status::Exited(0), "{}", text(&ran.stderr));
    // The same call gives the same bytes (a replay shows the model the same images).
    let again = run(vfs(clips), &[], request.to_string().as_bytes());
    assert!(
        again.stdout == ran.stdout,
        "two runs of one ReadMedia call differ"
    );
    let response: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(response["is_error"], false, "{}", response["output"]);
    // 12 s at 2 fps: 24 frames, all shown (under the 64 cap).
    let text = response["output"].as_str().unwrap();
    let model: Value = serde_json::from_str(text).unwrap();
    assert_eq!(model["frame_count"], 24);
    assert_eq!(model["frames_shown"], 24);
    assert!(model.get("frames").is_none() && model.get("sampling").is_none());
    assert!(text.starts_with(r#"{"media_type": "video", "metadata": {"duration_s": 12.0, "fps": 30.0, "width": 640, "height": 360, "codec": "h264"}, "text_summary": "Video: 12.0s, 640x360, 30fps. Extracted 24 frames.""#), "{text}");
    let images = response["images"].as_array().unwrap();
    assert_eq!(images.len(), 24);
    for image in images {
        assert_eq!(image["media_type"], "image/jpeg");
        assert!(base64_decode(image["data"].as_str().unwrap()).starts_with(&[0xff, 0xd8, 0xff]));
    }

    let missing = json!({"args": {"path": "nope.mp4"}, "state": {"cwd": DIR}});
    let ran = run(vfs(clips), &[], missing.to_string().as_bytes());
    let response: Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(
        response["output"],
        r#"{"error": "File not found: nope.mp4", "frame_count": 0, "frames_shown": 0}"#
    );
    assert_eq!(response["is_error"], false);
}

/// Frames larger than 1280 pixels are shown scaled to a long edge of 1280 (Lanczos), and more
/// than 64 frames are sampled uniformly to 64, as Claw-Eval's dispatcher does.
#[test]
fn readmedia_tool_scales_and_samples_what_the_model_sees() {
    let Some(clips) = &*CLIPS else { return };
    let big = clips.dir.path().join("big.mp4");
    native_ffmpeg(
        clips.dir.path(),
        &[
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc2=size=1920x1080:rate=30:duration=3",
            "-c:v",
            "libx264",
            "-pix_fmt",
            "yuv420p",
            big.to_str().unwrap(),
        ],
    )
    .unwrap();
    let mut v = vfs(clips);
    v.write_file(&format!("{DIR}/big.mp4"), &std::fs::read(&big).unwrap())
        .unwrap();
    let request =
        json!({"args": {"path": "big.mp4", "fps": 30, "max_frames": 80}, "state": {"cwd": DIR}});
    let ran = run(v, &[], request.to_string().as_bytes());
    assert_eq!(ran.status, Status::Exited(0), "{}", text(&ran.stderr));
    let response: Value = serde_json::from_slice(&ran.stdout).unwrap();
    let model: Value = serde_json::from_str(response["output"].as_str().unwrap()).unwrap();
    assert_eq!(model["frame_count"], 80, "{model}");
    assert_eq!(model["frames_shown"], 64);
    assert_eq!(model["sampling"], "uniform (64 of 80)");
    assert_eq!(model["metadata"]["width"], 1920);
    let images = response["images"].as_array().unwrap();
    assert_eq!(images.len(), 64);
    let scratch = tempfile::tempdir().unwrap();
    let first = scratch.path().join("first.jpg");
    std::fs::write(&first, base64_decode(images[0]["data"].as_str().unwrap())).unwrap();
    assert_eq!(size(&first), (1280, 720));
    // The picture is the video's first frame, scaled.
    let native = scratch.path().join("native.png");
    native_ffmpeg(
        scratch.path(),
        &[
            "-y",
            "-i",
            big.to_str().unwrap(),
            "-frames:v",
            "1",
            "-vf",
            "scale=1280:720:flags=lanczos",
            native.to_str().unwrap(),
        ],
    )
    .unwrap();
    let db = psnr(&native, &first);
    assert!(db >= SAME_FRAME_JPEG_DB, "shown frame 0: {db:.2} dB");
}
