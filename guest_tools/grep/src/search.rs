//! Finding the matching lines of one file.

use std::borrow::Cow;

use clawrun_tool_protocol::text::{self, Decoded};
use regex::Regex;

/// The lines of a file that contains at least one match.
pub struct Found<'a> {
    text: Cow<'a, str>,
    /// Byte range of each line, without its `\n` / `\r\n` terminator.
    spans: Vec<(usize, usize)>,
    /// Whether each line is (part of) a match.
    pub matched: Vec<bool>,
}

impl Found<'_> {
    /// Number of lines in the file.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// The text of line `index` (0-based).
    pub fn line(&self, index: usize) -> &str {
        let (start, end) = self.spans[index];
        &self.text[start..end]
    }

    /// Number of matching lines.
    pub fn count(&self) -> usize {
        self.matched.iter().filter(|&&m| m).count()
    }
}

/// Searches `bytes`; `None` for binary files and files without a match.
///
/// Without `multiline`, each line is matched on its own (terminator excluded). With it, the regex
/// runs over the whole text and every line a match touches counts as matching.
pub fn search<'a>(bytes: &'a [u8], regex: &Regex, multiline: bool) -> Option<Found<'a>> {
    let Decoded::Text(text) = text::decode(bytes) else {
        return None;
    };
    let spans = line_spans(&text);
    let mut matched = vec![false; spans.len()];
    if multiline {
        let starts: Vec<usize> = spans.iter().map(|&(start, _)| start).collect();
        let line_of = |pos: usize| starts.partition_point(|&s| s <= pos).saturating_sub(1);
        for m in regex.find_iter(&text) {
            let first = line_of(m.start());
            let last = line_of(m.end().saturating_sub(1).max(m.start()));
            for flag in matched.iter_mut().take(last + 1).skip(first) {
                *flag = true;
            }
        }
    } else {
        for (flag, &(start, end)) in matched.iter_mut().zip(&spans) {
            *flag = regex.is_match(&text[start..end]);
        }
    }
    matched.contains(&true).then_some(Found {
        text,
        spans,
        matched,
    })
}

/// Byte ranges of the lines of `text`, split like `str::lines`.
fn line_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (i, byte) in text.bytes().enumerate() {
        if byte == b'\n' {
            let end = if i > start && text.as_bytes()[i - 1] == b'\r' {
                i - 1
            } else {
                i
            };
            spans.push((start, end));
            start = i + 1;
        }
    }
    if start < text.len() {
        spans.push((start, text.len()));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<&str> {
        line_spans(text).iter().map(|&(s, e)| &text[s..e]).collect()
    }

    #[test]
    fn spans_split_like_lines() {
        for text in ["", "a", "a\n", "a\r\nb", "a\n\nb\n", "\n", "x\r\n"] {
            assert_eq!(lines(text), text.lines().collect::<Vec<_>>(), "{text:?}");
        }
    }

    #[test]
    fn multiline_marks_every_touched_line() {
        let regex = regex::RegexBuilder::new(r"b.*?d")
            .dot_matches_new_line(true)
            .build()
            .unwrap();
        let found = search(b"a\nb\nc\nd\ne\n", &regex, true).unwrap();
        assert_eq!(found.matched, [false, true, true, true, false]);
        assert_eq!(found.count(), 3);
        assert_eq!(found.line(1), "b");
    }

    #[test]
    fn binary_and_matchless_files_are_none() {
        let regex = Regex::new("x").unwrap();
        assert!(search(b"x\0x", &regex, false).is_none());
        assert!(search(b"abc", &regex, false).is_none());
    }
}
