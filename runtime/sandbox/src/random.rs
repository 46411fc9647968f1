//! Seeded randomness: every random byte a guest sees comes from a blake3 extendable output
//! keyed by the run's seed, so the same seed gives the same bytes on every machine.

use std::convert::Infallible;

/// A deterministic random stream: blake3's XOF over a seed and a purpose label.
pub struct SeededRng {
    reader: blake3::OutputReader,
}

impl SeededRng {
    /// The stream for `seed` and `purpose` (different purposes give independent streams).
    pub fn new(seed: u64, purpose: &str) -> Self {
        let mut hasher = blake3::Hasher::new_derive_key("clawrun sandbox random v1");
        hasher.update(&seed.to_le_bytes());
        hasher.update(purpose.as_bytes());
        Self {
            reader: hasher.finalize_xof(),
        }
    }

    /// The 128-bit value a guest gets from `wasi:random/insecure-seed`.
    pub fn insecure_seed(seed: u64) -> u128 {
        let mut bytes = [0u8; 16];
        Self::new(seed, "insecure-seed").reader.fill(&mut bytes);
        u128::from_le_bytes(bytes)
    }
}

impl rand_core::TryRng for SeededRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let mut b = [0u8; 4];
        self.reader.fill(&mut b);
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        let mut b = [0u8; 8];
        self.reader.fill(&mut b);
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.reader.fill(dst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::SeededRng;
    use rand_core::Rng;

    fn first_four(mut rng: SeededRng) -> Vec<u64> {
        (0..4).map(|_| rng.next_u64()).collect()
    }

    #[test]
    fn same_seed_same_stream_and_purposes_differ() {
        let a = first_four(SeededRng::new(7, "x"));
        assert_eq!(a, first_four(SeededRng::new(7, "x")));
        assert_ne!(a, first_four(SeededRng::new(7, "y")));
        assert_ne!(a, first_four(SeededRng::new(8, "x")));
        assert_ne!(SeededRng::insecure_seed(1), SeededRng::insecure_seed(2));
    }
}
