//! Trace checks: tool_called, tool_not_called, tool_order, distinct_args (through `judge` on
//! native rubric items, so the item plumbing is exercised too).

mod common;

use common::*;
use serde_json::json;

const RUBRIC: &str = "  - name: listed
    weight: 1
    check: {type: tool_called, tool_name: list, min_calls: 2}
  - name: no_delete
    weight: 1
    check: {type: tool_not_called, tool_name: delete}
  - name: order
    weight: 1
    check: {type: tool_order, tools: [list, get]}
  - name: distinct
    weight: 1
    check: {type: distinct_args, tool_name: get, field: id, min: 2}
";

#[test]
fn all_pass() {
    let t = rubric_task(RUBRIC);
    let ev = evidence(
        "done",
        vec![
            ok("list", json!({})),
            ok("list", json!({"page": 2})),
            ok("get", json!({"id": "a"})),
            ok("get", json!({"id": "b"})),
        ],
    );
    let v = run(&t, &ev);
    for name in ["listed", "no_delete", "order", "distinct"] {
        let i = item(&v, name);
        assert_eq!(i.score, Some(1.0), "{name}: {}", i.evidence);
        assert_eq!(i.passed, Some(true));
    }
    close(v.scores.completion, 1.0);
    assert!(
        item(&v, "listed")
            .evidence
            .contains("list: 2 successful call(s) (min 2)")
    );
}

#[test]
fn failed_calls_do_not_count_for_tool_called() {
    let t = rubric_task(RUBRIC);
    let ev = evidence("done", vec![ok("list", json!({})), err("list")]);
    let v = run(&t, &ev);
    let i = item(&v, "listed");
    assert_eq!(i.score, Some(0.0));
    assert!(
        i.evidence.contains("1 successful") && i.evidence.contains("1 failed"),
        "{}",
        i.evidence
    );
}

#[test]
fn tool_not_called_counts_failed_calls() {
    let t = rubric_task(RUBRIC);
    let ev = evidence("done", vec![err("delete")]);
    let v = run(&t, &ev);
    let i = item(&v, "no_delete");
    assert_eq!(i.score, Some(0.0));
    assert!(
        i.evidence.contains("delete called 1× (0 ok, 1 failed)"),
        "{}",
        i.evidence
    );
}

#[test]
fn tool_order_wrong_or_missing() {
    let t = rubric_task(RUBRIC);
    let reversed = evidence(
        "x",
        vec![ok("get", json!({"id": 1})), ok("list", json!({}))],
    );
    let i = run(&t, &reversed).items[2].clone();
    assert_eq!(
        (i.name.as_str(), i.score),
        ("order", Some(0.0)),
        "{}",
        i.evidence
    );
    assert!(i.evidence.contains("not in order"));

    let missing = evidence("x", vec![ok("list", json!({}))]);
    let v = run(&t, &missing);
    assert_eq!(item(&v, "order").score, Some(0.0));
    assert!(item(&v, "order").evidence.contains("get never"));

    // A failed first call does not count as the first call.
    let failed_first = evidence(
        "x",
        vec![err("get"), ok("list", json!({})), ok("get", json!({}))],
    );
    assert_eq!(item(&run(&t, &failed_first), "order").score, Some(1.0));
}

#[test]
fn distinct_args_counts_distinct_values_of_successful_calls() {
    let t = rubric_task(RUBRIC);
    let same = evidence(
        "x",
        vec![
            ok("get", json!({"id": "a"})),
            ok("get", json!({"id": "a"})),
            err("get"),
        ],
    );
    let v = run(&t, &same);
    let i = item(&v, "distinct");
    assert_eq!(i.score, Some(0.0));
    assert!(i.evidence.contains("1 distinct value(s)"), "{}", i.evidence);
}

#[test]
fn distinct_args_accepts_a_pointer() {
    let t = rubric_task(
        "  - name: d\n    weight: 1\n    check: {type: distinct_args, tool_name: get, field: /q/id, min: 2}\n",
    );
    let ev = evidence(
        "x",
        vec![
            ok("get", json!({"q": {"id": 1}})),
            ok("get", json!({"q": {"id": 2}})),
        ],
    );
    assert_eq!(item(&run(&t, &ev), "d").score, Some(1.0));
}
