//! Tool-call arguments as OpenAI-style models send them: a JSON string that may be broken.
//!
//! Claw-Eval replaces unparsable arguments by `{}`. We keep what the model wrote instead:
//! the call's input becomes `{"__invalid_json__": "<raw text>"}`, so the trial can report the
//! malformed call (see [`invalid_arguments`]), the trace keeps the evidence, and the raw text
//! goes back to the model verbatim on later turns.

use serde_json::{Map, Value};

/// The single key of the input that stands for arguments that were not a JSON object.
pub const INVALID_ARGUMENTS_KEY: &str = "__invalid_json__";

/// The raw argument text when `input` stands for arguments that were not a JSON object.
pub fn invalid_arguments(input: &Value) -> Option<&str> {
    let map = input.as_object()?;
    if map.len() != 1 {
        return None;
    }
    map.get(INVALID_ARGUMENTS_KEY)?.as_str()
}

/// The input for a raw argument string: the object it holds, `{}` when blank, else the marker.
pub(crate) fn parse_arguments(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return Value::Object(Map::new());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(value @ Value::Object(_)) => value,
        _ => invalid(raw),
    }
}

/// The input for arguments given as a JSON value (an object passes, anything else is marked).
pub(crate) fn from_value(value: &Value) -> Value {
    match value {
        Value::Object(_) => value.clone(),
        Value::String(raw) => parse_arguments(raw),
        Value::Null => Value::Object(Map::new()),
        other => invalid(&other.to_string()),
    }
}

/// The argument string to send back to an OpenAI-style model for `input`.
pub(crate) fn to_string(input: &Value) -> String {
    match invalid_arguments(input) {
        Some(raw) => raw.to_string(),
        None => input.to_string(),
    }
}

/// The marker object holding `raw`.
fn invalid(raw: &str) -> Value {
    let mut map = Map::new();
    map.insert(INVALID_ARGUMENTS_KEY.into(), Value::String(raw.into()));
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parsing() {
        assert_eq!(parse_arguments(r#"{"a": 1}"#), json!({"a": 1}));
        assert_eq!(parse_arguments("  "), json!({}));
        let bad = parse_arguments(r#"{"a": 1"#);
        assert_eq!(invalid_arguments(&bad), Some(r#"{"a": 1"#));
        assert_eq!(invalid_arguments(&parse_arguments("[1]")), Some("[1]"));
        assert_eq!(invalid_arguments(&json!({"a": 1})), None);
        assert_eq!(invalid_arguments(&json!({"__invalid_json__": 1})), None);
        assert_eq!(to_string(&bad), r#"{"a": 1"#);
        assert_eq!(to_string(&json!({"a": 1})), r#"{"a":1}"#);
        assert_eq!(from_value(&json!("{\"b\":2}")), json!({"b": 2}));
        assert_eq!(from_value(&json!(null)), json!({}));
        assert_eq!(invalid_arguments(&from_value(&json!(3))), Some("3"));
    }
}
