//! Text helpers shared by the file tools: binary detection and `cat -n` formatting.

use std::borrow::Cow;

/// How many leading bytes are scanned for a NUL byte.
pub const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// Invalid UTF-8 bytes tolerated before the ratio test in [`decode`] applies.
pub const TOLERATED_INVALID_BYTES: usize = 4;

/// Lines longer than this many characters are cut when displayed.
pub const MAX_LINE_CHARS: usize = 2000;

/// Width of the right-aligned line-number column, as in `cat -n`.
pub const LINE_NUMBER_WIDTH: usize = 6;

/// File contents classified as text or binary.
#[derive(Debug, PartialEq, Eq)]
pub enum Decoded<'a> {
    /// Displayable text; invalid UTF-8 (if tolerated) is replaced with U+FFFD.
    Text(Cow<'a, str>),
    /// Not displayable as text.
    Binary,
}

/// Classifies `bytes` as text or binary.
///
/// A file is binary when its first [`BINARY_SNIFF_BYTES`] contain a NUL byte, or when it is not
/// valid UTF-8 beyond a few stray bytes: more than [`TOLERATED_INVALID_BYTES`] invalid bytes that
/// also make up more than 1% of the file. A few stray bytes (say, a Latin-1 `é` in a comment) are
/// shown as U+FFFD instead.
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    let sniff = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
    if sniff.contains(&0) {
        return Decoded::Binary;
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Decoded::Text(Cow::Borrowed(text));
    }
    let invalid: usize = bytes.utf8_chunks().map(|chunk| chunk.invalid().len()).sum();
    if invalid > TOLERATED_INVALID_BYTES && invalid * 100 > bytes.len() {
        Decoded::Binary
    } else {
        Decoded::Text(String::from_utf8_lossy(bytes))
    }
}

/// Splits text into lines like `str::lines` (`\n` or `\r\n` terminated, no trailing empty line).
pub fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
}

/// Cuts `line` to [`MAX_LINE_CHARS`] characters, noting how much was cut.
pub fn clip_line(line: &str) -> Cow<'_, str> {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => Cow::Borrowed(line),
        Some((cut_at, _)) => {
            let more = line[cut_at..].chars().count();
            Cow::Owned(format!(
                "{}... [line truncated: {more} more characters]",
                &line[..cut_at]
            ))
        }
    }
}

/// Formats one line the way `cat -n` does: number right-aligned in 6 columns, a TAB, the line
/// (clipped with [`clip_line`]), and a newline.
pub fn push_numbered_line(out: &mut String, number: usize, line: &str) {
    out.push_str(&format!(
        "{number:>width$}\t{}\n",
        clip_line(line),
        width = LINE_NUMBER_WIDTH
    ));
}

/// Formats `lines` (1-based `first_number`) with [`push_numbered_line`], without a final newline.
pub fn numbered<'a>(first_number: usize, lines: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for (i, line) in lines.into_iter().enumerate() {
        push_numbered_line(&mut out, first_number + i, line);
    }
    if out.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_text() {
        assert_eq!(decode(b"hello\n"), Decoded::Text(Cow::Borrowed("hello\n")));
        assert_eq!(decode(b""), Decoded::Text(Cow::Borrowed("")));
    }

    #[test]
    fn nul_in_first_8k_is_binary() {
        assert_eq!(decode(b"abc\0def"), Decoded::Binary);
        let mut late = vec![b'a'; BINARY_SNIFF_BYTES];
        late.push(0);
        assert!(matches!(decode(&late), Decoded::Text(_)));
    }

    #[test]
    fn a_few_invalid_bytes_are_tolerated() {
        let mut bytes = b"caf\xe9 au lait\n".to_vec();
        assert_eq!(
            decode(&bytes),
            Decoded::Text(Cow::Owned("caf\u{fffd} au lait\n".into()))
        );
        bytes.extend_from_slice(&[0xff; 10]);
        assert_eq!(decode(&bytes), Decoded::Binary);
    }

    #[test]
    fn numbering_matches_cat_n() {
        assert_eq!(numbered(1, ["a", "b"]), "     1\ta\n     2\tb");
        assert_eq!(numbered(999_999, ["x"]), "999999\tx");
        assert_eq!(numbered(1_234_567, ["x"]), "1234567\tx");
    }

    #[test]
    fn long_lines_are_clipped() {
        let line = "z".repeat(MAX_LINE_CHARS + 3);
        assert_eq!(
            clip_line(&line),
            format!(
                "{}... [line truncated: 3 more characters]",
                "z".repeat(MAX_LINE_CHARS)
            )
        );
        let exact = "z".repeat(MAX_LINE_CHARS);
        assert_eq!(clip_line(&exact), exact.as_str());
    }
}
