//! JSON text as Python's `json.dumps(..., ensure_ascii=False)` writes it (`", "` and `": "`
//! separators, keys in insertion order, floats in `repr` form), for the text Claw-Eval's
//! dispatcher gives the model.

/// A JSON value with ordered objects.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `None`.
    Null,
    /// An `int`.
    Int(i64),
    /// A `float`.
    Float(f64),
    /// A `str`.
    Str(String),
    /// A `list`.
    List(Vec<Json>),
    /// A `dict`, in insertion order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The text `json.dumps` gives.
    pub fn dumps(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Int(i) => out.push_str(&i.to_string()),
            Json::Float(f) => out.push_str(&float_repr(*f)),
            Json::Str(s) => out.push_str(&string(s)),
            Json::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&string(k));
                    out.push_str(": ");
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

/// Python's `repr(float)` (`30.0`, `0.1`, `1e-05`, `1e+16`, `inf` as `Infinity` in JSON).
pub fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let abs = f.abs();
    if f != 0.0 && !(1e-4..1e16).contains(&abs) {
        // Shortest digits, Python's exponent form: `1e-05`, `1.5e+16`.
        let text = format!("{f:e}");
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    let text = format!("{f}");
    if text.contains('.') {
        text
    } else {
        format!("{text}.0")
    }
}

/// Python's `round(x, 2)` (correctly rounded, ties to even on the exact binary value).
pub fn round2(x: f64) -> f64 {
    format!("{x:.2}").parse().unwrap_or(x)
}

fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_as_python_prints_them() {
        assert_eq!(float_repr(30.0), "30.0");
        assert_eq!(float_repr(29.97), "29.97");
        assert_eq!(float_repr(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(float_repr(1e-5), "1e-05");
        assert_eq!(float_repr(1.5e16), "1.5e+16");
        assert_eq!(float_repr(-2.0), "-2.0");
        assert_eq!(float_repr(0.0), "0.0");
    }

    #[test]
    fn round2_as_python() {
        assert_eq!(round2(29.97002997002997), 29.97);
        assert_eq!(round2(2.675), 2.67); // 2.675 is 2.67499999... in binary
        assert_eq!(round2(0.125), 0.12); // an exact tie goes to even
        assert_eq!(round2(7.0 / 3.0), 2.33);
    }

    #[test]
    fn dumps_as_python() {
        let v = Json::Object(vec![
            ("a".into(), Json::Int(1)),
            ("b".into(), Json::List(vec![Json::Null, Json::Float(1.0)])),
            ("é".into(), Json::Str("x\"y\n".into())),
        ]);
        assert_eq!(v.dumps(), r#"{"a": 1, "b": [null, 1.0], "é": "x\"y\n"}"#);
    }
}
