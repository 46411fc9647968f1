//! The trial viewer's server-side half: the trial picker and the embedded JSON.

use std::collections::BTreeSet;

use crate::record::{Judgement, Status};
use crate::render::html::{esc, script_safe_json};
use crate::view::TrialView;
use serde_json::Value;

/// The trials in viewer order: by arm, task id, then trial index (stable for equal keys).
pub fn sorted(trials: &[TrialView]) -> Vec<&TrialView> {
    let mut out: Vec<&TrialView> = trials.iter().collect();
    out.sort_by(|a, b| {
        (&a.arm, &a.record.task_id, a.record.trial).cmp(&(
            &b.arm,
            &b.record.task_id,
            b.record.trial,
        ))
    });
    out
}

/// A trial's one-line outcome: `0.900 pass`, `~0.740 fail`, `unjudged`, `infra error`, ...
pub fn outcome(t: &TrialView) -> String {
    let r = &t.record;
    match (&r.status, &r.verdict, r.judgement()) {
        (Status::InfraError, _, _) => "infra error".to_string(),
        (Status::TaskError, _, _) => "task error".to_string(),
        (Status::Scored, Some(_), Some(Judgement::Unjudged)) => "unjudged".to_string(),
        (Status::Scored, Some(v), j) => format!(
            "{}{:.3} {}",
            if j == Some(Judgement::Partial) {
                "~"
            } else {
                ""
            },
            v.scores.score,
            if v.scores.passed { "pass" } else { "fail" }
        ),
        (Status::Scored, None, _) => "no verdict".to_string(),
    }
}

/// What the viewer's filters offer and the trial count, gathered one trial at a time.
#[derive(Clone, Debug, Default)]
pub struct Facets {
    /// The task ids.
    pub tasks: BTreeSet<String>,
    /// The categories.
    pub categories: BTreeSet<String>,
    /// The arms (a comparison's).
    pub arms: BTreeSet<String>,
    /// The trials.
    pub count: usize,
}

impl Facets {
    /// The facets of `trials`.
    pub fn of(trials: &[&TrialView]) -> Facets {
        let mut f = Facets::default();
        for t in trials {
            f.add(&t.record.task_id, &t.record.category, t.arm.as_deref());
        }
        f
    }

    /// Counts one trial of `task` in `category` (and `arm`).
    pub fn add(&mut self, task: &str, category: &str, arm: Option<&str>) {
        if !self.tasks.contains(task) {
            self.tasks.insert(task.to_string());
        }
        if !self.categories.contains(category) {
            self.categories.insert(category.to_string());
        }
        if let Some(arm) = arm
            && !self.arms.contains(arm)
        {
            self.arms.insert(arm.to_string());
        }
        self.count += 1;
    }
}

/// The viewer section: the filters (failed only, fault seen, not fully judged, task,
/// category, arm, search), the list of trials (server-rendered links, so it lists them even
/// with JS off) and the element the script renders a trial into.
pub fn section(trials: &[&TrialView]) -> String {
    let mut out = section_head(&Facets::of(trials));
    for (i, t) in trials.iter().enumerate() {
        out.push_str(&list_item(i, t));
    }
    out.push_str(SECTION_END);
    out
}

/// The viewer section up to the open trial list: the filters over `facets`.
pub fn section_head(facets: &Facets) -> String {
    let mut out = String::from("<section id=\"trials\">\n<h2>Trial viewer</h2>\n");
    out.push_str(
        "<noscript><p class=\"banner warn\">The trial viewer needs JavaScript; the tables above do not.</p></noscript>\n",
    );
    if facets.count == 0 {
        out.push_str("<p>No trials were given to the viewer.</p>\n");
    }
    out.push_str("<div id=\"trial-filters\" class=\"filters\">\n");
    out.push_str("<input type=\"search\" id=\"f-search\" placeholder=\"search trials: task, messages, tool calls, errors...\" aria-label=\"search trials\">\n");
    for (id, label) in [
        ("f-failed", "failed only"),
        ("f-fault", "fault seen"),
        ("f-unjudged", "not fully judged"),
    ] {
        out.push_str(&format!(
            "<label><input type=\"checkbox\" id=\"{id}\"> {label}</label>\n"
        ));
    }
    let select = |id: &str, all: &str, values: &BTreeSet<String>| -> String {
        let mut s =
            format!("<select id=\"{id}\" aria-label=\"{all}\"><option value=\"\">{all}</option>");
        for v in values {
            s.push_str(&format!("<option value=\"{0}\">{0}</option>", esc(v)));
        }
        s.push_str("</select>\n");
        s
    };
    if !facets.arms.is_empty() {
        out.push_str(&select("f-arm", "all arms", &facets.arms));
    }
    out.push_str(&select("f-task", "all tasks", &facets.tasks));
    out.push_str(&select("f-category", "all categories", &facets.categories));
    out.push_str(&format!(
        "<span id=\"f-count\" class=\"meta\">{} trials</span>\n</div>\n",
        facets.count
    ));
    out.push_str("<div class=\"viewer-wrap\">\n<ol id=\"trial-list\">\n");
    out
}

/// The viewer section after its trial list.
pub const SECTION_END: &str = "</ol>\n<div id=\"viewer\"></div>\n</div>\n</section>\n";

/// Trial `t`'s entry in the list, the `i`-th (its index in the embedded data).
pub fn list_item(i: usize, t: &TrialView) -> String {
    format!("{}{}", list_item_start(i), list_item_body(t))
}

/// The opening tag of the `i`-th list item.
pub fn list_item_start(i: usize) -> String {
    format!("<li data-i=\"{i}\">")
}

/// [`list_item`] after its opening tag: the link and the line end.
pub fn list_item_body(t: &TrialView) -> String {
    let r = &t.record;
    let arm = t
        .arm
        .as_deref()
        .map_or(String::new(), |a| format!("{} &middot; ", esc(a)));
    let href = match &t.arm {
        Some(a) => format!("#arm={}&amp;trial={}/{}", esc(a), esc(&r.task_id), r.trial),
        None => format!("#trial={}/{}", esc(&r.task_id), r.trial),
    };
    format!(
        "<a href=\"{href}\">{arm}{} / trial {} &mdash; {}</a></li>\n",
        esc(&r.task_id),
        r.trial,
        esc(&outcome(t))
    )
}

/// The largest integer a JavaScript number holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// The trials as JSON, safe to embed in a `<script>` element. Seeds (every `seed` field) and
/// any other integer beyond 2^53 - 1 are written as decimal strings, so `JSON.parse` in the
/// page keeps them exact. A trial loaded on demand (`src` set) is embedded as its index entry
/// only: what the filters and the list read, and where to load the rest.
pub fn data_json(trials: &[&TrialView]) -> String {
    // One trial at a time: a long run's index is never a whole JSON tree in memory.
    let mut out = String::from("[");
    for (i, t) in trials.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&data_entry(t));
    }
    out.push(']');
    out
}

/// One trial's entry in [`data_json`].
pub fn data_entry(t: &TrialView) -> String {
    let mut value = item(t);
    exact_integers(&mut value, false);
    let json = serde_json::to_string(&value).expect("a JSON value always serialises");
    script_safe_json(&json)
}

/// The script at `src` (a path relative to the page) that hands a trial's whole view to the
/// page that loads it on demand: `clawrunTrial("src", {...});`.
pub fn trial_script(src: &str, t: &TrialView) -> String {
    let mut value = item(&TrialView {
        src: None,
        ..t.clone()
    });
    exact_integers(&mut value, false);
    let json = serde_json::to_string(&value).expect("a JSON value always serialises");
    let key = serde_json::to_string(src).expect("a string always serialises");
    format!(
        "clawrunTrial({}, {});\n",
        script_safe_json(&key),
        script_safe_json(&json)
    )
}

/// One trial's JSON: the view with its judgement and outcome, or its index entry.
fn item(t: &TrialView) -> Value {
    let r = &t.record;
    let mut value = match &t.src {
        None => serde_json::to_value(t).expect("trial views always serialise"),
        Some(src) => serde_json::json!({
            "record": {
                "task_id": r.task_id,
                "trial": r.trial,
                "category": r.category,
                "status": r.status,
                "verdict": r.verdict.as_ref().map(|v| serde_json::json!({
                    "passed": v.scores.passed,
                    "faults_seen": v.faults_seen,
                })),
            },
            "arm": t.arm,
            "src": src,
        }),
    };
    value["judgement"] =
        serde_json::to_value(r.judgement()).expect("a judgement always serialises");
    value["outcome"] = Value::String(outcome(t));
    value
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
