//! Hostile inputs: errors, bounded work, never a trap of the sandbox.

use clawrun::sandbox::Status;
use serde_json::{Value, json};

use super::*;

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
    // Filters that blow a picture up, or loop one forever: errors, bounded.
    for (chain, says) in [
        ("scale=20000:20000", "larger than"),
        ("loop=loop=-1:size=5,scale=16:16", "at most 1000 frames"),
    ] {
        let mut v = vfs(clips);
        v.create_dir_all("/out").unwrap();
        let ran = run(
            v,
            &["ffmpeg", "-i", "h264.mp4", "-vf", chain, "/out/f%d.png"],
            b"",
        );
        assert_eq!(
            ran.status,
            Status::Exited(1),
            "{chain}: {}",
            text(&ran.stderr)
        );
        assert!(
            text(&ran.stderr).contains(says),
            "{chain}: {}",
            text(&ran.stderr)
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
