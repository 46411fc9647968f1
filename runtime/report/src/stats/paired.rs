//! The paired comparison of two arms over the tasks both ran: per-task differences, their
//! bootstrap interval and the exact sign test.

use crate::stats::{BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, Interval, bootstrap_mean, mean};

/// Differences closer to 0 than this count as ties (scores carry 4 decimals).
pub const TIE_EPSILON: f64 = 1e-9;

/// The exact two-sided sign test: under "neither arm is better", each untied task favours B
/// with probability 1/2, so wins ~ Binomial(wins + losses, 1/2). The p-value is
/// `min(1, 2 × P(X ≤ min(wins, losses)))`. Ties are left out; `None` when every task tied.
/// The binomial terms are summed in log space, so any number of tasks stays exact to double
/// precision.
pub fn sign_test_p(wins: u32, losses: u32) -> Option<f64> {
    let n = wins + losses;
    if n == 0 {
        return None;
    }
    let m = wins.min(losses);
    // log P(X = 0) = −n ln 2; log P(X = j + 1) = log P(X = j) + ln((n − j) / (j + 1)).
    let mut log_p = -f64::from(n) * std::f64::consts::LN_2;
    let mut tail = 0.0;
    for j in 0..=m {
        tail += log_p.exp();
        log_p += (f64::from(n - j) / f64::from(j + 1)).ln();
    }
    Some((2.0 * tail).min(1.0))
}

/// The mean of per-task differences with its 95% paired bootstrap interval (tasks resampled
/// with replacement, the pair kept together; the fixed seed makes it deterministic).
pub fn paired_difference(diffs: &[f64]) -> Option<(f64, Interval)> {
    Some((
        mean(diffs)?,
        bootstrap_mean(diffs, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED)?,
    ))
}

/// Wins (d > 0), losses (d < 0) and ties (|d| ≤ [`TIE_EPSILON`]) of `diffs`.
pub fn wins_losses_ties(diffs: &[f64]) -> (u32, u32, u32) {
    let mut out = (0, 0, 0);
    for &d in diffs {
        if d > TIE_EPSILON {
            out.0 += 1;
        } else if d < -TIE_EPSILON {
            out.1 += 1;
        } else {
            out.2 += 1;
        }
    }
    out
}
