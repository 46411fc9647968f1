//! The trial viewer's server-side half: the trial picker and the embedded JSON.

use crate::record::Status;
use crate::render::html::{esc, script_safe_json};
use crate::view::TrialView;

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

/// The trials as JSON, safe to embed in a `<script>` element.
pub fn data_json(trials: &[&TrialView]) -> String {
    let json = serde_json::to_string(trials).expect("trial views always serialise");
    script_safe_json(&json)
}
