//! A video filter graph `buffer -> CHAIN -> buffersink`, single-threaded, with the scaler
//! flags the `ffmpeg` command gives its graphs (`flags=bicubic`).

use std::ptr::null_mut;

use ffmpeg_wasi::avfilter as fl;

use super::frame::Frame;
use super::sys;
use super::{AVERROR_EAGAIN, AVERROR_EOF, c_string, check};

/// What the buffer source is fed: the decoded frames' properties.
#[derive(Clone, Copy, Debug)]
pub struct Source {
    /// Picture width.
    pub width: i32,
    /// Picture height.
    pub height: i32,
    /// Pixel format (`AVPixelFormat`).
    pub pix_fmt: i32,
    /// Time base of the frames' timestamps.
    pub time_base: (i32, i32),
    /// Sample aspect ratio (0/1 when unknown).
    pub sar: (i32, i32),
    /// Frame rate, for filters that ask (`setpts=N/FRAME_RATE/TB`); 0/1 when unknown.
    pub frame_rate: (i32, i32),
}

/// A configured graph.
pub struct Graph {
    graph: *mut fl::AVFilterGraph,
    src: *mut fl::AVFilterContext,
    sink: *mut fl::AVFilterContext,
}

/// What [`Graph::pull`] got.
pub enum Pulled {
    /// A frame.
    Frame,
    /// Nothing until more frames are pushed.
    Again,
    /// The graph is drained.
    End,
}

impl Graph {
    /// `source -> chain -> sink`; `chain` is one linear filter chain (no labels).
    pub fn new(source: &Source, chain: &str) -> Result<Graph, String> {
        // SAFETY: every object is created here and owned by the graph, which `Graph` frees on
        // drop (also on the error paths, once `graph` exists).
        unsafe {
            let raw = fl::avfilter_graph_alloc();
            if raw.is_null() {
                return Err("out of memory allocating a filter graph".into());
            }
            let mut graph = Graph {
                graph: raw,
                src: null_mut(),
                sink: null_mut(),
            };
            (*raw).nb_threads = 1;
            let sws = c_string("flags=bicubic")?;
            (*raw).scale_sws_opts = fl::av_strdup(sws.as_ptr());
            let mut args = format!(
                "video_size={}x{}:pix_fmt={}:time_base={}/{}:pixel_aspect={}/{}",
                source.width,
                source.height,
                source.pix_fmt,
                source.time_base.0,
                source.time_base.1,
                source.sar.0,
                source.sar.1.max(1)
            );
            if source.frame_rate.0 > 0 && source.frame_rate.1 > 0 {
                args.push_str(&format!(
                    ":frame_rate={}/{}",
                    source.frame_rate.0, source.frame_rate.1
                ));
            }
            let args = c_string(&args)?;
            let (buffer, sink) = (c_string("buffer")?, c_string("buffersink")?);
            let (in_name, out_name) = (c_string("in")?, c_string("out")?);
            check(
                fl::avfilter_graph_create_filter(
                    &mut graph.src,
                    fl::avfilter_get_by_name(buffer.as_ptr()),
                    in_name.as_ptr(),
                    args.as_ptr(),
                    null_mut(),
                    raw,
                ),
                "creating the buffer source",
            )?;
            check(
                fl::avfilter_graph_create_filter(
                    &mut graph.sink,
                    fl::avfilter_get_by_name(sink.as_ptr()),
                    out_name.as_ptr(),
                    std::ptr::null(),
                    null_mut(),
                    raw,
                ),
                "creating the buffer sink",
            )?;
            let mut outputs = fl::avfilter_inout_alloc();
            let mut inputs = fl::avfilter_inout_alloc();
            if outputs.is_null() || inputs.is_null() {
                fl::avfilter_inout_free(&mut outputs);
                fl::avfilter_inout_free(&mut inputs);
                return Err("out of memory allocating the graph's ends".into());
            }
            (*outputs).name = fl::av_strdup(in_name.as_ptr());
            (*outputs).filter_ctx = graph.src;
            (*outputs).pad_idx = 0;
            (*outputs).next = null_mut();
            (*inputs).name = fl::av_strdup(out_name.as_ptr());
            (*inputs).filter_ctx = graph.sink;
            (*inputs).pad_idx = 0;
            (*inputs).next = null_mut();
            let chain_c = c_string(chain)?;
            let parsed = fl::avfilter_graph_parse_ptr(
                raw,
                chain_c.as_ptr(),
                &mut inputs,
                &mut outputs,
                null_mut(),
            );
            fl::avfilter_inout_free(&mut outputs);
            fl::avfilter_inout_free(&mut inputs);
            check(parsed, &format!("filter graph '{chain}'"))?;
            check(
                fl::avfilter_graph_config(raw, null_mut()),
                &format!("filter graph '{chain}'"),
            )?;
            Ok(graph)
        }
    }

    /// Feeds `frame` (the graph takes its own reference).
    pub fn push(&mut self, frame: &Frame) -> Result<(), String> {
        // SAFETY: a configured source and a valid frame; KEEP_REF leaves ours intact.
        let ret = unsafe {
            sys::av_buffersrc_add_frame_flags(self.src, frame.0.cast(), sys::BUFFERSRC_KEEP_REF)
        };
        check(ret, "filtering").map(|_| ())
    }

    /// Ends the input at `pts` (in the source's time base).
    pub fn close(&mut self, pts: i64) -> Result<(), String> {
        // SAFETY: a configured source.
        let ret = unsafe { sys::av_buffersrc_close(self.src, pts, sys::BUFFERSRC_PUSH) };
        check(ret, "filtering").map(|_| ())
    }

    /// Takes the next filtered frame into `frame`.
    pub fn pull(&mut self, frame: &mut Frame) -> Result<Pulled, String> {
        // SAFETY: a configured sink and an owned frame.
        let ret = unsafe { sys::av_buffersink_get_frame(self.sink, frame.0.cast()) };
        match ret {
            AVERROR_EAGAIN => Ok(Pulled::Again),
            AVERROR_EOF => Ok(Pulled::End),
            r => check(r, "filtering").map(|_| Pulled::Frame),
        }
    }

    /// The picture size of the sink's frames, as configured.
    pub fn out_size(&self) -> (i32, i32) {
        // SAFETY: a configured sink.
        unsafe {
            (
                sys::av_buffersink_get_w(self.sink),
                sys::av_buffersink_get_h(self.sink),
            )
        }
    }

    /// The frame rate of the sink's frames (0/1 when unknown).
    pub fn out_frame_rate(&self) -> (i32, i32) {
        // SAFETY: a configured sink.
        let r = unsafe { sys::av_buffersink_get_frame_rate(self.sink) };
        (r.num, r.den)
    }

    /// The time base of the frames the sink gives.
    pub fn out_time_base(&self) -> (i32, i32) {
        // SAFETY: a configured sink.
        let tb = unsafe { sys::av_buffersink_get_time_base(self.sink) };
        (tb.num, tb.den)
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: owned; frees every filter in it.
        unsafe { fl::avfilter_graph_free(&mut self.graph) }
    }
}
