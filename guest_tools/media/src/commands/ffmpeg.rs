//! `ffmpeg` (the subset of [`crate::cli::ffmpeg`]): frames of one input written as images.

use super::{Ran, resolve};
use crate::cli::ffmpeg::{ImageKind, frame_name, parse};
use crate::encode;
use crate::extract::{self, Plan};
use crate::ff::input::Input;

/// Runs `ffmpeg ARGS` in `cwd`.
pub fn run(args: &[String], cwd: &str) -> Ran {
    let mut ran = Ran::default();
    let job = match parse(args) {
        Ok(job) => job,
        Err(e) => {
            ran.stderr = format!("{e}\n");
            ran.status = 1;
            return ran;
        }
    };
    for w in &job.warnings {
        ran.stderr.push_str(w);
        ran.stderr.push('\n');
    }
    let output = resolve(cwd, &job.output);
    if !job.overwrite && std::fs::metadata(&output).is_ok() {
        ran.stderr.push_str(&format!(
            "File '{}' already exists. Overwrite? [y/N] Not overwriting - exiting\n",
            job.output
        ));
        ran.status = 1;
        return ran;
    }
    let mut input = match Input::open(&resolve(cwd, &job.input)) {
        Ok(i) => i,
        Err(e) => {
            let reason = e.rsplit_once(": ").map_or(e.as_str(), |(_, r)| r);
            ran.stderr.push_str(&format!("{}: {reason}\n", job.input));
            ran.status = 1;
            return ran;
        }
    };
    let rate = match job.rate.as_deref().map(parse_rate).transpose() {
        Ok(rate) => rate,
        Err(e) => {
            ran.stderr.push_str(&format!("{e}\n"));
            ran.status = 1;
            return ran;
        }
    };
    let plan = Plan {
        input_window: job.input_window,
        output_window: job.output_window,
        filters: job.filters.as_deref(),
        max_frames: job.max_frames.unwrap_or(u64::MAX),
        rate,
        sync: job.sync,
    };
    let mut number = 0u64;
    let written = extract::extract(&mut input, &plan, |pic| {
        number += 1;
        let name = match frame_name(&output, number) {
            Some(name) => name,
            None if number == 1 || job.update => output.clone(),
            None => {
                return Err(
                    "Cannot write more than one file with the same name. Are you \
                            missing the -update option or a sequence pattern?"
                        .into(),
                );
            }
        };
        let bytes = match job.kind {
            ImageKind::Png => encode::png(pic.width, pic.height, &pic.rgb)?,
            ImageKind::Jpeg => encode::jpeg(
                pic.width,
                pic.height,
                &pic.rgb,
                encode::jpeg_quality(job.quality),
            )?,
        };
        std::fs::write(&name, bytes).map_err(|e| format!("{name}: {e}"))
    });
    match written {
        Ok(0) => ran.stderr.push_str(
            "Output file is empty, nothing was encoded (check -ss / -t / -frames parameters if used)\n",
        ),
        Ok(_) => {}
        Err(e) => {
            ran.stderr.push_str(&format!("{e}\n"));
            ran.status = 1;
        }
    }
    ran
}

/// A frame rate as FFmpeg reads `-r` (`25`, `30000/1001`, `0.5`, `ntsc`).
fn parse_rate(text: &str) -> Result<(i64, i64), String> {
    let c = crate::ff::c_string(text)?;
    let mut rate = ffmpeg_wasi::avfilter::AVRational { num: 0, den: 0 };
    // SAFETY: a valid C string and an output rational.
    let ret = unsafe { crate::ff::sys::av_parse_video_rate(&mut rate, c.as_ptr()) };
    if ret < 0 || rate.num <= 0 || rate.den <= 0 {
        return Err(format!("Invalid framerate value: {text}"));
    }
    Ok((i64::from(rate.num), i64::from(rate.den)))
}
