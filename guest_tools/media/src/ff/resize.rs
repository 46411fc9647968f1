//! Resizing an RGB24 picture with FFmpeg's scaler (Lanczos, as PIL's `LANCZOS` resize that
//! Claw-Eval's dispatcher applies to the images it shows).

use ffmpeg_wasi::avcodec as c;

use super::check;
use super::frame::Frame;
use super::graph::{Graph, Pulled, Source};

/// `rgb` (`width` x `height`) scaled to `to_width` x `to_height`.
pub fn resize(
    width: u32,
    height: u32,
    rgb: &[u8],
    to_width: u32,
    to_height: u32,
) -> Result<Vec<u8>, String> {
    let mut frame = Frame::new()?;
    {
        let raw = frame.raw_mut();
        raw.width = width as i32;
        raw.height = height as i32;
        raw.format = c::AVPixelFormat_AV_PIX_FMT_RGB24;
        raw.pts = 0;
    }
    // SAFETY: an owned frame with its size and format set.
    check(
        unsafe { c::av_frame_get_buffer(frame.0, 0) },
        "allocating a picture",
    )?;
    let stride = frame.raw().linesize[0] as usize;
    let row = width as usize * 3;
    for y in 0..height as usize {
        // SAFETY: plane 0 holds `height` rows of `stride` bytes; we write `row` <= stride.
        let dst =
            unsafe { std::slice::from_raw_parts_mut(frame.raw().data[0].add(y * stride), row) };
        dst.copy_from_slice(&rgb[y * row..(y + 1) * row]);
    }
    let source = Source {
        width: width as i32,
        height: height as i32,
        pix_fmt: c::AVPixelFormat_AV_PIX_FMT_RGB24,
        time_base: (1, 1),
        sar: (1, 1),
        frame_rate: (0, 1),
    };
    let mut graph = Graph::new(
        &source,
        &format!("scale={to_width}:{to_height}:flags=lanczos,format=rgb24"),
    )?;
    graph.push(&frame)?;
    graph.close(1)?;
    let mut out = Frame::new()?;
    match graph.pull(&mut out)? {
        Pulled::Frame => Ok(out.rgb24().2),
        _ => Err("the scaler gave no picture".into()),
    }
}
