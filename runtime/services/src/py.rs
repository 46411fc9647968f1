//! Python semantics the mock services rely on: `==` across numeric types, `in`, list slicing,
//! `str.isspace`, `str.lower`.

use std::cmp::Ordering;

use super::json::Json;

/// A Python `TypeError` (or similar) inside a handler: the service answers a plain-text 500.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crash;

/// Python's `a == b` on JSON values (`1 == 1.0 == True`; dicts compare regardless of order).
pub fn eq(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Null, Json::Null) => true,
        (Json::Str(x), Json::Str(y)) => x == y,
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| eq(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| eq(v, w)))
        }
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y) == Some(Ordering::Equal),
            _ => false,
        },
    }
}

/// A numeric view for comparisons.
#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    fn partial_cmp(&self, other: &Num) -> Option<Ordering> {
        match (*self, *other) {
            (Num::Int(a), Num::Int(b)) => Some(a.cmp(&b)),
            (Num::Float(a), Num::Float(b)) => a.partial_cmp(&b),
            (Num::Int(a), Num::Float(b)) => cmp_int_float(a, b),
            (Num::Float(a), Num::Int(b)) => cmp_int_float(b, a).map(Ordering::reverse),
        }
    }
}

fn cmp_int_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        });
    }
    // Exact: compare the integer with the float's integral part, then the fraction.
    let t = f.trunc();
    if t >= 1.7e38 {
        return Some(Ordering::Less);
    }
    if t <= -1.7e38 {
        return Some(Ordering::Greater);
    }
    let ti = t as i128;
    match i.cmp(&ti) {
        Ordering::Equal => (0.0).partial_cmp(&(f - t)),
        o => Some(o),
    }
}

fn number(v: &Json) -> Option<Num> {
    match v {
        Json::Bool(b) => Some(Num::Int(i128::from(*b))),
        Json::Int(i) => Some(Num::Int(i128::from(*i))),
        Json::BigInt(d) => d
            .parse::<i128>()
            .ok()
            .map(Num::Int)
            .or_else(|| d.parse::<f64>().ok().map(Num::Float)),
        Json::Float(f) => Some(Num::Float(*f)),
        _ => None,
    }
}

/// Python's ordering of two values for `<`, `>=`, ...: `Ok(None)` when unordered (NaN),
/// `Err` when Python raises `TypeError` (e.g. a string against a number).
pub fn compare(a: &Json, b: &Json) -> Result<Option<Ordering>, Crash> {
    match (a, b) {
        (Json::Str(x), Json::Str(y)) => Ok(Some(cmp_str(x, y))),
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => Ok(x.partial_cmp(&y)),
            _ => Err(Crash),
        },
    }
}

/// Python string ordering (by code point; identical to UTF-8 byte order).
pub fn cmp_str(a: &str, b: &str) -> Ordering {
    a.as_bytes().cmp(b.as_bytes())
}

/// Python's `item in container`.
pub fn contains(container: &Json, item: &Json) -> Result<bool, Crash> {
    match container {
        Json::Array(a) => Ok(a.iter().any(|v| eq(v, item))),
        Json::Str(s) => match item {
            Json::Str(sub) => Ok(s.contains(&**sub)),
            _ => Err(Crash),
        },
        Json::Object(o) => match item {
            Json::Str(k) => Ok(o.contains_key(k)),
            Json::Array(_) | Json::Object(_) => Err(Crash),
            _ => Ok(false),
        },
        _ => Err(Crash),
    }
}

/// The length Python keeps for `seq[:n]` of a sequence of length `len`.
pub fn slice_len(len: usize, n: &Json) -> usize {
    match n {
        Json::Int(i) => slice_len_i64(len, *i),
        Json::Bool(b) => slice_len_i64(len, i64::from(*b)),
        Json::BigInt(d) if d.starts_with('-') => 0,
        Json::BigInt(_) => len,
        _ => len,
    }
}

fn slice_len_i64(len: usize, n: i64) -> usize {
    if n >= 0 {
        usize::try_from(n).map_or(len, |n| n.min(len))
    } else {
        let drop = usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX);
        len.saturating_sub(drop)
    }
}

/// `seq[:n]` of a JSON array or string (`Err` for other values, where Python raises).
pub fn slice(seq: &Json, n: &Json) -> Result<Json, Crash> {
    match seq {
        Json::Array(a) => Ok(Json::Array(a[..slice_len(a.len(), n)].to_vec())),
        Json::Str(s) => {
            let count = s.chars().count();
            let keep = slice_len(count, n);
            let end = s.char_indices().nth(keep).map_or(s.len(), |(i, _)| i);
            Ok(Json::Str(s[..end].into()))
        }
        _ => Err(Crash),
    }
}

/// Python's `len(seq)` for arrays, strings and objects.
pub fn len(seq: &Json) -> Result<usize, Crash> {
    match seq {
        Json::Array(a) => Ok(a.len()),
        Json::Str(s) => Ok(s.chars().count()),
        Json::Object(o) => Ok(o.len()),
        _ => Err(Crash),
    }
}

/// Python's `str.isspace` for one character (Unicode White_Space plus U+001C..U+001F).
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's truth value of a JSON value (`bool(x)`).
pub fn truthy(v: &Json) -> bool {
    match v {
        Json::Null | Json::Bool(false) => false,
        Json::Int(i) => *i != 0,
        Json::Float(f) => *f != 0.0,
        Json::Str(s) => !s.is_empty(),
        Json::Array(a) => !a.is_empty(),
        Json::Object(o) => !o.is_empty(),
        _ => true,
    }
}

/// Python's `str(x)` of a JSON scalar as used in f-strings (containers fall back to JSON).
pub fn str_of(v: &Json) -> String {
    match v {
        Json::Null => "None".into(),
        Json::Bool(true) => "True".into(),
        Json::Bool(false) => "False".into(),
        Json::Int(i) => i.to_string(),
        Json::BigInt(d) => d.to_string(),
        Json::Float(f) => super::json::py_float_repr(*f),
        Json::Str(s) => s.to_string(),
        other => other.to_compact(),
    }
}
