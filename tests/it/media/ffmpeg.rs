//! The `ffmpeg` subset against native ffmpeg: frame grabs, filters and time windows, the
//! frame-rate sync, and the options it does not support.

use clawrun::sandbox::Status;

use super::*;

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
