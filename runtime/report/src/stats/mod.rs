//! Pure statistics over trial outcomes (no I/O, no randomness except the seeded bootstrap).
//!
//! - [`passk`]: Pass@k, Pass^k and friends for one task's `n` trials with `c` passes.
//! - [`bootstrap`]: percentile intervals by resampling tasks with a seeded PRNG.
//! - [`paired`]: the paired comparison of two arms (differences, sign test).

pub mod bootstrap;
pub mod exact_sum;
pub mod paired;
pub mod passk;

pub use self::bootstrap::{
    BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, Interval, SplitMix64, bootstrap_mean, percentile_interval,
};
pub use self::exact_sum::ExactSum;
pub use self::paired::{paired_difference, sign_test_p, wins_losses_ties};
pub use self::passk::{all_k_pass, pass_at_k, pass_hat_k, pass_pow_k};

/// The arithmetic mean, summed in order; `None` for no values.
pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some(values.iter().sum::<f64>() / values.len() as f64)
}

/// Whether a task's trials disagree on pass (at least one passed and at least one failed).
pub fn flipped(passes: &[bool]) -> bool {
    passes.iter().any(|&p| p) && passes.iter().any(|&p| !p)
}

/// The fraction of tasks whose trials disagree on pass, over tasks with at least two trials
/// (one trial cannot disagree with itself); `None` when no task has two. Each task is given
/// as its number of trials and whether they flipped ([`flipped`]).
pub fn flip_rate(tasks: impl IntoIterator<Item = (u32, bool)>) -> Option<f64> {
    let (mut eligible, mut flips) = (0usize, 0usize);
    for (trials, flipped) in tasks {
        if trials >= 2 {
            eligible += 1;
            flips += usize::from(flipped);
        }
    }
    (eligible > 0).then(|| flips as f64 / eligible as f64)
}
