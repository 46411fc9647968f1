//! Safe owners of FFmpeg's objects (the `ffmpeg-wasi` build of FFmpeg 7's libraries): an opened
//! input ([`input`]), a decoder ([`decoder`]), a filter graph ([`graph`]), frames and packets
//! ([`frame`]), and FFmpeg's names for its enums ([`names`]). Every pointer is owned by one
//! value and freed on drop; errors are FFmpeg's own messages.

pub mod decoder;
pub mod frame;
pub mod graph;
pub mod input;
pub mod names;
pub mod resize;
pub mod sys;

use std::ffi::{CStr, CString, c_char, c_int};

/// `AVERROR_EOF`: `-MKTAG('E', 'O', 'F', ' ')`.
pub const AVERROR_EOF: c_int = -(0x45 | 0x4f << 8 | 0x46 << 16 | 0x20 << 24);
/// `AVERROR(EAGAIN)` (WASI's `EAGAIN` is 6).
pub const AVERROR_EAGAIN: c_int = -6;

/// FFmpeg's text for error code `code` (`AVERROR(...)`).
pub fn error_text(code: c_int) -> String {
    let mut buf = [0 as c_char; 128];
    // SAFETY: the buffer is writable for its length; av_strerror always NUL-terminates.
    unsafe {
        ffmpeg_wasi::avutil::av_strerror(code, buf.as_mut_ptr(), buf.len());
        CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    }
}

/// `ret` when it is not an error, else `what: FFmpeg's message`.
pub fn check(ret: c_int, what: &str) -> Result<c_int, String> {
    if ret < 0 {
        Err(format!("{what}: {}", error_text(ret)))
    } else {
        Ok(ret)
    }
}

/// `text` as a C string (an interior NUL is an error naming the text).
pub fn c_string(text: &str) -> Result<CString, String> {
    CString::new(text).map_err(|_| format!("{text:?} holds a NUL byte"))
}

/// The C string at `ptr` (empty when null).
///
/// # Safety
/// `ptr` is null or points to a NUL-terminated string that outlives the call.
pub unsafe fn text_of(ptr: *const c_char) -> String {
    if ptr.is_null() {
        String::new()
    } else {
        // SAFETY: as the caller promises.
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned()
    }
}

/// Sets up the libraries once per run: logging off (messages would reach stdout/stderr of
/// the command in FFmpeg's own words only where we print them) and the largest single
/// allocation FFmpeg may make.
pub fn init(max_alloc: usize) {
    // SAFETY: plain setters of global state, called before any other FFmpeg use.
    unsafe {
        ffmpeg_wasi::avutil::av_log_set_level(-8); // AV_LOG_QUIET
        ffmpeg_wasi::avutil::av_max_alloc(max_alloc);
    }
}
