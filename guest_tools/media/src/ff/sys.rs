//! FFmpeg functions the `ffmpeg-wasi` bindings leave out (buffersrc/buffersink, pixdesc, opt),
//! declared as FFmpeg 7's headers do. The libraries are linked by `ffmpeg-wasi` itself.

use std::ffi::{c_char, c_int, c_uint, c_void};

use ffmpeg_wasi::avfilter::{AVFilterContext, AVFrame};

/// `AV_BUFFERSRC_FLAG_KEEP_REF`.
pub const BUFFERSRC_KEEP_REF: c_int = 8;
/// `AV_BUFFERSRC_FLAG_PUSH`.
pub const BUFFERSRC_PUSH: c_uint = 4;

unsafe extern "C" {
    /// libavfilter/buffersrc.h
    pub fn av_buffersrc_add_frame_flags(
        ctx: *mut AVFilterContext,
        frame: *mut AVFrame,
        flags: c_int,
    ) -> c_int;
    /// libavfilter/buffersrc.h
    pub fn av_buffersrc_close(ctx: *mut AVFilterContext, pts: i64, flags: c_uint) -> c_int;
    /// libavfilter/buffersink.h
    pub fn av_buffersink_get_frame(ctx: *mut AVFilterContext, frame: *mut AVFrame) -> c_int;
    /// libavfilter/buffersink.h
    pub fn av_buffersink_get_time_base(
        ctx: *const AVFilterContext,
    ) -> ffmpeg_wasi::avfilter::AVRational;
    /// libavfilter/buffersink.h
    pub fn av_buffersink_get_w(ctx: *const AVFilterContext) -> c_int;
    /// libavfilter/buffersink.h
    pub fn av_buffersink_get_h(ctx: *const AVFilterContext) -> c_int;
    /// libavfilter/buffersink.h
    pub fn av_buffersink_get_frame_rate(
        ctx: *const AVFilterContext,
    ) -> ffmpeg_wasi::avfilter::AVRational;
    /// libavutil/parseutils.h
    pub fn av_parse_video_rate(
        rate: *mut ffmpeg_wasi::avfilter::AVRational,
        text: *const c_char,
    ) -> c_int;
    /// libavutil/pixdesc.h
    pub fn av_get_pix_fmt_name(pix_fmt: c_int) -> *const c_char;
    /// libavutil/pixdesc.h
    pub fn av_color_range_name(range: c_int) -> *const c_char;
    /// libavutil/pixdesc.h
    pub fn av_color_space_name(space: c_int) -> *const c_char;
    /// libavutil/pixdesc.h
    pub fn av_color_primaries_name(primaries: c_int) -> *const c_char;
    /// libavutil/pixdesc.h
    pub fn av_color_transfer_name(transfer: c_int) -> *const c_char;
    /// libavutil/pixdesc.h
    pub fn av_chroma_location_name(location: c_int) -> *const c_char;
    /// libavutil/opt.h
    pub fn av_opt_set(
        obj: *mut c_void,
        name: *const c_char,
        val: *const c_char,
        search_flags: c_int,
    ) -> c_int;
}
