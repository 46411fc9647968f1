//! An opened media file (`AVFormatContext`), limited to the demuxers of the formats agents
//! meet and to the `file` protocol, so a file cannot make FFmpeg open others (`concat`, HLS
//! playlists) or reach a network.

use std::ptr::null_mut;

use ffmpeg_wasi::avformat as f;

use super::frame::Packet;
use super::{AVERROR_EOF, c_string, check};

/// The demuxers an input may use (FFmpeg's short names).
pub const FORMATS: &str = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,flv,mpegts,mpeg,asf,ogg,\
    gif,h264,hevc,ivf,m4v,mjpeg,obu,yuv4mpegpipe,png_pipe,jpeg_pipe,webp_pipe,bmp_pipe,mp3,wav,\
    aac,flac";

/// `AV_NOPTS_VALUE`.
pub const NOPTS: i64 = i64::MIN;

/// An opened input.
pub struct Input {
    ctx: *mut f::AVFormatContext,
}

impl Input {
    /// Opens `path` and reads its streams' parameters (`avformat_find_stream_info`).
    pub fn open(path: &str) -> Result<Input, String> {
        let c_path = c_string(path)?;
        let mut options: *mut f::AVDictionary = null_mut();
        let mut ctx: *mut f::AVFormatContext = null_mut();
        // SAFETY: the dictionary and context pointers are ours; FFmpeg frees the context on
        // failure and fills it on success; the options are freed after use.
        let opened = unsafe {
            for (k, v) in [
                ("format_whitelist", FORMATS),
                ("protocol_whitelist", "file"),
            ] {
                let (k, v) = (c_string(k)?, c_string(v)?);
                f::av_dict_set(&mut options, k.as_ptr(), v.as_ptr(), 0);
            }
            let ret =
                f::avformat_open_input(&mut ctx, c_path.as_ptr(), std::ptr::null(), &mut options);
            f::av_dict_free(&mut options);
            ret
        };
        check(opened, path)?;
        let input = Input { ctx };
        // SAFETY: ctx is an opened input.
        let found = unsafe { f::avformat_find_stream_info(input.ctx, null_mut()) };
        check(found, path)?;
        Ok(input)
    }

    /// The format context.
    pub fn ctx(&self) -> &f::AVFormatContext {
        // SAFETY: owned and valid while self lives.
        unsafe { &*self.ctx }
    }

    /// The streams.
    pub fn streams(&self) -> &[*mut f::AVStream] {
        let ctx = self.ctx();
        if ctx.streams.is_null() {
            return &[];
        }
        // SAFETY: `streams` holds `nb_streams` stream pointers owned by the context.
        unsafe { std::slice::from_raw_parts(ctx.streams, ctx.nb_streams as usize) }
    }

    /// Stream `index`'s fields.
    pub fn stream(&self, index: usize) -> &f::AVStream {
        // SAFETY: stream pointers are valid while the context lives.
        unsafe { &*self.streams()[index] }
    }

    /// The video stream FFmpeg would pick (`av_find_best_stream`), if any.
    pub fn best_video(&self) -> Option<usize> {
        // SAFETY: an opened input; no decoder is asked back.
        let ret = unsafe {
            f::av_find_best_stream(
                self.ctx,
                f::AVMediaType_AVMEDIA_TYPE_VIDEO,
                -1,
                -1,
                null_mut(),
                0,
            )
        };
        usize::try_from(ret).ok()
    }

    /// Seeks as `ffmpeg -ss` does: to the last keyframe at or before `ts` (microseconds).
    pub fn seek(&mut self, ts: i64) -> Result<(), String> {
        // SAFETY: an opened input.
        let ret = unsafe { f::avformat_seek_file(self.ctx, -1, i64::MIN, ts, ts, 0) };
        check(ret, "seeking").map(|_| ())
    }

    /// Reads the next packet into `packet`; `false` at the end of the file.
    pub fn read(&mut self, packet: &mut Packet) -> Result<bool, String> {
        // SAFETY: an opened input and an owned, unreferenced packet.
        let ret = unsafe { f::av_read_frame(self.ctx, packet.0.cast()) };
        if ret == AVERROR_EOF {
            return Ok(false);
        }
        check(ret, "reading the input").map(|_| true)
    }
}

impl Drop for Input {
    fn drop(&mut self) {
        // SAFETY: owned; avformat_close_input frees and nulls it.
        unsafe { f::avformat_close_input(&mut self.ctx) }
    }
}
