//! Reading typed values out of a positioned [`Node`] tree, collecting diagnostics.
//!
//! Every scalar read where text is expected is its *source text* (YAML 1.2 / serde-saphyr
//! reading): `14:30` stays `"14:30"`, `yes` stays `"yes"`, `1.0` stays `"1.0"`, `000` stays
//! `"000"`. Unknown mapping keys become warnings; type errors, missing fields and bad values
//! become errors; reading goes on after an error so one pass reports them all.

use std::collections::BTreeMap;

use crate::error::Diagnostic;
use crate::yaml::{Node, Pos, Value};

/// The reading context: the source text, the file name shown, and the diagnostics so far.
pub(crate) struct Cx<'s> {
    /// The text the nodes came from.
    pub src: &'s str,
    /// The file, relative to the suite root.
    pub file: String,
    /// Errors and warnings, in the order found.
    pub diags: Vec<Diagnostic>,
}

impl<'s> Cx<'s> {
    /// A context for `file` with text `src`.
    pub fn new(src: &'s str, file: &str) -> Self {
        Self {
            src,
            file: file.to_string(),
            diags: Vec::new(),
        }
    }

    /// Records an error about `path` at `pos`.
    pub fn error(
        &mut self,
        path: &str,
        pos: Option<Pos>,
        msg: impl Into<String>,
        hint: Option<String>,
    ) {
        let mut d = Diagnostic::error(&self.file, path, msg).at(pos);
        d.hint = hint;
        self.diags.push(d);
    }

    /// Records a warning about `path` at `pos`.
    pub fn warn(
        &mut self,
        path: &str,
        pos: Option<Pos>,
        msg: impl Into<String>,
        hint: Option<String>,
    ) {
        let mut d = Diagnostic::warning(&self.file, path, msg).at(pos);
        d.hint = hint;
        self.diags.push(d);
    }

    /// Whether any error was recorded.
    pub fn failed(&self) -> bool {
        self.diags.iter().any(Diagnostic::is_error)
    }

    /// A scalar's text as written: the string itself for strings, else its source text.
    pub fn text(&self, n: &Node) -> Option<String> {
        match &n.value {
            Value::Str(s) => Some(s.clone()),
            Value::Bool(_) | Value::Int(_) | Value::UInt(_) | Value::Float(_) => Some(
                n.source_text(self.src)
                    .map(str::to_string)
                    .unwrap_or_else(|| scalar_fallback(&n.value)),
            ),
            _ => None,
        }
    }

    /// What a node is, for "found ..." (strings quoted, other scalars as written).
    pub fn found(&self, n: &Node) -> String {
        match &n.value {
            Value::Str(s) => {
                let short: String = s.chars().take(40).collect();
                if short.len() < s.len() {
                    format!("{:?}...", short)
                } else {
                    format!("{s:?}")
                }
            }
            Value::Seq(_) => "a list".into(),
            Value::Map(_) => "a mapping".into(),
            Value::Null => "nothing (null)".into(),
            _ => format!("`{}`", self.text(n).unwrap_or_default()),
        }
    }

    /// Records "expected WHAT, found ..." with the hint for that kind of value.
    pub fn expected(&mut self, path: &str, n: &Node, what: &str, hint: Option<String>) {
        let msg = format!("expected {what}, found {}", self.found(n));
        let hint = hint.or_else(|| type_hint(what, path));
        self.error(path, n.pos, msg, hint);
    }
}

fn scalar_fallback(v: &Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => f.to_string(),
        _ => String::new(),
    }
}

/// The last segment of a field path (`a[0].min_calls` -> `min_calls`).
fn leaf(path: &str) -> &str {
    let last = path.rsplit('.').next().unwrap_or(path);
    last.split('[').next().unwrap_or(last)
}

fn type_hint(what: &str, path: &str) -> Option<String> {
    let key = leaf(path);
    Some(match what {
        w if w.contains("integer") => {
            format!("write a whole number without quotes, e.g. `{key}: 2`")
        }
        w if w.contains("number") => format!("write a number without quotes, e.g. `{key}: 0.5`"),
        "a boolean" => format!("write `{key}: true` or `{key}: false`"),
        w if w.contains("list") => {
            format!("write a list: `{key}: [a, b]`, or one `- item` per line under `{key}:`")
        }
        w if w.contains("mapping") => format!("write `name: value` lines indented under `{key}:`"),
        w if w.contains("string") || w.contains("text") => {
            format!(
                "write text, quoted if it contains `: ` or starts with a special character: `{key}: \"...\"`"
            )
        }
        _ => return None,
    })
}

/// Appends a key to a field path.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Appends an index to a field path.
pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// A value readable from a node.
pub(crate) trait FromNode: Sized {
    /// Reads `n` (at field `path`), recording errors in `cx`; `None` after an error.
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self>;
}

impl FromNode for String {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let t = cx.text(n);
        if t.is_none() {
            cx.expected(path, n, "a string", None);
        }
        t
    }
}

impl FromNode for bool {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        match n.value {
            Value::Bool(b) => Some(b),
            _ => {
                cx.expected(path, n, "a boolean", None);
                None
            }
        }
    }
}

impl FromNode for u64 {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        match n.value {
            Value::UInt(u) => Some(u),
            Value::Float(f) if f >= 0.0 && f.fract() == 0.0 && f < 9.0e15 => Some(f as u64),
            _ => {
                let what = if matches!(n.value, Value::Int(_)) {
                    "a non-negative integer"
                } else {
                    "an integer"
                };
                cx.expected(path, n, what, None);
                None
            }
        }
    }
}

impl FromNode for u32 {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let v = u64::read(cx, n, path)?;
        match u32::try_from(v) {
            Ok(v) => Some(v),
            Err(_) => {
                cx.error(path, n.pos, format!("{v} is too large"), None);
                None
            }
        }
    }
}

impl FromNode for f64 {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        match n.as_f64() {
            Some(f) if f.is_finite() => Some(f),
            _ => {
                cx.expected(path, n, "a number", None);
                None
            }
        }
    }
}

impl<T: FromNode> FromNode for Vec<T> {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        match &n.value {
            Value::Null => Some(Vec::new()),
            Value::Seq(items) => {
                let mut out = Vec::with_capacity(items.len());
                let mut ok = true;
                for (i, item) in items.iter().enumerate() {
                    match T::read(cx, item, &index(path, i)) {
                        Some(v) => out.push(v),
                        None => ok = false,
                    }
                }
                ok.then_some(out)
            }
            _ => {
                cx.expected(path, n, "a list", None);
                None
            }
        }
    }
}

impl FromNode for serde_json::Value {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        use serde_json::Value as J;
        Some(match &n.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::UInt(u) => J::from(*u),
            Value::Float(f) => match serde_json::Number::from_f64(*f) {
                Some(x) => J::Number(x),
                None => {
                    cx.error(path, n.pos, "JSON has no infinite or NaN numbers", None);
                    return None;
                }
            },
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    out.push(Self::read(cx, item, &index(path, i))?);
                }
                J::Array(out)
            }
            Value::Map(entries) => {
                let mut out = serde_json::Map::new();
                for (k, v) in entries {
                    let Some(key) = cx.text(k) else {
                        cx.expected(path, k, "a text key", None);
                        return None;
                    };
                    let value = Self::read(cx, v, &join(path, &key))?;
                    out.insert(key, value);
                }
                J::Object(out)
            }
        })
    }
}

/// A mapping whose values are scalars kept as text (`PORT: 9117` gives `"9117"`; booleans give
/// `True` / `False` as Python prints them, like `clawrun::services`' serde reading).
#[derive(Default)]
pub(crate) struct ScalarMap(pub BTreeMap<String, String>);

impl FromNode for ScalarMap {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let mut out = BTreeMap::new();
        for (k, v) in m.rest() {
            let p = join(path, &k);
            let text = match &v.value {
                Value::Bool(b) => Some(if *b { "True" } else { "False" }.to_string()),
                Value::Null => Some(String::new()),
                _ => m.cx.text(&v),
            };
            match text {
                Some(t) => {
                    out.insert(k, t);
                }
                None => m.cx.expected(&p, &v, "a scalar", None),
            }
        }
        Some(ScalarMap(out))
    }
}

/// A mapping being read field by field; [`Map::finish`] warns about the fields never asked
/// for.
pub(crate) struct Map<'c, 's, 'n> {
    /// The context.
    pub cx: &'c mut Cx<'s>,
    /// The mapping's field path.
    pub path: String,
    /// The mapping's position (for "missing field" errors).
    pub pos: Option<Pos>,
    entries: &'n [(Node, Node)],
    keys: Vec<Option<String>>,
    used: Vec<bool>,
}

static EMPTY: [(Node, Node); 0] = [];

impl<'c, 's, 'n> Map<'c, 's, 'n> {
    /// Opens `n` as a mapping (null reads as an empty one); `None` after an error.
    pub fn open(cx: &'c mut Cx<'s>, n: &'n Node, path: &str) -> Option<Self> {
        let entries: &'n [(Node, Node)] = match &n.value {
            Value::Map(e) => e,
            Value::Null => &EMPTY,
            _ => {
                cx.expected(path, n, "a mapping", None);
                return None;
            }
        };
        let keys = entries.iter().map(|(k, _)| cx.text(k)).collect();
        Some(Self {
            cx,
            path: path.to_string(),
            pos: n.pos,
            used: vec![false; entries.len()],
            keys,
            entries,
        })
    }

    /// The field path of `key` in this mapping.
    pub fn field(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// The value node of `key`, marking it used.
    pub fn node(&mut self, key: &str) -> Option<&'n Node> {
        let i = self.keys.iter().position(|k| k.as_deref() == Some(key))?;
        self.used[i] = true;
        Some(&self.entries[i].1)
    }

    /// Whether `key` is present (does not mark it used).
    pub fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k.as_deref() == Some(key))
    }

    /// Reads optional `key`: absent or null gives `None` (as does a bad value, with an error).
    pub fn opt<T: FromNode>(&mut self, key: &str) -> Option<T> {
        let n = self.node(key)?;
        if n.value == Value::Null {
            return None;
        }
        let p = self.field(key);
        T::read(self.cx, n, &p)
    }

    /// Reads `key`, or `default` when absent, null or bad (with an error).
    pub fn or<T: FromNode>(&mut self, key: &str, default: T) -> T {
        self.opt(key).unwrap_or(default)
    }

    /// Reads `key`, or `T::default()`.
    pub fn or_default<T: FromNode + Default>(&mut self, key: &str) -> T {
        self.opt(key).unwrap_or_default()
    }

    /// Reads required `key`; absent or null is an error with `hint`.
    pub fn req<T: FromNode>(&mut self, key: &str, hint: &str) -> Option<T> {
        match self.node(key) {
            Some(n) if n.value != Value::Null => {
                let p = self.field(key);
                T::read(self.cx, n, &p)
            }
            found => {
                let (pos, msg) = match found {
                    Some(n) => (n.pos.or(self.pos), "required field has no value"),
                    None => (self.pos, "missing required field"),
                };
                let p = self.field(key);
                self.cx.error(&p, pos, msg, Some(hint.to_string()));
                None
            }
        }
    }

    /// Marks every key starting with `prefix` as accepted (read and ignored).
    pub fn accept_prefix(&mut self, prefix: &str) {
        for (i, k) in self.keys.iter().enumerate() {
            if k.as_deref().is_some_and(|k| k.starts_with(prefix)) {
                self.used[i] = true;
            }
        }
    }

    /// The entries not yet asked for, marking them used (for free-form mappings).
    pub fn rest(&mut self) -> Vec<(String, Node)> {
        let mut out = Vec::new();
        for i in 0..self.entries.len() {
            if self.used[i] {
                continue;
            }
            self.used[i] = true;
            let (k, v) = &self.entries[i];
            match &self.keys[i] {
                Some(key) => out.push((key.clone(), v.clone())),
                None => {
                    let p = self.path.clone();
                    self.cx.expected(&p, k, "a text key", None);
                }
            }
        }
        out
    }

    /// Warns about every field not asked for, naming the `valid` ones.
    pub fn finish(self, valid: &[&str]) {
        for i in 0..self.entries.len() {
            if self.used[i] {
                continue;
            }
            let (k, _) = &self.entries[i];
            let name = self.keys[i].clone().unwrap_or_else(|| self.cx.found(k));
            let hint = match did_you_mean(&name, valid) {
                Some(m) => format!("did you mean `{m}`? known fields: {}", valid.join(", ")),
                None => format!("known fields: {}", valid.join(", ")),
            };
            let p = join(&self.path, &name);
            self.cx.warn(
                &p,
                k.pos,
                format!("unknown field `{name}` (ignored)"),
                Some(hint),
            );
        }
    }
}

/// The closest of `valid` to `name`, if it is close enough to be a likely typo (edit distance at
/// most 2, or a quarter of the name, or `name` a prefix of three characters or more): the one
/// "did you mean" of every input clawrun reads (task files, sidecars, fault plans).
pub fn did_you_mean<'v>(name: &str, valid: &[&'v str]) -> Option<&'v str> {
    valid
        .iter()
        .map(|v| (strsim::levenshtein(name, v), *v))
        .filter(|(d, v)| *d <= 2.max(name.len() / 4) || v.starts_with(name) && name.len() >= 3)
        .min()
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Node {
        serde_saphyr::from_str(src).unwrap()
    }

    #[test]
    fn scalars_read_as_source_text() {
        let src = "k: [14:30, yes, 1.0, 000, 503, '2.0']\n";
        let n = parse(src);
        let mut cx = Cx::new(src, "t.yaml");
        let v: Vec<String> = Vec::read(&mut cx, n.get("k").unwrap(), "k").unwrap();
        assert_eq!(v, ["14:30", "yes", "1.0", "000", "503", "2.0"]);
    }

    #[test]
    fn type_error_names_path_and_position() {
        let src = "a:\n  n: two\n";
        let n = parse(src);
        let mut cx = Cx::new(src, "t.yaml");
        let mut m = Map::open(&mut cx, n.get("a").unwrap(), "a").unwrap();
        assert_eq!(m.opt::<u32>("n"), None);
        m.finish(&["n"]);
        assert_eq!(
            cx.diags[0].to_string(),
            "t.yaml:2:6: a.n: expected an integer, found \"two\" \
             (hint: write a whole number without quotes, e.g. `n: 2`)"
        );
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            did_you_mean("min_call", &["min_calls", "tool_name"]),
            Some("min_calls")
        );
        assert_eq!(did_you_mean("zzz", &["min_calls"]), None);
    }
}
