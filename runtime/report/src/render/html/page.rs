//! The server-rendered parts of the HTML report.

use crate::render::html::esc;
use crate::render::{num, value};
use crate::summary::{Aggregate, Estimate, Summary, TaskSummary};

/// The warnings as banners; the unjudged one is `class="banner danger"`.
pub fn banners(s: &Summary) -> String {
    let unjudged = s.unjudged_banner();
    let mut out = String::new();
    for w in s.warnings() {
        let (class, id) = if Some(&w) == unjudged.as_ref() {
            ("banner danger", " id=\"unjudged-banner\"")
        } else {
            ("banner warn", "")
        };
        out.push_str(&format!(
            "<div class=\"{class}\"{id} role=\"alert\">&#9888; {}</div>\n",
            esc(&w)
        ));
    }
    out
}

/// The summary cards.
pub fn cards(s: &Summary) -> String {
    let (o, k) = (&s.overall, s.k);
    let mut out = String::from("<section id=\"cards\" class=\"cards\">\n");
    let mut card = |label: &str, value: String, sub: String, class: &str| {
        out.push_str(&format!(
            "<div class=\"card{class}\"><div class=\"label\">{}</div><div class=\"value\">{}</div><div class=\"sub\">{}</div></div>\n",
            esc(label),
            esc(&value),
            esc(&sub)
        ));
    };
    card("Mean score", num(value(o.mean_score)), ci(o.mean_score), "");
    card("Pass@1", num(value(o.pass_at_1)), ci(o.pass_at_1), "");
    card(
        &format!("Pass@{k}"),
        num(value(o.pass_at_k)),
        format!("unbiased; {}", ci(o.pass_at_k)),
        "",
    );
    card(
        &format!("Pass^{k}"),
        num(value(o.pass_pow_k)),
        format!("C(c,{k})/C(n,{k}); {}", ci(o.pass_pow_k)),
        "",
    );
    card(
        &format!("Pass^{k} (all {k} pass)"),
        format!("{}/{}", o.all_k_pass_tasks, o.tasks_with_k),
        format!("tasks; {}", ci(o.all_k_pass)),
        "",
    );
    card(
        "Flip rate",
        num(o.flip_rate),
        format!("{} tasks flipped", o.flipped_tasks),
        "",
    );
    card(
        "Trials",
        o.trials.to_string(),
        format!("{} passed, {} tasks", o.passed_trials, o.tasks),
        "",
    );
    card(
        "Infra errors",
        o.infra_errors.to_string(),
        "excluded from all scores".to_string(),
        if o.infra_errors > 0 { " warn" } else { "" },
    );
    card(
        "Unjudged",
        o.unjudged_trials.to_string(),
        format!("trials; weight {:.2}", o.unjudged_weight),
        if o.unjudged_trials > 0 { " danger" } else { "" },
    );
    out.push_str("</section>\n");
    out
}

/// The category / group / overall table.
pub fn aggregate_table(s: &Summary) -> String {
    let k = s.k;
    let mut out = String::from("<section id=\"groups\">\n<h2>Groups and categories</h2>\n");
    out.push_str("<table class=\"agg\">\n<thead><tr>");
    for h in [
        "name".to_string(),
        "tasks".into(),
        "trials".into(),
        "mean score [95% CI]".into(),
        "Pass@1".into(),
        format!("Pass@{k} [95% CI]"),
        format!("Pass^{k} [95% CI]"),
        format!("all {k} pass"),
        "flip rate".into(),
        "faults".into(),
        "infra".into(),
        "unjudged".into(),
    ] {
        out.push_str(&format!("<th>{}</th>", esc(&h)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let rows = s
        .groups
        .iter()
        .map(|a| ("group", a))
        .chain(s.categories.iter().map(|a| ("category", a)))
        .chain([("overall", &s.overall)]);
    for (kind, a) in rows {
        out.push_str(&aggregate_row(kind, a));
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

/// One aggregate row.
fn aggregate_row(kind: &str, a: &Aggregate) -> String {
    let label = if kind == "overall" {
        "overall".to_string()
    } else {
        format!("{kind}: {}", a.name)
    };
    let cells = [
        esc(&label),
        a.tasks.to_string(),
        a.trials.to_string(),
        with_ci(a.mean_score),
        num(value(a.pass_at_1)),
        with_ci(a.pass_at_k),
        with_ci(a.pass_pow_k),
        format!("{}/{}", a.all_k_pass_tasks, a.tasks_with_k),
        num(a.flip_rate),
        a.faults_seen.to_string(),
        a.infra_errors.to_string(),
        unjudged(a.unjudged_trials),
    ];
    let mut out = format!("<tr class=\"{kind}\">");
    for c in cells {
        out.push_str(&format!("<td>{c}</td>"));
    }
    out.push_str("</tr>\n");
    out
}

/// The per-task table; headers sort it when clicked (with JS).
pub fn task_table(s: &Summary) -> String {
    let k = s.k;
    let mut out = String::from("<section id=\"tasks\">\n<h2>Tasks</h2>\n");
    out.push_str("<table id=\"task-table\" class=\"sortable\">\n<thead><tr>");
    let headers: [(&str, String); 15] = [
        ("task", "task".into()),
        ("category", "category".into()),
        ("group", "group".into()),
        ("n", "n".into()),
        ("c", "c".into()),
        ("score", "score".into()),
        ("completion", "compl.".into()),
        ("safety", "safety".into()),
        ("robustness", "robust.".into()),
        ("pass1", "Pass@1".into()),
        ("passk", format!("Pass@{k}")),
        ("powk", format!("Pass^{k}")),
        ("flip", "flip".into()),
        ("faults", "faults".into()),
        ("infra", "infra".into()),
    ];
    for (key, label) in &headers {
        out.push_str(&format!(
            "<th data-key=\"{key}\" title=\"sort\">{}</th>",
            esc(label)
        ));
    }
    out.push_str("<th data-key=\"unjudged\">unjudged</th><th>trials</th></tr></thead>\n<tbody>\n");
    for t in &s.tasks {
        out.push_str(&task_row(t));
    }
    out.push_str("</tbody>\n</table>\n</section>\n");
    out
}

/// One task row; `data-v` holds the sort value.
fn task_row(t: &TaskSummary) -> String {
    let n = |x: Option<f64>| (x.map_or(String::new(), |x| format!("{x}")), num(x));
    let link = format!(
        "<a href=\"#trial={}/{}\">{}</a>",
        esc(&t.task_id),
        t.trials.first().map_or(0, |s| s.trial),
        esc(&t.task_id)
    );
    let cells: Vec<(String, String)> = vec![
        (esc(&t.task_id), link),
        (esc(&t.category), esc(&t.category)),
        (t.group.to_string(), t.group.to_string()),
        (t.n.to_string(), t.n.to_string()),
        (t.c.to_string(), t.c.to_string()),
        n(t.mean_score),
        n(t.mean_completion),
        n(t.mean_safety),
        n(t.mean_robustness),
        n(t.pass_at_1),
        n(t.pass_at_k),
        n(t.pass_pow_k),
        (
            u8::from(t.flipped).to_string(),
            if t.flipped { "FLIP" } else { "" }.into(),
        ),
        (t.faults_seen.to_string(), t.faults_seen.to_string()),
        (t.infra_errors.to_string(), t.infra_errors.to_string()),
        (t.unjudged_trials.to_string(), unjudged(t.unjudged_trials)),
    ];
    let mut out = format!("<tr data-task=\"{}\">", esc(&t.task_id));
    for (v, shown) in cells {
        out.push_str(&format!("<td data-v=\"{v}\">{shown}</td>"));
    }
    out.push_str("<td class=\"chips\">");
    for s in &t.trials {
        out.push_str(&format!(
            "<a class=\"chip {}\" href=\"#trial={}/{}\" title=\"trial {}\">{:.2}</a>",
            if s.passed { "pass" } else { "fail" },
            esc(&t.task_id),
            s.trial,
            s.trial,
            s.score
        ));
    }
    out.push_str("</td></tr>\n");
    out
}

/// `0.734 <span class="ci">[0.612, 0.845]</span>` or `-`.
fn with_ci(e: Option<Estimate>) -> String {
    e.map_or("-".to_string(), |e| {
        format!(
            "{:.3} <span class=\"ci\">[{:.3}, {:.3}]</span>",
            e.value, e.ci95.lo, e.ci95.hi
        )
    })
}

/// `95% CI [lo, hi]` or empty.
fn ci(e: Option<Estimate>) -> String {
    e.map_or(String::new(), |e| {
        format!("95% CI [{:.3}, {:.3}]", e.ci95.lo, e.ci95.hi)
    })
}

/// `<span class="unjudged">3 UNJUDGED</span>` or empty.
fn unjudged(n: u32) -> String {
    if n > 0 {
        format!("<span class=\"unjudged\">{n} UNJUDGED</span>")
    } else {
        String::new()
    }
}
