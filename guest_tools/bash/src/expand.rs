//! Word expansion: parameters, command substitution, arithmetic, field splitting, pathname
//! expansion and quote removal, in bash's order.

use brush_parser::word::{
    self, Parameter, ParameterExpr, ParameterTestType, ParameterTransformOp, SpecialParameter,
    SubstringMatchKind, TildeExpr, WordPiece, WordPieceWithSource,
};

use crate::io::Io;
use crate::pattern::{self, Pattern};
use crate::shell::Shell;

/// How an expanded character behaves in the later expansion steps.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Q {
    /// Quoted: neither split nor globbed.
    Quoted,
    /// Unquoted literal text: globbed, not split.
    Literal,
    /// Result of an unquoted expansion: split and globbed.
    Split,
}

/// A field under construction.
#[derive(Default, Debug)]
struct Field {
    chars: Vec<(char, Q)>,
    /// Whether a quoted (possibly empty) part contributed, so the field survives even if empty.
    quoted: bool,
}

/// Accumulates expansion output, including forced field breaks from `"$@"`.
#[derive(Default)]
struct Acc {
    fields: Vec<Field>,
    cur: Field,
}

impl Acc {
    fn push_str(&mut self, s: &str, q: Q) {
        if q == Q::Quoted {
            self.cur.quoted = true;
        }
        self.cur.chars.extend(s.chars().map(|c| (c, q)));
    }
    fn mark_quoted(&mut self) {
        self.cur.quoted = true;
    }
    fn break_field(&mut self) {
        let f = std::mem::take(&mut self.cur);
        self.fields.push(f);
    }
    fn finish(mut self) -> Vec<Field> {
        self.break_field();
        self.fields
    }
}

/// Error raised during expansion (printed as `bash: MSG`, status 1).
pub type ExpandResult<T> = Result<T, String>;

fn parse_word(text: &str) -> ExpandResult<Vec<WordPieceWithSource>> {
    word::parse(text, &crate::parse::options()).map_err(|_| format!("{text}: bad substitution"))
}

/// Sets element `idx` of array `name`, converting a scalar into an array when needed.
pub fn set_array_element(sh: &mut Shell, name: &str, idx: usize, value: String) {
    let var = sh.vars.entry(name.to_owned()).or_default();
    let mut arr = var.array.take().unwrap_or_else(|| {
        if var.value.is_empty() {
            Vec::new()
        } else {
            vec![var.value.clone()]
        }
    });
    if arr.len() <= idx {
        arr.resize(idx + 1, String::new());
    }
    arr[idx] = value;
    var.value = arr.first().cloned().unwrap_or_default();
    var.array = Some(arr);
}

/// Expands a word into fields (with splitting and globbing), as for command arguments.
pub fn expand_word(sh: &mut Shell, io: &Io, text: &str) -> ExpandResult<Vec<String>> {
    let words = brace_expand(text);
    if words.len() > 1 {
        let mut out = Vec::new();
        for w in words {
            out.extend(expand_word_nobrace(sh, io, &w)?);
        }
        return Ok(out);
    }
    expand_word_nobrace(sh, io, text)
}

fn expand_word_nobrace(sh: &mut Shell, io: &Io, text: &str) -> ExpandResult<Vec<String>> {
    let pieces = parse_word(text)?;
    let mut acc = Acc::default();
    expand_pieces(sh, io, &pieces, false, &mut acc)?;
    let ifs = sh.get_var("IFS").unwrap_or_else(|| " \t\n".to_owned());
    let mut out = Vec::new();
    for field in acc.finish() {
        for f in split_field(field, &ifs) {
            glob_field(sh, f, &mut out);
        }
    }
    Ok(out)
}

/// Expands a word to a single string without splitting or globbing (assignments, `case`
/// subjects, redirection targets, here-strings).
pub fn expand_string(sh: &mut Shell, io: &Io, text: &str) -> ExpandResult<String> {
    let pieces = parse_word(text)?;
    let mut acc = Acc::default();
    expand_pieces(sh, io, &pieces, false, &mut acc)?;
    let fields = acc.finish();
    Ok(fields
        .iter()
        .map(|f| f.chars.iter().map(|(c, _)| *c).collect::<String>())
        .collect::<Vec<_>>()
        .join(" "))
}

/// Expands a word into a shell pattern: quoted characters are escaped so they match literally.
pub fn expand_pattern(sh: &mut Shell, io: &Io, text: &str) -> ExpandResult<String> {
    let pieces = parse_word(text)?;
    let mut acc = Acc::default();
    expand_pieces(sh, io, &pieces, false, &mut acc)?;
    let mut out = String::new();
    for (i, f) in acc.finish().iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&to_pattern(&f.chars));
    }
    Ok(out)
}

/// Expands the body of a here-document (parameters, command substitution, arithmetic and
/// backslash escapes; quotes are literal).
pub fn expand_heredoc(sh: &mut Shell, io: &Io, text: &str) -> ExpandResult<String> {
    let pieces = word::parse_heredoc(text, &crate::parse::options())
        .map_err(|_| "bad substitution in here-document".to_owned())?;
    let mut acc = Acc::default();
    expand_pieces(sh, io, &pieces, true, &mut acc)?;
    Ok(acc
        .finish()
        .iter()
        .map(|f| f.chars.iter().map(|(c, _)| *c).collect::<String>())
        .collect::<Vec<_>>()
        .join(" "))
}

fn to_pattern(chars: &[(char, Q)]) -> String {
    let mut out = String::new();
    for &(c, q) in chars {
        if q == Q::Quoted && matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn split_field(field: Field, ifs: &str) -> Vec<Field> {
    if !field.chars.iter().any(|(_, q)| *q == Q::Split) || ifs.is_empty() {
        return if field.chars.is_empty() && !field.quoted {
            Vec::new()
        } else {
            vec![field]
        };
    }
    let is_ws = |c: char| c == ' ' || c == '\t' || c == '\n';
    let mut out = Vec::new();
    let mut cur = Field {
        chars: Vec::new(),
        quoted: field.quoted && field.chars.is_empty(),
    };
    let mut pending_nonws = false;
    for (c, q) in field.chars {
        if q == Q::Split && ifs.contains(c) {
            if is_ws(c) {
                if !cur.chars.is_empty() || cur.quoted {
                    out.push(std::mem::take(&mut cur));
                }
            } else {
                if cur.chars.is_empty() && !cur.quoted && !pending_nonws && !out.is_empty() {
                    // "a : b": whitespace already ended the field.
                    pending_nonws = true;
                    continue;
                }
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        pending_nonws = false;
        if q == Q::Quoted {
            cur.quoted = true;
        }
        cur.chars.push((c, q));
    }
    if !cur.chars.is_empty() || cur.quoted {
        out.push(cur);
    }
    out
}

fn glob_field(sh: &Shell, field: Field, out: &mut Vec<String>) {
    let has_meta = field
        .chars
        .iter()
        .any(|(c, q)| *q != Q::Quoted && matches!(c, '*' | '?' | '['));
    let text: String = field.chars.iter().map(|(c, _)| *c).collect();
    if has_meta {
        let pat = to_pattern(&field.chars);
        if pattern::has_glob(&pat) {
            let matches = pattern::glob(&sh.cwd, &pat);
            if !matches.is_empty() {
                out.extend(matches);
                return;
            }
        }
    }
    out.push(text);
}

fn expand_pieces(
    sh: &mut Shell,
    io: &Io,
    pieces: &[WordPieceWithSource],
    in_dq: bool,
    acc: &mut Acc,
) -> ExpandResult<()> {
    let lit = if in_dq { Q::Quoted } else { Q::Literal };
    let exp = if in_dq { Q::Quoted } else { Q::Split };
    for p in pieces {
        match &p.piece {
            WordPiece::Text(s) => acc.push_str(s, lit),
            WordPiece::SingleQuotedText(s) => acc.push_str(s, Q::Quoted),
            WordPiece::AnsiCQuotedText(s) => {
                let (text, _) = crate::builtins::echo::unescape(s, false);
                acc.push_str(&String::from_utf8_lossy(&text), Q::Quoted);
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                acc.mark_quoted();
                expand_pieces(sh, io, inner, true, acc)?;
            }
            WordPiece::TildeExpansion(t) => {
                let v = match t {
                    TildeExpr::Home => sh.get_var("HOME").unwrap_or_default(),
                    TildeExpr::WorkingDir => sh.cwd.clone(),
                    TildeExpr::OldWorkingDir => sh.get_var("OLDPWD").unwrap_or_default(),
                    TildeExpr::UserHome(u) => format!("~{u}"),
                    _ => "~".to_owned(),
                };
                acc.push_str(&v, Q::Quoted);
            }
            WordPiece::ParameterExpansion(expr) => expand_param(sh, io, expr, in_dq, acc)?,
            WordPiece::CommandSubstitution(cmd) => {
                let out = sh.command_substitution(io, cmd);
                acc.push_str(&out, exp);
            }
            WordPiece::BackquotedCommandSubstitution(cmd) => {
                let cmd = unescape_backquoted(cmd);
                let out = sh.command_substitution(io, &cmd);
                acc.push_str(&out, exp);
            }
            WordPiece::EscapeSequence(s) => {
                let mut chars = s.chars();
                chars.next();
                let rest: String = chars.collect();
                if rest == "\n" {
                    continue;
                }
                if in_dq && !matches!(rest.as_str(), "$" | "`" | "\"" | "\\") {
                    acc.push_str(s, Q::Quoted);
                } else {
                    acc.push_str(&rest, Q::Quoted);
                }
            }
            WordPiece::ArithmeticExpression(expr) => {
                let text = expand_string_in_dq(sh, io, &expr.value)?;
                let v = crate::arith::eval_str(sh, &text)?;
                acc.push_str(&v.to_string(), exp);
            }
        }
    }
    Ok(())
}

/// Expands text as if it were inside double quotes (used for arithmetic expressions).
fn expand_string_in_dq(sh: &mut Shell, io: &Io, text: &str) -> ExpandResult<String> {
    let pieces = word::parse_heredoc(text, &crate::parse::options())
        .map_err(|_| format!("{text}: bad substitution"))?;
    let mut acc = Acc::default();
    expand_pieces(sh, io, &pieces, true, &mut acc)?;
    Ok(acc
        .finish()
        .iter()
        .map(|f| f.chars.iter().map(|(c, _)| *c).collect::<String>())
        .collect())
}

fn unescape_backquoted(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&n) = chars.peek()
            && matches!(n, '$' | '`' | '\\')
        {
            out.push(n);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// The values of a parameter: `None` when unset; several values for `$@` and arrays.
fn param_values(sh: &mut Shell, param: &Parameter) -> ExpandResult<Option<Vec<String>>> {
    Ok(match param {
        Parameter::Positional(0) => Some(vec!["bash".to_owned()]),
        Parameter::Positional(n) => sh.positional.get(*n as usize - 1).map(|v| vec![v.clone()]),
        Parameter::Special(s) => Some(match s {
            SpecialParameter::AllPositionalParameters { .. } => sh.positional.clone(),
            SpecialParameter::PositionalParameterCount => vec![sh.positional.len().to_string()],
            SpecialParameter::LastExitStatus => vec![sh.last_status.to_string()],
            SpecialParameter::CurrentOptionFlags => vec!["hB".to_owned()],
            SpecialParameter::ProcessId => vec!["4242".to_owned()],
            SpecialParameter::LastBackgroundProcessId => vec![String::new()],
            SpecialParameter::ShellName => vec!["bash".to_owned()],
        }),
        Parameter::Named(name) => sh.get_var(name).map(|v| vec![v]),
        Parameter::NamedWithIndex { name, index } => {
            let Some(var) = sh.vars.get(name).cloned() else {
                return Ok(None);
            };
            let idx = crate::arith::eval_str(sh, index)?;
            match &var.array {
                Some(arr) => {
                    let i = if idx < 0 { arr.len() as i64 + idx } else { idx };
                    usize::try_from(i)
                        .ok()
                        .and_then(|i| arr.get(i).cloned())
                        .map(|v| vec![v])
                }
                None if idx == 0 => Some(vec![var.value.clone()]),
                None => None,
            }
        }
        Parameter::NamedWithAllIndices { name, .. } => sh.vars.get(name).map(|v| match &v.array {
            Some(a) => a.clone(),
            None => vec![v.value.clone()],
        }),
    })
}

fn param_name(param: &Parameter) -> String {
    match param {
        Parameter::Positional(n) => n.to_string(),
        Parameter::Special(s) => s.to_string(),
        Parameter::Named(n) => n.clone(),
        Parameter::NamedWithIndex { name, .. } | Parameter::NamedWithAllIndices { name, .. } => {
            name.clone()
        }
    }
}

fn is_multi(param: &Parameter) -> bool {
    matches!(
        param,
        Parameter::Special(SpecialParameter::AllPositionalParameters { concatenate: false })
            | Parameter::NamedWithAllIndices {
                concatenate: false,
                ..
            }
    )
}

fn scalar(sh: &mut Shell, param: &Parameter) -> ExpandResult<Option<String>> {
    let sep = sh
        .get_var("IFS")
        .and_then(|s| s.chars().next())
        .map(String::from)
        .unwrap_or_default();
    let joiner = if is_multi(param) { " ".to_owned() } else { sep };
    Ok(param_values(sh, param)?.map(|v| v.join(&joiner)))
}

fn expand_param(
    sh: &mut Shell,
    io: &Io,
    expr: &ParameterExpr,
    in_dq: bool,
    acc: &mut Acc,
) -> ExpandResult<()> {
    let exp = if in_dq { Q::Quoted } else { Q::Split };
    let pieces_of = |s: &Option<String>| -> ExpandResult<Vec<WordPieceWithSource>> {
        match s {
            Some(s) => parse_word(s),
            None => Ok(Vec::new()),
        }
    };
    let is_null = |v: &Option<String>, t: &ParameterTestType| match t {
        ParameterTestType::UnsetOrNull => v.as_deref().is_none_or(str::is_empty),
        ParameterTestType::Unset => v.is_none(),
    };
    match expr {
        ParameterExpr::Parameter { parameter, .. } => {
            if is_multi(parameter) {
                let values = param_values(sh, parameter)?.unwrap_or_default();
                if in_dq {
                    for (i, v) in values.iter().enumerate() {
                        if i > 0 {
                            acc.break_field();
                        }
                        acc.push_str(v, Q::Quoted);
                    }
                } else {
                    for (i, v) in values.iter().enumerate() {
                        if i > 0 {
                            acc.push_str(" ", Q::Split);
                        }
                        acc.push_str(v, Q::Split);
                    }
                }
                return Ok(());
            }
            let v = scalar(sh, parameter)?;
            if v.is_none() && sh.nounset && !matches!(parameter, Parameter::Special(_)) {
                return Err(format!("{}: unbound variable", param_name(parameter)));
            }
            acc.push_str(&v.unwrap_or_default(), exp);
        }
        ParameterExpr::UseDefaultValues {
            parameter,
            test_type,
            default_value,
            ..
        } => {
            let v = scalar(sh, parameter)?;
            if is_null(&v, test_type) {
                expand_pieces(sh, io, &pieces_of(default_value)?, in_dq, acc)?;
            } else {
                acc.push_str(&v.unwrap_or_default(), exp);
            }
        }
        ParameterExpr::AssignDefaultValues {
            parameter,
            test_type,
            default_value,
            ..
        } => {
            let v = scalar(sh, parameter)?;
            if is_null(&v, test_type) {
                let mut sub = Acc::default();
                expand_pieces(sh, io, &pieces_of(default_value)?, true, &mut sub)?;
                let value: String = sub
                    .finish()
                    .iter()
                    .flat_map(|f| f.chars.iter().map(|(c, _)| *c))
                    .collect();
                sh.set_var(&param_name(parameter), &value);
                acc.push_str(&value, exp);
            } else {
                acc.push_str(&v.unwrap_or_default(), exp);
            }
        }
        ParameterExpr::IndicateErrorIfNullOrUnset {
            parameter,
            test_type,
            error_message,
            ..
        } => {
            let v = scalar(sh, parameter)?;
            if is_null(&v, test_type) {
                let msg = match error_message {
                    Some(m) => expand_string(sh, io, m)?,
                    None => "parameter null or not set".to_owned(),
                };
                return Err(format!("{}: {msg}", param_name(parameter)));
            }
            acc.push_str(&v.unwrap_or_default(), exp);
        }
        ParameterExpr::UseAlternativeValue {
            parameter,
            test_type,
            alternative_value,
            ..
        } => {
            let v = scalar(sh, parameter)?;
            if !is_null(&v, test_type) {
                expand_pieces(sh, io, &pieces_of(alternative_value)?, in_dq, acc)?;
            } else if in_dq {
                acc.mark_quoted();
            }
        }
        ParameterExpr::ParameterLength { parameter, .. } => {
            let n = match parameter {
                Parameter::NamedWithAllIndices { .. }
                | Parameter::Special(SpecialParameter::AllPositionalParameters { .. }) => {
                    param_values(sh, parameter)?.map_or(0, |v| v.len())
                }
                _ => scalar(sh, parameter)?.map_or(0, |v| v.chars().count()),
            };
            acc.push_str(&n.to_string(), exp);
        }
        ParameterExpr::RemoveSmallestSuffixPattern {
            parameter, pattern, ..
        }
        | ParameterExpr::RemoveLargestSuffixPattern {
            parameter, pattern, ..
        }
        | ParameterExpr::RemoveSmallestPrefixPattern {
            parameter, pattern, ..
        }
        | ParameterExpr::RemoveLargestPrefixPattern {
            parameter, pattern, ..
        } => {
            let pat = match pattern {
                Some(p) => expand_pattern(sh, io, p)?,
                None => String::new(),
            };
            let pat = Pattern::new(&pat);
            let (suffix, largest) = match expr {
                ParameterExpr::RemoveSmallestSuffixPattern { .. } => (true, false),
                ParameterExpr::RemoveLargestSuffixPattern { .. } => (true, true),
                ParameterExpr::RemoveSmallestPrefixPattern { .. } => (false, false),
                _ => (false, true),
            };
            let values = param_values(sh, parameter)?.unwrap_or_default();
            let out: Vec<String> = values
                .iter()
                .map(|v| remove_affix(v, &pat, suffix, largest))
                .collect();
            acc.push_str(&out.join(" "), exp);
        }
        ParameterExpr::Substring {
            parameter,
            offset,
            length,
            ..
        } => {
            let off_text = expand_string_in_dq(sh, io, &offset.value)?;
            let off = crate::arith::eval_str(sh, &off_text)?;
            let len = match length {
                Some(l) => {
                    let t = expand_string_in_dq(sh, io, &l.value)?;
                    Some(crate::arith::eval_str(sh, &t)?)
                }
                None => None,
            };
            if is_multi(parameter) {
                let values = param_values(sh, parameter)?.unwrap_or_default();
                // For $@ the offset counts from $1 (offset 0 would be $0).
                let mut values = values;
                if matches!(parameter, Parameter::Special(_)) {
                    values.insert(0, "bash".to_owned());
                }
                let n = values.len() as i64;
                let start = if off < 0 {
                    (n + off).max(0)
                } else {
                    off.min(n)
                };
                let end = match len {
                    Some(l) if l < 0 => (n + l).max(start),
                    Some(l) => (start + l).min(n),
                    None => n,
                };
                let slice = &values[start as usize..end as usize];
                acc.push_str(&slice.join(" "), exp);
            } else {
                let v: Vec<char> = scalar(sh, parameter)?.unwrap_or_default().chars().collect();
                let n = v.len() as i64;
                let start = if off < 0 {
                    (n + off).max(0)
                } else {
                    off.min(n)
                };
                let end = match len {
                    Some(l) if l < 0 => (n + l).max(start),
                    Some(l) => (start + l).min(n),
                    None => n,
                };
                let s: String = v[start as usize..end as usize].iter().collect();
                acc.push_str(&s, exp);
            }
        }
        ParameterExpr::Transform { parameter, op, .. } => {
            let v = scalar(sh, parameter)?.unwrap_or_default();
            let out = match op {
                ParameterTransformOp::ToUpperCase => v.to_uppercase(),
                ParameterTransformOp::ToLowerCase => v.to_lowercase(),
                ParameterTransformOp::CapitalizeInitial => capitalize(&v),
                ParameterTransformOp::Quoted => format!("'{}'", v.replace('\'', "'\\''")),
                ParameterTransformOp::ExpandEscapeSequences => {
                    String::from_utf8_lossy(&crate::builtins::echo::unescape(&v, false).0)
                        .into_owned()
                }
                _ => v,
            };
            acc.push_str(&out, exp);
        }
        ParameterExpr::UppercaseFirstChar { parameter, .. } => {
            let v = scalar(sh, parameter)?.unwrap_or_default();
            acc.push_str(&capitalize(&v), exp);
        }
        ParameterExpr::UppercasePattern { parameter, .. } => {
            let v = scalar(sh, parameter)?.unwrap_or_default();
            acc.push_str(&v.to_uppercase(), exp);
        }
        ParameterExpr::LowercaseFirstChar { parameter, .. } => {
            let v = scalar(sh, parameter)?.unwrap_or_default();
            let mut c = v.chars();
            let s = match c.next() {
                Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
                None => String::new(),
            };
            acc.push_str(&s, exp);
        }
        ParameterExpr::LowercasePattern { parameter, .. } => {
            let v = scalar(sh, parameter)?.unwrap_or_default();
            acc.push_str(&v.to_lowercase(), exp);
        }
        ParameterExpr::ReplaceSubstring {
            parameter,
            pattern,
            replacement,
            match_kind,
            ..
        } => {
            let pat = Pattern::new(&expand_pattern(sh, io, pattern)?);
            let rep = match replacement {
                Some(r) => expand_string(sh, io, r)?,
                None => String::new(),
            };
            let values = param_values(sh, parameter)?.unwrap_or_default();
            let out: Vec<String> = values
                .iter()
                .map(|v| replace(v, &pat, &rep, match_kind))
                .collect();
            acc.push_str(&out.join(" "), exp);
        }
        ParameterExpr::VariableNames { prefix, .. } => {
            let mut names: Vec<&String> =
                sh.vars.keys().filter(|k| k.starts_with(prefix)).collect();
            names.sort();
            let s = names
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            acc.push_str(&s, exp);
        }
        ParameterExpr::MemberKeys { variable_name, .. } => {
            let n = sh
                .vars
                .get(variable_name)
                .map_or(0, |v| v.array.as_ref().map_or(1, |a| a.len()));
            let keys: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            acc.push_str(&keys.join(" "), exp);
        }
    }
    Ok(())
}

fn capitalize(v: &str) -> String {
    let mut c = v.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn char_bounds(s: &str) -> Vec<usize> {
    let mut b: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
    b.push(s.len());
    b
}

fn remove_affix(v: &str, pat: &Pattern, suffix: bool, largest: bool) -> String {
    let bounds = char_bounds(v);
    let order: Vec<usize> = if suffix == largest {
        bounds.clone()
    } else {
        bounds.iter().rev().copied().collect()
    };
    for &i in &order {
        if suffix {
            if pat.matches(&v[i..]) {
                return v[..i].to_owned();
            }
        } else if pat.matches(&v[..i]) {
            return v[i..].to_owned();
        }
    }
    v.to_owned()
}

fn replace(v: &str, pat: &Pattern, rep: &str, kind: &SubstringMatchKind) -> String {
    let bounds = char_bounds(v);
    match kind {
        SubstringMatchKind::Prefix => {
            for &e in bounds.iter().rev() {
                if pat.matches(&v[..e]) {
                    return format!("{rep}{}", &v[e..]);
                }
            }
            v.to_owned()
        }
        SubstringMatchKind::Suffix => {
            for &s in &bounds {
                if pat.matches(&v[s..]) {
                    return format!("{}{rep}", &v[..s]);
                }
            }
            v.to_owned()
        }
        SubstringMatchKind::FirstOccurrence | SubstringMatchKind::Anywhere => {
            let all = matches!(kind, SubstringMatchKind::Anywhere);
            let mut out = String::new();
            let mut i = 0;
            let mut replaced = false;
            while i < bounds.len() {
                let s = bounds[i];
                if s == v.len() {
                    break;
                }
                if !replaced || all {
                    // Longest match starting at s.
                    let found = bounds[i + 1..]
                        .iter()
                        .rev()
                        .position(|&e| pat.matches(&v[s..e]))
                        .map(|p| bounds.len() - 1 - p);
                    if let Some(j) = found {
                        out.push_str(rep);
                        replaced = true;
                        i = j;
                        continue;
                    }
                }
                out.push_str(&v[s..bounds[i + 1]]);
                i += 1;
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh() -> Shell {
        let mut sh = Shell::new("/", &Default::default());
        sh.set_var("x", "hello world");
        sh.set_var("f", "dir/file.tar.gz");
        sh.set_var("empty", "");
        sh
    }

    fn words(text: &str) -> Vec<String> {
        let mut s = sh();
        expand_word(&mut s, &Io::default(), text).unwrap()
    }

    #[test]
    fn quoting_and_splitting() {
        assert_eq!(words("$x"), vec!["hello", "world"]);
        assert_eq!(words("\"$x\""), vec!["hello world"]);
        assert_eq!(words("'$x'"), vec!["$x"]);
        assert_eq!(words("a\\ b"), vec!["a b"]);
        assert_eq!(words("$empty"), Vec::<String>::new());
        assert_eq!(words("\"\""), vec![""]);
        assert_eq!(words("${nope:-def}"), vec!["def"]);
        assert_eq!(words("${x:+alt}"), vec!["alt"]);
        assert_eq!(words("pre${x}post"), vec!["prehello", "worldpost"]);
    }

    #[test]
    fn parameter_operators() {
        assert_eq!(words("${f%.*}"), vec!["dir/file.tar"]);
        assert_eq!(words("${f%%.*}"), vec!["dir/file"]);
        assert_eq!(words("${f#*/}"), vec!["file.tar.gz"]);
        assert_eq!(words("${f##*.}"), vec!["gz"]);
        assert_eq!(words("${#x}"), vec!["11"]);
        assert_eq!(words("${x/o/0}"), vec!["hell0", "world"]);
        assert_eq!(words("\"${x//o/0}\""), vec!["hell0 w0rld"]);
        assert_eq!(words("${x:0:5}"), vec!["hello"]);
        assert_eq!(words("${x^^}"), vec!["HELLO", "WORLD"]);
        assert_eq!(words("$((1+2*3))"), vec!["7"]);
    }
}

/// Performs brace expansion (`a{b,c}d`, `{1..5}`, `{a..e..2}`) on a raw word, respecting
/// quotes and `${...}`. Returns the word itself when there is nothing to expand.
pub fn brace_expand(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    // Find the first expandable brace group.
    let mut i = 0;
    let mut quote: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            if c == '\\' && q == '"' {
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            '\\' => {
                i += 2;
                continue;
            }
            '\'' | '"' => quote = Some(c),
            '$' if chars.get(i + 1) == Some(&'{') => {
                // Skip ${...}.
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '{' {
                        depth += 1;
                    } else if chars[i] == '}' {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    i += 1;
                }
            }
            '{' => {
                if let Some((end, alts)) = brace_group(&chars, i) {
                    let prefix: String = chars[..i].iter().collect();
                    let suffix: String = chars[end + 1..].iter().collect();
                    let mut out = Vec::new();
                    for alt in alts {
                        for tail in brace_expand(&format!("{alt}{suffix}")) {
                            out.push(format!("{prefix}{tail}"));
                        }
                    }
                    return out;
                }
            }
            _ => {}
        }
        i += 1;
    }
    vec![word.to_owned()]
}

/// Parses a brace group starting at `chars[start] == '{'`: returns the index of the closing
/// brace and the alternatives, or `None` if it is not a valid expansion.
fn brace_group(chars: &[char], start: usize) -> Option<(usize, Vec<String>)> {
    let mut depth = 0;
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut i = start;
    let mut quote: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            '\\' => {
                cur.push(c);
                if let Some(n) = chars.get(i + 1) {
                    cur.push(*n);
                }
                i += 2;
                continue;
            }
            '\'' | '"' => {
                quote = Some(c);
                cur.push(c);
            }
            '{' => {
                depth += 1;
                if depth > 1 {
                    cur.push(c);
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    parts.push(std::mem::take(&mut cur));
                    if parts.len() > 1 {
                        return Some((i, parts));
                    }
                    return sequence(&parts[0]).map(|s| (i, s));
                }
                cur.push(c);
            }
            ',' if depth == 1 => parts.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
        i += 1;
    }
    None
}

fn sequence(body: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = body.split("..").collect();
    if parts.len() < 2 || parts.len() > 3 {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse().ok()?,
        None => 1,
    };
    let step = step.unsigned_abs().max(1) as i64;
    if let (Ok(a), Ok(b)) = (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        let width = if (parts[0].starts_with('0') && parts[0].len() > 1)
            || (parts[1].starts_with('0') && parts[1].len() > 1)
        {
            parts[0].len().max(parts[1].len())
        } else {
            0
        };
        let mut out = Vec::new();
        let mut v = a;
        loop {
            out.push(format!("{v:0width$}"));
            if v == b || out.len() > 100_000 {
                break;
            }
            v += if a < b { step } else { -step };
            if (a < b && v > b) || (a > b && v < b) {
                break;
            }
        }
        return Some(out);
    }
    let (a, b) = (parts[0], parts[1]);
    if a.chars().count() == 1 && b.chars().count() == 1 {
        let (a, b) = (a.chars().next()? as i64, b.chars().next()? as i64);
        let mut out = Vec::new();
        let mut v = a;
        loop {
            out.push(char::from_u32(v as u32)?.to_string());
            if v == b {
                break;
            }
            v += if a < b { step } else { -step };
            if (a < b && v > b) || (a > b && v < b) {
                break;
            }
        }
        return Some(out);
    }
    None
}

#[cfg(test)]
mod brace_tests {
    use super::brace_expand;

    #[test]
    fn braces() {
        assert_eq!(brace_expand("a{b,c}d"), vec!["abd", "acd"]);
        assert_eq!(brace_expand("{1..3}"), vec!["1", "2", "3"]);
        assert_eq!(
            brace_expand("{a..c}{1,2}"),
            vec!["a1", "a2", "b1", "b2", "c1", "c2"]
        );
        assert_eq!(brace_expand("'{a,b}'"), vec!["'{a,b}'"]);
        assert_eq!(brace_expand("${x}"), vec!["${x}"]);
        assert_eq!(brace_expand("{a}"), vec!["{a}"]);
        assert_eq!(brace_expand("{01..03}"), vec!["01", "02", "03"]);
    }
}
