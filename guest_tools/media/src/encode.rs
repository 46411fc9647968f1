//! Pictures (RGB24) as image files: PNG, and JPEG at a quality (libjpeg's scale, 1..100).

/// `rgb` (`width` x `height`, RGB24 rows) as PNG.
pub fn png(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .map_err(|e| format!("encoding PNG: {e}"))?;
    writer
        .write_image_data(rgb)
        .map_err(|e| format!("encoding PNG: {e}"))?;
    writer.finish().map_err(|e| format!("encoding PNG: {e}"))?;
    Ok(out)
}

/// `rgb` as JPEG at `quality` (1..100, 4:2:0 chroma as libjpeg's default).
pub fn jpeg(width: u32, height: u32, rgb: &[u8], quality: u8) -> Result<Vec<u8>, String> {
    let (w, h) = (u16::try_from(width), u16::try_from(height));
    let (Ok(w), Ok(h)) = (w, h) else {
        return Err(format!("a {width}x{height} picture is too large for JPEG"));
    };
    let mut out = Vec::new();
    let encoder = jpeg_encoder::Encoder::new(&mut out, quality.clamp(1, 100));
    encoder
        .encode(rgb, w, h, jpeg_encoder::ColorType::Rgb)
        .map_err(|e| format!("encoding JPEG: {e}"))?;
    Ok(out)
}

/// The JPEG quality (libjpeg's 1..100) for FFmpeg's `-q:v` scale (2 best .. 31 worst); `None`
/// (no `-q:v`) gives FFmpeg's usual result for stills, about `-q:v 4`.
pub fn jpeg_quality(qscale: Option<u32>) -> u8 {
    let q = qscale.unwrap_or(4).clamp(1, 31);
    (100 - (q - 1) * 3).clamp(10, 100) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gradient(w: u32, h: u32) -> Vec<u8> {
        (0..w * h)
            .flat_map(|i| [(i % w * 255 / w) as u8, (i / w * 255 / h) as u8, 128])
            .collect()
    }

    #[test]
    fn png_round_trips_exactly() {
        let rgb = gradient(33, 17);
        let bytes = png(33, 17, &rgb).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (33, 17));
        assert_eq!(&buf[..info.buffer_size()], &rgb[..]);
    }

    #[test]
    fn jpeg_is_a_jpeg_and_quality_orders_size() {
        let rgb = gradient(64, 48);
        let high = jpeg(64, 48, &rgb, 95).unwrap();
        let low = jpeg(64, 48, &rgb, 20).unwrap();
        assert!(high.starts_with(&[0xff, 0xd8, 0xff]));
        assert!(low.len() < high.len());
        assert!(jpeg(70000, 1, &[], 60).is_err());
        assert_eq!(jpeg_quality(Some(2)), 97);
        assert_eq!(jpeg_quality(Some(31)), 10);
    }
}
