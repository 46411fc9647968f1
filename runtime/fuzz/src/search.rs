//! The coverage-guided search over one task: play the unperturbed twin, then generations of
//! mutated schedules; a schedule whose trial shows a new behaviour (a new shape of tool calls
//! or a new judge-visible state) joins the corpus and is mutated further, one whose trial fails
//! where the twin did not is a finding, confirmed and shrunk ([`super::shrink`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use clawrun_report::stats::bootstrap::SplitMix64;

use super::mutate::{Census, mutate};
use super::observe::{FailureKind, Observation};
use super::pool::{Job, Pool};
use super::schedule::Schedule;
use clawrun_trial::TaskEnv;

/// Schedules per generation: fixed, so that a search with a trial budget takes the same
/// course whatever the number of workers.
pub const GENERATION: usize = 32;

/// Schedules kept for mutation, at most (about 1 KB each).
pub const MAX_CORPUS: usize = 8_192;

/// How many trials of a schedule must fail for it to count as failing: `needed` of `of`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Confirm {
    /// Failing trials needed.
    pub needed: u32,
    /// Trials played.
    pub of: u32,
}

impl Confirm {
    /// One trial decides (a deterministic agent).
    pub const ONCE: Confirm = Confirm { needed: 1, of: 1 };

    /// Parses `M/N` (1 <= M <= N).
    pub fn parse(text: &str) -> Result<Confirm, String> {
        let (m, n) = text
            .split_once('/')
            .ok_or_else(|| format!("{text:?}: expected M/N, e.g. 2/3"))?;
        let parse = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("{text:?}: {s:?} is not a count"))
        };
        let (needed, of) = (parse(m)?, parse(n)?);
        if needed == 0 || needed > of {
            return Err(format!("{text:?}: need 1 <= M <= N"));
        }
        Ok(Confirm { needed, of })
    }
}

/// What a search may spend and how it judges.
#[derive(Clone, Debug)]
pub struct SearchConfig {
    /// Trials per task for the search (the twin included), unless `time` ends it first.
    pub budget: Option<u64>,
    /// Wall time per task for the search.
    pub time: Option<Duration>,
    /// The search's seed: the generator's, and the trials' run seed.
    pub seed: u64,
    /// Whether filesystem calls are perturbed too.
    pub fs: bool,
    /// Distinct failures shrunk per task (more are counted, not shrunk).
    pub max_failures: usize,
    /// How failures are confirmed before and after shrinking.
    pub confirm: Confirm,
    /// Trials one shrink may spend.
    pub shrink_budget: u64,
    /// End the search after the generation in which this many distinct failures were found.
    pub stop_after: Option<usize>,
}

/// A failure the search found, shrunk.
#[derive(Clone, Debug)]
pub struct Finding {
    /// How the trial failed.
    pub kind: FailureKind,
    /// The schedule the search found.
    pub found: Schedule,
    /// The minimal schedule that still fails this way.
    pub minimal: Schedule,
    /// The minimal schedule's trial.
    pub observation: Observation,
    /// The search trial (1-based, the twin being 1) that found it.
    pub found_at_trial: u64,
    /// Seconds into the search when it was found.
    pub found_secs: f64,
    /// Trials spent confirming and shrinking it.
    pub shrink_trials: u64,
    /// Seconds spent confirming and shrinking it.
    pub shrink_secs: f64,
    /// Failing trials of the found schedule (of [`Confirm::of`]).
    pub confirmed_before: u32,
    /// Failing trials of the minimal schedule (of [`Confirm::of`]).
    pub confirmed_after: u32,
    /// Other failures of the search that shrank to the same minimal schedule.
    pub duplicates: u32,
}

/// A task's search.
#[derive(Clone, Debug)]
pub struct TaskSearch {
    /// The task.
    pub task_id: String,
    /// The unperturbed twin.
    pub twin: Observation,
    /// Search trials played (the twin included).
    pub trials: u64,
    /// Seconds the search took (shrinking excluded).
    pub search_secs: f64,
    /// Distinct behaviours seen (coverage keys).
    pub behaviours: usize,
    /// Schedules kept for mutation (at most [`MAX_CORPUS`]).
    pub corpus: usize,
    /// Failing search trials, all kinds.
    pub failing_trials: u64,
    /// Failures shrunk (distinct minimal schedules), in the order found.
    pub findings: Vec<Finding>,
    /// Failures found but not shrunk (past `max_failures`, or after Ctrl-C).
    pub unshrunk: usize,
    /// Failures found whose schedule did not fail again when confirmed (non-deterministic
    /// agents).
    pub unconfirmed: usize,
    /// Why the search ended before its budget, when nothing was left to try.
    pub note: Option<String>,
}

/// A schedule kept for mutation, with the points its trial called.
struct Entry {
    schedule: Schedule,
    census: Census,
}

/// Searches task number `index` of `tasks` on `pool`.
pub fn search_task(
    pool: &Pool,
    tasks: &[TaskEnv],
    index: usize,
    config: &SearchConfig,
) -> Result<TaskSearch> {
    let task = &tasks[index];
    let started = Instant::now();
    let probe = Probe {
        pool,
        tasks,
        index,
        config,
    };
    let twin = probe.twin()?;
    let mut corpus = vec![Entry {
        schedule: Schedule::default(),
        census: Census::new(twin.census.iter(), config.fs),
    }];
    let mut seen: BTreeSet<u64> = BTreeSet::from([twin.coverage_key()]);
    // The first failing schedule of each (kind, call shape), in the order found.
    let mut failures: Vec<(FailureKind, Schedule, u64, f64)> = Vec::new();
    let mut failure_keys: BTreeSet<(FailureKind, [u8; 32])> = BTreeSet::new();
    let mut failing_trials = 0u64;
    let mut trials = 1u64;
    let budget = config.budget.unwrap_or(u64::MAX);
    let deadline = config.time.map(|t| started + t);
    let key = task_key(config.seed, task.id());
    let mut note = None;
    for generation in 0u64.. {
        if trials >= budget
            || deadline.is_some_and(|d| Instant::now() >= d)
            || config.stop_after.is_some_and(|n| failures.len() >= n)
        {
            break;
        }
        if clawrun_run::runner::interrupted() {
            note = Some("interrupted by Ctrl-C".to_string());
            break;
        }
        let room = usize::try_from(budget - trials).unwrap_or(usize::MAX);
        let mut schedules = Vec::with_capacity(GENERATION.min(room));
        for slot in 0..GENERATION.min(room) as u64 {
            // One stream per (generation, slot): GENERATION < 256.
            let stream = (generation << 8 | slot).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let mut rng = SplitMix64::new(key.wrapping_add(stream));
            let parent = &corpus[rng.below(corpus.len())];
            if let Some(child) = mutate(&parent.schedule, &parent.census, &mut rng) {
                schedules.push(child);
            }
        }
        if schedules.is_empty() {
            note = Some(format!(
                "nothing to perturb: the unperturbed trial made no tool, service or web call{}",
                if config.fs {
                    " and no filesystem call"
                } else {
                    " (--fs also perturbs filesystem calls)"
                }
            ));
            break;
        }
        let played = probe.play_all(&schedules, 0)?;
        for (schedule, observation) in schedules.into_iter().zip(played) {
            trials += 1;
            if let Some(kind) = observation.failure_against(&twin) {
                failing_trials += 1;
                if failure_keys.insert((kind, observation.shape)) {
                    let secs = started.elapsed().as_secs_f64();
                    failures.push((kind, schedule, trials, secs));
                }
            } else if !observation.is_infra() && seen.insert(observation.coverage_key()) {
                let entry = Entry {
                    census: Census::new(observation.census.iter(), config.fs),
                    schedule,
                };
                if corpus.len() < MAX_CORPUS {
                    corpus.push(entry);
                } else {
                    // Full: a new behaviour replaces an entry drawn from the seeded stream
                    // (never the twin), so memory stays bounded on long searches.
                    let mut rng = SplitMix64::new(key ^ trials);
                    corpus[1 + rng.below(MAX_CORPUS - 1)] = entry;
                }
            }
        }
    }
    let search_secs = started.elapsed().as_secs_f64();

    let mut findings: Vec<Finding> = Vec::new();
    let mut unconfirmed = 0;
    let mut unshrunk = failures.len().saturating_sub(config.max_failures);
    let to_shrink = failures.len().min(config.max_failures);
    for (i, (kind, found, found_at_trial, found_secs)) in
        failures.into_iter().take(config.max_failures).enumerate()
    {
        if clawrun_run::runner::interrupted() {
            unshrunk += to_shrink - i;
            break;
        }
        let Some(finding) =
            super::shrink::shrink(&probe, &twin, kind, found, found_at_trial, found_secs)?
        else {
            unconfirmed += 1;
            continue;
        };
        match findings
            .iter_mut()
            .find(|f| f.kind == finding.kind && f.minimal == finding.minimal)
        {
            Some(earlier) => earlier.duplicates += 1,
            None => findings.push(finding),
        }
    }
    Ok(TaskSearch {
        task_id: task.id().to_string(),
        twin,
        trials,
        search_secs,
        behaviours: seen.len(),
        corpus: corpus.len(),
        failing_trials,
        findings,
        unshrunk,
        unconfirmed,
        note,
    })
}

/// The generator key of `task_id`'s search under `seed`.
fn task_key(seed: u64, task_id: &str) -> u64 {
    let mut h = blake3::Hasher::new_derive_key("clawrun 2026-11 fuzz search");
    h.update(&seed.to_le_bytes());
    h.update(task_id.as_bytes());
    u64::from_le_bytes(h.finalize().as_bytes()[..8].try_into().expect("8 bytes"))
}

/// Plays schedules of one task on the pool.
pub(crate) struct Probe<'a> {
    pub pool: &'a Pool,
    pub tasks: &'a [TaskEnv],
    pub index: usize,
    pub config: &'a SearchConfig,
}

impl Probe<'_> {
    /// The task.
    pub fn task(&self) -> &TaskEnv {
        &self.tasks[self.index]
    }

    /// The unperturbed twin (trial 0); an error if the model behind the agent failed.
    pub fn twin(&self) -> Result<Observation> {
        let twin = self
            .play_all(&[Schedule::default()], 0)?
            .pop()
            .expect("one trial");
        if twin.is_infra() {
            bail!(
                "{}: the unperturbed trial ended on an infrastructure error ({}); fix the model \
                 endpoint and fuzz again",
                self.task().id(),
                twin.error.as_deref().unwrap_or("no detail")
            );
        }
        Ok(twin)
    }

    /// Plays each of `schedules` as trial `trial`, in order.
    pub fn play_all(&self, schedules: &[Schedule], trial: u32) -> Result<Vec<Observation>> {
        let mut jobs = Vec::with_capacity(schedules.len());
        for s in schedules {
            jobs.push(Job {
                task: self.index,
                plan: Arc::new(s.plan(&self.task().plan)?),
                trial,
            });
        }
        self.pool.map(jobs)
    }

    /// For each of `schedules`, how many of its [`Confirm::of`] trials (trials 0, 1, ...)
    /// fail as `kind` against `twin`.
    pub fn failing_counts(
        &self,
        schedules: &[Schedule],
        twin: &Observation,
        kind: FailureKind,
    ) -> Result<Vec<u32>> {
        let of = self.config.confirm.of;
        let mut jobs = Vec::with_capacity(schedules.len() * of as usize);
        for s in schedules {
            let plan = Arc::new(s.plan(&self.task().plan)?);
            for trial in 0..of {
                jobs.push(Job {
                    task: self.index,
                    plan: Arc::clone(&plan),
                    trial,
                });
            }
        }
        let played = self.pool.map(jobs)?;
        Ok(played
            .chunks(of as usize)
            .map(|trials| {
                trials
                    .iter()
                    .filter(|o| o.failure_against(twin) == Some(kind))
                    .count() as u32
            })
            .collect())
    }
}

/// Failures of a search by kind, for summaries.
pub fn by_kind(findings: &[Finding]) -> BTreeMap<FailureKind, usize> {
    let mut counts = BTreeMap::new();
    for f in findings {
        *counts.entry(f.kind).or_insert(0) += 1;
    }
    counts
}
