//! `Read` on an image (PNG, JPEG, GIF, WebP): the image itself goes to the model, base64 in the
//! response's `images`, with a one-line description as the text.

use clawrun_tool_protocol::path::ToolPath;
use clawrun_tool_protocol::{Image, Output};

/// Largest image Read returns, in bytes: 3.75 MiB, which is 5 MiB once base64-encoded (the
/// model providers' per-image limit).
pub const MAX_IMAGE_BYTES: usize = 3_932_160;

/// Image formats Read returns to the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// GIF.
    Gif,
    /// WebP.
    Webp,
}

impl Format {
    /// The media type, e.g. `image/png`.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
            Format::Gif => "image/gif",
            Format::Webp => "image/webp",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Png => "PNG",
            Format::Jpeg => "JPEG",
            Format::Gif => "GIF",
            Format::Webp => "WebP",
        }
    }
}

/// The format of `bytes`, from its signature.
pub fn sniff(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(Format::Png)
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some(Format::Jpeg)
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some(Format::Gif)
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(Format::Webp)
    } else {
        None
    }
}

/// Whether `path` names an image by its extension.
pub fn has_image_extension(path: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    ["png", "jpg", "jpeg", "gif", "webp"]
        .iter()
        .any(|e| ext.eq_ignore_ascii_case(e))
}

/// The image at `path` for the model.
pub fn read(path: &ToolPath, bytes: &[u8], format: Format) -> Result<Output, String> {
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(format!(
            "Image {path} is too large to show: {} bytes; Read returns images up to {} bytes \
             (5 MiB once base64-encoded)",
            thousands(bytes.len()),
            thousands(MAX_IMAGE_BYTES)
        ));
    }
    let size = match dimensions(bytes, format) {
        Some((w, h)) => format!("{w}x{h} pixels, "),
        None => String::new(),
    };
    Ok(Output {
        text: format!(
            "Image {path} ({} image, {size}{} bytes) is attached below.",
            format.name(),
            thousands(bytes.len())
        ),
        images: vec![Image::from_bytes(format.media_type(), bytes)],
        exit_code: None,
    })
}

/// `n` with thousands separators.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes(
        b.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn le16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes(
        b.get(at..at + 2)?.try_into().ok()?,
    )))
}

fn le24(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at + 3)?;
    Some(u32::from(s[0]) | u32::from(s[1]) << 8 | u32::from(s[2]) << 16)
}

/// Width and height in pixels, read from the header.
pub fn dimensions(b: &[u8], format: Format) -> Option<(u32, u32)> {
    match format {
        Format::Png if b.get(12..16) == Some(b"IHDR") => Some((
            u32::from_be_bytes(b.get(16..20)?.try_into().ok()?),
            u32::from_be_bytes(b.get(20..24)?.try_into().ok()?),
        )),
        Format::Png => None,
        Format::Gif => Some((le16(b, 6)?, le16(b, 8)?)),
        Format::Jpeg => {
            let mut i = 2;
            while i + 4 <= b.len() {
                if b[i] != 0xff {
                    return None;
                }
                let marker = b[i + 1];
                if marker == 0xff {
                    i += 1;
                    continue;
                }
                if matches!(marker, 0xd8 | 0x01 | 0xd0..=0xd7) {
                    i += 2;
                    continue;
                }
                let len = be16(b, i + 2)? as usize;
                if matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc) {
                    return Some((be16(b, i + 7)?, be16(b, i + 5)?));
                }
                i += 2 + len;
            }
            None
        }
        Format::Webp => match b.get(12..16)? {
            b"VP8 " => Some((le16(b, 26)? & 0x3fff, le16(b, 28)? & 0x3fff)),
            b"VP8L" => {
                let bits = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
                Some(((bits & 0x3fff) + 1, (bits >> 14 & 0x3fff) + 1))
            }
            b"VP8X" => Some((le24(b, 24)? + 1, le24(b, 27)? + 1)),
            _ => None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(3_932_160), "3,932,160");
    }

    #[test]
    fn extensions() {
        assert!(has_image_extension("/w/a.PNG"));
        assert!(has_image_extension("b.jpeg"));
        assert!(!has_image_extension("c.pdf"));
        assert!(!has_image_extension("png"));
    }
}
