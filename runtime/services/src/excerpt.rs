//! Short excerpts of client input for error bodies and messages, so that an answer never
//! repeats a huge request back (FastAPI echoes the whole input; up to [`MAX_ECHO_BYTES`] the
//! bytes are the same as FastAPI's).

use std::borrow::Cow;

use super::json::Json;

/// The most bytes of client input an error repeats; longer input is cut to an excerpt.
pub const MAX_ECHO_BYTES: usize = 1024;

/// `s` if it is at most [`MAX_ECHO_BYTES`] long, else its start (cut at a character boundary)
/// followed by `... (N bytes in all)`.
pub fn excerpt(s: &str) -> Cow<'_, str> {
    if s.len() <= MAX_ECHO_BYTES {
        return Cow::Borrowed(s);
    }
    let mut end = MAX_ECHO_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    Cow::Owned(format!("{}... ({} bytes in all)", &s[..end], s.len()))
}

/// `input` as an error's `input` field: itself if its compact JSON is at most
/// [`MAX_ECHO_BYTES`] long, else an excerpt of that JSON (of the text, for a string) as a
/// string.
pub fn excerpt_json(input: Json) -> Json {
    match &input {
        Json::Str(s) if s.len() > MAX_ECHO_BYTES => Json::from(excerpt(s).into_owned()),
        Json::Array(_) | Json::Object(_) => {
            let compact = input.to_compact();
            if compact.len() > MAX_ECHO_BYTES {
                Json::from(excerpt(&compact).into_owned())
            } else {
                input
            }
        }
        _ => input,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::obj;

    #[test]
    fn short_input_is_kept_and_long_input_is_cut() {
        assert_eq!(excerpt("abc"), "abc");
        let long = "é".repeat(MAX_ECHO_BYTES);
        let cut = excerpt(&long);
        assert!(cut.len() < MAX_ECHO_BYTES + 40, "{}", cut.len());
        assert!(cut.ends_with(&format!("... ({} bytes in all)", long.len())));

        let small = Json::Object(obj! { "a" => 1i64 });
        assert_eq!(excerpt_json(small.clone()), small);
        let big = Json::Object(obj! { "pad" => "x".repeat(10 * MAX_ECHO_BYTES) });
        let Json::Str(s) = excerpt_json(big) else {
            panic!("not cut to a string")
        };
        assert!(s.starts_with(r#"{"pad":"xxx"#), "{s}");
        assert!(s.len() < MAX_ECHO_BYTES + 40);
    }
}
