//! `--shard i/n`: a deterministic split of a run's (task, trial) pairs, so Kubernetes Indexed
//! Jobs or Slurm arrays can run one shard each and `clawrun report` merges them.

use std::fmt;
use std::str::FromStr;

/// One shard of `count`, numbered from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u32,
    /// How many shards there are.
    pub count: u32,
}

/// Why a shard could not be chosen (from `--shard` or the environment).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// The index is not below the count.
    #[error(
        "shard {index}/{count}: the index must be below the count (shards are numbered from 0)"
    )]
    OutOfRange {
        /// The shard index.
        index: u32,
        /// The number of shards.
        count: u32,
    },
    /// The environment's shard index is not a number.
    #[error("{name}={value:?} is not a shard index")]
    EnvIndex {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// The environment names an index but nothing says how many shards there are.
    #[error("{name} is set: pass --shards N to say how many shards there are")]
    NoCount {
        /// The variable naming the index.
        name: &'static str,
    },
    /// `--shard` is not `I/N`.
    #[error("--shard {0:?}: expected I/N, e.g. 0/4")]
    Syntax(String),
    /// `--shard` is `I/N` but not with whole numbers.
    #[error("--shard {0:?}: expected I/N with whole numbers, e.g. 0/4")]
    NotNumbers(String),
}

impl Shard {
    /// Whether the `position`-th (task, trial) pair of the run (tasks sorted by id, trials in
    /// order) belongs to this shard: round-robin, so shards stay balanced.
    pub fn owns(&self, position: usize) -> bool {
        position % self.count as usize == self.index as usize
    }

    /// The shard the environment names: `JOB_COMPLETION_INDEX` (Kubernetes Indexed Job) or
    /// `SLURM_ARRAY_TASK_ID` (Slurm array), out of `count` (`--shards`, else
    /// `SLURM_ARRAY_TASK_COUNT`).
    pub fn from_env(count: Option<u32>) -> Result<Option<Shard>, ShardError> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let (name, index) = match (var("JOB_COMPLETION_INDEX"), var("SLURM_ARRAY_TASK_ID")) {
            (Some(i), _) => ("JOB_COMPLETION_INDEX", i),
            (None, Some(i)) => ("SLURM_ARRAY_TASK_ID", i),
            (None, None) => return Ok(None),
        };
        let index: u32 = index
            .trim()
            .parse()
            .map_err(|_| ShardError::EnvIndex { name, value: index })?;
        let count = match count {
            Some(c) => c,
            None => var("SLURM_ARRAY_TASK_COUNT")
                .and_then(|c| c.trim().parse().ok())
                .ok_or(ShardError::NoCount { name })?,
        };
        Shard::new(index, count).map(Some)
    }

    /// Shard `index` of `count`, checked.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if count == 0 || index >= count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| ShardError::Syntax(s.to_string()))?;
        let parse = |x: &str| {
            x.trim()
                .parse::<u32>()
                .map_err(|_| ShardError::NotNumbers(s.to_string()))
        };
        Shard::new(parse(i)?, parse(n)?)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_pairs() {
        let shards: Vec<Shard> = (0..3).map(|i| Shard::new(i, 3).unwrap()).collect();
        for pos in 0..100 {
            assert_eq!(shards.iter().filter(|s| s.owns(pos)).count(), 1);
        }
    }

    #[test]
    fn parses_and_rejects() {
        assert_eq!(
            "1/4".parse::<Shard>().unwrap(),
            Shard { index: 1, count: 4 }
        );
        assert!(
            "4/4"
                .parse::<Shard>()
                .unwrap_err()
                .to_string()
                .contains("below the count")
        );
        assert!(
            "x".parse::<Shard>()
                .unwrap_err()
                .to_string()
                .contains("I/N")
        );
        assert!("1/0".parse::<Shard>().is_err());
    }
}
