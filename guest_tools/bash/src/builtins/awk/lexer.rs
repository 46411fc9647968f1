//! Tokenizer for awk programs.

/// An awk token.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// Numeric literal.
    Num(f64),
    /// String literal (escapes decoded).
    Str(String),
    /// Regex literal `/.../` (raw text).
    Regex(String),
    /// Identifier or keyword.
    Ident(String),
    /// Function name immediately followed by `(`.
    FuncName(String),
    /// `$`.
    Dollar,
    /// Operators and punctuation.
    Op(&'static str),
    /// Statement-terminating newline.
    Newline,
    /// End of input.
    Eof,
}

const OPS: &[&str] = &[
    "+=", "-=", "*=", "/=", "%=", "^=", "**=", "==", "<=", ">=", "!=", "++", "--", "&&", "||",
    ">>", "!~", "**", "{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^", "!",
    ">", "<", "|", "?", ":", "~", "=",
];

fn decode_escapes(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some('/') => out.push('/'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some(d @ '0'..='7') => {
                let mut v = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek() {
                        Some(&n @ '0'..='7') => {
                            v = v * 8 + n.to_digit(8).unwrap_or(0);
                            chars.next();
                        }
                        _ => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('?'));
            }
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Decodes awk string escapes (used for `-v` assignments too).
pub fn unescape(s: &str) -> String {
    decode_escapes(s)
}

/// Splits an awk program into tokens.
pub fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = src.chars().collect();
    let mut toks: Vec<Tok> = Vec::new();
    let mut i = 0;
    let regex_allowed = |toks: &Vec<Tok>| -> bool {
        !matches!(
            toks.last(),
            Some(Tok::Num(_) | Tok::Str(_) | Tok::Ident(_) | Tok::Regex(_) | Tok::Dollar)
                | Some(Tok::Op(")" | "]" | "++" | "--"))
        ) || matches!(toks.last(), Some(Tok::Ident(k)) if k == "print" || k == "printf" || k == "return" || k == "in")
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' => i += 1,
            '\\' if chars.get(i + 1) == Some(&'\n') => i += 2,
            '\n' => {
                toks.push(Tok::Newline);
                i += 1;
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '"' => {
                let mut s = String::new();
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        s.push('\\');
                        s.push(chars[i + 1]);
                        i += 2;
                        continue;
                    }
                    s.push(chars[i]);
                    i += 1;
                }
                if i >= chars.len() {
                    return Err("awk: unterminated string".into());
                }
                i += 1;
                toks.push(Tok::Str(decode_escapes(&s)));
            }
            '/' if regex_allowed(&toks) => {
                let mut s = String::new();
                i += 1;
                let mut in_bracket = false;
                while i < chars.len() && (chars[i] != '/' || in_bracket) {
                    if chars[i] == '\n' {
                        return Err("awk: newline in regex".into());
                    }
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        if chars[i + 1] == '/' {
                            s.push('/');
                        } else {
                            s.push('\\');
                            s.push(chars[i + 1]);
                        }
                        i += 2;
                        continue;
                    }
                    if chars[i] == '[' && !in_bracket {
                        in_bracket = true;
                        s.push('[');
                        i += 1;
                        if i < chars.len() && chars[i] == '^' {
                            s.push('^');
                            i += 1;
                        }
                        if i < chars.len() && chars[i] == ']' {
                            s.push(']');
                            i += 1;
                        }
                        continue;
                    }
                    if chars[i] == ']' && in_bracket {
                        in_bracket = false;
                    }
                    s.push(chars[i]);
                    i += 1;
                }
                if i >= chars.len() {
                    return Err("awk: unterminated regex".into());
                }
                i += 1;
                toks.push(Tok::Regex(s));
            }
            '$' => {
                toks.push(Tok::Dollar);
                i += 1;
            }
            c if c.is_ascii_digit()
                || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                let start = i;
                if c == '0' && matches!(chars.get(i + 1), Some('x' | 'X')) {
                    i += 2;
                    while i < chars.len() && chars[i].is_ascii_hexdigit() {
                        i += 1;
                    }
                    let h: String = chars[start + 2..i].iter().collect();
                    toks.push(Tok::Num(i64::from_str_radix(&h, 16).unwrap_or(0) as f64));
                    continue;
                }
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                    i += 1;
                }
                if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                    let save = i;
                    i += 1;
                    if i < chars.len() && (chars[i] == '+' || chars[i] == '-') {
                        i += 1;
                    }
                    if i < chars.len() && chars[i].is_ascii_digit() {
                        while i < chars.len() && chars[i].is_ascii_digit() {
                            i += 1;
                        }
                    } else {
                        i = save;
                    }
                }
                let s: String = chars[start..i].iter().collect();
                toks.push(Tok::Num(s.parse().unwrap_or(0.0)));
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let s: String = chars[start..i].iter().collect();
                if i < chars.len() && chars[i] == '(' && !is_keyword(&s) {
                    toks.push(Tok::FuncName(s));
                } else {
                    toks.push(Tok::Ident(s));
                }
            }
            _ => {
                let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
                let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) else {
                    return Err(format!(
                        "awk: syntax error at source line 1: unexpected character '{c}'"
                    ));
                };
                i += op.chars().count();
                toks.push(Tok::Op(op));
            }
        }
    }
    toks.push(Tok::Eof);
    Ok(toks)
}

/// Whether `s` is an awk keyword (never a function name).
pub fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "BEGIN"
            | "END"
            | "function"
            | "func"
            | "if"
            | "else"
            | "while"
            | "for"
            | "do"
            | "break"
            | "continue"
            | "next"
            | "nextfile"
            | "exit"
            | "return"
            | "delete"
            | "in"
            | "getline"
            | "print"
            | "printf"
    )
}
