//! The seeded draws behind every decision: pure functions of (seed, rule index, point, call).
//!
//! From the plan's seed a 32-byte key is derived once (`blake3::derive_key`). A point's
//! digest is the keyed BLAKE3 hash of its text (computed once per point and cached by the
//! injector). Calls `4k+1 ..= 4k+4` of a point share output block `k` of a rule: one keyed
//! BLAKE3 compression of `digest || rule index (u32 LE) || k (u64 LE) || zeros` (the root of a
//! two-leaf tree, `blake3::hazmat::merge_subtrees_root_xof`), 64 bytes out, 16 per call: `fire`
//! (8 bytes, compared with the rule's probability), `pick` (4 bytes, chooses the kind by
//! weight) and `param` (4 bytes, a latency's duration). So a draw is a pure function of (seed,
//! rule index, point, call); the injector merely caches the last block per (point, rule). No
//! RNG state anywhere.

use blake3::hazmat::{Mode, merge_subtrees_root_xof};

/// Context string of the decision key derivation.
const KEY_CONTEXT: &str = "clawrun 2026-05 faults: decision key v1";
/// Context string of per-trial seed derivation.
const TRIAL_CONTEXT: &str = "clawrun 2026-05 faults: trial seed v1";

/// The key every decision of one plan is hashed under, derived from the plan's seed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct DecisionKey([u8; 32]);

impl std::fmt::Debug for DecisionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DecisionKey({:02x}{:02x}..)", self.0[0], self.0[1])
    }
}

/// A point's 32-byte digest under a plan's key (computed once per point, then cached).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointDigest([u8; 32]);

/// The three uniform u64s of one decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Draw {
    /// Compared with the rule's firing threshold.
    pub fire: u64,
    /// Chooses among the rule's kinds by weight.
    pub pick: u64,
    /// Parameter of the chosen kind (a latency's duration).
    pub param: u64,
}

impl DecisionKey {
    /// The key of plans seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        Self(blake3::derive_key(KEY_CONTEXT, &seed.to_le_bytes()))
    }

    /// The digest of `point`.
    pub fn point_digest(&self, point: &str) -> PointDigest {
        PointDigest(*blake3::keyed_hash(&self.0, point.as_bytes()).as_bytes())
    }

    /// The output block `index` of rule `rule` at the point with `digest`: one keyed BLAKE3
    /// compression of `digest || rule (u32 LE) || index (u64 LE) || zeros`, 64 bytes out.
    pub fn block(&self, digest: &PointDigest, rule: usize, index: u64) -> DrawBlock {
        let mut tail = [0u8; 32];
        tail[..4].copy_from_slice(&(rule as u32).to_le_bytes());
        tail[4..12].copy_from_slice(&index.to_le_bytes());
        // The root of a two-leaf tree is exactly one compression (flags PARENT | ROOT, keyed
        // mode): a third cheaper than `keyed_hash` on the same bytes.
        let mut out = [0u8; 64];
        merge_subtrees_root_xof(&digest.0, &tail, Mode::KeyedHash(&self.0)).fill(&mut out);
        DrawBlock(out)
    }

    /// The draw of rule `rule` at the `call`-th call (1-based) of the point with `digest`.
    pub fn draw(&self, digest: &PointDigest, rule: usize, call: u64) -> Draw {
        let (index, slot) = block_of(call);
        self.block(digest, rule, index).draw(slot)
    }
}

/// Draws per output block: calls `4k+1 ..= 4k+4` of a point share block `k`.
pub const DRAWS_PER_BLOCK: u64 = 4;

/// The block index and the slot in it of call number `call` (1-based).
pub fn block_of(call: u64) -> (u64, usize) {
    let i = call.saturating_sub(1);
    (i / DRAWS_PER_BLOCK, (i % DRAWS_PER_BLOCK) as usize)
}

/// 64 bytes of BLAKE3 output: the draws of [`DRAWS_PER_BLOCK`] consecutive calls, 16 bytes
/// each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawBlock([u8; 64]);

impl DrawBlock {
    /// The draw in `slot` (0..4): `fire` from 8 bytes, `pick` and `param` from 4 bytes each
    /// (in the high half of their u64).
    pub fn draw(&self, slot: usize) -> Draw {
        let b = &self.0[slot * 16..slot * 16 + 16];
        let u32_at = |i: usize| u64::from(u32::from_le_bytes(b[i..i + 4].try_into().expect("4")));
        Draw {
            fire: u64::from_le_bytes(b[..8].try_into().expect("8 bytes")),
            pick: u32_at(8) << 32,
            param: u32_at(12) << 32,
        }
    }
}

/// The last block computed for one (point, rule), so consecutive calls hash once per block.
/// A cache only: draws equal [`DecisionKey::draw`]'s.
#[derive(Clone, Debug, Default)]
pub struct BlockCache {
    /// Index of the cached block plus one (0: empty).
    next: u64,
    block: Option<DrawBlock>,
}

impl BlockCache {
    /// The draw of `rule` at call `call` of the point with `digest`, hashing only when the
    /// call's block is not the cached one.
    pub fn draw(
        &mut self,
        key: &DecisionKey,
        digest: &PointDigest,
        rule: usize,
        call: u64,
    ) -> Draw {
        let (index, slot) = block_of(call);
        match self.block {
            Some(block) if self.next == index + 1 => block.draw(slot),
            _ => {
                let block = key.block(digest, rule, index);
                self.next = index + 1;
                self.block = Some(block);
                block.draw(slot)
            }
        }
    }
}

/// The firing threshold of probability `p`: a draw fires iff `fire < threshold`, except that
/// `p >= 1` always fires (see [`fires`]). Equivalent to Python's `random() < p` with
/// `random() = fire / 2^64`.
pub fn threshold(p: f64) -> u64 {
    if p.is_nan() || p <= 0.0 {
        0
    } else if p >= 1.0 {
        u64::MAX
    } else {
        // Exact for every p with at most 53 significant bits: p * 2^64 < 2^64.
        (p * 18_446_744_073_709_551_616.0) as u64
    }
}

/// Whether `fire` fires under probability `p` (via its [`threshold`]).
pub fn fires(fire: u64, p: f64) -> bool {
    p >= 1.0 || fire < threshold(p)
}

/// Cumulative thresholds for choosing by `weights` (all finite and > 0): index `i` is chosen
/// iff `pick < cum[i]` and not for any earlier index. The last threshold is `u64::MAX` and
/// `pick == u64::MAX` also chooses the last index.
pub fn cumulative(weights: &[f64]) -> Vec<u64> {
    let total: f64 = weights.iter().sum();
    let mut acc = 0.0;
    let mut cum: Vec<u64> = weights
        .iter()
        .map(|w| {
            acc += w;
            threshold(acc / total)
        })
        .collect();
    if let Some(last) = cum.last_mut() {
        *last = u64::MAX;
    }
    cum
}

/// The index chosen by `pick` among cumulative thresholds `cum` (see [`cumulative`]).
pub fn choose(cum: &[u64], pick: u64) -> usize {
    cum.iter()
        .position(|&t| pick < t)
        .unwrap_or(cum.len().saturating_sub(1))
}

/// A per-trial seed from a base seed (the plan's or the run's), the task id and the trial
/// index, so trials of one run see different but replayable faults.
pub fn trial_seed(base: u64, task_id: &str, trial: u32) -> u64 {
    let mut material = Vec::with_capacity(20 + task_id.len());
    material.extend_from_slice(&base.to_le_bytes());
    material.extend_from_slice(&(task_id.len() as u64).to_le_bytes());
    material.extend_from_slice(task_id.as_bytes());
    material.extend_from_slice(&trial.to_le_bytes());
    let key = blake3::derive_key(TRIAL_CONTEXT, &material);
    u64::from_le_bytes(key[..8].try_into().expect("8 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_pure_and_distinct() {
        let key = DecisionKey::new(7);
        let d = key.point_digest("service:gmail/send");
        assert_eq!(key.draw(&d, 0, 1), DecisionKey::new(7).draw(&d, 0, 1));
        assert_ne!(key.draw(&d, 0, 1), key.draw(&d, 0, 2));
        assert_ne!(key.draw(&d, 0, 1), key.draw(&d, 1, 1));
        let other = DecisionKey::new(8);
        assert_ne!(
            key.draw(&d, 0, 1),
            other.draw(&other.point_digest("service:gmail/send"), 0, 1)
        );
    }

    #[test]
    fn cached_draws_equal_direct_draws() {
        let key = DecisionKey::new(3);
        let d = key.point_digest("tool:Bash");
        let mut cache = BlockCache::default();
        let mut seen = std::collections::BTreeSet::new();
        for call in [1, 2, 3, 4, 5, 9, 8, 7, 100, 1] {
            let draw = cache.draw(&key, &d, 2, call);
            assert_eq!(draw, key.draw(&d, 2, call), "call {call}");
            seen.insert(draw.fire);
        }
        assert_eq!(seen.len(), 9, "distinct calls, distinct draws");
        assert_eq!(block_of(1), (0, 0));
        assert_eq!(block_of(4), (0, 3));
        assert_eq!(block_of(5), (1, 0));
    }

    #[test]
    fn thresholds() {
        assert_eq!(threshold(0.0), 0);
        assert_eq!(threshold(-1.0), 0);
        assert_eq!(threshold(f64::NAN), 0);
        assert_eq!(threshold(0.5), 1 << 63);
        assert!(fires(u64::MAX, 1.0));
        assert!(!fires(0, 0.0));
        assert!(fires(0, 1e-9));
    }

    #[test]
    fn weighted_choice() {
        let cum = cumulative(&[0.35, 0.35, 0.30]);
        assert_eq!(cum[2], u64::MAX);
        assert_eq!(choose(&cum, 0), 0);
        assert_eq!(choose(&cum, threshold(0.35)), 1);
        assert_eq!(choose(&cum, threshold(0.70)), 2);
        assert_eq!(choose(&cum, u64::MAX), 2);
        assert_eq!(choose(&cumulative(&[3.0]), 12345), 0);
    }

    #[test]
    fn trial_seeds_differ_by_each_input() {
        let s = trial_seed(1, "T001", 0);
        assert_eq!(s, trial_seed(1, "T001", 0));
        assert_ne!(s, trial_seed(2, "T001", 0));
        assert_ne!(s, trial_seed(1, "T002", 0));
        assert_ne!(s, trial_seed(1, "T001", 1));
    }
}
