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
use crate::sync::{Mode, Rational, Sync, float_pts};
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
    /// `-r` after the input: the output frame rate.
    pub rate: Option<Rational>,
    /// `-vsync`/`-fps_mode` (automatic when `None`).
    pub sync: Option<Mode>,
}

/// One extracted picture.
#[derive(Clone)]
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

    // The `ffmpeg` command's video sync, set up at the first filtered frame (it needs the
    // sink's frame rate).
    let mode = plan.sync.unwrap_or(if input.streams().len() == 1 {
        Mode::Vscfr
    } else {
        Mode::Cfr
    });
    let stream_rate = (i64::from(frame_rate.num), i64::from(frame_rate.den));
    let mut sync: Option<(Sync, Rational)> = None;
    let mut last: Option<Picture> = None;
    let mut drain = |graph: &mut Graph, given: &mut u64| -> Result<bool, String> {
        loop {
            let pulled = graph.pull(&mut filtered)?;
            if matches!(pulled, Pulled::Again) {
                return Ok(false);
            }
            let sink_tb = graph.out_time_base();
            let sink_tb = (i64::from(sink_tb.0), i64::from(sink_tb.1));
            let sink_rate = graph.out_frame_rate();
            let sink_rate = (i64::from(sink_rate.0), i64::from(sink_rate.1));
            let (sync, enc_tb) = sync.get_or_insert_with(|| {
                let rate = [plan.rate, Some(sink_rate), Some(stream_rate)]
                    .into_iter()
                    .flatten()
                    .find(|r| r.0 > 0 && r.1 > 0)
                    .unwrap_or((25, 1));
                let enc_tb = (rate.1, rate.0);
                let recording = plan.output_window.duration;
                (Sync::new(mode, enc_tb, max_frames, recording), enc_tb)
            });
            let enc_tb = *enc_tb;
            match pulled {
                Pulled::Frame => {
                    let f = filtered.raw();
                    let start = plan.output_window.start.unwrap_or(0);
                    let ipts = float_pts(f.pts, sink_tb, enc_tb, start);
                    let q = |r: Rational| r.0 as f64 / r.1 as f64;
                    let mut duration = 0.0;
                    if sink_rate.0 > 0 && sink_rate.1 > 0 {
                        duration = 1.0 / (q(sink_rate) * q(enc_tb));
                    }
                    duration = duration.min(1.0);
                    let own = (f.duration as f64 * q(sink_tb) / q(enc_tb)) as f32;
                    if plan.filters.is_none() && own.round_ties_even() > 0.0 {
                        duration = f64::from(own.round_ties_even());
                    }
                    let seconds = f.pts as f64 * q(sink_tb);
                    let (w, h, rgb) = filtered.rgb24();
                    filtered.unref();
                    let emit = sync.frame(ipts, duration);
                    let picture = Picture {
                        width: w,
                        height: h,
                        rgb,
                        seconds,
                    };
                    for i in 0..emit.total {
                        match (&last, i < emit.previous) {
                            (Some(previous), true) => sink(previous.clone())?,
                            _ => sink(picture.clone())?,
                        }
                        *given += 1;
                    }
                    last = Some(picture);
                }
                _ => {
                    let emit = sync.flush();
                    if let Some(previous) = &last {
                        for _ in 0..emit.previous {
                            sink(previous.clone())?;
                            *given += 1;
                        }
                    }
                }
            }
            if sync.done() || matches!(pulled, Pulled::End) {
                return Ok(true);
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
                        let made = Graph::new(&source, &chain)?;
                        // What the filters make is bounded as what the decoder makes.
                        let (w, h) = made.out_size();
                        limits::check_dimensions(w.into(), h.into())
                            .map_err(|e| format!("the filters' output: {e}"))?;
                        graph = Some(made);
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
