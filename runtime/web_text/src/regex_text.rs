//! Upstream's regular-expression helpers: the `<title>` match and the tag-stripping fallback.
//!
//! Upstream compiles these with `re.IGNORECASE | re.DOTALL`. Python's case-insensitive
//! matching lets `i` also match `İ` (U+0130) and `ı` (U+0131), and `s` match `ſ` (U+017F);
//! Rust's `(?i)` does not fold the dotted/dotless i, so the letters are spelled out as
//! classes that hold exactly what Python matches.

use std::sync::LazyLock;

use regex::Regex;

use crate::pystr;

/// `<title[^>]*>(.*?)</title>`, IGNORECASE | DOTALL.
static TITLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)<[tT][iIİı][tT][lL][eE][^>]*>(.*?)</[tT][iIİı][tT][lL][eE]>")
        .expect("title regex")
});

/// `<script[^>]*>.*?</script>`, IGNORECASE | DOTALL.
static SCRIPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)<[sSſ][cC][rR][iIİı][pP][tT][^>]*>.*?</[sSſ][cC][rR][iIİı][pP][tT]>")
        .expect("script regex")
});

/// `<style[^>]*>.*?</style>`, IGNORECASE | DOTALL.
static STYLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)<[sSſ][tT][yY][lL][eE][^>]*>.*?</[sSſ][tT][yY][lL][eE]>").expect("style regex")
});

/// `<[^>]+>`.
static TAG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"<[^>]+>").expect("tag regex"));

/// Upstream `_extract_title`: the raw text between the first `<title…>` and the next `</title>`, stripped.
pub fn title(html: &str) -> String {
    TITLE
        .captures(html)
        .and_then(|c| c.get(1))
        .map(|m| pystr::strip(m.as_str()).to_owned())
        .unwrap_or_default()
}

/// Upstream `_extract_content`'s fallback: drop scripts and styles, tags become spaces, whitespace collapses.
pub fn strip_tags(html: &str) -> String {
    let text = SCRIPT.replace_all(html, "");
    let text = STYLE.replace_all(&text, "");
    let text = TAG.replace_all(&text, " ");
    pystr::strip(&pystr::collapse_space(&text)).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_takes_first_title_to_first_close() {
        let html = "<head><TITLE lang=en>\n  A &amp; B \u{3000}</Title><title>second</title>";
        assert_eq!(title(html), "A &amp; B");
    }

    #[test]
    fn title_missing_or_unclosed_is_empty() {
        assert_eq!(title("<html><body>no title</body></html>"), "");
        assert_eq!(title("<title>never closed"), "");
    }

    #[test]
    fn title_skips_an_unclosed_first_tag_like_python() {
        // Python's search moves on to the next `<title` when the first cannot complete;
        // here both tags share the only `</title>`, and the first `<title` wins.
        assert_eq!(title("<title a>x<title>y</title>"), "x<title>y");
        // `[^>]*` spans newlines; `<titles>` also matches `<title[^>]*>`.
        assert_eq!(title("<titles\nfoo=1>t</title>"), "t");
    }

    #[test]
    fn title_folds_case_like_python_ignorecase() {
        // re.search(r"<title[^>]*>(.*?)</title>", "<tİtle>x</tıtle>", re.I | re.S) matches.
        assert_eq!(title("<tİtle>x</tıtle>"), "x");
        // ... but no other Unicode look-alike does.
        assert_eq!(title("<ｔitle>x</title>"), "");
    }

    #[test]
    fn fallback_strips_scripts_styles_and_tags() {
        let html = "<html><head><style>p{}</style><SCRIPT type=x>var a = '<p>';</script></head>\
                    <body><p>Hello<br>world</p>\n\n<p>again</p><ſcript>gone</script></body></html>";
        assert_eq!(strip_tags(html), "Hello world again");
    }

    #[test]
    fn fallback_keeps_entities_and_unclosed_script_text() {
        // No `</script>`: the regex cannot match, so only the tags go (as upstream).
        assert_eq!(strip_tags("<p>a &amp; b</p><script>x"), "a &amp; b x");
    }
}
