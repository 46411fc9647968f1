//! The `audit` check: records in a service's audit log.
//!
//! `evidence.audits[service]` is the service's `/audit` document (an object whose keys hold
//! lists: `calls`, `sent_messages`, `drafts`, ...; see SERVICES.md §5). A record matches when
//! every `where` entry matches: `Equals` compares JSON values exactly (numbers by value),
//! `Regex` searches the field's text (a string as is, anything else as compact JSON). A `where`
//! field is a top-level key, an RFC 6901 pointer (`/request_body/to`), or a dotted path
//! (`request_body.to`).

use std::collections::BTreeMap;

use clawrun_task::check::Matcher;
use regex::Regex;
use serde_json::Value;

use super::Finding;
use crate::evidence::Evidence;
use crate::text::{json_text, truncate};

/// JSON equality with numbers compared by value (`1` equals `1.0`).
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// A record's field: top-level key, `/pointer`, or dotted path.
pub fn field<'a>(record: &'a Value, name: &str) -> Option<&'a Value> {
    if let Some(v) = record.get(name) {
        return Some(v);
    }
    if name.starts_with('/') {
        return record.pointer(name);
    }
    name.split('.').try_fold(record, |v, part| match v {
        Value::Object(m) => m.get(part),
        Value::Array(a) => part.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    })
}

/// A `where` clause compiled (regexes built once).
enum Test<'a> {
    /// Exact JSON equality.
    Equals(&'a Value),
    /// Regex search.
    Regex(Regex),
}

/// How `where` reads in evidence.
fn describe(where_: &BTreeMap<String, Matcher>) -> String {
    let parts: Vec<String> = where_
        .iter()
        .map(|(k, m)| match m {
            Matcher::Equals(v) => format!("{k} = {v}"),
            Matcher::Regex(r) => format!("{k} ~ /{r}/"),
        })
        .collect();
    if parts.is_empty() {
        "any record".to_string()
    } else {
        parts.join(", ")
    }
}

/// `audit`: the number of records under `audits[service][key]` matching `where` is in
/// `[min, max]` (pass/fail). A missing service or key holds no records.
pub fn audit(
    ev: &Evidence,
    service: &str,
    key: &str,
    where_: &BTreeMap<String, Matcher>,
    min: u64,
    max: Option<u64>,
) -> Finding {
    let want = match max {
        Some(max) => format!("want {min}..={max}"),
        None => format!("want ≥ {min}"),
    };
    let in_range = |n: u64| n >= min && max.is_none_or(|m| n <= m);
    let mut tests = Vec::new();
    for (name, m) in where_ {
        match m {
            Matcher::Equals(v) => tests.push((name.as_str(), Test::Equals(v))),
            Matcher::Regex(r) => match Regex::new(r) {
                Ok(re) => tests.push((name.as_str(), Test::Regex(re))),
                Err(e) => return Finding::pass(false, format!("invalid regex /{r}/: {e}")),
            },
        }
    }
    let Some(doc) = ev.audits.get(service) else {
        let known: Vec<&str> = ev.audits.names().collect();
        return Finding::pass(
            in_range(0),
            format!(
                "no audit from service `{service}` (audited: {}): 0 records ({want})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ),
        );
    };
    let records = match doc.get(key) {
        Some(Value::Array(records)) => records,
        Some(other) => {
            return Finding::pass(
                false,
                format!(
                    "{service}.{key} is not a list: {}",
                    truncate(&other.to_string(), 200)
                ),
            );
        }
        None => {
            let keys: Vec<&str> = doc
                .as_object()
                .map(|o| o.keys().map(String::as_str).collect())
                .unwrap_or_default();
            return Finding::pass(
                in_range(0),
                format!(
                    "audit of `{service}` has no key `{key}` (keys: {}): 0 records ({want})",
                    keys.join(", ")
                ),
            );
        }
    };
    let matching: Vec<&Value> = records
        .iter()
        .filter(|r| {
            tests.iter().all(|(name, t)| match (field(r, name), t) {
                (Some(v), Test::Equals(want)) => json_equal(v, want),
                (Some(v), Test::Regex(re)) => re.is_match(&json_text(v)),
                (None, _) => false,
            })
        })
        .collect();
    let n = matching.len() as u64;
    let mut evidence = format!(
        "{service}.{key}: {} record(s), {n} matching {} ({want})",
        records.len(),
        describe(where_)
    );
    if let Some(first) = matching.first() {
        evidence.push_str(&format!("; first: {}", truncate(&first.to_string(), 240)));
    }
    Finding::pass(in_range(n), evidence)
}
