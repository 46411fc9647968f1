//! The text of a fetched web page, as Claw-Eval's `web_real` service gives it to the agent.
//!
//! Upstream (`mock_services/web_real/server.py`) answers a fetch with the page's `title`
//! (a regular expression on `<title>`) and `content`: `trafilatura.extract(html, url=url,
//! include_links=True)` cut at 50,000 characters, or, when trafilatura finds nothing, the
//! page with scripts, styles and tags stripped. This crate produces the same kinds of text
//! deterministically in Rust: [`title`] and the fallback reproduce upstream's regular
//! expressions exactly; [`main_text`] runs `trafilatura` (a Rust port of go-trafilatura,
//! itself a port of Python trafilatura) and writes its result the way Python trafilatura's
//! plain-text output does. README.md measures how the two differ on a corpus of pages.

#![deny(missing_docs)]

mod decode;
mod pystr;
mod regex_text;
mod render;

use std::panic::{AssertUnwindSafe, catch_unwind};

pub use decode::decode;

/// The page title exactly as upstream's `re.search(r"<title[^>]*>(.*?)</title>", html, re.I | re.S)` + `strip()` gives it.
pub fn title(html: &str) -> String {
    regex_text::title(html)
}

/// The page's main content with links as `[text](url)`, else upstream's tag-stripping fallback; not truncated.
pub fn main_text(html: &str, url: &str) -> String {
    let extracted = extract(html, url);
    if extracted.is_empty() {
        regex_text::strip_tags(html)
    } else {
        extracted
    }
}

/// The first `n` Unicode code points of `s`, as Python's `s[:n]`.
pub fn cut_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((end, _)) => &s[..end],
        None => s,
    }
}

/// Run the extractor; empty when it finds nothing (or fails on the page).
fn extract(html: &str, url: &str) -> String {
    let origin = origin(url);
    let mut opts = trafilatura::Options::default()
        .with_links(true)
        // Python runs readability-lxml and jusText as fallbacks; this port's own
        // (go-readability, jusText) pick differently, and measured closer to Python
        // without them (README.md, "Choices").
        .with_fallback(false)
        // Dates are metadata only, and their plausibility check reads the clock.
        .with_html_date_mode(trafilatura::HtmlDateMode::Disabled);
    if let Some((_, base)) = &origin {
        // Upstream (courlan) resolves relative links against the site root, not the page.
        opts = opts.with_url(base.clone());
    }
    // A page the extractor cannot handle gets the fallback, like a page it finds empty.
    let Ok(Ok(result)) = catch_unwind(AssertUnwindSafe(|| trafilatura::extract(html, &opts)))
    else {
        return String::new();
    };
    let origin = origin.as_ref().map(|(o, _)| o.as_str());
    let body = render::render(&result.content_html, origin);
    let comments = render::render(&result.comments_html, origin);
    // Upstream: f"{body}\n{comments}".strip() when there are comments.
    if comments.is_empty() {
        body
    } else {
        pystr::strip(&format!("{body}\n{comments}")).to_owned()
    }
}

/// `scheme://netloc` of an http(s) page address (as courlan's `get_base_url`), and the same as a URL.
fn origin(url: &str) -> Option<(String, url::Url)> {
    let parsed = url::Url::parse(pystr::strip(url)).ok()?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return None;
    }
    let host = parsed.host_str()?;
    let mut origin = format!("{}://", parsed.scheme());
    if !parsed.username().is_empty() {
        origin.push_str(parsed.username());
        if let Some(password) = parsed.password() {
            origin.push(':');
            origin.push_str(password);
        }
        origin.push('@');
    }
    origin.push_str(host);
    if let Some(port) = parsed.port() {
        origin.push_str(&format!(":{port}"));
    }
    let base = url::Url::parse(&origin).ok()?;
    Some((origin, base))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_chars_counts_code_points() {
        assert_eq!(cut_chars("héllo", 2), "hé");
        assert_eq!(cut_chars("中文字", 2), "中文");
        assert_eq!(cut_chars("abc", 10), "abc");
        assert_eq!(cut_chars("abc", 0), "");
        // Python slices code points: an emoji with a modifier is two of them.
        assert_eq!(cut_chars("👍🏽x", 1), "👍");
    }

    #[test]
    fn origin_is_scheme_and_netloc() {
        let (o, _) = origin(" https://User@Example.org:8443/a/b?c#d ").unwrap();
        assert_eq!(o, "https://User@example.org:8443");
        assert!(origin("ftp://example.org/x").is_none());
        assert!(origin("not a url").is_none());
    }

    #[test]
    fn relative_links_join_the_site_root_like_upstream() {
        let para = "<p>This paragraph is long enough to be part of the main text of the page, and \
                    it links to <a href=\"guide/next.html\">the next page</a> and to \
                    <a href=\"#part-2\">part two</a> and to <a href=\"//cdn.example.net/x\">a \
                    mirror</a>, so that the resolution of each kind of reference shows.</p>";
        let html = format!(
            "<html><body><article><h1>Links</h1>{para}{}</article></body></html>",
            para.replace("This paragraph", "Another paragraph")
        );
        let text = main_text(&html, "https://docs.example.org/v1/intro/start.html");
        // Upstream joins relative paths to the site root, not to the page's folder.
        assert!(
            text.contains("[the next page](https://docs.example.org/guide/next.html)"),
            "{text}"
        );
        assert!(
            text.contains("[part two](https://docs.example.org#part-2)"),
            "{text}"
        );
        // Upstream writes http: for a protocol-relative link to another host; the
        // extractor resolves it with the page's scheme (README.md, "Links").
        assert!(
            text.contains("[a mirror](https://cdn.example.net/x)"),
            "{text}"
        );
    }

    #[test]
    fn empty_extraction_falls_back_to_stripped_tags() {
        // Nothing the extractor keeps: upstream's regex fallback answers.
        let html = "<html><head><title>T</title><script>x()</script></head><body></body></html>";
        assert_eq!(main_text(html, "https://e.org/"), "T");
        assert_eq!(main_text("", "https://e.org/"), "");
    }
}
