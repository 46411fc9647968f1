//! Translation of POSIX basic/extended regular expressions (as grep, sed and awk write them)
//! into the syntax of the `regex` crate.

/// Converts a POSIX regex to `regex` crate syntax. `extended` selects ERE (`grep -E`,
/// `sed -E`, awk); otherwise BRE rules apply (`\(`, `\{`, `\+`, ... are the operators).
pub fn translate(pat: &str, extended: bool) -> String {
    let chars: Vec<char> = pat.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    // Whether the previous output could be quantified (for a leading literal `*`).
    let mut at_start = true;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '[' => {
                let (class, next) = bracket(&chars, i);
                out.push_str(&class);
                i = next;
                at_start = false;
                continue;
            }
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                i += 2;
                if !extended {
                    match n {
                        '(' | ')' | '|' => {
                            if n == '(' {
                                out.push('(');
                                at_start = true;
                                continue;
                            }
                            out.push(n);
                            at_start = n == '|';
                            continue;
                        }
                        '{' | '}' | '+' | '?' => {
                            out.push(n);
                            continue;
                        }
                        _ => {}
                    }
                }
                at_start = false;
                match n {
                    '<' | '>' => out.push_str("\\b"),
                    'w' | 'W' | 's' | 'S' | 'b' | 'B' | 'd' | 'D' => {
                        out.push('\\');
                        out.push(n);
                    }
                    'n' => out.push_str("\\n"),
                    't' => out.push_str("\\t"),
                    '`' => out.push_str("\\A"),
                    '\'' => out.push_str("\\z"),
                    c if c.is_ascii_digit() => {
                        // Backreferences are not supported by the regex crate; match the digit.
                        out.push_str(&regex::escape(&c.to_string()));
                    }
                    c => out.push_str(&regex::escape(&c.to_string())),
                }
                continue;
            }
            '*' if at_start => {
                out.push_str("\\*");
                i += 1;
                at_start = false;
                continue;
            }
            '^' => {
                if extended || at_start {
                    out.push('^');
                } else {
                    out.push_str("\\^");
                }
                i += 1;
                continue;
            }
            '$' => {
                let at_end = i + 1 == chars.len()
                    || (!extended
                        && chars.get(i + 1) == Some(&'\\')
                        && matches!(chars.get(i + 2), Some(')' | '|')));
                if extended || at_end {
                    out.push('$');
                } else {
                    out.push_str("\\$");
                }
                i += 1;
                at_start = false;
                continue;
            }
            '(' | ')' | '|' | '+' | '?' if !extended => {
                out.push('\\');
                out.push(c);
            }
            '{' if !extended => out.push_str("\\{"),
            '}' if !extended => out.push_str("\\}"),
            '{' => {
                // A valid interval stays an interval; anything else is a literal brace.
                let rest: String = chars[i + 1..].iter().collect();
                let valid = rest.find('}').is_some_and(|end| {
                    let body = &rest[..end];
                    !body.is_empty()
                        && body.chars().all(|c| c.is_ascii_digit() || c == ',')
                        && body
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_digit() || c == ',')
                });
                if valid && !at_start {
                    let end = rest.find('}').unwrap_or(0);
                    let body = &rest[..end];
                    let body = if body.starts_with(',') {
                        format!("0{body}")
                    } else {
                        body.to_owned()
                    };
                    out.push('{');
                    out.push_str(&body);
                    out.push('}');
                    i += end + 2;
                    at_start = false;
                    continue;
                }
                out.push_str("\\{");
            }
            '}' => out.push_str("\\}"),
            '(' => {
                out.push('(');
                i += 1;
                at_start = true;
                continue;
            }
            '|' => {
                out.push('|');
                i += 1;
                at_start = true;
                continue;
            }
            '*' | '+' | '?' if extended && at_start => {
                out.push('\\');
                out.push(c);
            }
            '#' | '&' | '~' | ' ' => {
                out.push_str(&regex::escape(&c.to_string()));
            }
            c => out.push(c),
        }
        at_start = false;
        i += 1;
    }
    out
}

/// Translates a bracket expression starting at `chars[start] == '['`.
fn bracket(chars: &[char], start: usize) -> (String, usize) {
    let mut i = start + 1;
    let mut out = String::from("[");
    if i < chars.len() && chars[i] == '^' {
        out.push('^');
        i += 1;
    }
    let mut first = true;
    while i < chars.len() {
        let c = chars[i];
        if c == ']' && !first {
            out.push(']');
            return (out, i + 1);
        }
        first = false;
        if c == '[' && i + 1 < chars.len() && matches!(chars[i + 1], ':' | '=' | '.') {
            let delim = chars[i + 1];
            let rest: String = chars[i + 2..].iter().collect();
            let close = format!("{delim}]");
            if let Some(end) = rest.find(&close) {
                let name = &rest[..end];
                if delim == ':' {
                    out.push_str(&format!("[:{name}:]"));
                } else {
                    out.push_str(&regex::escape(name));
                }
                i += 2 + name.chars().count() + 2;
                continue;
            }
        }
        match c {
            '\\' | '[' | '&' | '~' | '^' => {
                out.push('\\');
                out.push(c);
            }
            ']' => out.push_str("\\]"),
            '-' if i + 1 < chars.len() && chars[i + 1] == '-' => out.push_str("\\-"),
            c => out.push(c),
        }
        i += 1;
    }
    // Unterminated: treat `[` literally.
    ("\\[".to_owned(), start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pat: &str, ext: bool, text: &str) -> bool {
        regex::Regex::new(&translate(pat, ext))
            .unwrap()
            .is_match(text)
    }

    #[test]
    fn basic_and_extended() {
        assert!(m("a\\+b", false, "aaab"));
        assert!(m("a+b", false, "a+b"));
        assert!(!m("a+b", false, "aab"));
        assert!(m("a+b", true, "aab"));
        assert!(m("\\(ab\\)*c", false, "ababc"));
        assert!(m("[[:digit:]]\\{3\\}", false, "x123"));
        assert!(m("[]a]", false, "]"));
        assert!(m("[a\\]", false, "\\"));
        assert!(m("*a", false, "*a"));
        assert!(m("a|b", true, "b"));
        assert!(m("a{", true, "a{"));
        assert!(m("x{2}", true, "xx"));
        assert!(m("\\<foo\\>", false, "a foo b"));
    }
}
