//! Images a tool returns to the model next to its text (`images` in the response envelope).

use serde::{Deserialize, Serialize};

/// One image for the model: its media type and its bytes in base64.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// The bytes, base64 (standard alphabet, padded).
    pub data: String,
}

impl Image {
    /// An image of `media_type` holding `bytes`.
    pub fn from_bytes(media_type: &str, bytes: &[u8]) -> Image {
        Image {
            media_type: media_type.to_owned(),
            data: base64(bytes),
        }
    }
}

/// What a tool returns on success: the text the model reads, any images it sees, and the exit
/// status of the command it ran (Bash).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// The text (capped like every output).
    pub text: String,
    /// Images shown after the text.
    pub images: Vec<Image>,
    /// The exit status of the command the tool ran, if it runs commands.
    pub exit_code: Option<i32>,
}

impl From<String> for Output {
    fn from(text: String) -> Output {
        Output {
            text,
            images: Vec::new(),
            exit_code: None,
        }
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in base64 (standard alphabet, padded).
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (input, want) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), want);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }
}
