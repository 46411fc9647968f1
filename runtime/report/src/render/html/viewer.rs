//! The trial viewer's server-side half: the trial picker and the embedded JSON.

use crate::record::Status;
use crate::render::html::{esc, script_safe_json};
use crate::view::TrialView;
use serde_json::Value;

/// The trials in viewer order: by task id, then trial index (stable for equal keys).
pub fn sorted(trials: &[TrialView]) -> Vec<&TrialView> {
    let mut out: Vec<&TrialView> = trials.iter().collect();
    out.sort_by(|a, b| {
        (&a.record.task_id, a.record.trial).cmp(&(&b.record.task_id, b.record.trial))
    });
    out
}

/// The viewer section: the trial picker (server-rendered, so it lists the trials even with
/// JS off) and the element the script renders into.
pub fn section(trials: &[&TrialView]) -> String {
    let mut out = String::from("<section id=\"trials\">\n<h2>Trial viewer</h2>\n");
    out.push_str(
        "<noscript><p class=\"banner warn\">The trial viewer needs JavaScript; the tables above do not.</p></noscript>\n",
    );
    if trials.is_empty() {
        out.push_str("<p>No trials were given to the viewer.</p>\n");
    }
    out.push_str("<label>Trial <select id=\"trial-pick\">\n");
    for (i, t) in trials.iter().enumerate() {
        let r = &t.record;
        let what = match (&r.status, &r.verdict) {
            (Status::InfraError, _) => "infra error".to_string(),
            (Status::TaskError, _) => "task error".to_string(),
            (Status::Scored, Some(v)) => format!(
                "{:.3} {}",
                v.scores.score,
                if v.scores.passed { "pass" } else { "fail" }
            ),
            (Status::Scored, None) => "no verdict".to_string(),
        };
        out.push_str(&format!(
            "<option value=\"{i}\">{} / trial {} &mdash; {}</option>\n",
            esc(&r.task_id),
            r.trial,
            esc(&what)
        ));
    }
    out.push_str("</select></label>\n<div id=\"viewer\"></div>\n</section>\n");
    out
}

/// The largest integer a JavaScript number holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The trials as JSON, safe to embed in a `<script>` element. Seeds (every `seed` field) and
/// any other integer beyond 2^53 - 1 are written as decimal strings, so `JSON.parse` in the
/// page keeps them exact.
pub fn data_json(trials: &[&TrialView]) -> String {
    let mut value = serde_json::to_value(trials).expect("trial views always serialise");
    exact_integers(&mut value, false);
    let json = serde_json::to_string(&value).expect("a JSON value always serialises");
    script_safe_json(&json)
}

/// Turns integers that `JSON.parse` would round, and every number under a `seed` key
/// (`is_seed`), into decimal strings, recursively.
fn exact_integers(value: &mut Value, is_seed: bool) {
    match value {
        Value::Number(n) => {
            let unsafe_int = n.as_u64().is_some_and(|u| u > MAX_SAFE_INTEGER)
                || n.as_i64()
                    .is_some_and(|i| i.unsigned_abs() > MAX_SAFE_INTEGER);
            if is_seed || unsafe_int {
                *value = Value::String(n.to_string());
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| exact_integers(v, false)),
        Value::Object(map) => map
            .iter_mut()
            .for_each(|(k, v)| exact_integers(v, k == "seed")),
        _ => {}
    }
}
