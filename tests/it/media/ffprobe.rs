//! `ffprobe` against native ffprobe: the graders' JSON, `-show_entries` and the writers.

use std::process::Command;

use clawrun::sandbox::Status;
use serde_json::Value;

use super::*;

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

/// Audio files and a GIF: the whole document equals native ffprobe's.
#[test]
fn ffprobe_of_audio_and_gif_equals_native() {
    let Some(clips) = &*CLIPS else { return };
    let dir = clips.dir.path();
    let made: [(&str, &[&str]); 3] = [
        (
            "tone.wav",
            &["-f", "lavfi", "-i", "sine=frequency=440:duration=3"],
        ),
        (
            "tone.mp3",
            &[
                "-f",
                "lavfi",
                "-i",
                "sine=frequency=440:duration=3",
                "-c:a",
                "libmp3lame",
            ],
        ),
        (
            "anim.gif",
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc2=size=160x120:rate=10:duration=2",
            ],
        ),
    ];
    let mut v = vfs(clips);
    for (name, args) in made {
        let mut all = vec!["-y"];
        all.extend(args);
        all.push(name);
        native_ffmpeg(dir, &all).unwrap();
        v.write_file(
            &format!("{DIR}/{name}"),
            &std::fs::read(dir.join(name)).unwrap(),
        )
        .unwrap();
    }
    for (name, _) in made {
        let args = [
            "-v",
            "quiet",
            "-print_format",
            "json",
            "-show_format",
            "-show_streams",
            name,
        ];
        let native = Command::new("ffprobe")
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap();
        let mut ours_args = vec!["ffprobe"];
        ours_args.extend(args);
        let ours = run(v.clone(), &ours_args, b"");
        assert_eq!(ours.status, Status::Exited(0), "{}", text(&ours.stderr));
        let n: Value = serde_json::from_slice(&native.stdout).unwrap();
        let o: Value = serde_json::from_slice(&ours.stdout).unwrap();
        assert_eq!(o, n, "{name}");
    }
}
