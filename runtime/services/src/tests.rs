//! Unit tests of the Python-compatibility layer against values produced by CPython 3.11.

use super::json::{self, DecodeError, Json};
use super::py_vectors::{DOCS, FLOATS, ISO, LOWER, YMD};
use super::time::{self, UtcInstant};

#[test]
fn float_repr_matches_python() {
    for &(bits, want) in FLOATS {
        let f = f64::from_bits(bits);
        assert_eq!(json::py_float_repr(f), want, "bits {bits:#x}");
    }
}

#[test]
fn json_loads_matches_python() {
    for &(doc, want) in DOCS {
        let got = json::parse(doc);
        match (got, want) {
            (Ok(v), Ok(dumped)) => assert_eq!(json::to_python(&v), dumped, "doc {doc:?}"),
            (Err(DecodeError::Syntax(e)), Err((msg, pos))) => {
                assert_eq!((e.msg, e.pos), (msg, pos), "doc {doc:?}");
            }
            (got, want) => panic!("doc {doc:?}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn json_error_text_is_pythons() {
    let Err(DecodeError::Syntax(e)) = json::parse("{\n  \"a\": 1,\n  x}") else {
        panic!()
    };
    assert_eq!(
        e.to_string(),
        "Expecting property name enclosed in double quotes: line 3 column 3 (char 14)"
    );
    let Err(DecodeError::Syntax(e)) = json::parse("Internal Server Error") else {
        panic!()
    };
    assert_eq!(e.to_string(), "Expecting value: line 1 column 1 (char 0)");
}

#[test]
fn json_lone_surrogates_become_replacement_characters() {
    assert_eq!(json::parse(r#""\ud800""#).unwrap(), Json::from("\u{fffd}"));
    assert_eq!(
        json::parse(r#""\ud83dx""#).unwrap(),
        Json::from("\u{fffd}x")
    );
}

#[test]
fn json_body_encodings_are_detected() {
    let utf16: Vec<u8> = "{\"a\":1}"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    assert_eq!(
        json::decode_body(&utf16).unwrap().to_compact(),
        r#"{"a":1}"#
    );
    assert_eq!(
        json::decode_body(b"\xef\xbb\xbf[1]").unwrap().to_compact(),
        "[1]"
    );
    assert_eq!(json::decode_body(b"\"\xff\""), Err(DecodeError::Encoding));
    assert_eq!(
        json::parse("\u{feff}[1]").unwrap_err().to_string(),
        "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"
    );
    let deep = "[".repeat(5000);
    assert_eq!(json::parse(&deep), Err(DecodeError::TooDeep));
}

#[test]
fn json_keeps_key_order_and_number_kinds() {
    let v = json::parse(r#"{"z":1,"a":2.50,"m":[1e2,3],"big":123456789012345678901234567890}"#)
        .unwrap();
    assert_eq!(
        v.to_compact(),
        r#"{"z":1,"a":2.5,"m":[100.0,3],"big":123456789012345678901234567890}"#
    );
    assert_eq!(
        json::to_python(&v),
        r#"{"z": 1, "a": 2.5, "m": [100.0, 3], "big": 123456789012345678901234567890}"#
    );
    let s = Json::from("tab\t nl\n quote\" bs\\ ctl\u{1} del\u{7f} é 中");
    assert_eq!(
        s.to_compact(),
        "\"tab\\t nl\\n quote\\\" bs\\\\ ctl\\u0001 del\u{7f} é 中\""
    );
}

fn render(dt: time::DateTime) -> String {
    let days = dt.local.div_euclid(time::DAY);
    let (y, m, d) = time::civil_from_days(days);
    let us = dt.local.rem_euclid(time::DAY);
    let secs = us / 1_000_000;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:06}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        us % 1_000_000
    )
}

#[test]
fn fromisoformat_matches_python() {
    for &(s, want) in ISO {
        let got = time::parse_isoformat(s).map(|dt| (render(dt), dt.offset));
        let want = want.map(|(l, o)| (l.to_string(), o));
        assert_eq!(got, want, "input {s:?}");
    }
}

#[test]
fn strptime_matches_python() {
    for &(s, want) in YMD {
        let got = time::strptime_ymd(s).map(|d| {
            let (y, m, dd) = time::civil_from_days(d);
            format!("{y:04}-{m:02}-{dd:02}")
        });
        assert_eq!(got.as_deref(), want, "input {s:?}");
    }
}

#[test]
fn lowercase_matches_python() {
    for &(s, want) in LOWER {
        assert_eq!(s.to_lowercase(), want, "input {s:?}");
    }
}

#[test]
fn isoformat_of_virtual_now() {
    let t = UtcInstant::from_unix_micros(1_795_312_144_133_592);
    assert_eq!(t.isoformat(), "2026-11-22T01:49:04.133592+00:00");
    assert_eq!(
        UtcInstant::from_unix_micros(1_795_312_144_000_000).isoformat(),
        "2026-11-22T01:49:04+00:00"
    );
    assert_eq!(t.date_string(), "2026-11-22");
    assert_eq!(time::format_z(t.unix_micros()), "2026-11-22T01:49:04Z");
}

#[test]
fn coercions_match_pydantic() {
    use super::http::ServiceRequest;
    use super::validate::{BodyMode, Field, Ty, validate};
    for &(ty, input, want) in super::py_vectors::COERCE {
        let field = match ty {
            "Str" => Field::req("v", Ty::Str),
            "Int" => Field::req("v", Ty::Int),
            "Float" => Field::req("v", Ty::Float),
            "Bool" => Field::req("v", Ty::Bool),
            "StrList" => Field::req("v", Ty::StrList),
            "OptStr" => Field::opt("v", Ty::Str),
            "OptList" => Field::opt("v", Ty::StrList),
            other => panic!("unknown type {other}"),
        };
        let req = ServiceRequest::post("/x").with_body(format!("{{\"v\": {input}}}"));
        match (validate(&req, BodyMode::Required, &[field]), want) {
            (Ok(v), Ok(dumped)) => {
                assert_eq!(json::to_python(v.get("v").unwrap()), dumped, "{ty} {input}")
            }
            (Err(resp), Err(detail)) => {
                assert_eq!(resp.status, 422);
                assert_eq!(
                    resp.json_body()
                        .unwrap()
                        .get("detail")
                        .unwrap()
                        .to_compact(),
                    detail,
                    "{ty} {input}"
                );
            }
            (got, want) => panic!("{ty} {input}: got {got:?}, want {want:?}"),
        }
    }
}
