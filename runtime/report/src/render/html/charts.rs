//! The report's charts, drawn as inline SVG on the server (no script, no external resource;
//! the same summary gives the same bytes): the mean score of each category with its 95%
//! interval, Pass@k and Pass^k against k, and a strip per task with one mark per trial.

use std::fmt::Write as _;

use super::esc;
use crate::Judgement;
use crate::stats::passk::{pass_at_k, pass_pow_k};
use crate::summary::{Summary, TaskSummary};

/// The left margin that fits row labels of `chars` characters at `per_char` units each.
fn label_width(chars: usize, per_char: f64) -> f64 {
    (chars as f64 * per_char + 12.0).max(60.0)
}
/// Width of a chart's plotting area.
const PLOT: f64 = 420.0;
/// Height of one bar's row.
const ROW: f64 = 22.0;
/// The largest k the Pass@k curve is drawn to.
const MAX_K: u32 = 32;

/// The charts section (empty when nothing was counted).
pub fn section(s: &Summary) -> String {
    let bars = category_chart(s);
    let curve = pass_curve(s);
    let strips = task_strips(s);
    if bars.is_empty() && curve.is_empty() && strips.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("<section id=\"charts\">\n<h2>At a glance</h2>\n<div class=\"charts\">\n");
    for chart in [bars, curve] {
        out.push_str(&chart);
    }
    out.push_str("</div>\n");
    out.push_str(&strips);
    out.push_str("</section>\n");
    out
}

/// A number in SVG coordinates (one decimal, so bytes do not depend on float noise).
fn n(x: f64) -> String {
    format!("{x:.1}")
}

/// The x axis of a 0..1 scale at `y`: ticks and labels every quarter.
fn unit_axis(out: &mut String, x0: f64, width: f64, y: f64) {
    let _ = write!(
        out,
        "<line class=\"axis\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
        n(x0),
        n(y),
        n(x0 + width),
        n(y)
    );
    for i in 0..=4 {
        let x = x0 + width * f64::from(i) / 4.0;
        let _ = write!(
            out,
            "<line class=\"tick\" x1=\"{x}\" y1=\"{y0}\" x2=\"{x}\" y2=\"{y1}\"/>\
             <text class=\"tick-label\" x=\"{x}\" y=\"{ty}\" text-anchor=\"middle\">{label}</text>",
            x = n(x),
            y0 = n(y),
            y1 = n(y + 4.0),
            ty = n(y + 16.0),
            label = ["0", "0.25", "0.5", "0.75", "1"][i as usize],
        );
    }
}

/// Mean task score per category, a bar each, with the bootstrap interval as a whisker.
pub fn category_chart(s: &Summary) -> String {
    let rows: Vec<_> = s
        .categories
        .iter()
        .filter_map(|c| c.mean_score.map(|e| (c, e)))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let label = label_width(
        rows.iter()
            .map(|(c, _)| c.name.chars().count())
            .max()
            .unwrap_or(0),
        7.0,
    );
    let height = ROW * rows.len() as f64 + 40.0;
    let width = label + PLOT + 60.0;
    let mut out = format!(
        "<figure class=\"chart\" id=\"chart-categories\"><figcaption>Mean score by category \
         (bars), 95% interval (whiskers)</figcaption>\n<svg viewBox=\"0 0 {} {}\" \
         role=\"img\" aria-label=\"Mean score by category\">",
        n(width),
        n(height)
    );
    for (i, (c, e)) in rows.iter().enumerate() {
        let y = ROW * i as f64 + 4.0;
        let mid = y + ROW / 2.0 - 2.0;
        let _ = write!(
            out,
            "<g class=\"bar-row\" data-category=\"{name}\"><title>{name}: {v:.3} [{lo:.3}, {hi:.3}], \
             {t} tasks</title><text class=\"label\" x=\"{lx}\" y=\"{ty}\" text-anchor=\"end\">{name}</text>\
             <rect class=\"bar\" x=\"{x0}\" y=\"{y}\" width=\"{w}\" height=\"{h}\"/>\
             <line class=\"whisker\" x1=\"{wl}\" y1=\"{mid}\" x2=\"{wh}\" y2=\"{mid}\"/>\
             <text class=\"value\" x=\"{vx}\" y=\"{ty}\">{v:.2}</text></g>",
            name = esc(&c.name),
            v = e.value,
            lo = e.ci95.lo,
            hi = e.ci95.hi,
            t = c.scored_tasks,
            lx = n(label - 8.0),
            ty = n(mid + 4.0),
            x0 = n(label),
            y = n(y),
            w = n(PLOT * e.value.clamp(0.0, 1.0)),
            h = n(ROW - 6.0),
            wl = n(label + PLOT * e.ci95.lo.clamp(0.0, 1.0)),
            wh = n(label + PLOT * e.ci95.hi.clamp(0.0, 1.0)),
            mid = n(mid),
            vx = n(label + PLOT + 6.0),
        );
    }
    unit_axis(&mut out, label, PLOT, ROW * rows.len() as f64 + 8.0);
    out.push_str("</svg></figure>\n");
    out
}

/// Mean Pass@k and Pass^k over the tasks with at least k counted trials, for k = 1 to the
/// most trials any task has (at most [`MAX_K`]).
pub fn pass_curve(s: &Summary) -> String {
    let top = s.tasks.iter().map(|t| t.n).max().unwrap_or(0).min(MAX_K);
    if top == 0 {
        return String::new();
    }
    let points: Vec<(u32, f64, f64, usize)> = (1..=top)
        .filter_map(|k| {
            let with_k: Vec<&TaskSummary> = s.tasks.iter().filter(|t| t.n >= k).collect();
            let mean = |f: fn(u32, u32, u32) -> Option<f64>| {
                with_k.iter().filter_map(|t| f(t.n, t.c, k)).sum::<f64>() / with_k.len() as f64
            };
            (!with_k.is_empty()).then(|| (k, mean(pass_at_k), mean(pass_pow_k), with_k.len()))
        })
        .collect();
    let (x0, y0, w, h) = (40.0, 10.0, PLOT, 200.0);
    let x_of = |k: u32| {
        if top == 1 {
            x0 + w / 2.0
        } else {
            x0 + w * f64::from(k - 1) / f64::from(top - 1)
        }
    };
    let y_of = |v: f64| y0 + h * (1.0 - v.clamp(0.0, 1.0));
    let mut out = format!(
        "<figure class=\"chart\" id=\"chart-passk\"><figcaption>Pass@k (at least one of k trials \
         passes) and Pass^k (all k pass) against k</figcaption>\n<svg viewBox=\"0 0 {} {}\" \
         role=\"img\" aria-label=\"Pass@k and Pass^k against k\">",
        n(x0 + w + 110.0),
        n(y0 + h + 40.0)
    );
    for i in 0..=4 {
        let v = f64::from(i) / 4.0;
        let _ = write!(
            out,
            "<line class=\"grid\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/><text class=\"tick-label\" \
             x=\"{}\" y=\"{ty}\" text-anchor=\"end\">{}</text>",
            n(x0),
            n(x0 + w),
            n(x0 - 6.0),
            ["0", "0.25", "0.5", "0.75", "1"][i as usize],
            y = n(y_of(v)),
            ty = n(y_of(v) + 4.0),
        );
    }
    for (k, ..) in &points {
        let _ = write!(
            out,
            "<text class=\"tick-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{k}</text>",
            n(x_of(*k)),
            n(y0 + h + 16.0)
        );
    }
    let _ = write!(
        out,
        "<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">k</text>",
        n(x0 + w / 2.0),
        n(y0 + h + 34.0)
    );
    for (class, name, pick) in [("at", "Pass@k", 1usize), ("pow", "Pass^k", 2usize)] {
        let value = |p: &(u32, f64, f64, usize)| if pick == 1 { p.1 } else { p.2 };
        let line: Vec<String> = points
            .iter()
            .map(|p| format!("{},{}", n(x_of(p.0)), n(y_of(value(p)))))
            .collect();
        let _ = write!(
            out,
            "<polyline class=\"curve {class}\" points=\"{}\"/>",
            line.join(" ")
        );
        for p in &points {
            let _ = write!(
                out,
                "<circle class=\"dot {class}\" cx=\"{}\" cy=\"{}\" r=\"3\"><title>{name}, k = {}: \
                 {:.3} over {} tasks</title></circle>",
                n(x_of(p.0)),
                n(y_of(value(p))),
                p.0,
                value(p),
                p.3
            );
        }
        // Each legend beside its curve's end; Pass^k's kept clear of Pass@k's.
        let end = |pick: usize| {
            points
                .last()
                .map_or(0.0, |p| y_of(if pick == 1 { p.1 } else { p.2 }))
        };
        let mut y = end(pick);
        if pick == 2 && (y - end(1)).abs() < 14.0 {
            y = end(1) + if end(1) > y0 + h - 14.0 { -14.0 } else { 14.0 };
        }
        let _ = write!(
            out,
            "<text class=\"legend {class}\" x=\"{}\" y=\"{}\">{name}</text>",
            n(x0 + w + 8.0),
            n(y + 4.0)
        );
    }
    out.push_str("</svg></figure>\n");
    out
}

/// The colour of a trial's mark: red (0) through yellow to green (1) by score; grey when
/// the trial was not judged.
fn mark_colour(score: f64, judgement: Judgement) -> String {
    match judgement {
        Judgement::Unjudged => "#b8bec9".to_string(),
        _ => format!("hsl({:.0},65%,42%)", 120.0 * score.clamp(0.0, 1.0)),
    }
}

/// One strip per task, a mark per scored trial coloured by its score (a ring for a pass).
pub fn task_strips(s: &Summary) -> String {
    let tasks: Vec<&TaskSummary> = s.tasks.iter().filter(|t| !t.trials.is_empty()).collect();
    if tasks.is_empty() {
        return String::new();
    }
    let most = tasks.iter().map(|t| t.trials.len()).max().unwrap_or(1);
    let (cell, row) = (12.0, 15.0);
    let label = label_width(
        tasks
            .iter()
            .map(|t| t.task_id.chars().count())
            .max()
            .unwrap_or(0),
        6.0,
    );
    let width = label + cell * most as f64 + 60.0;
    let height = row * tasks.len() as f64 + 6.0;
    let mut out = format!(
        "<figure class=\"chart wide\" id=\"chart-strips\"><figcaption>Each task's trials \
         (red 0 to green 1 by score; outlined: passed; grey: not judged)</figcaption>\n\
         <svg viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"Trial scores per task\" \
         style=\"max-width:{}px\">",
        n(width),
        n(height),
        n(width * 1.2)
    );
    for (i, t) in tasks.iter().enumerate() {
        let y = row * i as f64 + 3.0;
        let _ = write!(
            out,
            "<g class=\"strip\" data-task=\"{id}\"><text class=\"label small\" x=\"{}\" y=\"{}\" \
             text-anchor=\"end\">{id}</text>",
            n(label - 8.0),
            n(y + cell - 2.0),
            id = esc(&t.task_id)
        );
        for (j, trial) in t.trials.iter().enumerate() {
            let _ = write!(
                out,
                "<rect class=\"mark{}\" x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{w}\" \
                 fill=\"{}\"><title>{} trial {}: {}</title></rect>",
                if trial.passed && trial.judgement != Judgement::Unjudged {
                    " pass"
                } else {
                    ""
                },
                n(label + cell * j as f64),
                n(y),
                mark_colour(trial.score, trial.judgement),
                esc(&t.task_id),
                trial.trial,
                match trial.judgement {
                    Judgement::Unjudged => "not judged".to_string(),
                    _ => format!(
                        "{:.3}{}",
                        trial.score,
                        if trial.passed { ", passed" } else { "" }
                    ),
                },
                w = n(cell - 2.0),
            );
        }
        if let Some(mean) = t.mean_score {
            let _ = write!(
                out,
                "<text class=\"value small\" x=\"{}\" y=\"{}\">{mean:.2}</text>",
                n(label + cell * most as f64 + 6.0),
                n(y + cell - 2.0)
            );
        }
        out.push_str("</g>");
    }
    out.push_str("</svg></figure>\n");
    out
}
