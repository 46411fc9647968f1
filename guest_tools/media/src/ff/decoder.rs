//! A video decoder for one stream, set up as the `ffmpeg` command sets it up (the stream's
//! parameters and time base, the best-effort timestamp as each frame's pts), single-threaded,
//! and refusing pictures larger than [`crate::limits::MAX_PIXELS`].

use std::ptr::null_mut;

use ffmpeg_wasi::avcodec as c;
use ffmpeg_wasi::avformat as f;

use super::frame::{Frame, Packet};
use super::{AVERROR_EAGAIN, AVERROR_EOF, check};
use crate::limits::MAX_PIXELS;

/// An opened decoder.
pub struct Decoder {
    ctx: *mut c::AVCodecContext,
}

/// What [`Decoder::receive`] got.
pub enum Received {
    /// A frame.
    Frame,
    /// Nothing until more packets are sent.
    Again,
    /// The decoder is drained.
    End,
}

impl Decoder {
    /// A decoder for `stream`.
    pub fn open(stream: &f::AVStream) -> Result<Decoder, String> {
        // SAFETY: the stream's parameters are valid while its input lives; the context is
        // owned by the returned value (freed on drop, also on the error paths below).
        unsafe {
            let par = stream.codecpar as *const c::AVCodecParameters;
            let codec = c::avcodec_find_decoder((*par).codec_id);
            if codec.is_null() {
                let name = super::text_of(c::avcodec_get_name((*par).codec_id));
                return Err(format!("no decoder for codec '{name}' in this build"));
            }
            let ctx = c::avcodec_alloc_context3(codec);
            if ctx.is_null() {
                return Err("out of memory allocating a decoder".into());
            }
            let decoder = Decoder { ctx };
            check(
                c::avcodec_parameters_to_context(ctx, par),
                "decoder parameters",
            )?;
            (*ctx).pkt_timebase =
                std::mem::transmute::<f::AVRational, c::AVRational>(stream.time_base);
            (*ctx).thread_count = 1;
            (*ctx).max_pixels = MAX_PIXELS as i64;
            check(
                c::avcodec_open2(ctx, codec, null_mut()),
                "opening the decoder",
            )?;
            Ok(decoder)
        }
    }

    /// The context's fields.
    pub fn ctx(&self) -> &c::AVCodecContext {
        // SAFETY: owned and valid.
        unsafe { &*self.ctx }
    }

    /// Sends `packet`, or the end of the stream when `None`.
    pub fn send(&mut self, packet: Option<&Packet>) -> Result<(), String> {
        let ptr = packet.map_or(std::ptr::null(), |p| p.0.cast_const());
        // SAFETY: an opened decoder and a valid packet (or null to drain).
        let ret = unsafe { c::avcodec_send_packet(self.ctx, ptr) };
        if ret == AVERROR_EOF || ret == AVERROR_EAGAIN {
            return Ok(());
        }
        check(ret, "decoding").map(|_| ())
    }

    /// Receives the next frame into `frame`, with its pts set to the best-effort timestamp.
    pub fn receive(&mut self, frame: &mut Frame) -> Result<Received, String> {
        // SAFETY: an opened decoder and an owned frame.
        let ret = unsafe { c::avcodec_receive_frame(self.ctx, frame.0) };
        match ret {
            AVERROR_EAGAIN => Ok(Received::Again),
            AVERROR_EOF => Ok(Received::End),
            r => {
                check(r, "decoding")?;
                let raw = frame.raw_mut();
                raw.pts = raw.best_effort_timestamp;
                Ok(Received::Frame)
            }
        }
    }
}

impl Drop for Decoder {
    fn drop(&mut self) {
        // SAFETY: owned; avcodec_free_context nulls it.
        unsafe { c::avcodec_free_context(&mut self.ctx) }
    }
}
