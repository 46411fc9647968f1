//! `ReadMedia` inside the sandbox: a video probed, its frames extracted and encoded; a picture
//! or a PDF handed to [`image`] or the PDF answer.

use clawrun_tool_protocol::{Image, Output, State};

use super::{
    Answer, Args, Keep, Metadata, SHOWN_QUALITY, detect, image, job, model_text, shown, shown_size,
    timestamp,
};
use crate::extract::{self, Plan};
use crate::ff::input::Input;
use crate::ff::resize::resize;
use crate::pyjson::Json;
use crate::{encode, probe};

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
    match kind.as_str() {
        "video" => {}
        "image" => {
            let bytes = std::fs::read(path).map_err(|e| format!("reading {}: {e}", args.path))?;
            return Ok(image::answer(args, path, &bytes, keep));
        }
        "pdf" => {
            let bytes = std::fs::read(path).map_err(|e| format!("reading {}: {e}", args.path))?;
            return Ok(super::pdf::answer(args, bytes, keep));
        }
        other => {
            return Ok(Answer {
                body: vec![(
                    "error".into(),
                    Json::Str(format!("Unsupported media type: {other}")),
                )],
                images: Vec::new(),
            });
        }
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
