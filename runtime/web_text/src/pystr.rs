//! Python `str` whitespace semantics (`str.isspace`, `str.strip`, regex `\s`).

/// Whether Python's `str.isspace()` holds for `c` (also what `\s` matches in a `str` regex).
///
/// Python counts Unicode `White_Space` plus the four ASCII information separators
/// U+001C..U+001F (bidirectional class B/S); Rust's `char::is_whitespace` lacks the latter.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `s.strip()` as Python does it with no argument.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// `re.sub(r"\s+", " ", s)` with Python's `\s`.
pub fn collapse_space(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for c in s.chars() {
        if is_space(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn information_separators_are_space_like_python() {
        // Python: '\x1c\x1d\x1e\x1f'.isspace() is True; '\u200b'.isspace() is False.
        for c in [
            '\u{1c}', '\u{1f}', '\u{85}', '\u{a0}', '\u{3000}', '\u{2028}',
        ] {
            assert!(is_space(c), "{c:?}");
        }
        for c in ['\u{200b}', '\u{180e}', '\u{feff}', 'a'] {
            assert!(!is_space(c), "{c:?}");
        }
    }

    #[test]
    fn strip_and_collapse() {
        assert_eq!(strip("\u{1f}\u{3000} a b\u{a0}\n"), "a b");
        assert_eq!(collapse_space("a \t\n b\u{1c}c"), "a b c");
        assert_eq!(collapse_space("  "), " ");
    }
}
