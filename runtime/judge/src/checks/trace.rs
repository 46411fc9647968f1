//! Checks over the tool calls of the trace.
//!
//! A call *succeeded* when the dispatcher did not mark it an error (HTTP status < 400, no tool
//! error, no transport error) — what Claw-Eval's graders count as a dispatch with status < 400.

use std::collections::BTreeSet;

use serde_json::Value;

use super::Finding;
use crate::evidence::{CallRecord, Evidence};
use crate::text::{json_text, truncate};

/// (successful, failed) calls of `tool`.
pub fn call_counts(ev: &Evidence, tool: &str) -> (usize, usize) {
    ev.calls
        .iter()
        .filter(|c| c.name == tool)
        .fold((0, 0), |(ok, bad), c| {
            if c.is_error {
                (ok, bad + 1)
            } else {
                (ok + 1, bad)
            }
        })
}

/// `tool_called`: at least `min_calls` *successful* calls of the tool (pass/fail). Failed calls
/// are shown in the evidence but not counted.
pub fn tool_called(ev: &Evidence, tool: &str, min_calls: u32) -> Finding {
    let (ok, bad) = call_counts(ev, tool);
    let mut evidence = format!("{tool}: {ok} successful call(s) (min {min_calls})");
    if bad > 0 {
        evidence.push_str(&format!("; {bad} failed call(s) not counted"));
    }
    Finding::pass(ok as u64 >= u64::from(min_calls), evidence)
}

/// `tool_not_called`: the tool was never called. Every call the dispatcher answered counts,
/// failed ones too (the agent still tried).
pub fn tool_not_called(ev: &Evidence, tool: &str) -> Finding {
    let calls: Vec<(usize, &CallRecord)> = ev
        .calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.name == tool)
        .collect();
    match calls.first() {
        None => Finding::pass(true, format!("{tool} never called")),
        Some((i, first)) => {
            let (ok, bad) = call_counts(ev, tool);
            Finding::pass(
                false,
                format!(
                    "{tool} called {}× ({ok} ok, {bad} failed); first as call #{} with {}",
                    calls.len(),
                    i + 1,
                    truncate(&first.input.to_string(), 300)
                ),
            )
        }
    }
}

/// `tool_order`: the first *successful* calls of the tools come in the given order (each tool
/// must have one).
pub fn tool_order(ev: &Evidence, tools: &[String]) -> Finding {
    let firsts: Vec<Option<usize>> = tools
        .iter()
        .map(|t| ev.calls.iter().position(|c| &c.name == t && !c.is_error))
        .collect();
    let shown: Vec<String> = tools
        .iter()
        .zip(&firsts)
        .map(|(t, f)| match f {
            Some(i) => format!("{t} #{}", i + 1),
            None => format!("{t} never (successfully) called"),
        })
        .collect();
    let in_order = firsts.iter().all(Option::is_some) && firsts.windows(2).all(|w| w[0] < w[1]);
    let verdict = if in_order { "in order" } else { "not in order" };
    Finding::pass(
        in_order,
        format!("first successful calls: {} → {verdict}", shown.join(", ")),
    )
}

/// The argument `field` of a call's input: a top-level key, or an RFC 6901 pointer when it
/// starts with `/`.
fn argument<'a>(input: &'a Value, field: &str) -> Option<&'a Value> {
    if field.starts_with('/') {
        input.pointer(field)
    } else {
        input.get(field)
    }
}

/// `distinct_args`: the *successful* calls of the tool used at least `min` distinct values of
/// argument `field` (a name, or a `/pointer`); calls without the argument are ignored.
pub fn distinct_args(ev: &Evidence, tool: &str, field: &str, min: u64) -> Finding {
    let values: BTreeSet<String> = ev
        .calls
        .iter()
        .filter(|c| c.name == tool && !c.is_error)
        .filter_map(|c| argument(&c.input, field))
        .filter(|v| !v.is_null())
        .map(json_text)
        .collect();
    let list: Vec<&str> = values.iter().map(String::as_str).collect();
    Finding::pass(
        values.len() as u64 >= min,
        format!(
            "{tool}.{field}: {} distinct value(s) in successful calls (min {min}): {}",
            values.len(),
            truncate(&list.join(", "), 300)
        ),
    )
}
