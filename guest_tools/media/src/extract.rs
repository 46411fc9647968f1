//! Frames out of a video as the `ffmpeg` command gets them: the input seeked to `-ss` (the
//! last keyframe before it, then exact: frames before the start are trimmed) with timestamps
//! shifted to start at zero, decoded, filtered through `trim` (input `-t`), the `-vf` chain,
//! `trim` (output `-ss`/`-t`) and a conversion to RGB24, and cut at `-frames:v`. The filters
//! are FFmpeg's own, so `fps`'s choice of frames and its end are FFmpeg's.

use ffmpeg_wasi::avformat as f;

use crate::cli::ffmpeg::Window;
use crate::ff::decoder::{Decoder, Received};
use crate::ff::frame::{Frame, Packet};
use crate::ff::graph::{Graph, Pulled, Source};
use crate::ff::input::{Input, NOPTS};
use crate::limits::{self, MAX_PACKETS};
use crate::time::seconds_text;

/// What to extract.
#[derive(Clone, Debug)]
pub struct Plan<'a> {
    /// Input `-ss`/`-t`.
    pub input_window: Window,
    /// Output `-ss`/`-t`.
    pub output_window: Window,
    /// The `-vf` chain.
    pub filters: Option<&'a str>,
    /// `-frames:v`.
    pub max_frames: u64,
}

/// One extracted picture.
pub struct Picture {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// RGB24 rows, tightly packed.
    pub rgb: Vec<u8>,
    /// Its timestamp after filtering, in seconds from the (shifted) start.
    pub seconds: f64,
}

/// The filter chain of `plan`, as the `ffmpeg` command assembles it.
pub fn chain(plan: &Plan<'_>) -> Result<String, String> {
    let mut parts = Vec::new();
    if let Some(t) = trim(
        plan.input_window.start.map(|_| 0),
        plan.input_window.duration,
    ) {
        parts.push(t);
    }
    if let Some(user) = plan.filters.map(str::trim).filter(|f| !f.is_empty()) {
        if user.contains([';', '[']) {
            return Err(format!(
                "filter graph '{user}': several chains or [labels] are not supported by \
                 clawrun's ffmpeg (one -vf chain: fps, scale, crop, trim, setpts, select, ...)"
            ));
        }
        parts.push(user.to_owned());
    }
    // The output's end is not a `trim` duration (counted from the first frame kept) but the
    // `ffmpeg` command's recording time, counted from the output's start: see `extract`.
    if let Some(t) = trim(plan.output_window.start, None) {
        parts.push(t);
    }
    parts.push("format=rgb24".into());
    Ok(parts.join(","))
}

fn trim(start: Option<i64>, duration: Option<i64>) -> Option<String> {
    let mut opts = Vec::new();
    if let Some(s) = start {
        opts.push(format!("starti={}", seconds_text(s)));
    }
    if let Some(d) = duration {
        opts.push(format!("durationi={}", seconds_text(d)));
    }
    (!opts.is_empty()).then(|| format!("trim={}", opts.join(":")))
}

/// Extracts the frames `plan` asks for from `input`, giving each to `sink` as it comes (so
/// memory holds one picture at a time); returns how many were given.
pub fn extract(
    input: &mut Input,
    plan: &Plan<'_>,
    mut sink: impl FnMut(Picture) -> Result<(), String>,
) -> Result<u64, String> {
    let index = input.best_video().ok_or("the file has no video stream")?;
    let (time_base, frame_rate) = {
        let st = input.stream(index);
        // SAFETY: a live stream's parameters.
        let par = unsafe { &*st.codecpar };
        limits::check_dimensions(par.width.into(), par.height.into())?;
        // SAFETY: a live input and stream.
        let rate = unsafe {
            f::av_guess_frame_rate(
                input.ctx() as *const _ as *mut _,
                input.streams()[index],
                std::ptr::null_mut(),
            )
        };
        (st.time_base, rate)
    };
    let chain = chain(plan)?;
    let max_frames = plan.max_frames.min(limits::MAX_FRAMES);
    if max_frames == 0 {
        return Ok(0);
    }
    // The `ffmpeg` command's timestamp offset: the file's start (and -ss) becomes zero.
    let file_start = match input.ctx().start_time {
        NOPTS => 0,
        t => t,
    };
    let start = plan.input_window.start.unwrap_or(0) + file_start;
    if plan.input_window.start.is_some() {
        let mut target = start;
        // SAFETY: a live input's format descriptor and streams.
        let seek_to_pts =
            unsafe { (*input.ctx().iformat).flags } as u32 & f::AVFMT_SEEK_TO_PTS != 0;
        let delayed = input
            .streams()
            .iter()
            // SAFETY: live streams.
            .any(|s| unsafe { (*(**s).codecpar).video_delay } != 0);
        if !seek_to_pts && delayed {
            target -= 3 * 1_000_000 / 23;
        }
        // As `ffmpeg`, a failed seek is not fatal: reading starts where it is.
        let _ = input.seek(target);
    }
    // SAFETY: pure arithmetic.
    let offset = unsafe {
        f::av_rescale_q(
            -start,
            f::AVRational {
                num: 1,
                den: 1_000_000,
            },
            time_base,
        )
    };

    let stream = input.stream(index);
    let mut decoder = Decoder::open(stream)?;
    let mut packet = Packet::new()?;
    let mut frame = Frame::new()?;
    let mut filtered = Frame::new()?;
    let mut graph: Option<Graph> = None;
    let mut given = 0u64;
    let mut end_pts = NOPTS;
    let mut packets = 0u64;
    let mut input_done = false;
    let mut decode_errors = 0u64;
    let mut last_error: Option<String> = None;

    let mut drain = |graph: &mut Graph, given: &mut u64| -> Result<bool, String> {
        loop {
            match graph.pull(&mut filtered)? {
                Pulled::Frame => {
                    let tb = graph.out_time_base();
                    let f = filtered.raw();
                    let seconds = if f.pts == NOPTS || tb.1 == 0 {
                        0.0
                    } else {
                        f.pts as f64 * f64::from(tb.0) / f64::from(tb.1)
                    };
                    let (w, h, rgb) = filtered.rgb24();
                    filtered.unref();
                    let since_start = seconds - plan.output_window.start.unwrap_or(0) as f64 / 1e6;
                    if plan
                        .output_window
                        .duration
                        .is_some_and(|d| since_start >= d as f64 / 1e6)
                    {
                        return Ok(true);
                    }
                    sink(Picture {
                        width: w,
                        height: h,
                        rgb,
                        seconds,
                    })?;
                    *given += 1;
                    if *given >= max_frames {
                        return Ok(true);
                    }
                }
                Pulled::Again => return Ok(false),
                Pulled::End => return Ok(true),
            }
        }
    };

    'outer: loop {
        if !input_done {
            packet.unref();
            if input.read(&mut packet)? {
                packets += 1;
                if packets > MAX_PACKETS {
                    return Err(format!(
                        "the input holds more than {MAX_PACKETS} packets before the frames \
                         asked for: giving up"
                    ));
                }
                if packet.raw().stream_index as usize != index {
                    continue;
                }
                let p = packet.raw_mut();
                if p.pts != NOPTS {
                    p.pts += offset;
                }
                if p.dts != NOPTS {
                    p.dts += offset;
                }
                // As `ffmpeg`, a packet that does not decode is skipped, not fatal.
                if let Err(e) = decoder.send(Some(&packet)) {
                    decode_errors += 1;
                    last_error = Some(e);
                }
            } else {
                input_done = true;
                decoder.send(None)?;
            }
        }
        loop {
            let received = match decoder.receive(&mut frame) {
                Ok(r) => r,
                Err(e) => {
                    decode_errors += 1;
                    last_error = Some(e);
                    if input_done {
                        Received::End
                    } else {
                        break;
                    }
                }
            };
            match received {
                Received::Frame => {
                    let raw = frame.raw();
                    limits::check_dimensions(raw.width.into(), raw.height.into())?;
                    if raw.pts != NOPTS {
                        let duration = if raw.duration > 0 { raw.duration } else { 0 };
                        end_pts = end_pts.max(raw.pts + duration);
                    }
                    if graph.is_none() {
                        let source = Source {
                            width: raw.width,
                            height: raw.height,
                            pix_fmt: raw.format,
                            time_base: (time_base.num, time_base.den),
                            sar: (raw.sample_aspect_ratio.num, raw.sample_aspect_ratio.den),
                            frame_rate: (frame_rate.num, frame_rate.den),
                        };
                        graph = Some(Graph::new(&source, &chain)?);
                    }
                    let g = graph.as_mut().expect("graph made above");
                    g.push(&frame)?;
                    frame.unref();
                    if drain(g, &mut given)? {
                        break 'outer;
                    }
                }
                Received::Again => break,
                Received::End => {
                    if let Some(g) = graph.as_mut() {
                        g.close(end_pts)?;
                        drain(g, &mut given)?;
                    }
                    break 'outer;
                }
            }
        }
    }
    if given >= limits::MAX_FRAMES && plan.max_frames > limits::MAX_FRAMES {
        return Err(format!(
            "stopped after {given} frames: at most {} frames per command (use -frames:v, \
             -t or a lower fps)",
            limits::MAX_FRAMES
        ));
    }
    match last_error {
        Some(e) if given == 0 => Err(format!(
            "no frame could be extracted: {decode_errors} packet(s) did not decode (last: {e})"
        )),
        _ => Ok(given),
    }
}
