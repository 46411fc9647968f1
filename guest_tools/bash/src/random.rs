//! `$RANDOM`: bash's own generator (bash 5.1 and later), so `RANDOM=N` gives the numbers bash
//! gives: the Park–Miller "minimal standard" generator on 32 bits, folded to 15 bits, never the
//! same number twice in a row. Every expansion advances it; `RANDOM=expr` reseeds it with the
//! expression's value (an invalid expression leaves it alone, where bash aborts the command).
//!
//! Unseeded, it starts from the guest's random source (the keys std draws for hash maps, which
//! in clawrun's sandbox come from `wasi:random`, derived from the trial seed): the same seed
//! gives the same numbers, another seed other numbers. A subshell (`$(...)`, `( ... )`) draws
//! from a stream of its own, as bash reseeds subshells, so `echo $(echo $RANDOM) $RANDOM` does
//! not print one number twice.

use std::hash::{BuildHasher, Hasher};

/// The largest value of `$RANDOM`.
pub const RANDOM_MAX: u32 = 32767;

/// The generator's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BashRandom {
    /// The 32-bit state (bash's `rseed`).
    state: u32,
    /// The last value handed out (bash's `last_random_value`), never repeated at once.
    last: u32,
}

impl BashRandom {
    /// A generator seeded as `RANDOM=seed` seeds it: `RANDOM` has bash's integer attribute, so
    /// the value is evaluated arithmetically first; the low 32 bits are kept.
    pub fn seeded(seed: i64) -> Self {
        BashRandom {
            state: seed as u32,
            last: 0,
        }
    }

    /// A generator seeded from the guest's random source.
    pub fn from_entropy() -> Self {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write(b"$RANDOM");
        Self::seeded(i64::from(h.finish() as u32))
    }

    /// The next value of `$RANDOM`, 0..=32767.
    pub fn next_value(&mut self) -> u32 {
        loop {
            self.state = minimal_standard(self.state);
            let v = ((self.state >> 16) ^ (self.state & 0xffff)) & RANDOM_MAX;
            if v != self.last {
                self.last = v;
                return v;
            }
        }
    }

    /// The generator of the `n`-th subshell started from this state (the state itself is
    /// left alone, as a subshell does not touch its parent's).
    pub fn for_subshell(&self, n: u64) -> Self {
        let mut x = (u64::from(self.state) << 32 | u64::from(self.last)) ^ n.rotate_left(17);
        // splitmix64's finaliser: nearby inputs give unrelated seeds.
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        Self::seeded(i64::from(x as u32))
    }
}

/// Park and Miller's minimal standard generator (16807 * x mod 2^31 - 1, by Schrage's method),
/// as bash's `intrand32` computes it; 0 is replaced by bash's fixed start.
fn minimal_standard(last: u32) -> u32 {
    let x = if last == 0 {
        123_459_876
    } else {
        i64::from(last)
    };
    let h = x / 127_773;
    let l = x - 127_773 * h;
    let t = 16_807 * l - 2_836 * h;
    (if t < 0 { t + 0x7fff_ffff } else { t }) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_of_bash_5_2_for_seed_5() {
        // `bash -c 'RANDOM=5; echo $RANDOM $RANDOM $RANDOM $RANDOM'` with GNU bash 5.2.15.
        let mut r = BashRandom::seeded(5);
        let got: Vec<u32> = (0..4).map(|_| r.next_value()).collect();
        assert_eq!(got, BASH_SEED_5);
    }

    /// What GNU bash 5.2.15 prints for `RANDOM=5; echo $RANDOM $RANDOM $RANDOM $RANDOM`.
    const BASH_SEED_5: [u32; 4] = [18498, 29338, 982, 6493];

    #[test]
    fn never_twice_in_a_row_and_within_range() {
        let mut r = BashRandom::seeded(1);
        let mut last = r.next_value();
        for _ in 0..100_000 {
            let v = r.next_value();
            assert!(v <= RANDOM_MAX);
            assert_ne!(v, last);
            last = v;
        }
    }

    #[test]
    fn other_seeds_match_bash_5_2() {
        // `RANDOM=S; echo $RANDOM $RANDOM` with GNU bash 5.2.15.
        for (seed, want) in [
            (0, [20814, 24386]),
            (-1, [16807, 10791]),
            (4294967301, [18498, 29338]),
        ] {
            let mut r = BashRandom::seeded(seed);
            assert_eq!([r.next_value(), r.next_value()], want, "RANDOM={seed}");
        }
    }

    #[test]
    fn subshells_draw_from_streams_of_their_own() {
        let r = BashRandom::seeded(5);
        let (mut a, mut b, mut parent) = (r.for_subshell(1), r.for_subshell(2), r);
        let (x, y, z) = (a.next_value(), b.next_value(), parent.next_value());
        assert!(x != y && y != z && x != z, "{x} {y} {z}");
        assert_eq!(r.for_subshell(1), r.for_subshell(1));
    }
}
