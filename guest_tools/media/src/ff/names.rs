//! FFmpeg's names for its enums and tags, as `ffprobe` prints them.

use std::ffi::c_char;

use ffmpeg_wasi::avformat as f;

use super::{sys, text_of};

fn named(ptr: *const c_char) -> Option<String> {
    // SAFETY: FFmpeg's name functions return null or a static string.
    let text = unsafe { text_of(ptr) };
    (!text.is_empty()).then_some(text)
}

/// The codec's short name (`h264`).
pub fn codec(id: f::AVCodecID) -> String {
    // SAFETY: returns a static string for any id.
    unsafe { text_of(f::avcodec_get_name(id)) }
}

/// The codec's long name (`H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10`).
pub fn codec_long(id: f::AVCodecID) -> Option<String> {
    // SAFETY: null or a static descriptor.
    unsafe {
        let d = ffmpeg_wasi::avcodec::avcodec_descriptor_get(id as _);
        if d.is_null() {
            None
        } else {
            named((*d).long_name)
        }
    }
}

/// The profile's name (`High`), if FFmpeg knows it.
pub fn profile(id: f::AVCodecID, profile: i32) -> Option<String> {
    // SAFETY: null or a static string.
    named(unsafe { f::avcodec_profile_name(id, profile) })
}

/// The media type's name (`video`).
pub fn media_type(t: f::AVMediaType) -> Option<String> {
    // SAFETY: null or a static string.
    named(unsafe { f::av_get_media_type_string(t) })
}

/// A pixel format's name (`yuv420p`).
pub fn pix_fmt(fmt: i32) -> Option<String> {
    // SAFETY: null or a static string.
    named(unsafe { sys::av_get_pix_fmt_name(fmt) })
}

/// A sample format's name (`fltp`).
pub fn sample_fmt(fmt: i32) -> Option<String> {
    // SAFETY: null or a static string.
    named(unsafe { f::av_get_sample_fmt_name(fmt) })
}

/// Colour property names (`tv`, `bt709`, `left`); `None` for "unspecified" (value 0, or 2 for
/// the colour space, primaries and transfer).
pub fn color(kind: Color, value: i32) -> Option<String> {
    let unspecified = match kind {
        Color::Range | Color::Location => 0,
        Color::Space | Color::Primaries | Color::Transfer => 2,
    };
    if value == unspecified {
        return None;
    }
    // SAFETY: null or a static string.
    named(unsafe {
        match kind {
            Color::Range => sys::av_color_range_name(value),
            Color::Space => sys::av_color_space_name(value),
            Color::Primaries => sys::av_color_primaries_name(value),
            Color::Transfer => sys::av_color_transfer_name(value),
            Color::Location => sys::av_chroma_location_name(value),
        }
    })
}

/// Which colour property [`color`] names.
#[derive(Clone, Copy, Debug)]
pub enum Color {
    /// `color_range`.
    Range,
    /// `color_space`.
    Space,
    /// `color_primaries`.
    Primaries,
    /// `color_transfer`.
    Transfer,
    /// `chroma_location`.
    Location,
}

/// A codec tag as text (`avc1`, `[0][0][0][0]`).
pub fn fourcc(tag: u32) -> String {
    let mut buf = [0 as c_char; 32];
    // SAFETY: the buffer is larger than AV_FOURCC_MAX_STRING_SIZE.
    unsafe { text_of(f::av_fourcc_make_string(buf.as_mut_ptr(), tag)) }
}

/// A channel layout's description (`stereo`).
pub fn channel_layout(layout: &f::AVChannelLayout) -> Option<String> {
    let mut buf = [0 as c_char; 128];
    // SAFETY: a valid layout and a writable buffer.
    let ret = unsafe { f::av_channel_layout_describe(layout, buf.as_mut_ptr(), buf.len()) };
    if ret < 0 {
        return None;
    }
    // SAFETY: NUL-terminated on success.
    named(buf.as_ptr())
}

/// A metadata dictionary's entries, in order.
///
/// # Safety
/// `dict` is null or a dictionary that lives through the call.
pub unsafe fn dictionary(dict: *const f::AVDictionary) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut entry: *const f::AVDictionaryEntry = std::ptr::null();
    loop {
        // SAFETY: iterating a dictionary owned by a live context.
        entry = unsafe { f::av_dict_iterate(dict, entry) };
        if entry.is_null() {
            return out;
        }
        // SAFETY: entries hold NUL-terminated key and value.
        unsafe { out.push((text_of((*entry).key), text_of((*entry).value))) }
    }
}
