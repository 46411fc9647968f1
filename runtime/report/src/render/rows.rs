//! The task and aggregate tables as rows of strings (shared by text and Markdown).

use crate::record::Judgement;
use crate::render::columns::{Column, aggregate_columns, task_columns};
use crate::render::table::Table;
use crate::render::{estimate, num, value, yes_no};
use crate::summary::{Aggregate, Summary, TaskSummary, Totals};

/// The task table: one row per task, columns as [`task_columns`] lists them.
pub fn task_table(s: &Summary) -> Table {
    table(
        task_columns(s.k, s.priced),
        s.tasks.iter().map(|t| task_row(t, s.priced)).collect(),
        3,
    )
}

/// A table of `rows` under `cols` (their text labels and priorities); `left` columns are
/// left-aligned.
fn table(cols: Vec<Column>, rows: Vec<Vec<String>>, left: usize) -> Table {
    debug_assert!(
        rows.iter().all(|r| r.len() == cols.len()),
        "a row per column"
    );
    Table {
        header: cols.iter().map(|c| c.text.clone()).collect(),
        priority: cols.iter().map(|c| c.priority).collect(),
        rows,
        left,
    }
}

/// One task's row (with a cost cell when `priced`).
pub fn task_row(t: &TaskSummary, priced: bool) -> Vec<String> {
    let mut trials: Vec<String> = t.trials.iter().take(CHIPS).map(trial_chip).collect();
    let listed = t.scored_trials() as usize;
    if listed > CHIPS {
        trials.push(format!("... (+{} more)", listed - CHIPS));
    }
    let mut row = vec![
        t.task_id.clone(),
        t.category.clone(),
        t.group.to_string(),
        t.n.to_string(),
        t.c.to_string(),
        task_score(t),
        num(t.mean_completion),
        num(t.mean_safety),
        num(t.mean_robustness),
        num(t.pass_at_1),
        num(t.pass_at_k),
        num(t.pass_pow_k),
        yes_no(t.all_k_pass),
        num(t.pass_hat_k),
        if t.flipped { "FLIP" } else { "" }.to_string(),
        t.faults_seen.to_string(),
        t.infra_errors.to_string(),
        unjudged_cell(t.unjudged_trials, t.partly_judged_trials),
        tokens_cell(&t.totals),
        wall(t.totals.wall_ms),
    ];
    if priced {
        row.push(cost(t.totals.cost_usd));
    }
    row.push(trials.join(" "));
    row
}

/// The trials shown in a task's row (the rest are counted: a task run thousands of times
/// keeps a readable row).
pub const CHIPS: usize = 24;

/// A task's mean score: `0.850`, `~0.850` when partly judged trials count in it, `UNJUDGED`
/// when no trial could be scored, `-` when none was.
pub fn task_score(t: &TaskSummary) -> String {
    match t.mean_score {
        None if t.unjudged_trials > 0 => "UNJUDGED".to_string(),
        None => "-".to_string(),
        Some(x) if t.partly_judged_trials > 0 => format!("~{x:.3}"),
        Some(x) => format!("{x:.3}"),
    }
}

/// One trial: `0.90+` (pass), `0.50-` (fail), `~0.74-` (partly judged), `unj` (unjudged).
pub fn trial_chip(s: &crate::summary::TrialScore) -> String {
    match s.judgement {
        Judgement::Unjudged => "unj".to_string(),
        j => format!(
            "{}{:.2}{}",
            if j == Judgement::Partial { "~" } else { "" },
            s.score,
            if s.passed { "+" } else { "-" }
        ),
    }
}

/// The aggregate table: categories, groups, overall ([`aggregate_columns`]).
pub fn aggregate_table(s: &Summary) -> Table {
    table(aggregate_columns(s.k, s.priced), aggregate_rows(s), 1)
}

/// One aggregate's row, its name prefixed with `kind` (`category:`, `group:`, or nothing).
pub fn aggregate_row(kind: &str, a: &Aggregate, priced: bool) -> Vec<String> {
    let mut row = vec![
        format!("{kind}{}", a.name),
        a.tasks.to_string(),
        a.trials.to_string(),
        marked(estimate(a.mean_score), a.partly_judged_trials),
        num(value(a.pass_at_1)),
        estimate(a.pass_at_k),
        estimate(a.pass_pow_k),
        format!("{}/{}", a.all_k_pass_tasks, a.tasks_with_k),
        num(a.flip_rate),
        a.faults_seen.to_string(),
        a.infra_errors.to_string(),
        unjudged_cell(a.unjudged_trials, a.partly_judged_trials),
        tokens_cell(&a.totals),
        wall(a.totals.wall_ms),
    ];
    if priced {
        row.push(cost(a.totals.cost_usd));
    }
    row
}

/// Every aggregate row: categories, then groups, then overall.
pub fn aggregate_rows(s: &Summary) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = Vec::new();
    rows.extend(
        s.categories
            .iter()
            .map(|a| aggregate_row("category: ", a, s.priced)),
    );
    rows.extend(
        s.groups
            .iter()
            .map(|a| aggregate_row("group: ", a, s.priced)),
    );
    rows.push(aggregate_row("", &s.overall, s.priced));
    rows
}

/// The overall figures as (label, value) lines.
pub fn overall_lines(s: &Summary) -> Vec<(String, String)> {
    let (o, k) = (&s.overall, s.k);
    let mut lines = vec![
        (
            "tasks / counted trials".into(),
            format!("{} / {} ({} passed)", o.tasks, o.trials, o.passed_trials),
        ),
        (
            "mean score".into(),
            format!(
                "{}{}",
                marked(estimate(o.mean_score), o.partly_judged_trials),
                scope_note(o)
            ),
        ),
        (
            "mean completion / safety / robustness".into(),
            format!(
                "{} / {} / {}",
                num(o.mean_completion),
                num(o.mean_safety),
                num(o.mean_robustness)
            ),
        ),
        ("pass@1".into(), estimate(o.pass_at_1)),
        (format!("pass@{k} (unbiased)"), estimate(o.pass_at_k)),
        (
            format!("pass^{k} = C(c,{k})/C(n,{k})"),
            estimate(o.pass_pow_k),
        ),
        (
            format!("pass^{k} (all {k} trials pass)"),
            format!(
                "{} ({} of {} tasks)",
                estimate(o.all_k_pass),
                o.all_k_pass_tasks,
                o.tasks_with_k
            ),
        ),
        (format!("(c/n)^{k}"), estimate(o.pass_hat_k)),
        (
            "flip rate".into(),
            format!("{} ({} tasks flipped)", num(o.flip_rate), o.flipped_tasks),
        ),
        ("faults seen".into(), o.faults_seen.to_string()),
        (
            "infrastructure errors".into(),
            format!("{} (excluded from all scores)", o.infra_errors),
        ),
        (
            "unjudged trials".into(),
            format!(
                "{} unjudged (no score, excluded), {} partly judged (scored over their checkable items), in {} tasks (unjudged weight {:.2})",
                o.unjudged_trials, o.partly_judged_trials, o.unjudged_tasks, o.unjudged_weight
            ),
        ),
    ];
    lines.extend(totals_lines(s));
    lines.push(("intervals".into(), interval_note(s)));
    lines
}

/// What the overall score covers when some trials could not be judged fully (empty when all
/// were).
pub fn scope_note(o: &Aggregate) -> String {
    match (o.partly_judged_trials, o.unjudged_trials) {
        (0, 0) => String::new(),
        (0, u) => format!(" ({u} unjudged trials left out)"),
        (p, 0) => format!(" (~: over the checkable items of {p} partly judged trials)"),
        (p, u) => format!(
            " (~: over the checkable items of {p} partly judged trials; {u} unjudged trials left out)"
        ),
    }
}

/// `text` with a leading `~` when partly judged trials count in it (`-` stays `-`).
pub fn marked(text: String, partly_judged: u32) -> String {
    if partly_judged > 0 && text != "-" {
        format!("~{text}")
    } else {
        text
    }
}

/// Tokens, wall time and (when priced) cost.
pub fn totals_lines(s: &Summary) -> Vec<(String, String)> {
    let t = &s.overall.totals;
    let mut lines = vec![(
        "tokens (agent model)".into(),
        format!(
            "{} in ({} cached) / {} out",
            t.input_tokens, t.cached_input_tokens, t.output_tokens
        ),
    )];
    lines.push((
        "wall time".into(),
        match (s.run_wall_ms, t.wall_ms) {
            (None, None) => "not recorded (run made before timings.jsonl)".into(),
            (run, trials) => format!(
                "{} in {} run session(s); trials {} summed",
                wall(run),
                s.sessions,
                wall(trials)
            ),
        },
    ));
    if s.priced {
        lines.push(("cost".into(), cost(t.cost_usd)));
    }
    lines
}

/// How intervals were computed, one line.
pub fn interval_note(s: &Summary) -> String {
    format!(
        "{:.0}% percentile bootstrap over tasks, {} resamples, SplitMix64 seed {:#018x}",
        s.bootstrap.level * 100.0,
        s.bootstrap.resamples,
        s.bootstrap.seed
    )
}

/// `2 UNJUDGED, 1 PARTLY`, `2 UNJUDGED`, `1 PARTLY` or empty.
pub fn unjudged_cell(unjudged: u32, partly: u32) -> String {
    let mut parts = Vec::new();
    if unjudged > 0 {
        parts.push(format!("{unjudged} UNJUDGED"));
    }
    if partly > 0 {
        parts.push(format!("{partly} PARTLY"));
    }
    parts.join(", ")
}

/// `1234/56` (input/output tokens), with `k` / `M` past 10,000.
pub fn tokens_cell(t: &Totals) -> String {
    format!("{}/{}", tokens(t.input_tokens), tokens(t.output_tokens))
}

/// A token count: `950`, `12.3k`, `4.56M`.
pub fn tokens(n: u64) -> String {
    if n < 10_000 {
        n.to_string()
    } else if n < 10_000_000 {
        format!("{:.1}k", n as f64 / 1e3)
    } else {
        format!("{:.2}M", n as f64 / 1e6)
    }
}

/// A wall time: `850ms`, `12.3s`, `4m05s`, `1h02m`, or `-`.
pub fn wall(ms: Option<u64>) -> String {
    let Some(ms) = ms else {
        return "-".to_string();
    };
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    } else {
        format!("{}h{:02}m", ms / 3_600_000, (ms / 60_000) % 60)
    }
}

/// Dollars: `$0.0123` below $1, `$12.34` above, or `-`.
pub fn cost(usd: Option<f64>) -> String {
    match usd {
        None => "-".to_string(),
        Some(x) if x < 1.0 => format!("${x:.4}"),
        Some(x) => format!("${x:.2}"),
    }
}
