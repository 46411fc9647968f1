//! `deserialize_with` helpers that accept the slightly loose JSON models send.
//!
//! Models regularly send `"offset": "10"`, `"limit": 50.0` or `"-i": "true"`. These helpers accept
//! such values for optional fields (used with `#[serde(default, deserialize_with = "...")]`) and
//! reject anything else with a message that, through [`crate::parse_args`], names the field.

use serde::Deserialize;
use serde::de::{Deserializer, Error};
use serde_json::Value;

/// An optional non-negative integer: accepts integers, integral floats and numeric strings;
/// `null` is `None`.
pub fn opt_usize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<usize>, D::Error> {
    let Some(value) = Option::<Value>::deserialize(deserializer)? else {
        return Ok(None);
    };
    to_usize(&value).map(Some).map_err(D::Error::custom)
}

/// An optional boolean: accepts booleans and the strings `"true"` / `"false"`; `null` is `None`.
pub fn opt_bool<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    let Some(value) = Option::<Value>::deserialize(deserializer)? else {
        return Ok(None);
    };
    match &value {
        Value::Bool(b) => Ok(Some(*b)),
        Value::String(s) if s.trim().eq_ignore_ascii_case("true") => Ok(Some(true)),
        Value::String(s) if s.trim().eq_ignore_ascii_case("false") => Ok(Some(false)),
        other => Err(D::Error::custom(format!(
            "expected a boolean, got {}",
            describe(other)
        ))),
    }
}

fn to_usize(value: &Value) -> Result<usize, String> {
    let parsed = match value {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    parsed
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("expected a non-negative integer, got {}", describe(value)))
}

fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("string {value}", value = Value::String(s.clone())),
        Value::Number(n) => n.to_string(),
        other => crate::args::json_kind(other).to_owned(),
    }
}
