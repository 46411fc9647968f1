//! A YAML/JSON value tree that remembers where each node came from, so a plan can be checked
//! by hand with errors naming the field path and the line:column of the offending node.
//!
//! Deserialise it with serde-saphyr (from YAML or JSON text): its position wrapper does not
//! accept the map keys of other serde formats. (Moved here from `clawrun::faults::yaml`, which
//! re-exports it, so task files and fault plans share one node type.)

use std::fmt;
use std::ops::Range;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_saphyr::Spanned;

/// A position in a source text (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// Line, from 1.
    pub line: u64,
    /// Column (in characters), from 1.
    pub column: u64,
}

/// A value plus the position of its node (when the format gives one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where the node starts in the source.
    pub pos: Option<Pos>,
    /// The node's bytes in the source text, when known (for scalars: the scalar as written,
    /// including quotes; see [`Node::source_text`]).
    pub span: Option<Range<usize>>,
}

/// A YAML/JSON value whose children are [`Node`]s.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    /// `null`, `~` or nothing.
    #[default]
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A negative integer.
    Int(i64),
    /// A non-negative integer.
    UInt(u64),
    /// A number with a fraction or exponent.
    Float(f64),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order.
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// What the value is, for messages ("a string", "a mapping", ...).
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "a negative integer",
            Value::UInt(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }
}

impl Node {
    /// The node's string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The node's number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Int(i) => Some(i as f64),
            Value::UInt(u) => Some(u as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    /// The node's non-negative integer, if it is one.
    pub fn as_u64(&self) -> Option<u64> {
        match self.value {
            Value::UInt(u) => Some(u),
            _ => None,
        }
    }

    /// The node's text as written in `source` (the text it was parsed from), if its span is
    /// known and lies in `source`.
    pub fn source_text<'s>(&self, source: &'s str) -> Option<&'s str> {
        self.span.clone().and_then(|r| source.get(r))
    }

    /// The value of `key` in this mapping (the first, if repeated), with its key node.
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        match &self.value {
            Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(k, v)| (k, v)),
            _ => None,
        }
    }

    /// The value of `key` in this mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Int(i) => s.serialize_i64(*i),
            Value::UInt(u) => s.serialize_u64(*u),
            Value::Float(f) => s.serialize_f64(*f),
            Value::Str(t) => s.serialize_str(t),
            Value::Seq(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Map(entries) => {
                let mut map = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(if v >= 0 {
            Value::UInt(v as u64)
        } else {
            Value::Int(v)
        })
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::UInt(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        if let Ok(u) = u64::try_from(v) {
            Ok(Value::UInt(u))
        } else if let Ok(i) = i64::try_from(v) {
            Ok(Value::Int(i))
        } else {
            Ok(Value::Float(v as f64))
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(u64::try_from(v).map_or(Value::Float(v as f64), Value::UInt))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_char<E>(self, v: char) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0));
        while let Some((k, v)) = map.next_entry::<Node, Node>()? {
            entries.push((k, v));
        }
        Ok(Value::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Value>::deserialize(d)?;
        let at = spanned.referenced;
        // An alias's text is its anchor's: take the span where the value is defined.
        let span = spanned.defined.span();
        Ok(Node {
            value: spanned.value,
            pos: (at.line() > 0).then(|| Pos {
                line: at.line(),
                column: at.column(),
            }),
            span: span.byte_offset().zip(span.byte_len()).and_then(|(o, l)| {
                let start = usize::try_from(o).ok()?;
                Some(start..start.checked_add(usize::try_from(l).ok()?)?)
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_types_from_yaml() {
        let n: Node = serde_saphyr::from_str("a: 1\nb:\n  - x\n  - -2.5\nc: ~\n").unwrap();
        let Value::Map(entries) = &n.value else {
            panic!("{n:?}")
        };
        assert_eq!(entries[0].0.as_str(), Some("a"));
        assert_eq!(entries[0].1.as_u64(), Some(1));
        assert_eq!(entries[0].1.pos, Some(Pos { line: 1, column: 4 }));
        let Value::Seq(items) = &entries[1].1.value else {
            panic!()
        };
        assert_eq!(items[1].as_f64(), Some(-2.5));
        assert_eq!(items[1].pos, Some(Pos { line: 4, column: 5 }));
        assert_eq!(entries[2].1.value, Value::Null);
    }

    #[test]
    fn json_text_through_saphyr() {
        let n: Node = serde_saphyr::from_str("{\"a\": [1, \"x\"],\n \"b\": null}").unwrap();
        let Value::Map(entries) = &n.value else {
            panic!()
        };
        assert_eq!(entries[0].0.as_str(), Some("a"));
        assert_eq!(entries[1].0.pos, Some(Pos { line: 2, column: 2 }));
    }
}
