//! JSON as Python's `json` module sees it: objects keep insertion order, integers stay integers
//! (of any size), floats are written the way Python's `repr` writes them.
//!
//! `serde_json::Value` sorts object keys (the crate is built without `preserve_order`), which
//! would break byte compatibility with Claw-Eval's responses, so services use this type.

mod parse;
mod write;

use std::fmt;
use std::sync::Arc;

pub(crate) use parse::int_from_digits;
pub use parse::{DecodeError, JsonError, decode_body, parse};
pub use write::{Style, py_float_repr, to_compact, to_python, write};

/// An object key (shared, cheap to clone).
pub type Key = Arc<str>;

/// A JSON value with Python semantics.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null` (Python `None`).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer that fits in an `i64`.
    Int(i64),
    /// An integer outside the `i64` range, as canonical decimal digits (optional `-`).
    BigInt(Arc<str>),
    /// A float (may be NaN or infinite when it came from `NaN`/`Infinity` or a coercion).
    Float(f64),
    /// A string.
    Str(Arc<str>),
    /// An array.
    Array(Vec<Json>),
    /// An object with keys in insertion order.
    Object(Obj),
}

/// A JSON object: unique keys in insertion order (like a Python `dict`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Obj(Vec<(Key, Json)>);

impl Obj {
    /// An empty object.
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    /// An empty object with room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        Self(Vec::with_capacity(n))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the object has no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| v)
    }

    /// A mutable reference to the value of `key`, if present.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        self.0.iter_mut().find(|(k, _)| &**k == key).map(|(_, v)| v)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` like Python's `d[key] = value`: an existing key keeps its position, a new key
    /// is appended.
    pub fn insert(&mut self, key: impl Into<Key>, value: impl Into<Json>) {
        let key = key.into();
        let value = value.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// Appends an entry without checking for an existing key (the caller guarantees uniqueness).
    pub fn push(&mut self, key: impl Into<Key>, value: impl Into<Json>) {
        self.0.push((key.into(), value.into()));
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Json> {
        let pos = self.0.iter().position(|(k, _)| &**k == key)?;
        Some(self.0.remove(pos).1)
    }

    /// The entries in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Json)> {
        self.0.iter().map(|(k, v)| (&**k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.0.iter().map(|(k, _)| &**k)
    }

    /// The value of `key` as a string, if it is one.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Json::as_str)
    }

    /// A copy holding only `keys`, in that order; missing keys become `null` (Python's
    /// `{k: d.get(k) for k in keys}`).
    pub fn project(&self, keys: &[&str]) -> Obj {
        let mut out = Obj::with_capacity(keys.len());
        for &k in keys {
            out.push(k, self.get(k).cloned().unwrap_or(Json::Null));
        }
        out
    }
}

impl FromIterator<(Key, Json)> for Obj {
    /// Collects entries with Python `dict` semantics (a repeated key keeps its first position
    /// and its last value).
    fn from_iter<I: IntoIterator<Item = (Key, Json)>>(iter: I) -> Self {
        let mut out = Obj::new();
        for (k, v) in iter {
            out.insert(k, v);
        }
        out
    }
}

impl Json {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&Obj> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The integer, if this is an `Int`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The bool, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Whether this is `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    /// Member `key` of an object (`None` for other values or a missing key).
    pub fn get(&self, key: &str) -> Option<&Json> {
        self.as_object()?.get(key)
    }

    /// Serialises compactly, as the services write HTTP bodies.
    pub fn to_compact(&self) -> String {
        to_compact(self)
    }

    /// Converts to a `serde_json::Value` (object keys become sorted; big integers become floats
    /// when they do not fit in `u64`; non-finite floats become `null`).
    pub fn to_serde(&self) -> serde_json::Value {
        use serde_json::Value as V;
        match self {
            Json::Null => V::Null,
            Json::Bool(b) => V::Bool(*b),
            Json::Int(i) => V::from(*i),
            Json::BigInt(s) => s.parse::<u64>().map(V::from).unwrap_or_else(|_| {
                serde_json::Number::from_f64(s.parse().unwrap_or(0.0)).map_or(V::Null, V::Number)
            }),
            Json::Float(f) => serde_json::Number::from_f64(*f).map_or(V::Null, V::Number),
            Json::Str(s) => V::String(s.to_string()),
            Json::Array(a) => V::Array(a.iter().map(Json::to_serde).collect()),
            Json::Object(o) => V::Object(
                o.iter()
                    .map(|(k, v)| (k.to_string(), v.to_serde()))
                    .collect(),
            ),
        }
    }
}

impl fmt::Display for Json {
    /// Compact JSON, as the services write it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&to_compact(self))
    }
}

impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Int(i) => s.serialize_i64(*i),
            Json::BigInt(d) => match d.parse::<u64>() {
                Ok(u) => s.serialize_u64(u),
                Err(_) => s.serialize_f64(d.parse().unwrap_or(0.0)),
            },
            Json::Float(f) if f.is_finite() => s.serialize_f64(*f),
            Json::Float(_) => s.serialize_unit(),
            Json::Str(v) => s.serialize_str(v),
            Json::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Json::Object(o) => {
                let mut map = s.serialize_map(Some(o.len()))?;
                for (k, v) in o.iter() {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// `Json` serialised with every object's keys sorted (byte order): the same bytes as its
/// [`Json::to_serde`] value gives, without building that value (a trial's audit documents go
/// into its trace this way).
pub struct SortedKeys<'a>(pub &'a Json);

impl serde::Serialize for SortedKeys<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Sorted::Value(self.0).serialize(s)
    }
}

/// A JSON document made of borrowed parts, serialised like [`SortedKeys`]: lets a document
/// that would be assembled from clones (an audit whose entries point at live records) be
/// written without building it.
#[derive(Clone)]
pub enum Sorted<'a> {
    /// A value.
    Value(&'a Json),
    /// An object.
    Object(&'a Obj),
    /// An object with one key set as [`Obj::insert`] sets it.
    With(&'a Obj, &'a str, Box<Sorted<'a>>),
}

impl Sorted<'_> {
    /// The document as an owned value (its keys in their own order, not sorted).
    pub fn to_json(&self) -> Json {
        match self {
            Sorted::Value(v) => (*v).clone(),
            Sorted::Object(o) => Json::Object((*o).clone()),
            Sorted::With(o, key, value) => {
                let mut o = (*o).clone();
                o.insert(*key, value.to_json());
                Json::Object(o)
            }
        }
    }
}

impl serde::Serialize for Sorted<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        match *self {
            Sorted::Value(Json::Array(a)) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(&Sorted::Value(v))?;
                }
                seq.end()
            }
            Sorted::Value(Json::Object(o)) | Sorted::Object(o) => {
                sorted_map(s, o.iter().map(|(k, v)| (k, Sorted::Value(v))).collect())
            }
            Sorted::Value(scalar) => scalar.serialize(s),
            Sorted::With(o, key, ref value) => {
                let mut entries: Vec<(&str, Sorted<'_>)> = o
                    .iter()
                    .filter(|(k, _)| *k != key)
                    .map(|(k, v)| (k, Sorted::Value(v)))
                    .collect();
                entries.push((key, (**value).clone()));
                sorted_map(s, entries)
            }
        }
    }
}

/// Serialises `entries` (unique keys) as a map in byte order of their keys.
fn sorted_map<S: serde::Serializer>(
    s: S,
    mut entries: Vec<(&str, Sorted<'_>)>,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut map = s.serialize_map(Some(entries.len()))?;
    for (k, v) in entries {
        map.serialize_entry(k, &v)?;
    }
    map.end()
}

impl From<&str> for Json {
    fn from(s: &str) -> Self {
        Json::Str(s.into())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Self {
        Json::Str(s.into())
    }
}

impl From<Arc<str>> for Json {
    fn from(s: Arc<str>) -> Self {
        Json::Str(s)
    }
}

impl From<i64> for Json {
    fn from(i: i64) -> Self {
        Json::Int(i)
    }
}

impl From<usize> for Json {
    fn from(i: usize) -> Self {
        i64::try_from(i).map_or_else(|_| Json::BigInt(i.to_string().into()), Json::Int)
    }
}

impl From<f64> for Json {
    fn from(f: f64) -> Self {
        Json::Float(f)
    }
}

impl From<bool> for Json {
    fn from(b: bool) -> Self {
        Json::Bool(b)
    }
}

impl From<Obj> for Json {
    fn from(o: Obj) -> Self {
        Json::Object(o)
    }
}

impl From<Vec<Json>> for Json {
    fn from(a: Vec<Json>) -> Self {
        Json::Array(a)
    }
}

impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(v: Option<T>) -> Self {
        v.map_or(Json::Null, Into::into)
    }
}

/// Builds an [`Obj`] from `key => value` pairs, in order.
macro_rules! obj {
    ($($k:expr => $v:expr),* $(,)?) => {{
        let mut o = $crate::json::Obj::new();
        $( o.insert($k, $v); )*
        o
    }};
}
pub(crate) use obj;

#[cfg(test)]
mod sorted_keys_tests {
    use super::*;

    #[test]
    fn sorted_keys_write_the_bytes_of_the_serde_value() {
        let docs = [
            r#"{"zeta": 1, "alpha": {"b": [1, 2.5, -0.0, 1e300], "a": null, "\u00e9": "x"}, "Z": true}"#,
            r#"[{"b": 18446744073709551615, "a": 18446744073709551616, "c": -9223372036854775809}]"#,
            r#"{"calls": [{"endpoint": "/gmail/send", "body": {"to": "a\"b\n", "emoji": "\ud83d\udce7"}}], "": 0}"#,
            r#""just a string""#,
            r#"{"nan_like": 1e999}"#,
        ];
        for text in docs {
            let json = parse(text).unwrap();
            let sorted = serde_json::to_string(&SortedKeys(&json)).unwrap();
            assert_eq!(sorted, json.to_serde().to_string(), "{text}");
        }
    }
}
