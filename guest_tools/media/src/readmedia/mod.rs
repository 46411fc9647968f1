//! `ReadMedia` on a video, as Claw-Eval's sandbox server does it (`_read_video` in
//! `sandbox/server.py`) and its dispatcher shows it to the model (`sandbox_dispatcher.py`):
//!
//! - metadata from `ffprobe -show_format -show_streams`: the first video stream's duration
//!   (else the format's), `r_frame_rate` as a number rounded to 2 places, width, height, codec;
//! - frames as `ffmpeg -y [-ss START] -i FILE [-t END-START] -vf fps=F[,scale=...] -frames:v N`
//!   extracts them, the numbers written as Python writes floats, each frame stamped
//!   `round(START + idx / max(F, 0.001), 2)`; a failed extraction gives no frames, not an error;
//! - the model's text: the server's answer without `frames`, plus `frame_count`,
//!   `frames_shown` (at most 64, sampled uniformly) and `sampling`; the frames shown go as
//!   JPEG, quality 60, long edge at most 1280.
//!
//! This module holds the rules; `run` (inside the sandbox) decodes.

pub mod image;
pub mod pdf;
#[cfg(target_family = "wasm")]
pub mod run;

use serde::Deserialize;
use serde_json::Value;

use crate::cli::ffmpeg::{self, Job};
use crate::probe::doc::{Doc, Value as ProbeValue};
use crate::pyjson::{Json, float_repr, round2};

/// Images shown to the model per call (`MediaConfig.max_images_per_turn`).
pub const MAX_SHOWN: usize = 64;
/// JPEG quality of the images shown (`MediaConfig.tool_image_quality`).
pub const SHOWN_QUALITY: u8 = 60;
/// Longest edge of the images shown (`MediaConfig.tool_image_max_dimension`).
pub const SHOWN_MAX_DIMENSION: u32 = 1280;

/// File extensions taken for videos (`_VIDEO_EXTS`).
pub const VIDEO_EXTS: [&str; 8] = [
    ".mp4", ".avi", ".mov", ".mkv", ".webm", ".flv", ".wmv", ".m4v",
];

/// How each extracted frame is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// As PNG, the server's `image_b64`.
    Png,
    /// As the JPEG the model is shown (quality 60, long edge <= 1280).
    Shown,
}

/// The server's answer (`frames` without their images) and each frame's encoded image.
pub struct Answer {
    /// The answer's entries, in Claw-Eval's order.
    pub body: Vec<(String, Json)>,
    /// Frame `i`'s image.
    pub images: Vec<Vec<u8>>,
}

/// `ReadMedia`'s arguments, with Claw-Eval's defaults and pydantic's lax number parsing.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Args {
    /// The file.
    pub path: String,
    /// `auto`, `image`, `video` or `pdf`.
    #[serde(default = "auto")]
    pub media_type: String,
    /// Frames to extract.
    #[serde(default = "eight", deserialize_with = "lax_int")]
    pub max_frames: i64,
    /// Frames per second to extract.
    #[serde(default = "one", deserialize_with = "lax_float")]
    pub fps: f64,
    /// Where to start, in seconds.
    #[serde(default, deserialize_with = "lax_float")]
    pub start_time: f64,
    /// Where to end, in seconds (the video's duration when absent).
    #[serde(default, deserialize_with = "lax_opt_float")]
    pub end_time: Option<f64>,
    /// `WxH`: frames are scaled so that neither side exceeds the larger number.
    #[serde(default)]
    pub screen_size: Option<String>,
    /// A PDF's pages: `all`, `N`, `A-B` or `A,B,C` (the server's request field).
    #[serde(default = "all_pages")]
    pub pdf_pages: String,
    /// A PDF's rendering resolution (the server's request field).
    #[serde(default = "hundred", deserialize_with = "lax_int")]
    pub dpi: i64,
}

fn auto() -> String {
    "auto".into()
}
fn eight() -> i64 {
    8
}
fn one() -> f64 {
    1.0
}
fn all_pages() -> String {
    "all".into()
}
fn hundred() -> i64 {
    100
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

fn lax_float<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v = Value::deserialize(d)?;
    number(&v)
        .ok_or_else(|| serde::de::Error::custom(format!("Input should be a valid number, got {v}")))
}

fn lax_opt_float<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = Value::deserialize(d)?;
    if v.is_null() {
        return Ok(None);
    }
    number(&v)
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom(format!("Input should be a valid number, got {v}")))
}

fn lax_int<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
    let v = Value::deserialize(d)?;
    let n = match &v {
        Value::Number(n) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    };
    n.ok_or_else(|| serde::de::Error::custom(format!("Input should be a valid integer, got {v}")))
}

/// The kind of media `path` is taken for (`_detect_media_type`).
pub fn detect(path: &str, hint: &str) -> String {
    if hint != "auto" {
        return hint.to_owned();
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = match name.rfind('.') {
        Some(i) if i > 0 => name[i..].to_ascii_lowercase(),
        _ => String::new(),
    };
    if ext == ".pdf" {
        "pdf".into()
    } else if VIDEO_EXTS.contains(&ext.as_str()) {
        "video".into()
    } else {
        "image".into()
    }
}

/// The larger number of `WxH` (`_parse_screen_size`); `None` when absent or malformed.
pub fn screen_max(size: Option<&str>) -> Option<i64> {
    let size = size.filter(|s| !s.is_empty())?.to_lowercase();
    let parts: Vec<&str> = size.split('x').collect();
    let [w, h] = parts[..] else { return None };
    let int = |s: &str| {
        s.trim()
            .trim_start_matches('+')
            .replace('_', "")
            .parse::<i64>()
            .ok()
    };
    Some(int(w)?.max(int(h)?))
}

/// The video's metadata as `_read_video` takes it from ffprobe.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    /// `duration_s`.
    pub duration: Option<f64>,
    /// `r_frame_rate` as a number (unrounded).
    pub fps: Option<f64>,
    /// Width.
    pub width: Option<i64>,
    /// Height.
    pub height: Option<i64>,
    /// Codec name.
    pub codec: Option<String>,
}

impl Metadata {
    /// The metadata of the first video stream of `doc`.
    pub fn of(doc: &Doc) -> Metadata {
        let mut m = Metadata::default();
        if let Some(s) = doc.streams.iter().find(|s| s.kind == 'v') {
            let get = |k: &str| s.entries.iter().find(|(key, _)| key == k).map(|(_, v)| v);
            m.duration = get("duration")
                .and_then(ProbeValue::number)
                .filter(|d| *d != 0.0);
            m.codec = get("codec_name").map(ProbeValue::text);
            m.width = get("width").and_then(ProbeValue::number).map(|w| w as i64);
            m.height = get("height").and_then(ProbeValue::number).map(|h| h as i64);
            if let Some(ProbeValue::Str(rate)) = get("r_frame_rate")
                && let Some((n, d)) = rate.split_once('/')
                && let (Ok(n), Ok(d)) = (n.parse::<f64>(), d.parse::<f64>())
            {
                m.fps = (d != 0.0).then(|| n / d);
            }
        }
        if m.duration.is_none() {
            m.duration = doc.format_value("duration").and_then(ProbeValue::number);
        }
        m
    }

    /// The `metadata` object of the answer.
    pub fn json(&self) -> Json {
        let f = |v: Option<f64>| v.map_or(Json::Null, Json::Float);
        let i = |v: Option<i64>| v.map_or(Json::Null, Json::Int);
        Json::Object(vec![
            ("duration_s".into(), f(self.duration)),
            ("fps".into(), f(self.fps.filter(|x| *x != 0.0).map(round2))),
            ("width".into(), i(self.width)),
            ("height".into(), i(self.height)),
            (
                "codec".into(),
                self.codec.clone().map_or(Json::Null, Json::Str),
            ),
        ])
    }

    /// `text_summary` for `frames` extracted.
    pub fn summary(&self, frames: usize) -> String {
        let dur = match self.duration {
            Some(d) if d != 0.0 => format!("{d:.1}s"),
            _ => "unknown".into(),
        };
        let dim = match (self.width, self.height) {
            (Some(w), Some(h)) if w != 0 && h != 0 => format!("{w}x{h}"),
            _ => "unknown".into(),
        };
        let fps = match self.fps {
            Some(f) if f != 0.0 => format!("{f:.0}fps"),
            _ => "unknown".into(),
        };
        format!("Video: {dur}, {dim}, {fps}. Extracted {frames} frames.")
    }
}

/// The `ffmpeg` command line `_read_video` runs (without `-y`'s output folder: frames are
/// written as `frame_%04d.jpg`).
pub fn command(args: &Args, input: &str, duration: Option<f64>) -> Vec<String> {
    let mut cmd = vec!["-y".to_owned()];
    let start = args.start_time;
    let end = args.end_time.or(duration);
    if start > 0.0 {
        cmd.extend(["-ss".into(), float_repr(start)]);
    }
    cmd.extend(["-i".into(), input.to_owned()]);
    if let Some(end) = end {
        cmd.extend(["-t".into(), float_repr(end - start)]);
    }
    let fps = float_repr(args.fps);
    cmd.extend(["-vf".into(), format!("fps={fps}")]);
    if let Some(d) = screen_max(args.screen_size.as_deref()).filter(|d| *d != 0) {
        cmd.extend([
            "-vf".into(),
            format!(
                "fps={fps},scale='min({d},iw)':min'({d},ih)':force_original_aspect_ratio=decrease"
            ),
        ]);
    }
    cmd.extend([
        "-frames:v".into(),
        args.max_frames.to_string(),
        "frame_%04d.jpg".into(),
    ]);
    cmd
}

/// The extraction plan of `command`'s line; `None` where `ffmpeg` itself would fail (then
/// Claw-Eval returns no frames).
pub fn job(args: &Args, input: &str, duration: Option<f64>) -> Option<Job> {
    ffmpeg::parse(&command(args, input, duration)).ok()
}

/// Frame `index`'s `timestamp_s`.
pub fn timestamp(args: &Args, index: usize) -> f64 {
    round2(args.start_time + index as f64 / args.fps.max(0.001))
}

/// Indices of the frames shown to the model out of `total` (uniform sampling to 64).
pub fn shown(total: usize) -> Vec<usize> {
    if total <= MAX_SHOWN {
        (0..total).collect()
    } else {
        (0..MAX_SHOWN).map(|i| i * total / MAX_SHOWN).collect()
    }
}

/// The size an image is shown at: the long edge at most 1280, as PIL's resize computes it.
pub fn shown_size(width: u32, height: u32) -> (u32, u32) {
    let long = width.max(height);
    if long <= SHOWN_MAX_DIMENSION {
        return (width, height);
    }
    let scale = f64::from(SHOWN_MAX_DIMENSION) / f64::from(long);
    (
        ((f64::from(width) * scale) as u32).max(1),
        ((f64::from(height) * scale) as u32).max(1),
    )
}

/// The text the model reads: the server's answer without `frames`, plus the counts.
pub fn model_text(body: &[(String, Json)], frame_count: usize) -> String {
    let mut entries: Vec<(String, Json)> = body
        .iter()
        .filter(|(k, _)| k != "frames")
        .cloned()
        .collect();
    let shown = frame_count.min(MAX_SHOWN);
    entries.push(("frame_count".into(), Json::Int(frame_count as i64)));
    entries.push(("frames_shown".into(), Json::Int(shown as i64)));
    if frame_count > shown {
        entries.push((
            "sampling".into(),
            Json::Str(format!("uniform ({shown} of {frame_count})")),
        ));
    }
    Json::Object(entries).dumps()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::doc::Stream;

    fn args(json: &str) -> Args {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn defaults_and_lax_numbers() {
        let a = args(r#"{"path": "v.mp4"}"#);
        assert_eq!(
            (a.max_frames, a.fps, a.start_time, a.end_time),
            (8, 1.0, 0.0, None)
        );
        let a = args(
            r#"{"path": "v.mp4", "max_frames": "4", "fps": 2, "start_time": "1.5", "end_time": null}"#,
        );
        assert_eq!((a.max_frames, a.fps, a.start_time), (4, 2.0, 1.5));
        assert!(serde_json::from_str::<Args>(r#"{"path": "v", "max_frames": 2.5}"#).is_err());
    }

    #[test]
    fn the_command_claw_eval_runs() {
        let a = args(
            r#"{"path": "v.mp4", "start_time": 2, "end_time": 10.5, "screen_size": "640x480"}"#,
        );
        assert_eq!(
            command(&a, "/w/v.mp4", Some(30.0)).join(" "),
            "-y -ss 2.0 -i /w/v.mp4 -t 8.5 -vf fps=1.0 -vf fps=1.0,scale='min(640,iw)':min'(640,ih)':\
             force_original_aspect_ratio=decrease -frames:v 8 frame_%04d.jpg"
        );
        let a = args(r#"{"path": "v.mp4"}"#);
        assert_eq!(
            command(&a, "v.mp4", Some(30.0)).join(" "),
            "-y -i v.mp4 -t 30.0 -vf fps=1.0 -frames:v 8 frame_%04d.jpg"
        );
        assert_eq!(
            command(&a, "v.mp4", None).join(" "),
            "-y -i v.mp4 -vf fps=1.0 -frames:v 8 frame_%04d.jpg"
        );
        let j = job(&a, "v.mp4", Some(30.0)).unwrap();
        assert_eq!(j.output_window.duration, Some(30_000_000));
        // end before start: ffmpeg refuses a negative -t, Claw-Eval returns no frames
        let a = args(r#"{"path": "v.mp4", "start_time": 5, "end_time": 2}"#);
        assert!(job(&a, "v.mp4", None).is_none());
    }

    #[test]
    fn media_types_and_screen_sizes() {
        assert_eq!(detect("/w/a.MP4", "auto"), "video");
        assert_eq!(detect("/w/a.pdf", "auto"), "pdf");
        assert_eq!(detect("/w/a.bin", "auto"), "image");
        assert_eq!(detect("/w/.mp4", "auto"), "image");
        assert_eq!(detect("/w/a.bin", "video"), "video");
        assert_eq!(screen_max(Some("1280x720")), Some(1280));
        assert_eq!(screen_max(Some("720X1280")), Some(1280));
        assert_eq!(screen_max(Some("big")), None);
        assert_eq!(screen_max(None), None);
    }

    #[test]
    fn metadata_summary_and_timestamps() {
        let doc = Doc {
            streams: vec![Stream {
                kind: 'v',
                entries: vec![
                    ("codec_name".into(), ProbeValue::Str("vp9".into())),
                    ("width".into(), ProbeValue::Int(1280)),
                    ("height".into(), ProbeValue::Int(720)),
                    ("r_frame_rate".into(), ProbeValue::Str("30000/1001".into())),
                ],
                ..Stream::default()
            }],
            format: crate::probe::doc::Format {
                entries: vec![("duration".into(), ProbeValue::Str("12.345000".into()))],
                tags: vec![],
            },
        };
        let m = Metadata::of(&doc);
        assert_eq!(m.duration, Some(12.345));
        assert_eq!(
            m.json().dumps(),
            r#"{"duration_s": 12.345, "fps": 29.97, "width": 1280, "height": 720, "codec": "vp9"}"#
        );
        assert_eq!(
            m.summary(3),
            "Video: 12.3s, 1280x720, 30fps. Extracted 3 frames."
        );
        let a = args(r#"{"path": "v", "fps": 3, "start_time": 1}"#);
        assert_eq!(timestamp(&a, 2), 1.67);
        let a = args(r#"{"path": "v", "fps": 0}"#);
        assert_eq!(timestamp(&a, 1), 1000.0);
    }

    #[test]
    fn sampling_and_sizes_shown() {
        assert_eq!(shown(3), vec![0, 1, 2]);
        let s = shown(100);
        assert_eq!(s.len(), 64);
        assert_eq!((s[0], s[1], s[63]), (0, 1, 98));
        assert_eq!(shown_size(1920, 1080), (1280, 720));
        assert_eq!(shown_size(1280, 720), (1280, 720));
        assert_eq!(shown_size(100, 5000), (25, 1280));
        let body = vec![
            ("media_type".into(), Json::Str("video".into())),
            ("frames".into(), Json::List(vec![])),
        ];
        assert_eq!(
            model_text(&body, 100),
            r#"{"media_type": "video", "frame_count": 100, "frames_shown": 64, "sampling": "uniform (64 of 100)"}"#
        );
    }
}
