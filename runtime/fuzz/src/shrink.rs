//! Shrinking a failure: confirm it, then delta debugging (Zeller's ddmin) over its
//! perturbations, then each remaining perturbation moved to the earliest call of its point
//! that still fails, then its kind made the plainest that still fails (a 500, EIO); confirmed
//! again at the end. Each step's candidates are played as one
//! batch and the first that fails (in a fixed order) is taken, so shrinking is deterministic.

use std::time::Instant;

use anyhow::Result;

use super::observe::{FailureKind, Observation};
use super::schedule::{Perturbation, Schedule};
use super::search::{Finding, Probe};
use clawrun_faults::{Category, FaultKind};

/// Tries per perturbation when moving it to an earlier call.
const EARLIER_CALLS: u64 = 16;

/// Confirms and shrinks the failure `kind` of `found` (found by search trial
/// `found_at_trial`, `found_secs` into the search); `None` if it does not fail again as
/// often as the configuration asks.
pub(crate) fn shrink(
    probe: &Probe<'_>,
    twin: &Observation,
    kind: FailureKind,
    found: Schedule,
    found_at_trial: u64,
    found_secs: f64,
) -> Result<Option<Finding>> {
    let started = Instant::now();
    let confirm = probe.config.confirm;
    let mut shrinker = Shrinker {
        probe,
        twin,
        kind,
        trials: 0,
        budget: probe.config.shrink_budget,
    };
    let confirmed_before = shrinker.counts(std::slice::from_ref(&found))?[0];
    if confirmed_before < confirm.needed {
        return Ok(None);
    }
    let mut minimal = shrinker.ddmin(found.clone())?;
    minimal = shrinker.earlier_calls(minimal)?;
    minimal = shrinker.plain_kinds(minimal)?;
    let confirmed_after = shrinker.counts(std::slice::from_ref(&minimal))?[0];
    let (minimal, confirmed_after) = if confirmed_after >= confirm.needed {
        (minimal, confirmed_after)
    } else {
        // A flaky agent may pass the minimal schedule's confirmation: keep what was found.
        (found.clone(), confirmed_before)
    };
    let observation = probe
        .play_all(std::slice::from_ref(&minimal), 0)?
        .pop()
        .expect("one trial");
    shrinker.trials += 1;
    Ok(Some(Finding {
        kind,
        found,
        minimal,
        observation,
        found_at_trial,
        found_secs,
        shrink_trials: shrinker.trials,
        shrink_secs: started.elapsed().as_secs_f64(),
        confirmed_before,
        confirmed_after,
        duplicates: 0,
    }))
}

/// The state of one shrink.
struct Shrinker<'a> {
    probe: &'a Probe<'a>,
    twin: &'a Observation,
    kind: FailureKind,
    trials: u64,
    budget: u64,
}

impl Shrinker<'_> {
    /// Failing trials of each candidate.
    fn counts(&mut self, candidates: &[Schedule]) -> Result<Vec<u32>> {
        self.trials += candidates.len() as u64 * u64::from(self.probe.config.confirm.of);
        self.probe.failing_counts(candidates, self.twin, self.kind)
    }

    /// The first of `candidates` that still fails, if any (none once the budget is spent).
    fn first_failing(&mut self, candidates: &[Schedule]) -> Result<Option<usize>> {
        if candidates.is_empty() || self.trials >= self.budget {
            return Ok(None);
        }
        let needed = self.probe.config.confirm.needed;
        Ok(self.counts(candidates)?.iter().position(|&n| n >= needed))
    }

    /// ddmin: the schedule cut into `n` parts; a part that fails alone replaces it (n back to
    /// 2), else a complement that fails does (n - 1), else the parts get finer, until single
    /// perturbations.
    fn ddmin(&mut self, schedule: Schedule) -> Result<Schedule> {
        let mut items: Vec<Perturbation> = schedule.perturbations().to_vec();
        let mut n = 2usize;
        while items.len() >= 2 {
            let parts = split(&items, n);
            let mut candidates: Vec<Schedule> =
                parts.iter().map(|p| Schedule::new(p.clone())).collect();
            if n > 2 {
                for i in 0..parts.len() {
                    let complement = parts
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != i)
                        .flat_map(|(_, p)| p.iter().cloned());
                    candidates.push(Schedule::new(complement));
                }
            }
            match self.first_failing(&candidates)? {
                Some(i) => {
                    items = candidates[i].perturbations().to_vec();
                    n = if i < parts.len() { 2 } else { (n - 1).max(2) };
                }
                None if n >= items.len() || self.trials >= self.budget => break,
                None => n = (2 * n).min(items.len()),
            }
        }
        Ok(Schedule::new(items))
    }

    /// Each perturbation, in turn, moved to the earliest call of its point (among the
    /// [`EARLIER_CALLS`] before it, free of other perturbations) at which the schedule still
    /// fails.
    fn earlier_calls(&mut self, schedule: Schedule) -> Result<Schedule> {
        let mut current = schedule.clone();
        for p in schedule.perturbations() {
            let Some(i) = current.perturbations().iter().position(|q| q == p) else {
                continue;
            };
            let lowest = p.call.saturating_sub(EARLIER_CALLS).max(1);
            let candidates: Vec<Schedule> = (lowest..p.call)
                .filter(|&call| current.at(&p.point, call).is_none())
                .map(|call| {
                    let mut moved = current.perturbations().to_vec();
                    moved[i].call = call;
                    Schedule::new(moved)
                })
                .collect();
            if let Some(j) = self.first_failing(&candidates)? {
                current = candidates[j].clone();
            }
        }
        Ok(current)
    }

    /// The kinds made plain ([`plain_kind`]) where the schedule still fails with them: all at
    /// once if it does, else one perturbation at a time. Failures that differ only in the
    /// error each call met then shrink to the same schedule.
    fn plain_kinds(&mut self, schedule: Schedule) -> Result<Schedule> {
        let plain = |s: &Schedule, only: Option<usize>| {
            let mut ps = s.perturbations().to_vec();
            for (i, p) in ps.iter_mut().enumerate() {
                if only.is_none_or(|j| j == i) {
                    p.kind = plain_kind(&p.point);
                }
            }
            Schedule::new(ps)
        };
        let all = plain(&schedule, None);
        if all == schedule {
            return Ok(schedule);
        }
        if self.first_failing(std::slice::from_ref(&all))?.is_some() {
            return Ok(all);
        }
        let mut current = schedule;
        for i in 0..current.len() {
            let candidate = plain(&current, Some(i));
            if candidate != current
                && self
                    .first_failing(std::slice::from_ref(&candidate))?
                    .is_some()
            {
                current = candidate;
            }
        }
        Ok(current)
    }
}

/// The plainest kind at `point`: a 500 for calls, EIO for the filesystem.
fn plain_kind(point: &str) -> FaultKind {
    match Category::of(point) {
        Some(Category::Fs) => FaultKind::Eio,
        _ => FaultKind::Status500,
    }
}

/// `items` cut into `n` parts of near-equal length, in order.
fn split(items: &[Perturbation], n: usize) -> Vec<Vec<Perturbation>> {
    let n = n.min(items.len()).max(1);
    let mut parts = Vec::with_capacity(n);
    let mut start = 0;
    for k in 0..n {
        let end = start + (items.len() - start) / (n - k);
        parts.push(items[start..end].to_vec());
        start = end;
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_items_in_order() {
        let items: Vec<Perturbation> = (1..=7)
            .map(|call| Perturbation {
                point: "tool:Bash".into(),
                call,
                kind: clawrun_faults::FaultKind::Status500,
            })
            .collect();
        for n in 1..=7 {
            let parts = split(&items, n);
            assert_eq!(parts.len(), n);
            assert!(parts.iter().all(|p| !p.is_empty()));
            assert_eq!(parts.concat(), items);
        }
    }
}
