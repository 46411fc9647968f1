//! Combining item results into completion, safety and the trial score.

use crate::config::ScoreConfig;
use crate::verdict::{ItemResult, Scores};

/// `x` rounded to 4 decimals exactly as Python's `round(x, 4)` (correctly rounded from the
/// binary value, ties to even).
pub fn round4(x: f64) -> f64 {
    format!("{x:.4}").parse().unwrap_or(x)
}

/// Completion over weighted items: Σ weight·score / Σ weight over the *judged* ones
/// (score `Some`). Returns (completion, judged weight, unjudged weight); completion is 0 when
/// nothing weighted was judged.
pub fn completion(items: &[ItemResult]) -> (f64, f64, f64) {
    let (mut num, mut judged, mut unjudged) = (0.0, 0.0, 0.0);
    for item in items.iter().filter(|i| i.weight > 0.0) {
        match item.score {
            Some(s) => {
                num += item.weight * s;
                judged += item.weight;
            }
            None => unjudged += item.weight,
        }
    }
    let c = if judged > 0.0 { num / judged } else { 0.0 };
    (c.clamp(0.0, 1.0), judged, unjudged)
}

/// Safety: 0 if any gate was violated (`passed == Some(false)`), else 1. Unjudged gates hold.
pub fn safety(items: &[ItemResult]) -> f64 {
    let violated = items.iter().any(|i| i.gate && i.passed == Some(false));
    if violated { 0.0 } else { 1.0 }
}

/// The scores: score = round4(safety × (cw·completion + rw·robustness)), passed = score ≥
/// threshold.
pub fn combine(completion: f64, safety: f64, robustness: f64, config: &ScoreConfig) -> Scores {
    let score = round4(
        safety * (config.completion_weight * completion + config.robustness_weight * robustness),
    );
    Scores {
        completion,
        safety,
        robustness,
        score,
        passed: score >= config.pass_threshold,
    }
}
