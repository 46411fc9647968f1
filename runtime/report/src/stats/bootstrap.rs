//! Percentile bootstrap intervals, deterministic: the resampling PRNG is SplitMix64 seeded with
//! a fixed constant, so identical input gives identical intervals.

use serde::{Deserialize, Serialize};

/// Resamples drawn for every interval.
pub const BOOTSTRAP_RESAMPLES: usize = 2000;

/// The PRNG seed for every interval (the bytes of `"clawrun!"`).
pub const BOOTSTRAP_SEED: u64 = 0x636c_6177_7275_6e21;

/// A closed interval `[lo, hi]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The lower bound.
    pub lo: f64,
    /// The upper bound.
    pub hi: f64,
}

/// SplitMix64 (Steele, Lea and Flood 2014): a tiny, well-mixed 64-bit PRNG.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    /// The state, advanced by the golden-ratio increment on every draw.
    state: u64,
}

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound > 0`) by multiply-shift (bias below 2^-32 for any
    /// realistic bound).
    pub fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next_u64()) * bound as u128) >> 64) as usize
    }
}

/// The central `level` (e.g. 0.95) percentile interval of `sorted` (ascending, non-empty):
/// with `t = floor(len × (1 − level) / 2)` values cut from each end, `[sorted[t],
/// sorted[len − 1 − t]]`. For 2000 resamples at 0.95, `t = 50`: `[sorted[50], sorted[1949]]`.
pub fn percentile_interval(sorted: &[f64], level: f64) -> Interval {
    assert!(!sorted.is_empty(), "percentile of nothing");
    let tail = ((sorted.len() as f64) * (1.0 - level) / 2.0).floor() as usize;
    let tail = tail.min((sorted.len() - 1) / 2);
    Interval {
        lo: sorted[tail],
        hi: sorted[sorted.len() - 1 - tail],
    }
}

/// The 95% percentile bootstrap interval of the mean of `values` (one value per task): draw
/// `resamples` samples of `values.len()` tasks with replacement, take each sample's mean, and
/// cut 2.5% from each end. `None` for no values.
pub fn bootstrap_mean(values: &[f64], resamples: usize, seed: u64) -> Option<Interval> {
    if values.is_empty() || resamples == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut means = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let mut sum = 0.0;
        for _ in 0..values.len() {
            sum += values[rng.below(values.len())];
        }
        means.push(sum / values.len() as f64);
    }
    means.sort_by(f64::total_cmp);
    Some(percentile_interval(&means, 0.95))
}
