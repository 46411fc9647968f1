//! Reproducers: a minimal failure as a fault-plan file plus run folders made by `clawrun run`
//! itself (the perturbed trial and its unperturbed twin), checked to fail again; and the
//! regression check that replays a folder of them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clawrun_report::TrialRecord;
use serde::{Deserialize, Serialize};

use super::observe::{FailureKind, Observation};
use super::search::Confirm;
use clawrun_run::{RunOptions, run};

/// The plan file of a reproducer folder.
pub const PLAN_FILE: &str = "repro.yaml";
/// The metadata file of a reproducer folder.
pub const META_FILE: &str = "finding.json";
/// The perturbed trials' run folder inside a reproducer folder.
pub const RUN_DIR: &str = "run";
/// The unperturbed twin's run folder inside a reproducer folder.
pub const TWIN_DIR: &str = "twin";

/// A reproducer folder's `finding.json`: what failed, how, and how to play it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReproMeta {
    /// The task id.
    pub task_id: String,
    /// The agent that failed.
    pub agent: String,
    /// How it failed.
    pub kind: FailureKind,
    /// The run seed and the plan's fault seed.
    pub seed: u64,
    /// Failing trials needed, of trials played.
    pub confirm: Confirm,
    /// The minimal schedule, one perturbation per line.
    pub schedule: Vec<String>,
    /// The schedule the search found before shrinking.
    pub found: Vec<String>,
    /// How the unperturbed twin ended.
    pub twin: String,
    /// How the perturbed trial ended.
    pub trial: String,
    /// The command that reproduces the failure.
    pub command: String,
}

/// What playing a reproducer showed.
#[derive(Clone, Debug)]
pub struct Reproduction {
    /// The twin's record.
    pub twin: TrialRecord,
    /// The perturbed trials' records, by trial.
    pub trials: Vec<TrialRecord>,
    /// How many of them failed as the reproducer says.
    pub failing: u32,
}

impl Reproduction {
    /// Whether the failure reproduced as often as `confirm` asks.
    pub fn reproduced(&self, confirm: Confirm) -> bool {
        self.failing >= confirm.needed
    }
}

/// The `clawrun run` command line that reproduces a failure of `task_id` under `plan`.
pub fn command(task_id: &str, plan: &Path, seed: u64, agent: &str, trials: u32) -> String {
    format!(
        "clawrun run {task_id} --faults {} --seed {seed} --trials {trials} --agent {agent}",
        plan.display()
    )
}

/// Plays the reproducer `plan_file` of `task_id` with `base`'s suite, agent and grading: the
/// twin (no perturbation) into `dir/twin`, then [`Confirm::of`] trials under the plan into
/// `dir/run`, both by `clawrun run`'s own code. Existing run folders there are replaced.
pub fn reproduce(
    base: &RunOptions,
    task_id: &str,
    plan_file: &Path,
    seed: u64,
    (kind, confirm): (FailureKind, Confirm),
    dir: &Path,
) -> Result<Reproduction> {
    let play = |faults: Option<String>, trials: u32, out: PathBuf| -> Result<Vec<TrialRecord>> {
        if out.exists() {
            std::fs::remove_dir_all(&out)
                .with_context(|| format!("replacing {}", out.display()))?;
        }
        let mut options = base.clone();
        options.tasks = vec![task_id.to_string()];
        options.filter = Default::default();
        options.faults = faults;
        options.seed = seed;
        options.trials = trials;
        options.out = out;
        options.jobs = 1;
        options.shard = None;
        options.resume = false;
        options.progress = clawrun_run::progress::silent();
        options.probe = false;
        let mut records = run(&options)?.records()?;
        records.sort_by_key(|r| r.trial);
        Ok(records)
    };
    let twin = play(None, 1, dir.join(TWIN_DIR))?
        .pop()
        .ok_or_else(|| anyhow!("{task_id}: the twin run recorded no trial"))?;
    let plan = plan_file.display().to_string();
    let trials = play(Some(plan), confirm.of, dir.join(RUN_DIR))?;
    let twin_seen = Observation::from_record(&twin);
    let failing = trials
        .iter()
        .filter(|r| Observation::from_record(r).failure_against(&twin_seen) == Some(kind))
        .count() as u32;
    Ok(Reproduction {
        twin,
        trials,
        failing,
    })
}

/// One reproducer of a regression folder, played again.
#[derive(Clone, Debug)]
pub struct Regression {
    /// The reproducer folder.
    pub dir: PathBuf,
    /// Its metadata.
    pub meta: ReproMeta,
    /// What playing it showed.
    pub reproduction: Reproduction,
}

impl Regression {
    /// Whether the agent still fails as recorded.
    pub fn still_fails(&self) -> bool {
        self.reproduction.reproduced(self.meta.confirm)
    }
}

/// The reproducer folders under `root` (folders holding `finding.json` and `repro.yaml`, at
/// any depth), sorted.
pub fn reproducer_dirs(root: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if dir.join(META_FILE).is_file() && dir.join(PLAN_FILE).is_file() {
            found.push(dir);
            continue;
        }
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        for entry in entries {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Which agent plays a reproducer in [`regress`].
pub enum RegressAgent<'a> {
    /// The base options' agent (`--agent` given: the agent under test now).
    Given,
    /// The agent each reproducer recorded (`finding.json` `agent`), built by this function
    /// (with the command's model settings).
    Recorded(&'a dyn Fn(&str) -> Result<clawrun_run::AgentSpec>),
}

/// Plays every reproducer under `root` with `agent` (on `base`'s other options), writing the
/// run folders under `out` (one folder per reproducer, named as under `root`).
pub fn regress(
    base: &RunOptions,
    agent: RegressAgent<'_>,
    root: &Path,
    out: &Path,
) -> Result<Vec<Regression>> {
    let dirs = reproducer_dirs(root)?;
    if dirs.is_empty() {
        return Err(clawrun_run::preflight::SetupError::Usage(format!(
            "{}: no reproducer folders (folders holding {META_FILE} and {PLAN_FILE}, as \
             `clawrun fuzz` writes under OUT/failures/)",
            root.display()
        ))
        .into());
    }
    let mut results = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let meta_path = dir.join(META_FILE);
        let text = std::fs::read_to_string(&meta_path)
            .with_context(|| format!("reading {}", meta_path.display()))?;
        let meta: ReproMeta = serde_json::from_str(&text).map_err(|e| {
            anyhow!(
                "{}: not a clawrun fuzz finding: {e} (it is written by `clawrun fuzz`; fix or \
                 remove the folder)",
                meta_path.display()
            )
        })?;
        let rel = dir.strip_prefix(root).unwrap_or(&dir);
        let plan = std::path::absolute(dir.join(PLAN_FILE))?;
        let mut options = base.clone();
        if let RegressAgent::Recorded(build) = &agent {
            options.agent = build(&meta.agent).with_context(|| {
                format!(
                    "{}: its agent `{}` (pass --agent to play it with another)",
                    meta_path.display(),
                    meta.agent
                )
            })?;
        }
        let reproduction = reproduce(
            &options,
            &meta.task_id,
            &plan,
            meta.seed,
            (meta.kind, meta.confirm),
            &out.join(rel),
        )?;
        results.push(Regression {
            dir,
            meta,
            reproduction,
        });
    }
    Ok(results)
}

impl Observation {
    /// The observation of a journal record (no call shape, state or census: enough to tell
    /// failures apart).
    pub fn from_record(record: &TrialRecord) -> Self {
        Observation {
            outcome: record.outcome,
            status: record.status,
            verdict: record.verdict.clone(),
            error: record.error.clone(),
            faults: record.verdict.as_ref().map_or(0, |v| v.faults_seen),
            shape: [0; 32],
            state: [0; 32],
            census: Vec::new().into(),
        }
    }
}
