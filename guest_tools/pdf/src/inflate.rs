//! DEFLATE (RFC 1951) and zlib (RFC 1950) decompression for PDF `FlateDecode` streams, on
//! `miniz_oxide`'s decompressor, with the output capped so a decompression bomb stops at the cap.

use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress};

/// Why decompression stopped early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Corrupt data, and nothing decoded before it.
    Corrupt,
    /// The output would pass the caller's limit (a decompression bomb, or just too much).
    TooLarge,
}

/// The output buffer's first size (before doubling) when the input is tiny.
const MIN_BUFFER: usize = 1024;

/// Decompresses raw DEFLATE data into at most `max` bytes. On corrupt or truncated input,
/// returns what was decoded so far (as PDF readers do) if that is anything; data that would
/// decompress to more than `max` bytes is [`Stop::TooLarge`] however it ends.
///
/// The output buffer starts near the input's size and doubles, but never past `max + 1` bytes
/// (the one byte past `max` tells "more than `max`" from "exactly `max`"), so a bomb costs at
/// most that much memory. Matches may not reach before the start of the output (the buffer
/// does not wrap), which is corrupt data as in zlib.
pub fn inflate(data: &[u8], max: usize) -> Result<Vec<u8>, Stop> {
    let cap = max.saturating_add(1);
    let mut out = vec![0u8; data.len().saturating_mul(4).max(MIN_BUFFER).min(cap)];
    let mut state = Box::<DecompressorOxide>::default();
    let (mut read, mut written) = (0, 0);
    let done = loop {
        let (status, r, w) = decompress(
            &mut state,
            &data[read..],
            &mut out,
            written,
            TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
        );
        read += r;
        written += w;
        match status {
            TINFLStatus::Done => break true,
            TINFLStatus::HasMoreOutput if out.len() < cap => {
                let grown = out.len().saturating_mul(2).max(MIN_BUFFER).min(cap);
                out.resize(grown, 0);
            }
            // Full at the cap, or corrupt or truncated data.
            _ => break false,
        }
    };
    out.truncate(written);
    match () {
        _ if written > max => Err(Stop::TooLarge),
        _ if done || written > 0 => Ok(out),
        _ => Err(Stop::Corrupt),
    }
}

/// Decompresses zlib data (a 2-byte header, DEFLATE, an ignored checksum) into at most `max`
/// bytes; raw DEFLATE is accepted too.
pub fn zlib(data: &[u8], max: usize) -> Result<Vec<u8>, Stop> {
    match data {
        [cmf, flg, rest @ ..]
            if cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0 =>
        {
            inflate(rest, max)
        }
        _ => inflate(data, max),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    const TEXT: &[u8] = b"Hello, Hello, Hello! BT /F1 12 Tf (Hello) Tj ET\n";

    /// `TEXT` compressed by zlib 1.2.13 at level 0: one stored block.
    const STORED: &str = "7801013000cfff48656c6c6f2c2048656c6c6f2c2048656c6c6f21204254202f46312031\
                          32205466202848656c6c6f2920546a2045540a5d830d75";
    /// `TEXT` compressed by zlib with `Z_FIXED`: one fixed-Huffman block.
    const FIXED: &str = "7801f348cdc9c9d751f040a214159c4214f4dd0c150c8d1442d21434c0829a0a21590aae\
                         215c005d830d75";
    /// [`dynamic_text`] compressed by zlib at level 9: one dynamic-Huffman block.
    const DYNAMIC: &str = "78da9dd2b71180300043d19e293402396d4330603036c9a4e939d800d5ba57e92ba905dc\
                           1c5b27305b590d2817736834e6446fc76985d9c5f2cdaab82fd4a675d46b3cc2f884090813\
                           1226224c4c988430296132e6532a849f253c54eadc8d";

    fn dynamic_text() -> Vec<u8> {
        (0..12)
            .flat_map(|i| {
                format!("line {i}: the quick brown fox jumps over the lazy dog\n").into_bytes()
            })
            .collect()
    }

    #[test]
    fn stored_fixed_and_dynamic_blocks_from_zlib() {
        for (hex, btype) in [(STORED, 0), (FIXED, 1)] {
            let data = unhex(hex);
            assert_eq!(
                (data[2] >> 1) & 3,
                btype,
                "the vector has the block type it claims"
            );
            assert_eq!(zlib(&data, 1 << 20).unwrap(), TEXT);
            // Raw DEFLATE (no header; the checksum is ignored either way).
            assert_eq!(inflate(&data[2..data.len() - 4], 1 << 20).unwrap(), TEXT);
        }
        let data = unhex(DYNAMIC);
        assert_eq!((data[2] >> 1) & 3, 2);
        assert_eq!(zlib(&data, 1 << 20).unwrap(), dynamic_text());
    }

    #[test]
    fn a_bad_checksum_is_ignored() {
        let mut data = unhex(FIXED);
        let n = data.len();
        data[n - 1] ^= 0xff;
        assert_eq!(zlib(&data, 1 << 20).unwrap(), TEXT);
    }

    #[test]
    fn output_is_capped_at_max_and_exactly_max_fits() {
        let data = unhex(DYNAMIC);
        let len = dynamic_text().len();
        assert_eq!(zlib(&data, len).unwrap().len(), len);
        assert_eq!(zlib(&data, len - 1), Err(Stop::TooLarge));
        assert_eq!(zlib(&data, 0), Err(Stop::TooLarge));
        assert_eq!(zlib(&unhex(STORED), TEXT.len() - 1), Err(Stop::TooLarge));
    }

    #[test]
    fn a_bomb_stops_at_the_cap_whatever_follows() {
        // 16 MiB of zeros from about 16 KiB of DEFLATE; then cut short.
        let mut data = miniz_oxide::deflate::compress_to_vec_zlib(&vec![0u8; 16 << 20], 9);
        assert!(data.len() < 50_000);
        assert_eq!(zlib(&data, 1 << 20), Err(Stop::TooLarge));
        assert_eq!(zlib(&data, (16 << 20) - 1), Err(Stop::TooLarge));
        assert_eq!(zlib(&data, 16 << 20).unwrap().len(), 16 << 20);
        data.truncate(data.len() / 2);
        assert_eq!(zlib(&data, 1 << 20), Err(Stop::TooLarge));
    }

    #[test]
    fn truncated_data_gives_what_was_decoded() {
        let data = unhex(STORED);
        // Header, block header and 10 of the stored bytes.
        let out = zlib(&data[..2 + 5 + 10], 1 << 20).unwrap();
        assert!(TEXT.starts_with(&out) && !out.is_empty(), "{out:?}");
        let data = unhex(DYNAMIC);
        let out = zlib(&data[..data.len() / 2], 1 << 20).unwrap();
        assert!(!out.is_empty() && out.len() < dynamic_text().len());
        assert!(dynamic_text().starts_with(&out));
    }

    #[test]
    fn corrupt_data_with_nothing_decoded_is_corrupt() {
        assert_eq!(inflate(b"", 100), Err(Stop::Corrupt));
        assert_eq!(zlib(&[0x78, 0x9c], 100), Err(Stop::Corrupt));
        // Block type 3 is reserved.
        assert_eq!(inflate(&[0b111], 100), Err(Stop::Corrupt));
        // A fixed block whose first symbol is a match 1 byte back, before any output.
        let mut bits = 0b011u32; // last block, fixed codes
        bits |= 0b100_0000 << 3; // length code 257 (3 bytes): 0000001, sent last bit first
        let data = [(bits & 0xff) as u8, (bits >> 8) as u8, 0, 0];
        assert_eq!(inflate(&data, 100), Err(Stop::Corrupt));
    }

    #[test]
    fn round_trips_every_level() {
        let text: Vec<u8> = (0..20_000u32).map(|i| (i * i % 251) as u8).collect();
        for level in 0..=10 {
            let data = miniz_oxide::deflate::compress_to_vec(&text, level);
            assert_eq!(inflate(&data, text.len()).unwrap(), text, "level {level}");
            let data = miniz_oxide::deflate::compress_to_vec_zlib(&text, level);
            assert_eq!(zlib(&data, text.len()).unwrap(), text, "level {level}");
        }
    }
}
