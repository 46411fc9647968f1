//! [`ExactSum`]: a sum of floating-point values that does not depend on the order they are
//! added in.
//!
//! A summary reads a journal one record at a time, in the order the trials finished, which
//! differs between two runs of the same trials (`-j 2`, a resumed run, shards). Summing in
//! `f64` would make the last digits of a mean depend on that order; summing in fixed point
//! makes the result a function of the set of values alone.

/// Fractional bits of the fixed-point representation: values are rounded to multiples of
/// 2^-64 (5.4e-20) before they are added.
const FRACTION_BITS: i32 = 64;

/// A sum of `f64` values in fixed point (an `i128` of 2^-64 units): exact for values that are
/// multiples of 2^-64 (every score, weight and price a report sums down to 5.4e-20), and
/// independent of the order of the additions. Magnitudes up to 2^62 per value are supported;
/// non-finite values count as 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExactSum {
    units: i128,
}

impl ExactSum {
    /// Adds `value`.
    pub fn add(&mut self, value: f64) {
        self.units = self.units.saturating_add(to_units(value));
    }

    /// Adds another sum.
    pub fn add_sum(&mut self, other: ExactSum) {
        self.units = self.units.saturating_add(other.units);
    }

    /// The sum, rounded once to the nearest `f64`.
    pub fn value(self) -> f64 {
        self.units as f64 * 2f64.powi(-FRACTION_BITS)
    }

    /// The mean over `n` values; `None` when `n` is 0.
    pub fn mean(self, n: u64) -> Option<f64> {
        (n > 0).then(|| self.value() / n as f64)
    }
}

/// `value` in 2^-64 units, rounded to the nearest.
fn to_units(value: f64) -> i128 {
    if !value.is_finite() {
        return 0;
    }
    // Scaling by a power of two is exact; `as` saturates beyond the i128 range.
    (value * 2f64.powi(FRACTION_BITS)).round() as i128
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(values: &[f64]) -> f64 {
        let mut s = ExactSum::default();
        values.iter().for_each(|&v| s.add(v));
        s.value()
    }

    #[test]
    fn order_does_not_change_the_sum() {
        let values = [0.1, 0.7, 1e-9, 0.3333333333333333, 0.95, 0.2, 1.0, 0.05];
        let forward = sum(&values);
        let mut reversed = values;
        reversed.reverse();
        assert_eq!(forward.to_bits(), sum(&reversed).to_bits());
        // f64 addition is not associative: the naive sums differ in the last digit here
        let naive = |v: &[f64]| v.iter().fold(0.0, |a, b| a + b);
        assert_ne!(naive(&values).to_bits(), naive(&reversed).to_bits());
    }

    #[test]
    fn the_sum_is_the_correctly_rounded_exact_sum() {
        assert_eq!(sum(&[0.1, 0.2]), 0.1 + 0.2);
        assert_eq!(sum(&[0.5, 0.25, 0.125]), 0.875);
        assert_eq!(sum(&[1e15, 1.0, -1e15]), 1.0);
        assert_eq!(sum(&[]), 0.0);
    }

    #[test]
    fn means_and_non_finite_values() {
        let mut s = ExactSum::default();
        assert_eq!(s.mean(0), None);
        s.add(0.9);
        s.add(f64::NAN);
        s.add(0.6);
        assert_eq!(s.mean(2), Some(0.75));
        let mut t = ExactSum::default();
        t.add(0.25);
        t.add_sum(s);
        assert_eq!(t.value(), 1.75);
    }
}
