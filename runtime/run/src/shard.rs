//! `--shard i/n`: a deterministic split of a run's (task, trial) pairs, so Kubernetes Indexed
//! Jobs or Slurm arrays can run one shard each and `clawrun report` merges them.

use std::fmt;
use std::path::Path;
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
    /// A Slurm array task id that is not one of the array's.
    #[error(
        "SLURM_ARRAY_TASK_ID={id} is not a task of the array that starts at {min} with step \
         {step} (as the run folder or SLURM_ARRAY_TASK_MIN/STEP say)"
    )]
    SlurmId {
        /// The task id.
        id: u32,
        /// The array's first id.
        min: u32,
        /// Its step.
        step: u32,
    },
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

    /// The shard the environment names (see [`Shard::from_vars`]), for a run into `folder`.
    pub fn from_env(
        count: Option<u32>,
        folder: &FolderShards,
    ) -> Result<Option<(Shard, Option<SlurmArray>)>, ShardError> {
        Shard::from_vars(|k| std::env::var(k).ok(), count, folder)
    }

    /// The shard that the variables `var` gives name: `JOB_COMPLETION_INDEX` (Kubernetes
    /// Indexed Job, out of `count`, `--shards`) or `SLURM_ARRAY_TASK_ID` (a Slurm array).
    ///
    /// A Slurm array's ids need not start at 0 nor be consecutive (`--array=1-4`,
    /// `--array=0-6:2`): the index is `(ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP`,
    /// out of `--shards`, else `SLURM_ARRAY_TASK_COUNT`. A task resubmitted alone
    /// (`sbatch --array=2` after one was cancelled) sees an array of one: so a run folder
    /// that already holds the array's shards (`folder`) decides instead — the array's first id
    /// and step as its manifests recorded them ([`SlurmArray`]), and the shard count its
    /// manifests' names carry. Also returns the array's layout, for this shard's manifest.
    pub fn from_vars(
        var: impl Fn(&str) -> Option<String>,
        count: Option<u32>,
        folder: &FolderShards,
    ) -> Result<Option<(Shard, Option<SlurmArray>)>, ShardError> {
        let var = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        let number = |name: &'static str| -> Result<Option<u32>, ShardError> {
            var(name)
                .map(|v| {
                    v.trim()
                        .parse()
                        .map_err(|_| ShardError::EnvIndex { name, value: v })
                })
                .transpose()
        };
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let count = count.or(folder.count).ok_or(ShardError::NoCount {
                name: "JOB_COMPLETION_INDEX",
            })?;
            return Shard::new(index, count).map(|s| Some((s, None)));
        }
        let Some(id) = number("SLURM_ARRAY_TASK_ID")? else {
            return Ok(None);
        };
        let (min, step) = match folder.slurm {
            Some(recorded) => (recorded.min, recorded.step),
            None => (
                number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0),
                number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1),
            ),
        };
        if id < min || (id - min) % step != 0 {
            return Err(ShardError::SlurmId { id, min, step });
        }
        let count = match (count, folder.count) {
            (Some(c), _) | (None, Some(c)) => c,
            (None, None) => number("SLURM_ARRAY_TASK_COUNT")?.ok_or(ShardError::NoCount {
                name: "SLURM_ARRAY_TASK_ID",
            })?,
        };
        let shard = Shard::new((id - min) / step, count)?;
        Ok(Some((shard, Some(SlurmArray { min, step }))))
    }

    /// The shard whose manifest file is named `name` (`run.shard-I-of-N.json`, as
    /// [`super::manifest::manifest_name`] names it); `None` for any other file. The one parser
    /// of those names is the run-folder reader's (`clawrun_report::run_folder`).
    pub fn of_manifest(name: &str) -> Option<Shard> {
        let (i, n) = clawrun_report::run_folder::shard_of_manifest(name)?;
        Shard::new(i, n).ok()
    }

    /// Shard `index` of `count`, checked.
    pub fn new(index: u32, count: u32) -> Result<Shard, ShardError> {
        if count == 0 || index >= count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }
}

/// A Slurm array's layout, as the first shard to start records it in its manifest
/// (`slurm_array`): its first task id and its step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SlurmArray {
    /// `SLURM_ARRAY_TASK_MIN`.
    pub min: u32,
    /// `SLURM_ARRAY_TASK_STEP`.
    pub step: u32,
}

/// What a run folder already says of its shards.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FolderShards {
    /// The shard count its shard manifests' names carry (`run.shard-I-of-N.json`).
    pub count: Option<u32>,
    /// The Slurm array layout one of them recorded.
    pub slurm: Option<SlurmArray>,
}

impl FolderShards {
    /// Reads the shard manifests of run folder `out` (nothing when it holds none).
    pub fn read(out: &Path) -> FolderShards {
        let mut found = FolderShards::default();
        let Ok(entries) = std::fs::read_dir(out) else {
            return found;
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        names.sort();
        for name in names {
            let Some(shard) = Shard::of_manifest(&name) else {
                continue;
            };
            found.count.get_or_insert(shard.count);
            if found.slurm.is_none() {
                found.slurm = std::fs::read(out.join(&name))
                    .ok()
                    .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                    .and_then(|v| serde_json::from_value(v.get("slurm_array")?.clone()).ok());
            }
        }
        found
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

    /// The variables `pairs` as `from_vars` reads them.
    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn slurm_arrays_that_do_not_start_at_zero_or_step_map_onto_shards() {
        let none = FolderShards::default();
        let shard = |pairs: &[(&str, &str)]| {
            Shard::from_vars(vars(pairs), None, &none).map(|s| s.map(|(s, _)| s.to_string()))
        };
        // --array=1-4: ids 1..4 are shards 0..3.
        for (id, want) in [("1", "0/4"), ("4", "3/4")] {
            let got = shard(&[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", "1"),
                ("SLURM_ARRAY_TASK_COUNT", "4"),
            ]);
            assert_eq!(got.unwrap().as_deref(), Some(want));
        }
        // --array=0-6:2: ids 0, 2, 4, 6.
        let got = shard(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(got.unwrap().as_deref(), Some("2/4"));
        let odd = shard(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(matches!(odd, Err(ShardError::SlurmId { id: 3, .. })));
        // Kubernetes indexes are the shard's.
        let k8s = Shard::from_vars(vars(&[("JOB_COMPLETION_INDEX", "2")]), Some(3), &none);
        assert_eq!(k8s.unwrap().unwrap().0.to_string(), "2/3");
    }

    #[test]
    fn a_slurm_task_resubmitted_alone_takes_its_place_from_the_run_folder() {
        // `sbatch --array=3` after task 3 of `--array=1-4` was cancelled: an array of one.
        let alone = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "3"),
            ("SLURM_ARRAY_TASK_MAX", "3"),
            ("SLURM_ARRAY_TASK_COUNT", "1"),
        ];
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("run.shard-0-of-4.json"),
            r#"{"shard": "0/4", "slurm_array": {"min": 1, "step": 1}}"#,
        )
        .unwrap();
        let folder = FolderShards::read(dir.path());
        assert_eq!(folder.count, Some(4));
        let (shard, slurm) = Shard::from_vars(vars(&alone), None, &folder)
            .unwrap()
            .unwrap();
        assert_eq!(shard, Shard { index: 2, count: 4 });
        assert_eq!(slurm, Some(SlurmArray { min: 1, step: 1 }));
        // Without a folder that knows the array, the variables describe an array of one.
        let fresh = Shard::from_vars(vars(&alone), None, &FolderShards::default());
        assert_eq!(fresh.unwrap().unwrap().0, Shard { index: 0, count: 1 });
    }
}
