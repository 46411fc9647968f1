//! The comparison's tables as rows of strings (shared by text and Markdown).

use crate::compare::{Comparison, Pair, TaskOutcome};
use crate::render::estimate;
use crate::render::rows::{cost, marked, scope_note, tokens_cell, unjudged_cell, wall};
use crate::render::table::Table;

/// One row per arm: its overall figures.
pub fn arms_table(c: &Comparison) -> Table {
    let k = c.k;
    let priced = c.arms.iter().any(|a| a.summary.priced);
    let mut cols: Vec<(String, u8)> = vec![
        ("arm".into(), 0),
        ("agent".into(), 0),
        ("tasks".into(), 2),
        ("trials".into(), 1),
        ("score [95% CI]".into(), 0),
        ("pass@1 [95% CI]".into(), 1),
        (format!("pass@{k} [95% CI]"), 2),
        (format!("pass^{k} [95% CI]"), 2),
        (format!("all{k}"), 4),
        ("infra".into(), 3),
        ("unjudged".into(), 1),
        ("tokens in/out".into(), 5),
        ("wall".into(), 5),
    ];
    if priced {
        cols.push(("cost".into(), 2));
    }
    let rows = c
        .arms
        .iter()
        .map(|arm| {
            let o = &arm.summary.overall;
            let mut row = vec![
                arm.name.clone(),
                arm.label.clone(),
                o.tasks.to_string(),
                o.trials.to_string(),
                marked(estimate(o.mean_score), o.partly_judged_trials),
                estimate(o.pass_at_1),
                estimate(o.pass_at_k),
                estimate(o.pass_pow_k),
                format!("{}/{}", o.all_k_pass_tasks, o.tasks_with_k),
                o.infra_errors.to_string(),
                unjudged_cell(o.unjudged_trials, o.partly_judged_trials),
                tokens_cell(&o.totals),
                wall(arm.summary.run_wall_ms.or(o.totals.wall_ms)),
            ];
            if priced {
                row.push(cost(o.totals.cost_usd));
            }
            row
        })
        .collect();
    Table {
        header: cols.iter().map(|c| c.0.clone()).collect(),
        priority: cols.iter().map(|c| c.1).collect(),
        rows,
        left: 2,
    }
}

/// A pair's figures as (label, value) lines.
pub fn pair_lines(c: &Comparison, p: &Pair) -> Vec<(String, String)> {
    let diff = |d: Option<crate::compare::Difference>| {
        d.map_or("-".to_string(), |d| {
            format!("{:+.3} [{:+.3}, {:+.3}]", d.value, d.ci95.lo, d.ci95.hi)
        })
    };
    let mut lines = vec![
        (
            format!("mean score {} - {}", p.b, p.a),
            format!("{} (95% paired bootstrap over tasks)", diff(p.score_diff)),
        ),
        (format!("pass@1 {} - {}", p.b, p.a), diff(p.pass_at_1_diff)),
        (
            format!("tasks {} better / worse / tied", p.b),
            format!("{} / {} / {}", p.b_better, p.b_worse, p.ties),
        ),
        (
            "sign test".into(),
            match p.sign_test_p {
                Some(pv) => format!(
                    "p = {} (exact, two-sided, over the {} untied tasks)",
                    p_value(pv),
                    p.b_better + p.b_worse
                ),
                None => "- (every paired task tied)".into(),
            },
        ),
    ];
    if p.unpaired_tasks > 0 {
        lines.push((
            "unpaired tasks".into(),
            format!("{} (listed in the warnings)", p.unpaired_tasks),
        ));
    }
    let scopes: Vec<String> = [&p.a, &p.b]
        .iter()
        .filter_map(|name| {
            let arm = c.arm(name)?;
            let note = scope_note(&arm.summary.overall);
            (!note.is_empty()).then(|| format!("{}:{note}", arm.name))
        })
        .collect();
    if !scopes.is_empty() {
        lines.push(("scores cover".into(), scopes.join("; ")));
    }
    lines
}

/// One row per task: each arm's mean score, each pair's difference and outcome.
pub fn task_table(c: &Comparison) -> Table {
    let mut cols: Vec<(String, u8)> = vec![("task".into(), 0), ("category".into(), 4)];
    for arm in &c.arms {
        cols.push((arm.name.clone(), 0));
    }
    for p in &c.pairs {
        cols.push((format!("{}-{}", p.b, p.a), 0));
        cols.push((format!("{} vs {}", p.b, p.a), 1));
    }
    cols.push(("not fully judged".into(), 2));
    let first = c.pairs.first();
    let ids: Vec<(String, String)> = match first {
        Some(p) => p
            .tasks
            .iter()
            .map(|t| (t.task_id.clone(), t.category.clone()))
            .collect(),
        None => c.arms[0]
            .summary
            .tasks
            .iter()
            .map(|t| (t.task_id.clone(), t.category.clone()))
            .collect(),
    };
    let mut ids = ids;
    for p in c.pairs.iter().skip(1) {
        for t in &p.tasks {
            if !ids.iter().any(|(id, _)| id == &t.task_id) {
                ids.push((t.task_id.clone(), t.category.clone()));
            }
        }
    }
    ids.sort();
    let rows = ids
        .iter()
        .map(|(id, category)| {
            let mut row = vec![id.clone(), category.clone()];
            let mut not_full = 0;
            for arm in &c.arms {
                let t = arm.summary.tasks.iter().find(|t| &t.task_id == id);
                row.push(t.map_or("absent".to_string(), crate::render::rows::task_score));
                not_full += t.map_or(0, |t| t.not_fully_judged());
            }
            for p in &c.pairs {
                let t = p.tasks.iter().find(|t| &t.task_id == id);
                row.push(t.and_then(|t| t.score_diff).map_or("-".into(), signed));
                row.push(t.map_or("-".into(), |t| outcome(p, t.outcome)));
            }
            row.push(if not_full > 0 {
                format!("{not_full} trials")
            } else {
                String::new()
            });
            row
        })
        .collect();
    Table {
        header: cols.iter().map(|c| c.0.clone()).collect(),
        priority: cols.iter().map(|c| c.1).collect(),
        rows,
        left: 2,
    }
}

/// `B better`, `B worse`, `tie`, `unpaired`.
pub fn outcome(p: &Pair, o: TaskOutcome) -> String {
    match o {
        TaskOutcome::BBetter => format!("{} better", p.b),
        TaskOutcome::BWorse => format!("{} worse", p.b),
        TaskOutcome::Tie => "tie".into(),
        TaskOutcome::Unpaired => "unpaired".into(),
    }
}

/// A p-value: `0.0625` with 4 decimals, `4.14e-25` below 0.0001.
pub fn p_value(p: f64) -> String {
    if p > 0.0 && p < 1e-4 {
        format!("{p:.2e}")
    } else {
        format!("{p:.4}")
    }
}

/// `+0.250`, `-0.100`, `+0.000`.
pub fn signed(x: f64) -> String {
    format!("{x:+.3}")
}

/// How intervals and the test were computed, one line.
pub fn interval_note(c: &Comparison) -> String {
    format!(
        "{:.0}% percentile bootstrap over tasks (paired for differences), {} resamples, SplitMix64 seed {:#018x}; {}",
        c.bootstrap.level * 100.0,
        c.bootstrap.resamples,
        c.bootstrap.seed,
        c.paired_test
    )
}
