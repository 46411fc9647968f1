//! Differential tests of the media component (`guest_tools/media`) against native FFmpeg, on
//! clips made here with FFmpeg's `testsrc2` (H.264 + AAC in MP4, VP9 + Vorbis in WebM; the
//! WASI build has no Opus decoder, so Opus streams would lack their sample format): the
//! `ffprobe` JSON, frame grabs and filtered extractions (frame counts, pixels by PSNR against
//! native FFmpeg's frames at the same timestamps), ReadMedia against the `ffmpeg` run of
//! Claw-Eval's sandbox server, and hostile inputs ending as errors. Without native `ffmpeg`
//! and `ffprobe` each test prints `SKIPPED:` and passes.

use crate::common;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

use clawrun::sandbox::{Mount, Program, RunConfig, RunOutcome, Status};
use clawrun::vfs::Vfs;
use common::SANDBOX;
use serde_json::{Value, json};

/// Where the clips live inside the sandbox (and the commands' working directory).
const DIR: &str = "/workspace";

/// PSNR (dB) above which two renderings are the same frame: adjacent frames of `testsrc2`
/// differ by about 17 dB, the same frame through two FFmpeg builds by about 50.
const SAME_FRAME_DB: f64 = 40.0;

/// The same floor for frames Claw-Eval's `ffmpeg` run wrote as JPEG.
const SAME_FRAME_JPEG_DB: f64 = 30.0;

/// Fuel of one command: far above what these clips need (a few 1e9), so a test never ends on
/// fuel.
const FUEL: u64 = 400_000_000_000;

struct Clips {
    dir: tempfile::TempDir,
}

impl Clips {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// The two clips, made once; `None` (after printing why) without native FFmpeg.
static CLIPS: LazyLock<Option<Clips>> = LazyLock::new(|| {
    for tool in ["ffmpeg", "ffprobe"] {
        let found = Command::new(tool).arg("-version").output();
        if !found.is_ok_and(|o| o.status.success()) {
            println!("SKIPPED: native {tool} is not installed (apt-get install ffmpeg)");
            return None;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let make = |name: &str, video: &[&str], audio: &[&str]| {
        let out = Command::new("ffmpeg")
            .current_dir(dir.path())
            .args(["-v", "error", "-y", "-f", "lavfi", "-i"])
            .arg("testsrc2=size=640x360:rate=30:duration=12")
            .args(["-f", "lavfi", "-i", "sine=frequency=440:duration=12"])
            .args(video)
            .args(["-pix_fmt", "yuv420p"])
            .args(audio)
            .arg(name)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "making {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    make("h264.mp4", &["-c:v", "libx264"], &["-c:a", "aac"]);
    make("video_only.mp4", &["-c:v", "libx264"], &["-an", "-t", "6"]);
    make(
        "vp9.webm",
        &[
            "-c:v",
            "libvpx-vp9",
            "-b:v",
            "500k",
            "-deadline",
            "realtime",
            "-cpu-used",
            "8",
        ],
        &["-c:a", "libvorbis"],
    );
    Some(Clips { dir })
});

const CLIP_NAMES: [&str; 2] = ["h264.mp4", "vp9.webm"];

static MEDIA: LazyLock<Program> = LazyLock::new(|| {
    SANDBOX
        .load(clawrun::tools::media_component())
        .expect("loading the media component")
});

fn vfs(clips: &Clips) -> Vfs {
    let mut vfs = Vfs::new();
    vfs.create_dir_all(DIR).unwrap();
    for name in CLIP_NAMES.iter().chain(&["video_only.mp4"]) {
        vfs.write_file(
            &format!("{DIR}/{name}"),
            &std::fs::read(clips.path(name)).unwrap(),
        )
        .unwrap();
    }
    vfs
}

/// Runs the media component with `args` (and `stdin`) over `vfs`.
fn run(vfs: Vfs, args: &[&str], stdin: &[u8]) -> RunOutcome {
    let mut argv = vec!["media".to_owned()];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let out = SANDBOX
        .run(
            &MEDIA,
            vfs,
            RunConfig {
                args: argv,
                env: vec![("PWD".into(), DIR.into())],
                stdin: stdin.to_vec(),
                mounts: vec![Mount {
                    guest_path: "/".into(),
                    writable: true,
                }],
                fuel: FUEL,
                stdout_cap: 64 << 20,
                ..RunConfig::default()
            },
        )
        .expect("running the media component");
    println!("media {}: fuel {}", args.join(" "), out.fuel_used);
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Native `ffmpeg ARGS` in `dir`; its stderr on failure.
fn native_ffmpeg(dir: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::new("ffmpeg")
        .current_dir(dir)
        .args(["-v", "error", "-nostdin"])
        .args(args)
        .output()
        .unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(text(&out.stderr))
    }
}

/// PSNR (average over the planes, dB) of two pictures, as native FFmpeg's `psnr` filter
/// measures it; infinite for identical pictures.
fn psnr(a: &Path, b: &Path) -> f64 {
    let out = Command::new("ffmpeg")
        .args(["-nostdin", "-i"])
        .arg(a)
        .arg("-i")
        .arg(b)
        .args(["-lavfi", "psnr", "-f", "null", "-"])
        .output()
        .unwrap();
    let log = text(&out.stderr);
    let average = log
        .split("average:")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no PSNR for {} vs {}: {log}", a.display(), b.display()));
    if average == "inf" {
        f64::INFINITY
    } else {
        average.parse().unwrap()
    }
}

/// The picture size of an image file, as native ffprobe reads it.
fn size(path: &Path) -> (u64, u64) {
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "stream=width,height",
            "-of",
            "json",
        ])
        .arg(path)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v["streams"][0];
    (s["width"].as_u64().unwrap(), s["height"].as_u64().unwrap())
}

/// The files the guest wrote into `dir` (sorted), copied to the host folder `to`.
fn export(vfs: &Vfs, dir: &str, to: &Path) -> Vec<String> {
    let ino = vfs.resolve(dir).unwrap();
    let mut names: Vec<String> = vfs
        .read_dir(ino)
        .unwrap()
        .into_iter()
        .map(|(name, _, _)| name)
        .collect();
    names.sort();
    std::fs::create_dir_all(to).unwrap();
    for name in &names {
        std::fs::write(
            to.join(name),
            vfs.read_file(&format!("{dir}/{name}")).unwrap(),
        )
        .unwrap();
    }
    names
}

/// Runs `ffmpeg PRE -i CLIP POST OUT` natively and in the sandbox (outputs under a fresh
/// folder each) and returns both folders' file names and the folders.
fn both_ffmpeg(
    clips: &Clips,
    clip: &str,
    pre: &[&str],
    post: &[&str],
    out: &str,
) -> (Vec<String>, Vec<String>, tempfile::TempDir) {
    let scratch = tempfile::tempdir().unwrap();
    let native_dir = scratch.path().join("native");
    let ours_dir = scratch.path().join("ours");
    std::fs::create_dir_all(&native_dir).unwrap();
    let clip_path = clips.path(clip);
    let mut args: Vec<&str> = vec!["-y"];
    args.extend(pre);
    let clip_str = clip_path.to_str().unwrap();
    args.extend(["-i", clip_str]);
    args.extend(post);
    let native_out = native_dir.join(out);
    args.push(native_out.to_str().unwrap());
    native_ffmpeg(scratch.path(), &args).unwrap_or_else(|e| panic!("native ffmpeg {args:?}: {e}"));
    let mut native: Vec<String> = std::fs::read_dir(&native_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    native.sort();

    let mut vfs = vfs(clips);
    vfs.create_dir_all("/out").unwrap();
    let guest_out = format!("/out/{out}");
    let mut ours_args: Vec<&str> = vec!["ffmpeg", "-y"];
    ours_args.extend(pre);
    ours_args.extend(["-i", clip]);
    ours_args.extend(post);
    ours_args.push(&guest_out);
    let ran = run(vfs, &ours_args, b"");
    assert_eq!(
        ran.status,
        Status::Exited(0),
        "ffmpeg {ours_args:?}: {}",
        text(&ran.stderr)
    );
    let ours = export(&ran.vfs, "/out", &ours_dir);
    (native, ours, scratch)
}

/// Checks that every frame written natively was written in the sandbox as the same picture.
fn assert_same_frames(case: &str, native: &[String], ours: &[String], dir: &Path) {
    assert_eq!(ours, native, "{case}: frame files differ");
    assert!(!native.is_empty(), "{case}: no frame written");
    for name in native {
        let (n, o) = (dir.join("native").join(name), dir.join("ours").join(name));
        assert_eq!(size(&o), size(&n), "{case}: {name} size");
        let db = psnr(&n, &o);
        println!("{case}: {name} PSNR {db:.2} dB");
        assert!(
            db >= SAME_FRAME_DB,
            "{case}: {name} is another picture ({db:.2} dB)"
        );
    }
}

/// The fields graders read from `ffprobe -show_format -show_streams` JSON.
const STREAM_FIELDS: [&str; 18] = [
    "index",
    "codec_name",
    "codec_long_name",
    "profile",
    "codec_type",
    "width",
    "height",
    "pix_fmt",
    "r_frame_rate",
    "avg_frame_rate",
    "time_base",
    "start_time",
    "duration",
    "duration_ts",
    "nb_frames",
    "bit_rate",
    "sample_rate",
    "channels",
];
const FORMAT_FIELDS: [&str; 9] = [
    "filename",
    "nb_streams",
    "format_name",
    "format_long_name",
    "start_time",
    "duration",
    "size",
    "bit_rate",
    "probe_score",
];

#[test]
fn ffprobe_json_equals_native_ffprobe() {
    let Some(clips) = &*CLIPS else { return };
    for clip in CLIP_NAMES {
        let args = [
            "-v",
            "quiet",
            "-print_format",
            "json",
            "-show_format",
            "-show_streams",
            clip,
        ];
        let native = Command::new("ffprobe")
            .current_dir(clips.dir.path())
            .args(args)
            .output()
            .unwrap();
        assert!(native.status.success());
        let mut ours_args = vec!["ffprobe"];
        ours_args.extend(args);
        let ours = run(vfs(clips), &ours_args, b"");
        assert_eq!(ours.status, Status::Exited(0), "{}", text(&ours.stderr));
        let n: Value = serde_json::from_slice(&native.stdout).unwrap();
        let o: Value = serde_json::from_slice(&ours.stdout).unwrap();
        let (ns, os) = (
            n["streams"].as_array().unwrap(),
            o["streams"].as_array().unwrap(),
        );
        assert_eq!(os.len(), ns.len(), "{clip}: streams");
        assert_eq!(ns.len(), 2, "{clip}: a video and an audio stream");
        for (i, (ns, os)) in ns.iter().zip(os).enumerate() {
            for f in STREAM_FIELDS {
                assert_eq!(os.get(f), ns.get(f), "{clip}: streams[{i}].{f}");
            }
            // Every other entry ffprobe printed is there too, with its value, except the
            // decoder-dependent ones FFmpeg 7 prints differently from this machine's FFmpeg.
            for (k, v) in ns.as_object().unwrap() {
                if ["tags", "disposition", "initial_padding"].contains(&k.as_str()) {
                    continue;
                }
                assert_eq!(os.get(k), Some(v), "{clip}: streams[{i}].{k}");
            }
            assert_eq!(
                os["disposition"], ns["disposition"],
                "{clip}: streams[{i}].disposition"
            );
        }
        for f in FORMAT_FIELDS {
            assert_eq!(o["format"].get(f), n["format"].get(f), "{clip}: format.{f}");
        }
    }
}

#[test]
fn ffprobe_show_entries_and_writers_equal_native() {
    let Some(clips) = &*CLIPS else { return };
    let lines: [&[&str]; 4] = [
        &[
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=width,height,r_frame_rate",
            "-of",
            "csv=p=0",
        ],
        &[
            "-v",
            "error",
            "-show_entries",
            "format=duration",
            "-of",
            "default=noprint_wrappers=1:nokey=1",
        ],
        &[
            "-v",
            "error",
            "-show_entries",
            "stream=codec_name,codec_type:format=format_name",
            "-of",
            "default",
        ],
        &[
            "-v",
            "error",
            "-select_streams",
            "a",
            "-show_entries",
            "stream=codec_name,sample_rate,channels",
            "-of",
            "json",
        ],
    ];
    for clip in CLIP_NAMES {
        for line in lines {
            let mut args = line.to_vec();
            args.push(clip);
            let native = Command::new("ffprobe")
                .current_dir(clips.dir.path())
                .args(&args)
                .output()
                .unwrap();
            let mut ours_args = vec!["ffprobe"];
            ours_args.extend(&args);
            let ours = run(vfs(clips), &ours_args, b"");
            assert_eq!(ours.status, Status::Exited(0), "{}", text(&ours.stderr));
            assert_eq!(text(&ours.stdout), text(&native.stdout), "ffprobe {args:?}");
        }
    }
}

#[test]
fn frame_grabs_equal_native_ffmpeg() {
    let Some(clips) = &*CLIPS else { return };
    for clip in CLIP_NAMES {
        for at in ["0", "3.5", "7.25", "11.9"] {
            let (native, ours, dir) =
                both_ffmpeg(clips, clip, &["-ss", at], &["-frames:v", "1"], "grab.png");
            assert_same_frames(&format!("{clip} -ss {at}"), &native, &ours, dir.path());
        }
        // A grab by frame number, as agents write it.
        let select = ["-vf", "select=eq(n\\,45)", "-frames:v", "1"];
        let (native, ours, dir) = both_ffmpeg(clips, clip, &[], &select, "n45.png");
        assert_same_frames(&format!("{clip} select n=45"), &native, &ours, dir.path());
        let (native, ours, dir) = both_ffmpeg(
            clips,
            clip,
            &[],
            &["-ss", "4", "-frames:v", "1"],
            "grab.jpg",
        );
        assert_eq!(ours, native);
        let db = psnr(
            &dir.path().join("native/grab.jpg"),
            &dir.path().join("ours/grab.jpg"),
        );
        assert!(
            db >= SAME_FRAME_JPEG_DB,
            "{clip} output -ss 4 as JPEG: {db:.2} dB"
        );
    }
}

#[test]
fn filters_and_time_windows_equal_native_ffmpeg() {
    let Some(clips) = &*CLIPS else { return };
    let cases: [(&[&str], &[&str]); 6] = [
        (
            &["-ss", "2.0"],
            &["-t", "5.5", "-vf", "fps=1.0", "-frames:v", "8"],
        ),
        (&[], &["-vf", "fps=2,scale=320:-2", "-frames:v", "5"]),
        (
            &[],
            &["-ss", "3", "-to", "6", "-vf", "fps=2,crop=200:100:10:20"],
        ),
        (&["-ss", "9"], &["-vf", "fps=0.7", "-frames:v", "100"]),
        (&["-ss", "1", "-t", "2"], &["-vf", "fps=3"]),
        (
            &[],
            &[
                "-vf",
                "fps=1,scale='min(320,iw)':min'(320,ih)':force_original_aspect_ratio=decrease",
                "-frames:v",
                "3",
            ],
        ),
    ];
    for clip in CLIP_NAMES {
        for (pre, post) in cases {
            let (native, ours, dir) = both_ffmpeg(clips, clip, pre, post, "f_%04d.png");
            assert_same_frames(
                &format!("{clip} {pre:?} {post:?}"),
                &native,
                &ours,
                dir.path(),
            );
        }
    }
}

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

#[test]
fn unsupported_ffmpeg_options_fail_naming_them() {
    let Some(clips) = &*CLIPS else { return };
    for (args, says) in [
        (
            &["ffmpeg", "-i", "h264.mp4", "-c", "copy", "cut.png"][..],
            "option -c is not supported",
        ),
        (
            &["ffmpeg", "-i", "h264.mp4", "-c:v", "libx264", "out.mp4"][..],
            "-c:v libx264",
        ),
        (
            &["ffmpeg", "-i", "h264.mp4", "cut.mp4"][..],
            "still images only",
        ),
        (
            &[
                "ffmpeg",
                "-i",
                "h264.mp4",
                "-filter_complex",
                "concat",
                "a.png",
            ][..],
            "-filter_complex",
        ),
        (
            &["ffprobe", "-count_frames", "h264.mp4"][..],
            "option -count_frames is not supported",
        ),
    ] {
        let ran = run(vfs(clips), args, b"");
        assert_eq!(ran.status, Status::Exited(1), "{args:?}");
        assert!(
            text(&ran.stderr).contains(says),
            "{args:?}: {}",
            text(&ran.stderr)
        );
    }
    // An existing output without -y, as ffmpeg without a terminal: refused.
    let mut v = vfs(clips);
    v.write_file(&format!("{DIR}/grab.png"), b"old").unwrap();
    let ran = run(
        v,
        &["ffmpeg", "-i", "h264.mp4", "-frames:v", "1", "grab.png"],
        b"",
    );
    assert_eq!(ran.status, Status::Exited(1));
    assert!(
        text(&ran.stderr).contains("already exists"),
        "{}",
        text(&ran.stderr)
    );
    assert_eq!(
        ran.vfs.read_file(&format!("{DIR}/grab.png")).unwrap(),
        b"old"
    );
}

#[test]
fn hostile_inputs_are_errors_never_crashes() {
    let Some(clips) = &*CLIPS else { return };
    let mut cases: Vec<(&str, Vec<u8>, &str)> = vec![
        // A picture far larger than the decoder accepts.
        (
            "huge.mkv",
            b"YUV4MPEG2 W9000 H9000 F30:1 Ip A1:1 C420jpeg\nFRAME\n".to_vec(),
            "larger than",
        ),
        (
            "garbage.mp4",
            b"this is not a video at all".repeat(100),
            "Invalid data",
        ),
        ("empty.webm", Vec::new(), ""),
    ];
    // A real clip with its middle overwritten.
    let mut damaged = std::fs::read(clips.path("h264.mp4")).unwrap();
    let mid = damaged.len() / 3;
    for (i, b) in damaged[mid..mid + 200_000].iter_mut().enumerate() {
        *b = (i * 7919 % 251) as u8;
    }
    cases.push(("damaged.mp4", damaged, ""));
    for (name, bytes, says) in cases {
        let mut v = vfs(clips);
        v.write_file(&format!("{DIR}/{name}"), &bytes).unwrap();
        v.create_dir_all("/out").unwrap();
        for args in [
            vec!["ffmpeg", "-y", "-i", name, "-vf", "fps=5", "/out/f%d.png"],
            vec!["ffprobe", "-v", "error", "-show_streams", name],
        ] {
            let ran = run(v.clone(), &args, b"");
            let Status::Exited(code) = ran.status else {
                panic!(
                    "{args:?} did not exit: {:?} {}",
                    ran.status,
                    text(&ran.stderr)
                );
            };
            if code != 0 {
                assert!(
                    text(&ran.stderr).contains(says),
                    "{args:?}: {}",
                    text(&ran.stderr)
                );
            }
            // ffprobe reads headers only: a huge picture size is just printed.
            if name != "damaged.mp4" && (args[0] == "ffmpeg" || name != "huge.mkv") {
                assert_ne!(code, 0, "{args:?} accepted {name}");
            }
        }
        let request = json!({"args": {"path": name}, "state": {"cwd": DIR}});
        let ran = run(v, &[], request.to_string().as_bytes());
        assert_eq!(
            ran.status,
            Status::Exited(0),
            "ReadMedia {name}: {}",
            text(&ran.stderr)
        );
        let response: Value = serde_json::from_slice(&ran.stdout).unwrap();
        assert!(
            response["output"].as_str().unwrap().contains("frame_count"),
            "{response}"
        );
    }
    // More frames than one command may write: an error, after the first thousand.
    let mut v = vfs(clips);
    v.create_dir_all("/out").unwrap();
    let ran = run(
        v,
        &[
            "ffmpeg",
            "-i",
            "vp9.webm",
            "-vf",
            "fps=120,scale=16:16",
            "/out/f%d.jpg",
        ],
        b"",
    );
    assert_eq!(ran.status, Status::Exited(1), "{}", text(&ran.stderr));
    assert!(
        text(&ran.stderr).contains("at most 1000 frames"),
        "{}",
        text(&ran.stderr)
    );
}

fn base64_decode(data: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap()
}

/// The `ffmpeg` command's frame-rate sync for image sequences: constant rate with duplicates
/// (`select` without `-vsync vfr`, `-r`, an output start off the frame grid) for a file with
/// several streams, no initial duplicates for a file with one (`vscfr`), and `-vsync`.
#[test]
fn frame_rate_sync_equals_native_ffmpeg() {
    let Some(clips) = &*CLIPS else { return };
    let cases: [(&[&str], &[&str]); 6] = [
        (&[], &["-vf", "select=eq(n\\,45)"]),
        (&[], &["-vf", "select=eq(n\\,45)", "-vsync", "vfr"]),
        (&[], &["-r", "1"]),
        (&["-ss", "2"], &["-t", "3", "-r", "2"]),
        (&[], &["-ss", "3", "-to", "5.5", "-vf", "fps=1.5"]),
        (&["-ss", "1.25"], &["-frames:v", "3"]),
    ];
    for clip in ["h264.mp4", "video_only.mp4"] {
        for (pre, post) in cases {
            let (native, ours, dir) = both_ffmpeg(clips, clip, pre, post, "f_%04d.png");
            assert_same_frames(
                &format!("{clip} {pre:?} {post:?}"),
                &native,
                &ours,
                dir.path(),
            );
        }
    }
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
