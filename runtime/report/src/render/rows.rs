//! The task and aggregate tables as rows of strings (shared by text and Markdown).

use crate::render::{estimate, num, value, yes_no};
use crate::summary::{Aggregate, Summary, TaskSummary};

/// The task table's header for Pass@`k`.
pub fn task_header(k: u32) -> Vec<String> {
    let mut h: Vec<String> = [
        "task", "category", "group", "n", "c", "score", "compl", "safety", "robust", "pass@1",
    ]
    .map(String::from)
    .to_vec();
    h.push(format!("pass@{k}"));
    h.push(format!("pass^{k}"));
    h.push(format!("all{k}"));
    h.push(format!("(c/n)^{k}"));
    h.extend(["flip", "faults", "infra", "unjudged", "trials"].map(String::from));
    h
}

/// One task's row.
pub fn task_row(t: &TaskSummary) -> Vec<String> {
    let trials: Vec<String> = t
        .trials
        .iter()
        .map(|s| format!("{:.2}{}", s.score, if s.passed { "+" } else { "-" }))
        .collect();
    vec![
        t.task_id.clone(),
        t.category.clone(),
        t.group.to_string(),
        t.n.to_string(),
        t.c.to_string(),
        num(t.mean_score),
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
        unjudged_cell(t.unjudged_trials),
        trials.join(" "),
    ]
}

/// The aggregate table's header for Pass@`k`.
pub fn aggregate_header(k: u32) -> Vec<String> {
    let mut h: Vec<String> = ["name", "tasks", "trials", "score [95% CI]", "pass@1"]
        .map(String::from)
        .to_vec();
    h.push(format!("pass@{k} [95% CI]"));
    h.push(format!("pass^{k} [95% CI]"));
    h.push(format!("all{k}"));
    h.extend(["flip rate", "faults", "infra", "unjudged"].map(String::from));
    h
}

/// One aggregate's row, its name prefixed with `kind` (`category:`, `group:`, or nothing).
pub fn aggregate_row(kind: &str, a: &Aggregate) -> Vec<String> {
    vec![
        format!("{kind}{}", a.name),
        a.tasks.to_string(),
        a.trials.to_string(),
        estimate(a.mean_score),
        num(value(a.pass_at_1)),
        estimate(a.pass_at_k),
        estimate(a.pass_pow_k),
        format!("{}/{}", a.all_k_pass_tasks, a.tasks_with_k),
        num(a.flip_rate),
        a.faults_seen.to_string(),
        a.infra_errors.to_string(),
        unjudged_cell(a.unjudged_trials),
    ]
}

/// Every aggregate row: categories, then groups, then overall.
pub fn aggregate_rows(s: &Summary) -> Vec<Vec<String>> {
    let mut rows: Vec<Vec<String>> = Vec::new();
    rows.extend(s.categories.iter().map(|a| aggregate_row("category: ", a)));
    rows.extend(s.groups.iter().map(|a| aggregate_row("group: ", a)));
    rows.push(aggregate_row("", &s.overall));
    rows
}

/// The overall figures as (label, value) lines.
pub fn overall_lines(s: &Summary) -> Vec<(String, String)> {
    let (o, k) = (&s.overall, s.k);
    vec![
        (
            "tasks / scored trials".into(),
            format!("{} / {} ({} passed)", o.tasks, o.trials, o.passed_trials),
        ),
        ("mean score".into(), estimate(o.mean_score)),
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
                "{} in {} tasks (weight {:.2})",
                o.unjudged_trials, o.unjudged_tasks, o.unjudged_weight
            ),
        ),
        ("intervals".into(), interval_note(s)),
    ]
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

/// `3 UNJUDGED` or empty.
fn unjudged_cell(n: u32) -> String {
    if n > 0 {
        format!("{n} UNJUDGED")
    } else {
        String::new()
    }
}
