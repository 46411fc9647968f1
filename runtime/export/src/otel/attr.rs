//! OTLP/JSON attribute values (`AnyValue`): 64-bit integers as decimal strings, as the
//! protobuf JSON mapping writes them.

use serde_json::{Value, json};

/// A list of `KeyValue`s, built in order.
#[derive(Default)]
pub struct Attrs(Vec<Value>);

impl Attrs {
    /// A string attribute.
    pub fn str(&mut self, key: &str, v: impl AsRef<str>) -> &mut Self {
        self.push(key, json!({"stringValue": v.as_ref()}))
    }

    /// An integer attribute.
    pub fn int(&mut self, key: &str, v: impl Into<i128>) -> &mut Self {
        let v: i128 = v.into();
        let v = v.clamp(i128::from(i64::MIN), i128::from(i64::MAX));
        self.push(key, json!({"intValue": v.to_string()}))
    }

    /// A floating-point attribute.
    pub fn double(&mut self, key: &str, v: f64) -> &mut Self {
        self.push(key, json!({"doubleValue": v}))
    }

    /// A boolean attribute.
    pub fn bool(&mut self, key: &str, v: bool) -> &mut Self {
        self.push(key, json!({"boolValue": v}))
    }

    /// An array of strings.
    pub fn strs(&mut self, key: &str, v: &[String]) -> &mut Self {
        let values: Vec<Value> = v.iter().map(|s| json!({"stringValue": s})).collect();
        self.push(key, json!({"arrayValue": {"values": values}}))
    }

    /// A value as its JSON text (structured content: arguments, messages, documents).
    pub fn json(&mut self, key: &str, v: &Value) -> &mut Self {
        self.str(key, v.to_string())
    }

    fn push(&mut self, key: &str, value: Value) -> &mut Self {
        self.0.push(json!({"key": key, "value": value}));
        self
    }

    /// The attributes as an OTLP/JSON array.
    pub fn into_json(self) -> Value {
        Value::Array(self.0)
    }
}
