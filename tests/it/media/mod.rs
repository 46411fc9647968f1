//! Differential tests of the media component (`guest_tools/media`) against native FFmpeg, on
//! clips made here with FFmpeg's `testsrc2` (H.264 + AAC in MP4, VP9 + Vorbis in WebM; the
//! WASI build has no Opus decoder, so Opus streams would lack their sample format): the
//! `ffprobe` JSON ([`ffprobe`]), frame grabs, filtered extractions and the frame-rate sync
//! (frame counts, pixels by PSNR against native FFmpeg's frames at the same timestamps;
//! [`ffmpeg`]), ReadMedia against the `ffmpeg` run of Claw-Eval's sandbox server
//! ([`readmedia`]), and hostile inputs ending as errors ([`hostile`]). Without native `ffmpeg`
//! and `ffprobe` each test prints `SKIPPED:` and passes.

mod ffmpeg;
mod ffprobe;
mod hostile;
mod pdf;
mod readmedia;
mod tools;
mod trial;

use crate::common;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

use clawrun::sandbox::{Mount, Program, RunConfig, RunOutcome, Status};
use clawrun::vfs::Vfs;
use common::SANDBOX;
use serde_json::Value;

/// Where the clips live inside the sandbox (and the commands' working directory).
pub(super) const DIR: &str = "/workspace";

/// PSNR (dB) above which two renderings are the same frame: adjacent frames of `testsrc2`
/// differ by about 17 dB, the same frame through two FFmpeg builds by about 50.
pub(super) const SAME_FRAME_DB: f64 = 40.0;

/// The same floor for frames Claw-Eval's `ffmpeg` run wrote as JPEG.
pub(super) const SAME_FRAME_JPEG_DB: f64 = 30.0;

/// Fuel of one command: far above what these clips need (a few 1e9), so a test never ends on
/// fuel.
pub(super) const FUEL: u64 = 400_000_000_000;

pub(super) struct Clips {
    pub(super) dir: tempfile::TempDir,
}

impl Clips {
    pub(super) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// The two clips, made once; `None` (after printing why) without native FFmpeg.
pub(super) static CLIPS: LazyLock<Option<Clips>> = LazyLock::new(|| {
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

pub(super) const CLIP_NAMES: [&str; 2] = ["h264.mp4", "vp9.webm"];

pub(super) static MEDIA: LazyLock<Program> = LazyLock::new(|| {
    SANDBOX
        .load(clawrun::tools::media_component())
        .expect("loading the media component")
});

pub(super) fn vfs(clips: &Clips) -> Vfs {
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
pub(super) fn run(vfs: Vfs, args: &[&str], stdin: &[u8]) -> RunOutcome {
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

pub(super) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Native `ffmpeg ARGS` in `dir`; its stderr on failure.
pub(super) fn native_ffmpeg(dir: &Path, args: &[&str]) -> Result<(), String> {
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
pub(super) fn psnr(a: &Path, b: &Path) -> f64 {
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
pub(super) fn size(path: &Path) -> (u64, u64) {
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
pub(super) fn export(vfs: &Vfs, dir: &str, to: &Path) -> Vec<String> {
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
pub(super) fn both_ffmpeg(
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
pub(super) fn assert_same_frames(case: &str, native: &[String], ours: &[String], dir: &Path) {
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

/// `data` decoded from base64.
pub(super) fn base64_decode(data: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap()
}
