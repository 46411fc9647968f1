//! A response body decoded as httpx's `Response.text` decodes it.
//!
//! httpx (0.28) takes the `charset` parameter of the `Content-Type` header (parsed like
//! `email.message.Message.get_content_charset`: first `charset` parameter, quotes removed,
//! lower-cased); when there is none, or Python has no codec by that name, it uses its
//! `default_encoding`, UTF-8. It decodes with `errors="replace"` and sniffs neither a
//! `<meta charset>` nor a byte-order mark. Here:
//! - Latin-1 labels decode every byte to the code point of the same value, as Python's
//!   `latin_1` codec does (WHATWG, and so `encoding_rs`, would read them as windows-1252);
//! - ASCII labels decode bytes above 0x7F to U+FFFD, as Python's `ascii` codec does;
//! - UTF-8 and unknown labels decode as UTF-8, each invalid sequence becoming U+FFFD
//!   (the same "maximal subpart" rule as Python's `replace` handler), a BOM kept as U+FEFF;
//! - any other label `encoding_rs` knows decodes with its WHATWG decoder, without BOM
//!   sniffing. WHATWG's legacy decoders are supersets of Python's codecs of the same name
//!   (e.g. `gb2312` reads as GBK, `euc-kr` as windows-949), so bytes Python would replace
//!   with U+FFFD can decode to characters here; a label only Python knows (e.g. `cp437`)
//!   decodes as UTF-8 here.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8};

/// Python's aliases of the `latin_1` codec, normalised (lower case, `-` and space as `_`).
const LATIN_1: &[&str] = &[
    "latin_1",
    "latin1",
    "latin",
    "l1",
    "iso_8859_1",
    "iso8859_1",
    "iso8859",
    "8859",
    "cp819",
    "ibm819",
    "iso_ir_100",
    "iso_8859_1:1987",
    "iso_8859_1_1987",
    "csisolatin1",
];

/// Python's aliases of the `ascii` codec, normalised as above.
const ASCII: &[&str] = &[
    "ascii",
    "us_ascii",
    "us",
    "646",
    "cp367",
    "ibm367",
    "csascii",
    "iso646_us",
    "iso_ir_6",
    "ansi_x3.4_1968",
    "ansi_x3_4_1968",
    "ansi_x3.4_1986",
    "iso_646.irv:1991",
    "iso_646.irv_1991",
];

/// The body as text, as httpx's `response.text` would give it for this `Content-Type`.
pub fn decode(body: &[u8], content_type: Option<&str>) -> String {
    let Some(charset) = content_type.and_then(charset_param) else {
        return utf8(body);
    };
    let normalised = charset.replace(['-', ' '], "_");
    if LATIN_1.contains(&normalised.as_str()) {
        return body.iter().map(|&b| char::from(b)).collect();
    }
    if ASCII.contains(&normalised.as_str()) {
        return body
            .iter()
            .map(|&b| {
                if b.is_ascii() {
                    char::from(b)
                } else {
                    '\u{fffd}'
                }
            })
            .collect();
    }
    match Encoding::for_label(charset.as_bytes()) {
        Some(encoding) if encoding != UTF_8 => {
            encoding.decode_without_bom_handling(body).0.into_owned()
        }
        _ => utf8(body),
    }
}

/// UTF-8 with U+FFFD for invalid sequences, a BOM kept.
fn utf8(body: &[u8]) -> String {
    match String::from_utf8_lossy(body) {
        Cow::Borrowed(s) => s.to_owned(),
        Cow::Owned(s) => s,
    }
}

/// The first `charset` parameter of a `Content-Type` value, unquoted and lower-cased.
fn charset_param(content_type: &str) -> Option<String> {
    let mut params = split_params(content_type).into_iter();
    params.next(); // the media type itself
    for param in params {
        let Some((name, value)) = param.split_once('=') else {
            continue;
        };
        if !name.trim().eq_ignore_ascii_case("charset") {
            continue;
        }
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        // email.message returns no charset when it is not ASCII.
        return value.is_ascii().then(|| value.to_ascii_lowercase());
    }
    None
}

/// Split at `;` outside double quotes, as `email.message._parseparam` does.
fn split_params(value: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in value.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ';' if !quoted => {
                parts.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&value[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_header_or_no_charset_is_utf8_with_replacement() {
        assert_eq!(decode("héllo".as_bytes(), None), "héllo");
        assert_eq!(
            decode(b"a\xffb\xe2\x82", Some("text/html")),
            "a\u{fffd}b\u{fffd}"
        );
        // A BOM is text, as with Python's utf-8 codec.
        assert_eq!(decode(b"\xef\xbb\xbfx", None), "\u{feff}x");
    }

    #[test]
    fn charset_parameter_is_parsed_like_email_message() {
        assert_eq!(
            charset_param("text/html; Charset=\"ISO-8859-1\"; q=1"),
            Some("iso-8859-1".into())
        );
        assert_eq!(
            charset_param("text/html; a=\"x;y\"; charset=utf-8"),
            Some("utf-8".into())
        );
        assert_eq!(charset_param("text/html"), None);
        assert_eq!(charset_param("text/html; charset=ütf"), None);
    }

    #[test]
    fn latin1_is_python_latin1_not_windows_1252() {
        // Python: b"\x80\xe9".decode("iso-8859-1") == "\x80é" (windows-1252 would give "€é").
        assert_eq!(
            decode(b"\x80\xe9", Some("text/html; charset=ISO-8859-1")),
            "\u{80}é"
        );
        assert_eq!(decode(b"\xe9", Some("text/html; charset=latin1")), "é");
    }

    #[test]
    fn ascii_replaces_high_bytes() {
        assert_eq!(
            decode(b"a\xe9", Some("text/plain; charset=us-ascii")),
            "a\u{fffd}"
        );
    }

    #[test]
    fn legacy_charsets_and_unknown_labels() {
        // "中文" in GBK.
        assert_eq!(
            decode(b"\xd6\xd0\xce\xc4", Some("text/html; charset=gbk")),
            "中文"
        );
        assert_eq!(
            decode(b"\x82\xa0", Some("text/html;charset=Shift_JIS")),
            "あ"
        );
        // Unknown to Python: httpx falls back to UTF-8.
        assert_eq!(
            decode("é".as_bytes(), Some("text/html; charset=x-no-such")),
            "é"
        );
    }
}
