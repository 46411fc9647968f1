//! `ReadMedia` on a video inside the sandbox: probe, extract, encode.

use clawrun_tool_protocol::{Image, Output, State};

use super::{Args, Metadata, SHOWN_QUALITY, detect, job, model_text, shown, shown_size, timestamp};
use crate::extract::{self, Plan};
use crate::ff::input::Input;
use crate::ff::resize::resize;
use crate::pyjson::Json;
use crate::{encode, probe};

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

/// The server's answer for `args` on the file at `path`.
pub fn answer(args: &Args, path: &str, keep: Keep) -> Result<Answer, String> {
    if std::fs::metadata(path).is_err() {
        let missing = format!("File not found: {}", args.path);
        return Ok(Answer {
            body: vec![("error".into(), Json::Str(missing))],
            images: Vec::new(),
        });
    }
    let kind = detect(path, &args.media_type);
    if kind != "video" {
        return Err(format!(
            "ReadMedia: {kind} files are not read by the video backend (media_type '{}')",
            args.media_type
        ));
    }
    let mut input = Input::open(path).ok();
    let metadata = input
        .as_ref()
        .map(|i| Metadata::of(&probe::fill::document(i, path)))
        .unwrap_or_default();
    let mut images = Vec::new();
    if let (Some(input), Some(job)) = (input.as_mut(), job(args, path, metadata.duration)) {
        let plan = Plan {
            input_window: job.input_window,
            output_window: job.output_window,
            filters: job.filters.as_deref(),
            max_frames: job.max_frames.unwrap_or(u64::MAX),
            rate: None,
            sync: job.sync,
        };
        let extracted = extract::extract(input, &plan, |pic| {
            images.push(match keep {
                Keep::Png => encode::png(pic.width, pic.height, &pic.rgb)?,
                Keep::Shown => {
                    let (w, h) = shown_size(pic.width, pic.height);
                    let rgb = if (w, h) == (pic.width, pic.height) {
                        pic.rgb
                    } else {
                        resize(pic.width, pic.height, &pic.rgb, w, h)?
                    };
                    encode::jpeg(w, h, &rgb, SHOWN_QUALITY)?
                }
            });
            Ok(())
        });
        // As Claw-Eval, whose ffmpeg run is not checked: a failed extraction has no frames.
        if extracted.is_err() {
            images.clear();
        }
    }
    let frames = (0..images.len())
        .map(|i| {
            Json::Object(vec![
                ("index".into(), Json::Int(i as i64)),
                ("timestamp_s".into(), Json::Float(timestamp(args, i))),
                ("mime_type".into(), Json::Str("image/png".into())),
            ])
        })
        .collect();
    let body = vec![
        ("media_type".into(), Json::Str("video".into())),
        ("metadata".into(), metadata.json()),
        ("frames".into(), Json::List(frames)),
        (
            "text_summary".into(),
            Json::Str(metadata.summary(images.len())),
        ),
    ];
    Ok(Answer { body, images })
}

/// The tool: the model's text and the sampled frames as JPEG images.
pub fn read_media(args: Args, state: &State) -> Result<Output, String> {
    let path = state.resolve(&args.path).to_string();
    let Answer { body, images } = answer(&args, &path, Keep::Shown)?;
    let text = model_text(&body, images.len());
    Ok(Output {
        text,
        images: shown(images.len())
            .into_iter()
            .map(|i| Image::from_bytes("image/jpeg", &images[i]))
            .collect(),
        exit_code: None,
    })
}
