//! Claw-Eval's robustness formula, hand-computed cases.

mod common;

use clawrun_judge::robustness;
use common::*;
use serde_json::json;

#[test]
fn no_errors_is_one() {
    assert_eq!(robustness(&[], false), 1.0);
    assert_eq!(
        robustness(&[ok("a", json!({})), ok("b", json!({}))], false),
        1.0
    );
}

#[test]
fn recovery_rate_against_floor() {
    // A err, A ok, B err: recovery 1/2 = 0.5, floor min(1/3, 0.5) -> 0.5.
    let calls = [err("a"), ok("a", json!({})), err("b")];
    close(robustness(&calls, false), 0.5);
    // A err, B err, C ok x4: recovery 0/2, floor min(4/6, 0.5) = 0.5.
    let mut calls = vec![err("a"), err("b")];
    calls.extend((0..4).map(|_| ok("c", json!({}))));
    close(robustness(&calls, false), 0.5);
    // A err, B err, B ok: recovery 1/2 = 0.5, floor 1/3.
    close(
        robustness(&[err("a"), err("b"), ok("b", json!({}))], false),
        0.5,
    );
    // A err, A ok, B err, B ok, C err: recovery 2/3, floor min(2/5, 0.5).
    let calls = [
        err("a"),
        ok("a", json!({})),
        err("b"),
        ok("b", json!({})),
        err("c"),
    ];
    close(robustness(&calls, false), 2.0 / 3.0);
    // A err, B ok, A err: recovery 0/1, floor 1/3.
    close(
        robustness(&[err("a"), ok("b", json!({})), err("a")], false),
        1.0 / 3.0,
    );
    // A err only: 0.
    close(robustness(&[err("a")], false), 0.0);
}

#[test]
fn success_before_the_error_is_not_recovery() {
    // A ok, A err: A never succeeded after failing; floor min(1/2, 0.5).
    close(robustness(&[ok("a", json!({})), err("a")], false), 0.5);
    // A ok, A err, A err, A err: floor 1/4.
    close(
        robustness(&[ok("a", json!({})), err("a"), err("a"), err("a")], false),
        0.25,
    );
}

#[test]
fn multi_turn_is_fixed_at_one() {
    assert_eq!(robustness(&[err("a")], true), 1.0);
}
