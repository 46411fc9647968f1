//! `echo` and `printf`, plus the backslash-escape decoder they share with `$'...'`.

use crate::io::Io;
use crate::shell::Shell;

/// Decodes backslash escapes. `echo_mode` selects echo's octal form (`\0NNN`) instead of
/// printf's (`\NNN`). Returns the bytes and whether `\c` asked to stop all output.
pub fn unescape(s: &str, echo_mode: bool) -> (Vec<u8>, bool) {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        let c = b[i];
        i += 1;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'e' | b'E' => out.push(27),
            b'\\' => out.push(b'\\'),
            b'\'' if !echo_mode => out.push(b'\''),
            b'"' if !echo_mode => out.push(b'"'),
            b'c' => return (out, true),
            b'x' => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 && i < b.len() && b[i].is_ascii_hexdigit() {
                    v = v * 16 + (b[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                    n += 1;
                }
                if n == 0 {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push(v as u8);
                }
            }
            b'u' | b'U' => {
                let max = if c == b'u' { 4 } else { 8 };
                let mut v = 0u32;
                let mut n = 0;
                while n < max && i < b.len() && b[i].is_ascii_hexdigit() {
                    v = v * 16 + (b[i] as char).to_digit(16).unwrap_or(0);
                    i += 1;
                    n += 1;
                }
                match char::from_u32(v) {
                    Some(ch) if n > 0 => {
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                    _ => {
                        out.push(b'\\');
                        out.push(c);
                    }
                }
            }
            b'0'..=b'7' => {
                let (start, max) = if echo_mode {
                    if c != b'0' {
                        out.push(b'\\');
                        out.push(c);
                        continue;
                    }
                    (0u32, 3)
                } else {
                    (u32::from(c - b'0'), 2)
                };
                let mut v = start;
                let mut n = 0;
                while n < max && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    n += 1;
                }
                out.push(v as u8);
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    (out, false)
}

/// `echo [-neE] ARGS...`.
pub fn echo(_sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut newline = true;
    let mut escapes = false;
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        if a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| "neE".contains(c)) {
            for c in a[1..].chars() {
                match c {
                    'n' => newline = false,
                    'e' => escapes = true,
                    _ => escapes = false,
                }
            }
            i += 1;
        } else {
            break;
        }
    }
    let text = argv[i..].join(" ");
    let mut out = if escapes {
        let (bytes, stop) = unescape(&text, true);
        if stop {
            io.out(bytes);
            return 0;
        }
        bytes
    } else {
        text.into_bytes()
    };
    if newline {
        out.push(b'\n');
    }
    io.out(out);
    0
}

/// `printf FORMAT [ARGS...]` (bash's builtin).
pub fn printf(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut args = &argv[1..];
    let mut var: Option<String> = None;
    if args.first().map(|s| s.as_str()) == Some("-v") {
        var = args.get(1).cloned();
        args = args.get(2..).unwrap_or(&[]);
    }
    if args.first().map(|s| s.as_str()) == Some("--") {
        args = &args[1..];
    }
    let Some(fmt) = args.first() else {
        io.errln("bash: printf: usage: printf [-v var] format [arguments]");
        return 2;
    };
    let mut rest: Vec<&str> = args[1..].iter().map(|s| s.as_str()).collect();
    let mut out = Vec::new();
    let mut status = 0;
    loop {
        let before = rest.len();
        let stop = format_once(fmt, &mut rest, &mut out, &mut status, io);
        if stop || rest.is_empty() || rest.len() == before {
            break;
        }
    }
    match var {
        Some(v) => sh.set_var(&v, &String::from_utf8_lossy(&out)),
        None => io.out(out),
    }
    status
}

struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

fn pad(spec: &Spec, body: String, numeric: bool) -> String {
    let width = spec.width.unwrap_or(0);
    let len = body.chars().count();
    if len >= width {
        return body;
    }
    let fill = width - len;
    if spec.left {
        format!("{body}{}", " ".repeat(fill))
    } else if spec.zero && numeric {
        let (sign, digits) = match body.chars().next() {
            Some(c @ ('-' | '+' | ' ')) => (c.to_string(), body[1..].to_owned()),
            _ => (String::new(), body.clone()),
        };
        let (prefix, digits) = if digits.starts_with("0x") || digits.starts_with("0X") {
            (digits[..2].to_owned(), digits[2..].to_owned())
        } else {
            (String::new(), digits)
        };
        format!("{sign}{prefix}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{body}", " ".repeat(fill))
    }
}

fn parse_num_arg(arg: &str, io: &Io, status: &mut i32) -> i64 {
    let t = arg.trim();
    if t.is_empty() {
        return 0;
    }
    if let Some(c) = t.strip_prefix('\'').or_else(|| t.strip_prefix('"')) {
        return c.chars().next().map_or(0, |c| c as i64);
    }
    match crate::arith::parse_int(t) {
        Ok(v) => v,
        Err(crate::arith::NotANumber) => {
            // Accept a leading numeric prefix, like bash, but report the error.
            let digits: String = t
                .chars()
                .enumerate()
                .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && (*c == '-' || *c == '+')))
                .map(|(_, c)| c)
                .collect();
            io.errln(format!("bash: printf: {arg}: invalid number"));
            *status = 1;
            digits.parse().unwrap_or(0)
        }
    }
}

fn parse_float_arg(arg: &str, io: &Io, status: &mut i32) -> f64 {
    let t = arg.trim();
    if t.is_empty() {
        return 0.0;
    }
    if let Some(c) = t.strip_prefix('\'').or_else(|| t.strip_prefix('"')) {
        return c.chars().next().map_or(0.0, |c| c as u32 as f64);
    }
    match t.parse::<f64>() {
        Ok(v) => v,
        Err(_) => match crate::arith::parse_int(t) {
            Ok(v) => v as f64,
            Err(crate::arith::NotANumber) => {
                io.errln(format!("bash: printf: {arg}: invalid number"));
                *status = 1;
                0.0
            }
        },
    }
}

/// Formats one pass of `fmt`, consuming arguments. Returns true if `\c` stopped output.
fn format_once(
    fmt: &str,
    args: &mut Vec<&str>,
    out: &mut Vec<u8>,
    status: &mut i32,
    io: &Io,
) -> bool {
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let next_arg = |args: &mut Vec<&str>| -> Option<String> {
        if args.is_empty() {
            None
        } else {
            Some(args.remove(0).to_owned())
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            // Collect the escape and decode it with printf rules.
            let mut j = i + 1;
            if j < chars.len() {
                let e = chars[j];
                j += 1;
                let max_extra = match e {
                    '0'..='7' => 2,
                    'x' => 2,
                    'u' => 4,
                    'U' => 8,
                    _ => 0,
                };
                let mut n = 0;
                while n < max_extra && j < chars.len() && chars[j].is_ascii_hexdigit() {
                    if matches!(e, '0'..='7') && !('0'..='7').contains(&chars[j]) {
                        break;
                    }
                    j += 1;
                    n += 1;
                }
            }
            let esc: String = chars[i..j].iter().collect();
            let (bytes, stop) = unescape(&esc, false);
            out.extend_from_slice(&bytes);
            if stop {
                return true;
            }
            i = j;
            continue;
        }
        if c != '%' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            i += 1;
            continue;
        }
        i += 1;
        if i >= chars.len() {
            out.push(b'%');
            break;
        }
        if chars[i] == '%' {
            out.push(b'%');
            i += 1;
            continue;
        }
        let mut spec = Spec {
            left: false,
            plus: false,
            space: false,
            alt: false,
            zero: false,
            width: None,
            prec: None,
        };
        while i < chars.len() && "-+ #0".contains(chars[i]) {
            match chars[i] {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                _ => spec.zero = true,
            }
            i += 1;
        }
        if i < chars.len() && chars[i] == '*' {
            let w = parse_num_arg(&next_arg(args).unwrap_or_default(), io, status);
            if w < 0 {
                spec.left = true;
            }
            spec.width = Some(w.unsigned_abs() as usize);
            i += 1;
        } else {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i > start {
                spec.width = chars[start..i].iter().collect::<String>().parse().ok();
            }
        }
        if i < chars.len() && chars[i] == '.' {
            i += 1;
            if i < chars.len() && chars[i] == '*' {
                let p = parse_num_arg(&next_arg(args).unwrap_or_default(), io, status);
                spec.prec = Some(p.max(0) as usize);
                i += 1;
            } else {
                let start = i;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                spec.prec = Some(
                    chars[start..i]
                        .iter()
                        .collect::<String>()
                        .parse()
                        .unwrap_or(0),
                );
            }
        }
        // Length modifiers are accepted and ignored.
        while i < chars.len() && "hlLqjzt".contains(chars[i]) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else {
            break;
        };
        i += 1;
        let arg = next_arg(args);
        let body = match conv {
            's' => {
                let mut s = arg.unwrap_or_default();
                if let Some(p) = spec.prec {
                    s = s.chars().take(p).collect();
                }
                pad(&spec, s, false)
            }
            'b' => {
                let (bytes, stop) = unescape(&arg.unwrap_or_default(), true);
                let s = String::from_utf8_lossy(&bytes).into_owned();
                out.extend_from_slice(pad(&spec, s, false).as_bytes());
                if stop {
                    return true;
                }
                continue;
            }
            'c' => {
                let s: String = arg.unwrap_or_default().chars().take(1).collect();
                pad(&spec, s, false)
            }
            'q' => pad(&spec, shell_quote(&arg.unwrap_or_default()), false),
            'd' | 'i' | 'u' => {
                let v = parse_num_arg(&arg.unwrap_or_default(), io, status);
                let mut digits = v.unsigned_abs().to_string();
                if let Some(p) = spec.prec {
                    while digits.len() < p {
                        digits.insert(0, '0');
                    }
                }
                let sign = if v < 0 {
                    "-"
                } else if spec.plus {
                    "+"
                } else if spec.space {
                    " "
                } else {
                    ""
                };
                pad(&spec, format!("{sign}{digits}"), spec.prec.is_none())
            }
            'x' | 'X' | 'o' => {
                let v = parse_num_arg(&arg.unwrap_or_default(), io, status) as u64;
                let mut digits = match conv {
                    'x' => format!("{v:x}"),
                    'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                if let Some(p) = spec.prec {
                    while digits.len() < p {
                        digits.insert(0, '0');
                    }
                }
                if spec.alt && v != 0 {
                    digits = match conv {
                        'x' => format!("0x{digits}"),
                        'X' => format!("0X{digits}"),
                        _ => format!("0{digits}"),
                    };
                }
                pad(&spec, digits, spec.prec.is_none())
            }
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' => {
                let v = parse_float_arg(&arg.unwrap_or_default(), io, status);
                let prec = spec.prec.unwrap_or(6);
                let mut s = format_float(v, conv, prec, spec.alt);
                if v >= 0.0 && !s.starts_with('-') {
                    if spec.plus {
                        s.insert(0, '+');
                    } else if spec.space {
                        s.insert(0, ' ');
                    }
                }
                pad(&spec, s, true)
            }
            other => {
                io.errln(format!("bash: printf: `{other}': invalid format character"));
                *status = 1;
                return true;
            }
        };
        out.extend_from_slice(body.as_bytes());
    }
    false
}

/// Formats a float like C's `%f`, `%e` and `%g`.
pub fn format_float(v: f64, conv: char, prec: usize, alt: bool) -> String {
    if v.is_nan() {
        return if conv.is_uppercase() { "NAN" } else { "nan" }.to_owned();
    }
    if v.is_infinite() {
        let s = if v < 0.0 { "-inf" } else { "inf" };
        return if conv.is_uppercase() {
            s.to_uppercase()
        } else {
            s.to_owned()
        };
    }
    match conv {
        'f' | 'F' => format!("{v:.prec$}"),
        'e' | 'E' => {
            let s = format_exp(v, prec);
            if conv == 'E' { s.to_uppercase() } else { s }
        }
        _ => {
            let p = if prec == 0 { 1 } else { prec };
            let exp = if v == 0.0 {
                0
            } else {
                // Exponent after rounding to p significant digits.
                let s = format!("{:.*e}", p - 1, v);
                s.split('e')
                    .nth(1)
                    .and_then(|e| e.parse::<i32>().ok())
                    .unwrap_or(0)
            };
            let mut s = if exp < -4 || exp >= p as i32 {
                let s = format_exp(v, p - 1);
                if alt {
                    s
                } else {
                    let (mant, e) = s.split_once('e').unwrap_or((&s, "+00"));
                    let mant = strip_zeros(mant);
                    format!("{mant}e{e}")
                }
            } else {
                let decimals = (p as i32 - 1 - exp).max(0) as usize;
                let s = format!("{v:.decimals$}");
                if alt { s } else { strip_zeros(&s) }
            };
            if conv == 'G' {
                s = s.to_uppercase();
            }
            s
        }
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s.to_owned()
    }
}

fn format_exp(v: f64, prec: usize) -> String {
    let s = format!("{v:.prec$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}e{sign}{:02}", exp.abs())
}

/// Quotes a string for reuse as shell input (`printf %q`).
pub fn shell_quote(s: &str) -> String {
    if s.is_empty() {
        return "''".to_owned();
    }
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c))
    {
        return s.to_owned();
    }
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || "_-./=:,+@%".contains(c) {
            out.push(c);
        } else {
            out.push('\\');
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats() {
        assert_eq!(format_float(1.23456, 'f', 2, false), "1.23");
        assert_eq!(format_float(0.0001234, 'g', 6, false), "0.0001234");
        assert_eq!(format_float(1234567.0, 'g', 6, false), "1.23457e+06");
        assert_eq!(format_float(100.0, 'g', 6, false), "100");
        assert_eq!(format_float(12345.678, 'e', 2, false), "1.23e+04");
    }

    #[test]
    fn escapes() {
        assert_eq!(unescape("a\\tb\\n", false).0, b"a\tb\n");
        assert_eq!(unescape("\\101", false).0, b"A");
        assert_eq!(unescape("\\0101", true).0, b"A");
        assert_eq!(unescape("x\\cy", true), (b"x".to_vec(), true));
    }
}
