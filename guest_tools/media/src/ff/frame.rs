//! Owned `AVFrame` and `AVPacket`.

use ffmpeg_wasi::avcodec as c;

/// An owned `AVFrame`.
pub struct Frame(pub(crate) *mut c::AVFrame);

impl Frame {
    /// An empty frame.
    pub fn new() -> Result<Frame, String> {
        // SAFETY: av_frame_alloc returns an owned frame or null.
        let ptr = unsafe { c::av_frame_alloc() };
        if ptr.is_null() {
            return Err("out of memory allocating a frame".into());
        }
        Ok(Frame(ptr))
    }

    /// The frame's fields.
    pub fn raw(&self) -> &c::AVFrame {
        // SAFETY: the pointer is owned and valid for self's life.
        unsafe { &*self.0 }
    }

    /// The frame's fields, for writing.
    pub fn raw_mut(&mut self) -> &mut c::AVFrame {
        // SAFETY: as in `raw`, and we hold the only reference.
        unsafe { &mut *self.0 }
    }

    /// Drops the frame's data, keeping the frame for reuse.
    pub fn unref(&mut self) {
        // SAFETY: the frame is owned.
        unsafe { c::av_frame_unref(self.0) }
    }

    /// The RGB24 picture of a frame in that format: (width, height, tightly packed rows).
    pub fn rgb24(&self) -> (u32, u32, Vec<u8>) {
        let f = self.raw();
        let (w, h) = (f.width.max(0) as usize, f.height.max(0) as usize);
        let stride = f.linesize[0] as usize;
        let mut out = Vec::with_capacity(w * h * 3);
        for row in 0..h {
            // SAFETY: a frame's plane 0 holds `height` rows of `linesize` bytes, of which the
            // first width*3 are pixels in RGB24.
            let line = unsafe { std::slice::from_raw_parts(f.data[0].add(row * stride), w * 3) };
            out.extend_from_slice(line);
        }
        (w as u32, h as u32, out)
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        // SAFETY: owned; av_frame_free nulls our copy.
        unsafe { c::av_frame_free(&mut self.0) }
    }
}

/// An owned `AVPacket`.
pub struct Packet(pub(crate) *mut c::AVPacket);

impl Packet {
    /// An empty packet.
    pub fn new() -> Result<Packet, String> {
        // SAFETY: av_packet_alloc returns an owned packet or null.
        let ptr = unsafe { c::av_packet_alloc() };
        if ptr.is_null() {
            return Err("out of memory allocating a packet".into());
        }
        Ok(Packet(ptr))
    }

    /// The packet's fields.
    pub fn raw(&self) -> &c::AVPacket {
        // SAFETY: owned and valid.
        unsafe { &*self.0 }
    }

    /// The packet's fields, for writing.
    pub fn raw_mut(&mut self) -> &mut c::AVPacket {
        // SAFETY: owned and valid, one reference.
        unsafe { &mut *self.0 }
    }

    /// Drops the packet's data, keeping it for reuse.
    pub fn unref(&mut self) {
        // SAFETY: owned.
        unsafe { c::av_packet_unref(self.0) }
    }
}

impl Drop for Packet {
    fn drop(&mut self) {
        // SAFETY: owned; av_packet_free nulls our copy.
        unsafe { c::av_packet_free(&mut self.0) }
    }
}
