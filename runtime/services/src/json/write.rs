//! A JSON writer that produces Python's `json.dumps(..., ensure_ascii=False)` bytes: raw
//! non-ASCII, Python float `repr`, keys in insertion order.

use std::fmt::Write as _;

use super::Json;

/// Separators and the spelling of non-finite floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    /// Between items (`","` or `", "`).
    pub item_sep: &'static str,
    /// Between a key and its value (`":"` or `": "`).
    pub key_sep: &'static str,
    /// Write NaN/Infinity as `NaN`/`Infinity` (Python's default) rather than `null`.
    pub nan_literals: bool,
}

impl Style {
    /// The services' HTTP bodies: `separators=(",", ":")`; non-finite floats as `null`.
    pub const COMPACT: Style = Style {
        item_sep: ",",
        key_sep: ":",
        nan_literals: false,
    };
    /// Python's default `json.dumps` (how the runner shows results to the model).
    pub const PYTHON: Style = Style {
        item_sep: ", ",
        key_sep: ": ",
        nan_literals: true,
    };
}

/// Compact serialisation (`{"a":1,"b":[1,2]}`).
pub fn to_compact(v: &Json) -> String {
    let mut out = String::with_capacity(128);
    write(v, Style::COMPACT, &mut out);
    out
}

/// Python's default `json.dumps(v, ensure_ascii=False)` (`{"a": 1, "b": [1, 2]}`).
pub fn to_python(v: &Json) -> String {
    let mut out = String::with_capacity(128);
    write(v, Style::PYTHON, &mut out);
    out
}

/// Appends `v` to `out` in `style`.
pub fn write(v: &Json, style: Style, out: &mut String) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(true) => out.push_str("true"),
        Json::Bool(false) => out.push_str("false"),
        Json::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Json::BigInt(d) => out.push_str(d),
        Json::Float(f) => {
            if f.is_finite() {
                out.push_str(&py_float_repr(*f));
            } else if !style.nan_literals {
                out.push_str("null");
            } else if f.is_nan() {
                out.push_str("NaN");
            } else if *f > 0.0 {
                out.push_str("Infinity");
            } else {
                out.push_str("-Infinity");
            }
        }
        Json::Str(s) => write_str(s, out),
        Json::Array(a) => {
            out.push('[');
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(style.item_sep);
                }
                write(item, style, out);
            }
            out.push(']');
        }
        Json::Object(o) => {
            out.push('{');
            for (i, (k, item)) in o.iter().enumerate() {
                if i > 0 {
                    out.push_str(style.item_sep);
                }
                write_str(k, out);
                out.push_str(style.key_sep);
                write(item, style, out);
            }
            out.push('}');
        }
    }
}

fn write_str(s: &str, out: &mut String) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &c) in bytes.iter().enumerate() {
        let esc: &str = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{c:04x}");
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Python's `repr(float)`: the shortest digits that round-trip, fixed notation when the decimal
/// exponent is in (-4, 16], otherwise `d.ddde+XX`; always a `.0` or an exponent.
pub fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0.0");
    }
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let n = digits.len() as i32;
    let decpt = exp + 1;
    let mut out = String::with_capacity(24);
    out.push_str(sign);
    if -4 < decpt && decpt <= 16 {
        if decpt <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-decpt) as usize));
            out.push_str(&digits);
        } else if decpt >= n {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', (decpt - n) as usize));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..decpt as usize]);
            out.push('.');
            out.push_str(&digits[decpt as usize..]);
        }
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        let _ = write!(out, "e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    out
}
