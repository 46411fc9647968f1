//! Shell pattern matching (`*`, `?`, `[...]`) and pathname expansion.
//!
//! Patterns use backslash to quote the next character; quoted text from the shell word is
//! escaped by the expander before it gets here, so `"*"` never matches as a wildcard.

use std::path::Path;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Lit(char),
    Any,
    Star,
    /// A bracket expression: negated?, items.
    Class(bool, Vec<ClassItem>),
}

#[derive(Debug, Clone, PartialEq)]
enum ClassItem {
    Char(char),
    Range(char, char),
    Named(String),
}

/// A compiled shell pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    toks: Vec<Tok>,
}

impl Pattern {
    /// Compiles a pattern written with shell syntax.
    pub fn new(pat: &str) -> Self {
        let chars: Vec<char> = pat.chars().collect();
        let mut toks = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            match c {
                '\\' if i + 1 < chars.len() => {
                    toks.push(Tok::Lit(chars[i + 1]));
                    i += 2;
                    continue;
                }
                '*' => {
                    if toks.last() != Some(&Tok::Star) {
                        toks.push(Tok::Star);
                    }
                }
                '?' => toks.push(Tok::Any),
                '[' => {
                    if let Some((tok, next)) = parse_class(&chars, i) {
                        toks.push(tok);
                        i = next;
                        continue;
                    }
                    toks.push(Tok::Lit('['));
                }
                c => toks.push(Tok::Lit(c)),
            }
            i += 1;
        }
        Pattern { toks }
    }

    /// Whether the whole of `s` matches.
    pub fn matches(&self, s: &str) -> bool {
        let chars: Vec<char> = s.chars().collect();
        match_at(&self.toks, &chars)
    }

    /// Whether the pattern begins with a literal `.` (needed to match hidden files).
    pub fn starts_with_dot(&self) -> bool {
        matches!(self.toks.first(), Some(Tok::Lit('.')))
    }

    /// Matches ignoring ASCII case.
    pub fn matches_nocase(&self, s: &str) -> bool {
        let lower = Pattern {
            toks: self
                .toks
                .iter()
                .map(|t| match t {
                    Tok::Lit(c) => Tok::Lit(c.to_ascii_lowercase()),
                    t => t.clone(),
                })
                .collect(),
        };
        lower.matches(&s.to_ascii_lowercase())
    }
}

fn parse_class(chars: &[char], start: usize) -> Option<(Tok, usize)> {
    let mut i = start + 1;
    let mut negated = false;
    if i < chars.len() && (chars[i] == '!' || chars[i] == '^') {
        negated = true;
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    while i < chars.len() {
        let c = chars[i];
        if c == ']' && !first {
            return Some((Tok::Class(negated, items), i + 1));
        }
        first = false;
        if c == '[' && i + 1 < chars.len() && chars[i + 1] == ':' {
            let rest: String = chars[i + 2..].iter().collect();
            if let Some(end) = rest.find(":]") {
                items.push(ClassItem::Named(rest[..end].to_owned()));
                i += 2 + rest[..end].chars().count() + 2;
                continue;
            }
        }
        let lo = if c == '\\' && i + 1 < chars.len() {
            i += 1;
            chars[i]
        } else {
            c
        };
        if i + 2 < chars.len() && chars[i + 1] == '-' && chars[i + 2] != ']' {
            let hi = chars[i + 2];
            items.push(ClassItem::Range(lo, hi));
            i += 3;
        } else {
            items.push(ClassItem::Char(lo));
            i += 1;
        }
    }
    None
}

fn class_matches(items: &[ClassItem], c: char) -> bool {
    items.iter().any(|item| match item {
        ClassItem::Char(x) => *x == c,
        ClassItem::Range(lo, hi) => *lo <= c && c <= *hi,
        ClassItem::Named(name) => match name.as_str() {
            "alpha" => c.is_ascii_alphabetic(),
            "digit" => c.is_ascii_digit(),
            "alnum" => c.is_ascii_alphanumeric(),
            "upper" => c.is_ascii_uppercase(),
            "lower" => c.is_ascii_lowercase(),
            "space" => c.is_ascii_whitespace(),
            "blank" => c == ' ' || c == '\t',
            "punct" => c.is_ascii_punctuation(),
            "xdigit" => c.is_ascii_hexdigit(),
            "print" => !c.is_ascii_control(),
            "cntrl" => c.is_ascii_control(),
            _ => false,
        },
    })
}

fn match_at(toks: &[Tok], s: &[char]) -> bool {
    // Iterative matcher with single-star backtracking (classic wildcard algorithm).
    let (mut ti, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if ti < toks.len() {
            let ok = match &toks[ti] {
                Tok::Lit(c) => *c == s[si],
                Tok::Any => true,
                Tok::Class(neg, items) => class_matches(items, s[si]) != *neg,
                Tok::Star => {
                    star = Some((ti, si));
                    ti += 1;
                    continue;
                }
            };
            if ok {
                ti += 1;
                si += 1;
                continue;
            }
        }
        match star {
            Some((st, ss)) => {
                ti = st + 1;
                si = ss + 1;
                star = Some((st, ss + 1));
            }
            None => return false,
        }
    }
    toks[ti..].iter().all(|t| *t == Tok::Star)
}

/// Whether `pat` contains an unescaped glob metacharacter.
pub fn has_glob(pat: &str) -> bool {
    let mut escaped = false;
    for c in pat.chars() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '*' | '?' => return true,
            '[' => return pat.contains(']'),
            _ => {}
        }
    }
    false
}

/// Removes pattern escapes (`\x` -> `x`).
pub fn unescape(pat: &str) -> String {
    let mut out = String::new();
    let mut chars = pat.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Expands a glob pattern against the filesystem relative to `cwd`. Returns the sorted
/// matches (bytewise, as with `LC_ALL=C`), or an empty vector when nothing matches.
pub fn glob(cwd: &str, pat: &str) -> Vec<String> {
    let absolute = pat.starts_with('/');
    let comps: Vec<&str> = pat.split('/').filter(|c| !c.is_empty()).collect();
    let trailing_slash = pat.ends_with('/');
    let mut results: Vec<String> = vec![if absolute {
        "/".to_owned()
    } else {
        String::new()
    }];
    for comp in &comps {
        let mut next = Vec::new();
        for prefix in &results {
            let dir = if prefix.is_empty() {
                cwd.to_owned()
            } else if absolute {
                prefix.clone()
            } else {
                crate::shell::resolve_str(cwd, prefix)
            };
            let join = |name: &str| {
                if prefix.is_empty() {
                    name.to_owned()
                } else if prefix.ends_with('/') {
                    format!("{prefix}{name}")
                } else {
                    format!("{prefix}/{name}")
                }
            };
            if !has_glob(comp) {
                let name = unescape(comp);
                let candidate = join(&name);
                let full = crate::shell::resolve_str(cwd, &candidate);
                if Path::new(&full).symlink_metadata().is_ok() || name == "." || name == ".." {
                    next.push(candidate);
                }
                continue;
            }
            let p = Pattern::new(comp);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| (!n.starts_with('.') || p.starts_with_dot()) && p.matches(n))
                .collect();
            names.sort();
            next.extend(names.iter().map(|n| join(n)));
        }
        results = next;
        if results.is_empty() {
            return results;
        }
    }
    if trailing_slash {
        results.retain(|r| Path::new(&crate::shell::resolve_str(cwd, r)).is_dir());
        for r in &mut results {
            r.push('/');
        }
    }
    results.sort();
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards() {
        assert!(Pattern::new("*.txt").matches("a.txt"));
        assert!(!Pattern::new("*.txt").matches("a.txt.bak"));
        assert!(Pattern::new("a?c").matches("abc"));
        assert!(Pattern::new("[a-c]x").matches("bx"));
        assert!(!Pattern::new("[!a-c]x").matches("bx"));
        assert!(Pattern::new("[[:digit:]]*").matches("1abc"));
        assert!(Pattern::new("\\*").matches("*"));
        assert!(!Pattern::new("\\*").matches("a"));
        assert!(Pattern::new("*").matches(""));
        assert!(Pattern::new("a*b*c").matches("aXbYbc"));
    }

    #[test]
    fn glob_detection() {
        assert!(has_glob("*.rs"));
        assert!(!has_glob("\\*.rs"));
        assert!(has_glob("[ab]"));
        assert!(!has_glob("["));
    }
}
