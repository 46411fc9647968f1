//! The comparison page's own parts: the arms, the banners, the comparison view's data and
//! each arm's groups and categories.

use serde_json::{Value, json};

use crate::compare::Comparison;
use crate::render::compare_rows;
use crate::render::html::page::{aggregate_row, unjudged, with_ci};
use crate::render::html::{esc, script_safe_json};
use crate::render::rows::{cost, tokens, wall};

/// Everything between the title and the trial viewer.
pub fn body(c: &Comparison) -> String {
    let mut out = format!(
        "<p class=\"meta\">{} arms &middot; k = {} &middot; differences are each arm minus arm A, paired over the tasks both scored</p>\n",
        c.arms.len(),
        c.k
    );
    out.push_str("<ul id=\"runs\" class=\"meta\">\n");
    for arm in &c.arms {
        out.push_str(&format!(
            "<li><b>{}</b> = {}<ul>",
            esc(&arm.name),
            esc(&arm.label)
        ));
        for run in &arm.summary.runs {
            out.push_str(&format!(
                "<li>run <code>{}</code>: {}</li>",
                esc(&run.folder),
                esc(&run.text)
            ));
        }
        out.push_str("</ul></li>\n");
    }
    out.push_str("</ul>\n</header>\n");
    for w in c.warnings() {
        let danger = w.contains("UNJUDGED");
        out.push_str(&format!(
            "<div class=\"banner {}\" role=\"alert\">&#9888; {}</div>\n",
            if danger { "danger" } else { "warn" },
            esc(&w)
        ));
    }
    out.push_str("<section id=\"comparison\">\n<h2>Comparison</h2>\n");
    out.push_str(&arms_table(c));
    out.push_str("<div id=\"cmp-view\"></div>\n");
    out.push_str(&format!(
        "<p class=\"meta\">Intervals: {}</p>\n",
        esc(&compare_rows::interval_note(c))
    ));
    out.push_str("</section>\n");
    out.push_str("<section id=\"arms\">\n<h2>Each arm's groups and categories</h2>\n");
    for arm in &c.arms {
        let s = &arm.summary;
        out.push_str(&format!(
            "<details><summary>{} = {}</summary>\n<div class=\"table-wrap\"><table class=\"agg\">\n<thead><tr>",
            esc(&arm.name),
            esc(&arm.label)
        ));
        for h in [
            "name".to_string(),
            "tasks".into(),
            "trials".into(),
            "mean score [95% CI]".into(),
            "Pass@1".into(),
            format!("Pass@{} [95% CI]", c.k),
            format!("Pass^{} [95% CI]", c.k),
            format!("all {} pass", c.k),
            "flip rate".into(),
            "faults".into(),
            "infra".into(),
            "unjudged".into(),
            "tokens in/out".into(),
            "wall".into(),
        ] {
            out.push_str(&format!("<th>{}</th>", esc(&h)));
        }
        if s.priced {
            out.push_str("<th>cost</th>");
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        let rows = s
            .groups
            .iter()
            .map(|a| ("group", a))
            .chain(s.categories.iter().map(|a| ("category", a)))
            .chain([("overall", &s.overall)]);
        for (kind, a) in rows {
            out.push_str(&aggregate_row(kind, a, s.priced));
        }
        out.push_str("</tbody>\n</table></div>\n</details>\n");
    }
    out.push_str("</section>\n");
    out.push_str("<script type=\"application/json\" id=\"comparison-data\">");
    out.push_str(&data_json(c));
    out.push_str("</script>\n");
    out
}

/// The arms' overall figures, server-rendered (readable with JS off).
fn arms_table(c: &Comparison) -> String {
    let priced = c.arms.iter().any(|a| a.summary.priced);
    let k = c.k;
    let mut out = String::from("<div class=\"table-wrap\"><table id=\"arms-table\">\n<thead><tr>");
    let mut headers = vec![
        "arm".to_string(),
        "agent".into(),
        "tasks".into(),
        "counted trials".into(),
        "mean score [95% CI]".into(),
        "Pass@1 [95% CI]".into(),
        format!("Pass@{k} [95% CI]"),
        format!("Pass^{k} [95% CI]"),
        format!("all {k} pass"),
        "infra".into(),
        "unjudged".into(),
        "tokens in/out".into(),
        "wall".into(),
    ];
    if priced {
        headers.push("cost".into());
    }
    for h in &headers {
        out.push_str(&format!("<th>{}</th>", esc(h)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for arm in &c.arms {
        let o = &arm.summary.overall;
        let mut cells = vec![
            format!("<b>{}</b>", esc(&arm.name)),
            esc(&arm.label),
            o.tasks.to_string(),
            o.trials.to_string(),
            format!(
                "{}{}",
                with_ci(o.mean_score),
                if o.partly_judged_trials > 0 {
                    " <span class=\"partial\" title=\"over the checkable items\">~</span>"
                } else {
                    ""
                }
            ),
            with_ci(o.pass_at_1),
            with_ci(o.pass_at_k),
            with_ci(o.pass_pow_k),
            format!("{}/{}", o.all_k_pass_tasks, o.tasks_with_k),
            o.infra_errors.to_string(),
            unjudged(o.unjudged_trials, o.partly_judged_trials),
            format!(
                "{}/{}",
                tokens(o.totals.input_tokens),
                tokens(o.totals.output_tokens)
            ),
            wall(arm.summary.run_wall_ms.or(o.totals.wall_ms)),
        ];
        if priced {
            cells.push(cost(o.totals.cost_usd));
        }
        out.push_str(&format!("<tr data-arm=\"{}\">", esc(&arm.name)));
        for cell in cells {
            out.push_str(&format!("<td>{cell}</td>"));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    out
}

/// What the comparison view's script needs: k, the test, each arm's name, label and overall
/// figures, and the pairs with their tasks (script-safe JSON).
pub fn data_json(c: &Comparison) -> String {
    let arms: Vec<Value> = c
        .arms
        .iter()
        .map(|a| {
            json!({
                "name": a.name,
                "label": a.label,
                "folders": a.folders,
                "overall": a.summary.overall,
            })
        })
        .collect();
    let doc = json!({
        "k": c.k,
        "paired_test": c.paired_test,
        "arms": arms,
        "pairs": c.pairs,
    });
    script_safe_json(&serde_json::to_string(&doc).expect("a comparison always serialises"))
}
