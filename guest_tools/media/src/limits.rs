//! Bounds on what one call may ask of the decoder, so a hostile file is an error and never an
//! unbounded allocation: the sandbox's fuel and memory limits stay the last line.

/// Largest picture decoded, in pixels: 8K UHD (7680x4320).
pub const MAX_PIXELS: u64 = 7680 * 4320;

/// Largest single allocation FFmpeg (and this tool) may make: 512 MiB.
pub const MAX_ALLOC: usize = 512 << 20;

/// Most frames one call writes or returns.
pub const MAX_FRAMES: u64 = 1000;

/// Most packets read in one call before it gives up (an endless or padded stream).
pub const MAX_PACKETS: u64 = 2_000_000;

/// Whether a `width` x `height` picture may be decoded; the error says why not.
pub fn check_dimensions(width: i64, height: i64) -> Result<(), String> {
    if width <= 0 || height <= 0 {
        return Err(format!(
            "the video has no valid picture size ({width}x{height})"
        ));
    }
    let pixels = (width as u64).saturating_mul(height as u64);
    if pixels > MAX_PIXELS || width > 16384 || height > 16384 {
        return Err(format!(
            "the video is {width}x{height}: larger than the {MAX_PIXELS} pixels (7680x4320) this \
             decoder accepts"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_and_empty_pictures_are_refused() {
        assert!(check_dimensions(1280, 720).is_ok());
        assert!(check_dimensions(7680, 4320).is_ok());
        assert!(
            check_dimensions(7681, 4320)
                .unwrap_err()
                .contains("7681x4320")
        );
        assert!(check_dimensions(65535, 65535).is_err());
        assert!(check_dimensions(20000, 10).is_err());
        assert!(check_dimensions(0, 720).is_err());
    }
}
