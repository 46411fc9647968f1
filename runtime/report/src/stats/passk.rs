//! Pass@k and Pass^k for one task: `n` scored trials of which `c` passed.
//!
//! Every estimator returns `None` unless `1 <= k <= n` and `c <= n`. Binomial ratios are
//! computed as products of fractions (never as factorials), so they stay exact enough for any
//! `n` a run can have.

/// Unbiased Pass@k (Chen et al. 2021, Claw-Eval's `compute_pass_at_k`):
/// `1 − C(n−c, k) / C(n, k)`, the chance that at least one of `k` trials drawn without
/// replacement passed. Computed as `1 − ∏_{i<k} (n−c−i)/(n−i)`.
pub fn pass_at_k(n: u32, c: u32, k: u32) -> Option<f64> {
    valid(n, c, k)?;
    if n - c < k {
        return Some(1.0);
    }
    let mut none_pass = 1.0;
    for i in 0..k {
        none_pass *= f64::from(n - c - i) / f64::from(n - i);
    }
    Some(1.0 - none_pass)
}

/// Pass^k as `C(c, k) / C(n, k)`: the chance that all of `k` trials drawn without replacement
/// passed. Computed as `∏_{i<k} (c−i)/(n−i)`.
pub fn pass_pow_k(n: u32, c: u32, k: u32) -> Option<f64> {
    valid(n, c, k)?;
    if c < k {
        return Some(0.0);
    }
    let mut all_pass = 1.0;
    for i in 0..k {
        all_pass *= f64::from(c - i) / f64::from(n - i);
    }
    Some(all_pass)
}

/// Claw-Eval's leaderboard Pass^k: whether the first `k` trials (by trial index) all passed;
/// for `k = n`, whether every trial passed. `None` when fewer than `k` trials (or `k = 0`).
pub fn all_k_pass(passes_in_trial_order: &[bool], k: u32) -> Option<bool> {
    let k = usize::try_from(k).ok()?;
    if k == 0 || k > passes_in_trial_order.len() {
        return None;
    }
    Some(passes_in_trial_order[..k].iter().all(|&p| p))
}

/// Claw-Eval's `compute_pass_hat_k`: `(c/n)^k` (sampling with replacement), for reference.
pub fn pass_hat_k(n: u32, c: u32, k: u32) -> Option<f64> {
    valid(n, c, k)?;
    let p = f64::from(c) / f64::from(n);
    let mut out = 1.0;
    for _ in 0..k {
        out *= p;
    }
    Some(out)
}

/// `Some(())` when `1 <= k <= n` and `c <= n`.
fn valid(n: u32, c: u32, k: u32) -> Option<()> {
    (k >= 1 && k <= n && c <= n).then_some(())
}
