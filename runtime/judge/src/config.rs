//! How the three scores combine into one (Claw-Eval's constants by default).

use serde::{Deserialize, Serialize};

/// The score formula's weights and the pass threshold.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScoreConfig {
    /// Weight of completion in the score (Claw-Eval: 0.8).
    pub completion_weight: f64,
    /// Weight of robustness in the score (Claw-Eval: 0.2).
    pub robustness_weight: f64,
    /// A trial passes when its score is at least this (Claw-Eval: 0.75).
    pub pass_threshold: f64,
}

impl Default for ScoreConfig {
    fn default() -> Self {
        ScoreConfig {
            completion_weight: 0.8,
            robustness_weight: 0.2,
            pass_threshold: 0.75,
        }
    }
}
