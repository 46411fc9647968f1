//! The server-rendered parts of the HTML report.

use crate::record::Judgement;
use crate::render::columns::{aggregate_columns, task_columns};
use crate::render::html::esc;
use crate::render::rows::{cost, marked, scope_note, task_score, tokens, wall};
use crate::render::{num, value};
use crate::summary::{Aggregate, Estimate, Summary, TaskSummary};

/// The warnings as notes (`class="banner warn"`; the judge note has `id="unjudged-banner"`).
pub fn banners(s: &Summary) -> String {
    let unjudged = s.unjudged_banner();
    let mut out = String::new();
    for w in s.warnings() {
        let (class, id) = if Some(&w) == unjudged.as_ref() {
            ("banner warn", " id=\"unjudged-banner\"")
        } else {
            ("banner warn", "")
        };
        out.push_str(&format!(
            "<div class=\"{class}\"{id} role=\"note\">{}</div>\n",
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
    let scope = scope_note(o);
    card(
        "Mean score",
        marked(num(value(o.mean_score)), o.partly_judged_trials),
        if scope.is_empty() {
            ci(o.mean_score)
        } else {
            format!("{}{scope}", ci(o.mean_score))
        },
        "",
    );
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
        "Not fully judged",
        (o.unjudged_trials + o.partly_judged_trials).to_string(),
        format!(
            "trials: {} unjudged (no score, left out), {} partly judged; weight {:.2}",
            o.unjudged_trials, o.partly_judged_trials, o.unjudged_weight
        ),
        if o.unjudged_trials + o.partly_judged_trials > 0 {
            " danger"
        } else {
            ""
        },
    );
    let t = &o.totals;
    card(
        "Tokens",
        format!("{}/{}", tokens(t.input_tokens), tokens(t.output_tokens)),
        format!(
            "agent model, in/out; {} cached",
            tokens(t.cached_input_tokens)
        ),
        "",
    );
    card(
        "Wall time",
        wall(s.run_wall_ms.or(t.wall_ms)),
        match s.run_wall_ms {
            Some(_) => format!(
                "{} run session(s); trials {} summed",
                s.sessions,
                wall(t.wall_ms)
            ),
            None => "not recorded".to_string(),
        },
        "",
    );
    if s.priced {
        card(
            "Cost",
            cost(t.cost_usd),
            "from the price table given".to_string(),
            "",
        );
    }
    out.push_str("</section>\n");
    out
}

/// The category / group / overall table.
pub fn aggregate_table(s: &Summary) -> String {
    let k = s.k;
    let mut out = String::from("<section id=\"groups\">\n<h2>Groups and categories</h2>\n");
    out.push_str("<div class=\"table-wrap\"><table class=\"agg\">\n<thead><tr>");
    for c in aggregate_columns(k, s.priced) {
        if let Some(label) = c.html {
            out.push_str(&format!("<th>{}</th>", esc(&label)));
        }
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
    out.push_str("</tbody>\n</table></div>\n</section>\n");
    out
}

/// One aggregate row (with a cost cell when `priced`).
pub fn aggregate_row(kind: &str, a: &Aggregate, priced: bool) -> String {
    let label = if kind == "overall" {
        "overall".to_string()
    } else {
        format!("{kind}: {}", a.name)
    };
    let mut cells = vec![
        esc(&label),
        a.tasks.to_string(),
        a.trials.to_string(),
        format!(
            "{}{}",
            with_ci(a.mean_score),
            if a.partly_judged_trials > 0 {
                " <span class=\"partial\" title=\"over the checkable items\">~</span>"
            } else {
                ""
            }
        ),
        num(value(a.pass_at_1)),
        with_ci(a.pass_at_k),
        with_ci(a.pass_pow_k),
        format!("{}/{}", a.all_k_pass_tasks, a.tasks_with_k),
        num(a.flip_rate),
        a.faults_seen.to_string(),
        a.infra_errors.to_string(),
        unjudged(a.unjudged_trials, a.partly_judged_trials),
        format!(
            "{}/{}",
            tokens(a.totals.input_tokens),
            tokens(a.totals.output_tokens)
        ),
        wall(a.totals.wall_ms),
    ];
    if priced {
        cells.push(cost(a.totals.cost_usd));
    }
    debug_assert_eq!(cells.len(), shown_columns(aggregate_columns(0, priced)));
    let mut out = format!("<tr class=\"{kind}\">");
    for c in cells {
        out.push_str(&format!("<td>{c}</td>"));
    }
    out.push_str("</tr>\n");
    out
}

/// How many of `cols` the page shows.
fn shown_columns(cols: Vec<crate::render::columns::Column>) -> usize {
    cols.iter().filter(|c| c.html.is_some()).count()
}

/// The per-task table; headers sort it when clicked (with JS).
pub fn task_table(s: &Summary) -> String {
    let k = s.k;
    let mut out = String::from("<section id=\"tasks\">\n<h2>Tasks</h2>\n");
    out.push_str(
        "<div class=\"table-wrap\"><table id=\"task-table\" class=\"sortable\">\n<thead><tr>",
    );
    for c in task_columns(k, s.priced) {
        match (c.key, c.html) {
            (_, None) => {}
            // The chips: not sortable.
            ("trials", Some(label)) => out.push_str(&format!("<th>{}</th>", esc(&label))),
            // Sortable by their cells' values.
            (key @ ("unjudged" | "tokens" | "wall" | "cost"), Some(label)) => {
                out.push_str(&format!("<th data-key=\"{key}\">{}</th>", esc(&label)))
            }
            (key, Some(label)) => out.push_str(&format!(
                "<th data-key=\"{key}\" title=\"sort\">{}</th>",
                esc(&label)
            )),
        }
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for t in &s.tasks {
        out.push_str(&task_row(t, s.priced));
    }
    out.push_str("</tbody>\n</table></div>\n</section>\n");
    out
}

/// One task row; `data-v` holds the sort value.
fn task_row(t: &TaskSummary, priced: bool) -> String {
    let n = |x: Option<f64>| (x.map_or(String::new(), |x| format!("{x}")), num(x));
    let link = format!(
        "<a href=\"#trial={}/{}\">{}</a>",
        esc(&t.task_id),
        t.trials.first().map_or(0, |s| s.trial),
        esc(&t.task_id)
    );
    let score_cell = match t.mean_score {
        None if t.unjudged_trials > 0 => "<span class=\"unjudged\">UNJUDGED</span>".to_string(),
        _ => esc(&task_score(t)),
    };
    let mut cells: Vec<(String, String)> = vec![
        (esc(&t.task_id), link),
        (esc(&t.category), esc(&t.category)),
        (t.group.to_string(), t.group.to_string()),
        (t.n.to_string(), t.n.to_string()),
        (t.c.to_string(), t.c.to_string()),
        (n(t.mean_score).0, score_cell),
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
        (
            t.not_fully_judged().to_string(),
            unjudged(t.unjudged_trials, t.partly_judged_trials),
        ),
        (
            (t.totals.input_tokens.saturating_add(t.totals.output_tokens)).to_string(),
            format!(
                "{}/{}",
                tokens(t.totals.input_tokens),
                tokens(t.totals.output_tokens)
            ),
        ),
        (
            t.totals.wall_ms.map_or(String::new(), |w| w.to_string()),
            wall(t.totals.wall_ms),
        ),
    ];
    if priced {
        cells.push((
            t.totals.cost_usd.map_or(String::new(), |c| c.to_string()),
            cost(t.totals.cost_usd),
        ));
    }
    // The chips cell follows.
    debug_assert_eq!(cells.len() + 1, shown_columns(task_columns(0, priced)));
    let mut out = format!("<tr data-task=\"{}\">", esc(&t.task_id));
    for (v, shown) in cells {
        out.push_str(&format!("<td data-v=\"{v}\">{shown}</td>"));
    }
    out.push_str("<td class=\"chips\">");
    for s in t.trials.iter().take(crate::render::rows::CHIPS) {
        let (class, shown, title) = match s.judgement {
            Judgement::Unjudged => (
                "unj",
                "unjudged".to_string(),
                "unjudged: no rubric item it weighs could be judged",
            ),
            Judgement::Partial => (
                if s.passed { "pass" } else { "fail" },
                format!("~{:.2}", s.score),
                "partly judged: scored over the checkable items",
            ),
            Judgement::Full => (
                if s.passed { "pass" } else { "fail" },
                format!("{:.2}", s.score),
                "",
            ),
        };
        out.push_str(&format!(
            "<a class=\"chip {class}\" href=\"#trial={}/{}\" title=\"trial {}{}{}\">{shown}</a>",
            esc(&t.task_id),
            s.trial,
            s.trial,
            if title.is_empty() { "" } else { ": " },
            title
        ));
    }
    let listed = t.scored_trials() as usize;
    if listed > crate::render::rows::CHIPS {
        // The rest are in the trial viewer, filtered to this task.
        out.push_str(&format!(
            "<a class=\"chip more\" href=\"#task={}\">+{} more</a>",
            esc(&t.task_id),
            listed - crate::render::rows::CHIPS
        ));
    }
    out.push_str("</td></tr>\n");
    out
}

/// `0.734 <span class="ci">[0.612, 0.845]</span>` or `-`.
pub fn with_ci(e: Option<Estimate>) -> String {
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

/// `<span class="unjudged">3 UNJUDGED</span> <span class="partial">1 PARTLY</span>`, either,
/// or empty.
pub fn unjudged(unjudged: u32, partly: u32) -> String {
    let mut parts = Vec::new();
    if unjudged > 0 {
        parts.push(format!(
            "<span class=\"unjudged\">{unjudged} UNJUDGED</span>"
        ));
    }
    if partly > 0 {
        parts.push(format!(
            "<span class=\"partial\" title=\"scored over the checkable items\">{partly} PARTLY</span>"
        ));
    }
    parts.join(" ")
}

/// Claw-Eval's grader against clawrun's rubric (`--grader both`); empty when the run has no
/// trial graded both ways.
pub fn graders(s: &Summary) -> String {
    let Some(g) = &s.graders else {
        return String::new();
    };
    let mut out = format!(
        "<section id=\"graders\">\n<h2>{}</h2>\n<ul class=\"meta\">\n",
        esc(crate::render::grader_rows::TITLE)
    );
    for (label, value) in crate::render::grader_rows::agreement_lines(g) {
        out.push_str(&format!("<li>{}: {}</li>\n", esc(&label), esc(&value)));
    }
    out.push_str("</ul>\n");
    if !g.disagreements.is_empty() {
        let t = crate::render::grader_rows::disagreement_table(g);
        out.push_str("<div class=\"table-wrap\"><table class=\"agg\">\n<thead><tr>");
        for h in &t.header {
            out.push_str(&format!("<th>{}</th>", esc(h)));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for row in &t.rows {
            out.push_str("<tr>");
            for c in row {
                out.push_str(&format!("<td>{}</td>", esc(c)));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table></div>\n");
    }
    out.push_str("</section>\n");
    out
}
