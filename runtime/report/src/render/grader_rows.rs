//! The graders' agreement (`--grader both`) as label lines and a table of disagreements, shared
//! by the text, Markdown and HTML outputs.

use crate::render::table::Table;
use crate::summary::GraderAgreement;

/// The section's title.
pub const TITLE: &str = "Graders: Claw-Eval's grader.py vs clawrun's rubric";

/// The headline figures.
pub fn agreement_lines(g: &GraderAgreement) -> Vec<(String, String)> {
    let share = if g.trials == 0 {
        "-".to_string()
    } else {
        format!(
            "{:.1}%",
            100.0 * f64::from(g.same_pass) / f64::from(g.trials)
        )
    };
    vec![
        (
            "trials graded both ways".into(),
            format!(
                "{} compared ({} more unjudged by one side, not compared)",
                g.trials, g.unjudged
            ),
        ),
        (
            "same pass/fail".into(),
            format!("{} of {} ({share})", g.same_pass, g.trials),
        ),
        (
            "mean |score difference|".into(),
            format!("{:.4}", g.mean_abs_difference),
        ),
    ]
}

/// The trials whose pass/fail differs, with the reason.
pub fn disagreement_table(g: &GraderAgreement) -> Table {
    let pass = |p: bool| if p { "pass" } else { "fail" };
    Table {
        header: ["trial", "Claw-Eval", "clawrun", "why"]
            .map(String::from)
            .to_vec(),
        rows: g
            .disagreements
            .iter()
            .map(|d| {
                vec![
                    d.trial.clone(),
                    format!("{:.4} {}", d.claw_eval_score, pass(d.claw_eval_passed)),
                    format!("{:.4} {}", d.clawrun_score, pass(d.clawrun_passed)),
                    d.why.clone(),
                ]
            })
            .collect(),
        priority: vec![0, 0, 0, 1],
        left: 1,
    }
}
