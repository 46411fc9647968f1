//! Robustness: Claw-Eval's recovery formula (`AbstractGrader.compute_robustness`) over the
//! trial's tool calls.

use std::collections::BTreeSet;

use crate::evidence::CallRecord;

/// Claw-Eval's robustness over `calls`, in order.
///
/// - No failed call (no `is_error`): 1.0.
/// - Otherwise `recovery` = (tool names with a successful call after one of their failures) /
///   (tool names that failed), `floor` = min(successful calls / all calls, 0.5), and the result is
///   max(recovery, floor).
/// - Multi-turn tasks (a simulated user takes part): 1.0, as Claw-Eval's multi-turn graders fix it.
pub fn robustness(calls: &[CallRecord], multi_turn: bool) -> f64 {
    if multi_turn {
        return 1.0;
    }
    let mut errored: BTreeSet<&str> = BTreeSet::new();
    let mut recovered: BTreeSet<&str> = BTreeSet::new();
    let mut ok = 0usize;
    for call in calls {
        if call.is_error {
            errored.insert(&call.name);
        } else {
            ok += 1;
            if errored.contains(call.name.as_str()) {
                recovered.insert(&call.name);
            }
        }
    }
    if errored.is_empty() {
        return 1.0;
    }
    let recovery = recovered.len() as f64 / errored.len() as f64;
    let floor = (ok as f64 / calls.len() as f64).min(0.5);
    recovery.max(floor)
}
