//! A JSON reader that accepts exactly what Python's `json.loads` accepts (C scanner, strict mode)
//! and fails with the same messages and positions (`Expecting value: line 1 column 1 (char 0)`).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::{Json, Key, Obj};

/// Nesting depth at which Python would raise `RecursionError` (approximately: Python's limit of
/// 1000 frames is shared with the frames of the server that calls the decoder).
const MAX_DEPTH: usize = 1000;

/// A `json.JSONDecodeError`: Python's message and the position in code points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// The bare message (`Expecting value`, `Extra data`, ...).
    pub msg: &'static str,
    /// Position of the error in code points.
    pub pos: usize,
    /// 1-based line of `pos`.
    pub line: usize,
    /// 1-based column of `pos`.
    pub col: usize,
}

impl fmt::Display for JsonError {
    /// `str(JSONDecodeError)`: `<msg>: line L column C (char P)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: line {} column {} (char {})",
            self.msg, self.line, self.col, self.pos
        )
    }
}

/// Why bytes could not be read as JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// A syntax error (`json.JSONDecodeError`).
    Syntax(JsonError),
    /// The bytes are not valid in the detected Unicode encoding (`UnicodeDecodeError`).
    Encoding,
    /// Nested too deeply (`RecursionError`).
    TooDeep,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Syntax(e) => e.fmt(f),
            DecodeError::Encoding => f.write_str("invalid text encoding"),
            DecodeError::TooDeep => {
                f.write_str("maximum recursion depth exceeded while decoding a JSON document")
            }
        }
    }
}

impl std::error::Error for DecodeError {}

/// `json.loads(text)` for a `str`.
pub fn parse(text: &str) -> Result<Json, DecodeError> {
    if text.starts_with('\u{feff}') {
        return Err(DecodeError::Syntax(error_at(
            text,
            0,
            "Unexpected UTF-8 BOM (decode using utf-8-sig)",
        )));
    }
    Parser {
        s: text,
        b: text.as_bytes(),
        depth: 0,
    }
    .document()
}

/// `json.loads(body)` for `bytes`: the encoding is detected as Python does (UTF-8 with or without
/// BOM, UTF-16 and UTF-32 by BOM or NUL pattern), then the text is parsed.
pub fn decode_body(bytes: &[u8]) -> Result<Json, DecodeError> {
    let text = decode_text(bytes).ok_or(DecodeError::Encoding)?;
    Parser {
        s: &text,
        b: text.as_bytes(),
        depth: 0,
    }
    .document()
}

fn decode_text(b: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    let utf16 = |b: &[u8], be: bool| -> Option<Cow<'_, str>> {
        if !b.len().is_multiple_of(2) {
            return None;
        }
        let units = b.chunks_exact(2).map(|c| {
            if be {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from_le_bytes([c[0], c[1]])
            }
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .ok()
            .map(Cow::Owned)
    };
    let utf32 = |b: &[u8], be: bool| -> Option<Cow<'_, str>> {
        if !b.len().is_multiple_of(4) {
            return None;
        }
        b.chunks_exact(4)
            .map(|c| {
                let v = if be {
                    u32::from_be_bytes([c[0], c[1], c[2], c[3]])
                } else {
                    u32::from_le_bytes([c[0], c[1], c[2], c[3]])
                };
                char::from_u32(v)
            })
            .collect::<Option<String>>()
            .map(Cow::Owned)
    };
    if let Some(rest) = b.strip_prefix(&[0x00, 0x00, 0xfe, 0xff]) {
        return utf32(rest, true);
    }
    if let Some(rest) = b.strip_prefix(&[0xff, 0xfe, 0x00, 0x00]) {
        return utf32(rest, false);
    }
    if let Some(rest) = b.strip_prefix(&[0xfe, 0xff]) {
        return utf16(rest, true);
    }
    if let Some(rest) = b.strip_prefix(&[0xff, 0xfe]) {
        return utf16(rest, false);
    }
    if let Some(rest) = b.strip_prefix(&[0xef, 0xbb, 0xbf]) {
        return std::str::from_utf8(rest).ok().map(Cow::Borrowed);
    }
    if b.len() >= 4 {
        if b[0] == 0 {
            return if b[1] != 0 {
                utf16(b, true)
            } else {
                utf32(b, true)
            };
        }
        if b[1] == 0 {
            return if b[2] != 0 || b[3] != 0 {
                utf16(b, false)
            } else {
                utf32(b, false)
            };
        }
    } else if b.len() == 2 {
        if b[0] == 0 {
            return utf16(b, true);
        }
        if b[1] == 0 {
            return utf16(b, false);
        }
    }
    std::str::from_utf8(b).ok().map(Cow::Borrowed)
}

fn error_at(s: &str, byte_pos: usize, msg: &'static str) -> JsonError {
    let before = &s[..byte_pos];
    let pos = before.chars().count();
    let line = before.bytes().filter(|&c| c == b'\n').count() + 1;
    let col = match before.rfind('\n') {
        Some(nl) => before[nl + 1..].chars().count() + 1,
        None => pos + 1,
    };
    JsonError {
        msg,
        pos,
        line,
        col,
    }
}

enum Fail {
    /// `StopIteration(idx)`: no value starts at this byte position.
    NoValue(usize),
    /// A positioned error with its own message.
    At(usize, &'static str),
    TooDeep,
}

type R<T> = Result<T, Fail>;

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    depth: usize,
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

impl Parser<'_> {
    fn document(&mut self) -> Result<Json, DecodeError> {
        let start = self.skip_ws(0);
        let result = self.value(start).and_then(|(v, end)| {
            let end = self.skip_ws(end);
            if end != self.b.len() {
                Err(Fail::At(end, "Extra data"))
            } else {
                Ok(v)
            }
        });
        result.map_err(|f| match f {
            Fail::NoValue(i) => DecodeError::Syntax(error_at(self.s, i, "Expecting value")),
            Fail::At(i, msg) => DecodeError::Syntax(error_at(self.s, i, msg)),
            Fail::TooDeep => DecodeError::TooDeep,
        })
    }

    fn skip_ws(&self, mut i: usize) -> usize {
        while i < self.b.len() && is_ws(self.b[i]) {
            i += 1;
        }
        i
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.b.get(i).copied()
    }

    fn value(&mut self, idx: usize) -> R<(Json, usize)> {
        let b = self.b;
        let Some(&c) = b.get(idx) else {
            return Err(Fail::NoValue(idx));
        };
        let lit = |word: &[u8]| b.get(idx..idx + word.len()) == Some(word);
        match c {
            b'"' => self.string(idx + 1).map(|(s, e)| (Json::Str(s.into()), e)),
            b'{' => self.nested(|p| p.object(idx + 1)),
            b'[' => self.nested(|p| p.array(idx + 1)),
            b'n' if lit(b"null") => Ok((Json::Null, idx + 4)),
            b't' if lit(b"true") => Ok((Json::Bool(true), idx + 4)),
            b'f' if lit(b"false") => Ok((Json::Bool(false), idx + 5)),
            b'N' if lit(b"NaN") => Ok((Json::Float(f64::NAN), idx + 3)),
            b'I' if lit(b"Infinity") => Ok((Json::Float(f64::INFINITY), idx + 8)),
            b'-' if lit(b"-Infinity") => Ok((Json::Float(f64::NEG_INFINITY), idx + 9)),
            _ => self.number(idx),
        }
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self) -> R<(Json, usize)>) -> R<(Json, usize)> {
        if self.depth >= MAX_DEPTH {
            return Err(Fail::TooDeep);
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn number(&self, start: usize) -> R<(Json, usize)> {
        let b = self.b;
        let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
        let mut idx = start;
        if b[idx] == b'-' {
            idx += 1;
            if idx >= b.len() {
                return Err(Fail::NoValue(start));
            }
        }
        match b[idx] {
            b'1'..=b'9' => {
                idx += 1;
                while digit(idx) {
                    idx += 1;
                }
            }
            b'0' => idx += 1,
            _ => return Err(Fail::NoValue(start)),
        }
        let mut is_float = false;
        if self.at(idx) == Some(b'.') && digit(idx + 1) {
            is_float = true;
            idx += 2;
            while digit(idx) {
                idx += 1;
            }
        }
        if idx + 1 < b.len() && matches!(b[idx], b'e' | b'E') {
            let e_start = idx;
            idx += 1;
            if idx + 1 < b.len() && matches!(b[idx], b'-' | b'+') {
                idx += 1;
            }
            while digit(idx) {
                idx += 1;
            }
            if b[idx - 1].is_ascii_digit() {
                is_float = true;
            } else {
                idx = e_start;
            }
        }
        let text = &self.s[start..idx];
        let v = if is_float {
            Json::Float(text.parse().unwrap_or(f64::NAN))
        } else {
            int_from_digits(text)
        };
        Ok((v, idx))
    }

    /// Scans a string whose opening quote is at `begin - 1`; returns the text and the index after
    /// the closing quote.
    fn string(&self, begin: usize) -> R<(String, usize)> {
        let b = self.b;
        let quote = begin - 1;
        let mut out = String::new();
        let mut end = begin;
        loop {
            let mut next = end;
            while next < b.len() && b[next] != b'"' && b[next] != b'\\' {
                if b[next] <= 0x1f {
                    return Err(Fail::At(next, "Invalid control character at"));
                }
                next += 1;
            }
            if next >= b.len() {
                return Err(Fail::At(quote, "Unterminated string starting at"));
            }
            out.push_str(&self.s[end..next]);
            if b[next] == b'"' {
                return Ok((out, next + 1));
            }
            // A backslash at `next`.
            next += 1;
            let Some(&esc) = b.get(next) else {
                return Err(Fail::At(quote, "Unterminated string starting at"));
            };
            if esc != b'u' {
                let c = match esc {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    _ => return Err(Fail::At(next - 1, "Invalid \\escape")),
                };
                out.push(c);
                end = next + 1;
                continue;
            }
            let u_pos = next;
            let hex_start = next + 1;
            end = hex_start + 4;
            if end >= b.len() {
                return Err(Fail::At(u_pos, "Invalid \\uXXXX escape"));
            }
            let mut c =
                hex4(&b[hex_start..end]).ok_or(Fail::At(u_pos, "Invalid \\uXXXX escape"))?;
            if (0xd800..0xdc00).contains(&c)
                && end + 6 < b.len()
                && b[end] == b'\\'
                && b[end + 1] == b'u'
            {
                let c2 = hex4(&b[end + 2..end + 6])
                    .ok_or(Fail::At(end + 1, "Invalid \\uXXXX escape"))?;
                if (0xdc00..0xe000).contains(&c2) {
                    c = 0x10000 + ((c - 0xd800) << 10) + (c2 - 0xdc00);
                    end += 6;
                }
            }
            // Lone surrogates cannot live in a Rust string; they become U+FFFD.
            out.push(char::from_u32(c).unwrap_or('\u{fffd}'));
        }
    }

    fn object(&mut self, start: usize) -> R<(Json, usize)> {
        let b = self.b;
        let mut entries: Vec<(Key, Json)> = Vec::new();
        let mut idx = self.skip_ws(start);
        if self.at(idx) != Some(b'}') {
            loop {
                if self.at(idx) != Some(b'"') {
                    return Err(Fail::At(
                        idx,
                        "Expecting property name enclosed in double quotes",
                    ));
                }
                let (key, next) = self.string(idx + 1)?;
                idx = self.skip_ws(next);
                if self.at(idx) != Some(b':') {
                    return Err(Fail::At(idx, "Expecting ':' delimiter"));
                }
                idx = self.skip_ws(idx + 1);
                let (val, next) = self.value(idx)?;
                entries.push((Arc::from(key), val));
                idx = self.skip_ws(next);
                if self.at(idx) == Some(b'}') {
                    break;
                }
                if self.at(idx) != Some(b',') {
                    return Err(Fail::At(idx, "Expecting ',' delimiter"));
                }
                idx = self.skip_ws(idx + 1);
            }
        }
        debug_assert_eq!(b[idx], b'}');
        Ok((Json::Object(dedup(entries)), idx + 1))
    }

    fn array(&mut self, start: usize) -> R<(Json, usize)> {
        let mut items = Vec::new();
        let mut idx = self.skip_ws(start);
        if self.at(idx) != Some(b']') {
            loop {
                let (val, next) = self.value(idx)?;
                items.push(val);
                idx = self.skip_ws(next);
                if self.at(idx) == Some(b']') {
                    break;
                }
                if self.at(idx) != Some(b',') {
                    return Err(Fail::At(idx, "Expecting ',' delimiter"));
                }
                idx = self.skip_ws(idx + 1);
            }
        }
        Ok((Json::Array(items), idx + 1))
    }
}

fn hex4(b: &[u8]) -> Option<u32> {
    let mut v = 0;
    for &c in b {
        v = v * 16 + char::from(c).to_digit(16)?;
    }
    Some(v)
}

/// A Python `int` from optional `-` and ASCII digits.
pub(crate) fn int_from_digits(text: &str) -> Json {
    if let Ok(i) = text.parse::<i64>() {
        return Json::Int(i);
    }
    let (neg, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Json::Int(0);
    }
    if neg {
        Json::BigInt(format!("-{digits}").into())
    } else {
        Json::BigInt(digits.into())
    }
}

/// Python `dict` semantics for repeated keys: the first position, the last value.
fn dedup(entries: Vec<(Key, Json)>) -> Obj {
    if entries.len() <= 16 {
        return entries.into_iter().collect();
    }
    let mut seen: HashMap<Key, usize> = HashMap::with_capacity(entries.len());
    let mut out: Vec<(Key, Json)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        match seen.get(&k) {
            Some(&i) => out[i].1 = v,
            None => {
                seen.insert(k.clone(), out.len());
                out.push((k, v));
            }
        }
    }
    Obj(out)
}
