//! The estimators against hand-computed values (the arithmetic is in the comments).

mod common;

use clawrun_report::stats::{
    BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, Interval, SplitMix64, all_k_pass, bootstrap_mean,
    flip_rate, flipped, mean, pass_at_k, pass_hat_k, pass_pow_k, percentile_interval,
};
use common::close;

#[test]
fn mean_of_values() {
    // (0.2 + 0.4 + 0.9) / 3 = 1.5 / 3 = 0.5
    close(mean(&[0.2, 0.4, 0.9]).unwrap(), 0.5);
    assert_eq!(mean(&[]), None);
}

#[test]
fn pass_at_k_hand_computed() {
    // n=5, c=2, k=3: 1 − C(3,3)/C(5,3) = 1 − 1/10 = 0.9
    // (product form: 1 − (3/5)(2/4)(1/3) = 1 − 6/60 = 0.9)
    close(pass_at_k(5, 2, 3).unwrap(), 0.9);
    // n=10, c=3, k=2: 1 − C(7,2)/C(10,2) = 1 − 21/45 = 24/45
    close(pass_at_k(10, 3, 2).unwrap(), 24.0 / 45.0);
    // k=1 is the pass rate: n=3, c=1: 1 − C(2,1)/C(3,1) = 1 − 2/3 = 1/3
    close(pass_at_k(3, 1, 1).unwrap(), 1.0 / 3.0);
    // n−c < k: every draw of k trials contains a pass: n=3, c=1, k=3 → 1
    close(pass_at_k(3, 1, 3).unwrap(), 1.0);
    // no passes: 1 − C(3,3)/C(3,3) = 0
    close(pass_at_k(3, 0, 3).unwrap(), 0.0);
}

#[test]
fn pass_at_k_is_numerically_safe_for_large_n() {
    // C(999,500)/C(1000,500) = [999!/(500!·499!)] / [1000!/(500!·500!)] = 500/1000 = 0.5,
    // so Pass@500 with n=1000, c=1 is 1 − 0.5 = 0.5 (factorials would overflow).
    close(pass_at_k(1000, 1, 500).unwrap(), 0.5);
    // C(999,500)/C(1000,500) again: Pass^500 with n=1000, c=999 is 0.5.
    close(pass_pow_k(1000, 999, 500).unwrap(), 0.5);
}

#[test]
fn pass_pow_k_hand_computed() {
    // n=5, c=3, k=2: C(3,2)/C(5,2) = 3/10 (product: (3/5)(2/4) = 6/20)
    close(pass_pow_k(5, 3, 2).unwrap(), 0.3);
    // all passed: C(3,3)/C(3,3) = 1
    close(pass_pow_k(3, 3, 3).unwrap(), 1.0);
    // c < k: C(2,3) = 0
    close(pass_pow_k(3, 2, 3).unwrap(), 0.0);
    // k=1 is the pass rate: 2/3
    close(pass_pow_k(3, 2, 1).unwrap(), 2.0 / 3.0);
}

#[test]
fn pass_hat_k_hand_computed() {
    // (2/3)^3 = 8/27
    close(pass_hat_k(3, 2, 3).unwrap(), 8.0 / 27.0);
    // (1/2)^2 = 0.25
    close(pass_hat_k(4, 2, 2).unwrap(), 0.25);
}

#[test]
fn all_k_pass_uses_the_first_k_trials() {
    let passes = [true, true, false];
    assert_eq!(all_k_pass(&passes, 2), Some(true)); // trials 0 and 1 passed
    assert_eq!(all_k_pass(&passes, 3), Some(false)); // k = n: trial 2 failed
    assert_eq!(all_k_pass(&[true, true, true], 3), Some(true));
    assert_eq!(all_k_pass(&passes, 4), None); // fewer than k trials
    assert_eq!(all_k_pass(&passes, 0), None);
}

#[test]
fn invalid_arguments_give_none() {
    assert_eq!(pass_at_k(3, 1, 0), None); // k = 0
    assert_eq!(pass_at_k(2, 1, 3), None); // k > n
    assert_eq!(pass_pow_k(2, 3, 1), None); // c > n
    assert_eq!(pass_hat_k(0, 0, 1), None); // no trials
}

#[test]
fn flips() {
    assert!(flipped(&[true, false]));
    assert!(!flipped(&[true, true]));
    assert!(!flipped(&[false]));
    // tasks: [P,F] flips, [P,P] does not, [F] has one trial (left out), [F,F,P] flips:
    // 2 flips over 3 eligible tasks = 2/3
    let tasks: [&[bool]; 4] = [
        &[true, false],
        &[true, true],
        &[false],
        &[false, false, true],
    ];
    let of = |ts: &[&[bool]]| {
        ts.iter()
            .map(|t| (t.len() as u32, flipped(t)))
            .collect::<Vec<_>>()
    };
    close(flip_rate(of(&tasks)).unwrap(), 2.0 / 3.0);
    assert_eq!(flip_rate(of(&[&[true]])), None);
}

#[test]
fn splitmix64_matches_the_reference_sequence() {
    // The reference implementation (Vigna's splitmix64.c) seeded with 0.
    let mut rng = SplitMix64::new(0);
    assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
    assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    assert_eq!(rng.next_u64(), 0x06c4_5d18_8009_454f);
}

#[test]
fn below_stays_in_range_and_reaches_every_value() {
    let mut rng = SplitMix64::new(7);
    let mut seen = [false; 5];
    for _ in 0..1000 {
        let x = rng.below(5);
        assert!(x < 5);
        seen[x] = true;
    }
    assert!(seen.iter().all(|&s| s), "{seen:?}");
}

#[test]
fn percentile_interval_cuts_two_and_a_half_percent_each_side() {
    // 2000 sorted values 0..1999: t = floor(2000 × 0.05 / 2) = 50 → [v[50], v[1949]]
    let sorted: Vec<f64> = (0..2000).map(f64::from).collect();
    assert_eq!(
        percentile_interval(&sorted, 0.95),
        Interval {
            lo: 50.0,
            hi: 1949.0
        }
    );
    // 10 values: t = floor(10 × 0.025) = 0 → the extremes
    let ten: Vec<f64> = (0..10).map(f64::from).collect();
    assert_eq!(
        percentile_interval(&ten, 0.95),
        Interval { lo: 0.0, hi: 9.0 }
    );
    assert_eq!(
        percentile_interval(&[0.4], 0.95),
        Interval { lo: 0.4, hi: 0.4 }
    );
}

#[test]
fn bootstrap_of_identical_tasks_is_a_point() {
    // Every resample of [0.6, 0.6, 0.6] has mean 0.6.
    let ci = bootstrap_mean(&[0.6, 0.6, 0.6], BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED).unwrap();
    close(ci.lo, 0.6);
    close(ci.hi, 0.6);
    assert_eq!(
        bootstrap_mean(&[], BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED),
        None
    );
}

#[test]
fn bootstrap_of_two_tasks_spans_both_extremes() {
    // Resampling [0, 1] gives means 0, 0.5, 1 with chances 1/4, 1/2, 1/4: about 500 of the
    // 2000 sorted means are 0 and 500 are 1, far more than the 50 cut from each end, so the
    // interval is exactly [0, 1].
    let ci = bootstrap_mean(&[0.0, 1.0], BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED).unwrap();
    assert_eq!(ci, Interval { lo: 0.0, hi: 1.0 });
}

#[test]
fn bootstrap_is_deterministic_and_brackets_the_mean() {
    let values = [0.1, 0.9, 0.4, 0.7, 0.3, 1.0, 0.0, 0.55];
    let a = bootstrap_mean(&values, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED).unwrap();
    let b = bootstrap_mean(&values, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED).unwrap();
    assert_eq!(a, b);
    // mean = 3.95 / 8 = 0.49375
    let m = mean(&values).unwrap();
    close(m, 0.49375);
    assert!(a.lo < m && m < a.hi, "{a:?}");
    // and narrower than the range of the data
    assert!(a.lo > 0.0 && a.hi < 1.0, "{a:?}");
    // a different seed resamples differently
    let c = bootstrap_mean(&values, BOOTSTRAP_RESAMPLES, 1).unwrap();
    assert_ne!(a, c);
}
