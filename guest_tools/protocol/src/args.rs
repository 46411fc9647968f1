//! Typed tool arguments with model-readable error messages.
//!
//! Tools declare their arguments as a `serde::Deserialize` struct. Unknown fields are ignored
//! (models often send extras), but a missing required field or a value of the wrong type is a
//! tool error that names the field, e.g. `Read: missing required field "file_path"`.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// Deserializes the model's `args` object into `A`.
///
/// `null` (or an absent `args`) is treated as `{}` so that missing fields are reported by name.
/// Any other non-object value is rejected. Errors are prefixed with `tool`.
pub fn parse_args<A: DeserializeOwned>(tool: &str, args: &Value) -> Result<A, String> {
    let object = match args {
        Value::Null => Value::Object(Map::new()),
        Value::Object(_) => args.clone(),
        other => {
            return Err(format!(
                "{tool}: arguments must be a JSON object, got {}",
                json_kind(other)
            ));
        }
    };
    serde_path_to_error::deserialize(object).map_err(|err| describe(tool, &err))
}

fn describe(tool: &str, err: &serde_path_to_error::Error<serde_json::Error>) -> String {
    let message = err.inner().to_string();
    if let Some(field) = missing_field(&message) {
        let field = match err.path().to_string().as_str() {
            "." => field.to_owned(),
            parent => format!("{parent}.{field}"),
        };
        return format!("{tool}: missing required field \"{field}\"");
    }
    match err.path().to_string().as_str() {
        "." => format!("{tool}: invalid arguments: {message}"),
        field => format!("{tool}: invalid value for field \"{field}\": {message}"),
    }
}

/// Extracts `name` from serde's "missing field `name`" message.
fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.strip_suffix('`')
}

/// A short English name for the JSON type of `value`, for error messages.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lenient;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    struct ReadLike {
        file_path: String,
        #[serde(default, deserialize_with = "lenient::opt_usize")]
        offset: Option<usize>,
        #[serde(default, deserialize_with = "lenient::opt_bool")]
        flag: Option<bool>,
    }

    fn parse(args: Value) -> Result<ReadLike, String> {
        parse_args("Read", &args)
    }

    #[test]
    fn parses_valid_args_and_ignores_unknown_fields() {
        let got = parse(json!({"file_path": "/a", "offset": 3, "extra": [1, 2]})).unwrap();
        assert_eq!(
            got,
            ReadLike {
                file_path: "/a".into(),
                offset: Some(3),
                flag: None
            }
        );
    }

    #[test]
    fn missing_required_field_is_named() {
        assert_eq!(
            parse(json!({"offset": 1})).unwrap_err(),
            r#"Read: missing required field "file_path""#
        );
    }

    #[test]
    fn null_args_report_missing_fields() {
        assert_eq!(
            parse(Value::Null).unwrap_err(),
            r#"Read: missing required field "file_path""#
        );
    }

    #[test]
    fn non_object_args_are_rejected() {
        assert_eq!(
            parse(json!("file.txt")).unwrap_err(),
            "Read: arguments must be a JSON object, got a string"
        );
        assert_eq!(
            parse(json!([1])).unwrap_err(),
            "Read: arguments must be a JSON object, got an array"
        );
    }

    #[test]
    fn wrong_type_names_the_field() {
        assert_eq!(
            parse(json!({"file_path": 7})).unwrap_err(),
            r#"Read: invalid value for field "file_path": invalid type: integer `7`, expected a string"#
        );
        assert_eq!(
            parse(json!({"file_path": null})).unwrap_err(),
            r#"Read: invalid value for field "file_path": invalid type: null, expected a string"#
        );
    }

    #[test]
    fn lenient_integer_errors_name_the_field() {
        assert_eq!(
            parse(json!({"file_path": "/a", "offset": "ten"})).unwrap_err(),
            r#"Read: invalid value for field "offset": expected a non-negative integer, got string "ten""#
        );
        assert_eq!(
            parse(json!({"file_path": "/a", "offset": -2})).unwrap_err(),
            r#"Read: invalid value for field "offset": expected a non-negative integer, got -2"#
        );
    }

    #[test]
    fn lenient_values_are_accepted() {
        let got = parse(json!({"file_path": "/a", "offset": "12", "flag": "true"})).unwrap();
        assert_eq!(got.offset, Some(12));
        assert_eq!(got.flag, Some(true));
        let got = parse(json!({"file_path": "/a", "offset": 4.0, "flag": null})).unwrap();
        assert_eq!(got.offset, Some(4));
        assert_eq!(got.flag, None);
    }

    #[test]
    fn lenient_bool_errors_name_the_field() {
        assert_eq!(
            parse(json!({"file_path": "/a", "flag": "yes please"})).unwrap_err(),
            r#"Read: invalid value for field "flag": expected a boolean, got string "yes please""#
        );
    }
}
