//! Mutations of a schedule, drawn from a seeded generator over the points its parent trial
//! called ([`Census`]): add a perturbation, extend one to the point's next call (the retry),
//! drop one, change one's kind, move one to a neighbouring call.

use std::sync::Arc;

use clawrun_report::stats::bootstrap::SplitMix64;

use super::schedule::{Perturbation, Schedule};
use clawrun_faults::content::INJECTION_CORPUS;
use clawrun_faults::{Category, FaultKind};

/// The points a trial called, by category, each with its call count.
#[derive(Clone, Debug, Default)]
pub struct Census {
    by_category: Vec<(Category, Vec<PointCalls>)>,
}

/// A point and how many times it was called.
pub type PointCalls = (Arc<str>, u64);

impl Census {
    /// The census of `points` (as a trial's injector counted them), keeping only the
    /// categories the fuzzer perturbs (`fs:` only when `fs` is set).
    pub fn new<'a>(points: impl IntoIterator<Item = &'a PointCalls>, fs: bool) -> Self {
        let mut by_category: Vec<(Category, Vec<PointCalls>)> = Vec::new();
        for (point, calls) in points {
            let (point, calls) = (Arc::clone(point), *calls);
            let Some(category) = Category::of(&point) else {
                continue;
            };
            if category == Category::Fs && !fs {
                continue;
            }
            match by_category.iter_mut().find(|(c, _)| *c == category) {
                Some((_, list)) => list.push((point, calls)),
                None => by_category.push((category, vec![(point, calls)])),
            }
        }
        by_category.sort_by_key(|(c, _)| c.index());
        Census { by_category }
    }

    /// Whether no point was called.
    pub fn is_empty(&self) -> bool {
        self.by_category.is_empty()
    }

    /// A point and a call number of it, uniformly within a category chosen uniformly.
    fn pick(&self, rng: &mut SplitMix64) -> Option<(&str, u64, Category)> {
        if self.by_category.is_empty() {
            return None;
        }
        let (category, points) = &self.by_category[rng.below(self.by_category.len())];
        let (point, calls) = &points[rng.below(points.len())];
        let call = 1 + rng.below((*calls).max(1) as usize) as u64;
        Some((point, call, *category))
    }
}

/// The kinds that make a call fail (what a robust agent recovers from by retrying).
const ERRORS: [FaultKind; 7] = [
    FaultKind::Status429 {
        retry_after_secs: 1,
    },
    FaultKind::Status500,
    FaultKind::Status503,
    FaultKind::Timeout,
    FaultKind::ConnectionReset,
    FaultKind::TruncatedBody,
    FaultKind::MalformedJson,
];

/// The filesystem kinds.
const FS_ERRORS: [FaultKind; 4] = [
    FaultKind::Eio,
    FaultKind::Enospc,
    FaultKind::Eacces,
    FaultKind::ShortWrite { max_bytes: 1 },
];

/// Records a content perturbation may target (the record index is taken modulo the count).
const RECORDS: u64 = 4;

/// A kind for a point of `category`: for calls, an error two times in three, else a content
/// perturbation (an injection payload from the corpus, a duplicated record, reversed records)
/// or a slow answer; for the filesystem, an errno, a short write or a slow call.
pub fn kind_for(category: Category, rng: &mut SplitMix64) -> FaultKind {
    let slow = FaultKind::Latency { millis: 5_000 };
    if category == Category::Fs {
        return match rng.below(FS_ERRORS.len() + 1) {
            i if i < FS_ERRORS.len() => FS_ERRORS[i],
            _ => slow,
        };
    }
    if rng.below(3) < 2 {
        return ERRORS[rng.below(ERRORS.len())];
    }
    match rng.below(4) {
        0 | 1 => FaultKind::Inject {
            payload: rng.below(INJECTION_CORPUS.len()) as u16,
            record: rng.below(RECORDS as usize) as u16,
        },
        2 => match rng.below(2) {
            0 => FaultKind::DuplicateRecord {
                record: rng.below(RECORDS as usize) as u16,
            },
            _ => FaultKind::ReorderRecords,
        },
        _ => slow,
    }
}

/// A child of `parent` (whose trial called the points of `census`): one to three stacked
/// mutations, never the parent itself or the empty schedule; `None` when no point was called.
pub fn mutate(parent: &Schedule, census: &Census, rng: &mut SplitMix64) -> Option<Schedule> {
    if census.is_empty() && parent.is_empty() {
        return None;
    }
    for _ in 0..16 {
        let mut child: Vec<Perturbation> = parent.perturbations().to_vec();
        let stack = 1 + rng.below(3);
        for _ in 0..stack {
            mutate_once(&mut child, census, rng);
        }
        let child = Schedule::new(child);
        if !child.is_empty() && child != *parent {
            return Some(child);
        }
    }
    None
}

/// One mutation of `child` in place.
fn mutate_once(child: &mut Vec<Perturbation>, census: &Census, rng: &mut SplitMix64) {
    let add = |child: &mut Vec<Perturbation>, rng: &mut SplitMix64| {
        if let Some((point, call, category)) = census.pick(rng) {
            child.push(Perturbation {
                point: point.to_string(),
                call,
                kind: kind_for(category, rng),
            });
        }
    };
    if child.is_empty() {
        return add(child, rng);
    }
    let i = rng.below(child.len());
    match rng.below(8) {
        // Add (the most useful move: twice as likely).
        0 | 1 => add(child, rng),
        // Extend: the same point's next call fails too (what a retry meets).
        2 | 3 => {
            let p = &child[i];
            let category = Category::of(&p.point).unwrap_or(Category::Service);
            let next = Perturbation {
                point: p.point.clone(),
                call: p.call + 1,
                kind: if rng.below(2) == 0 {
                    p.kind
                } else {
                    kind_for(category, rng)
                },
            };
            child.push(next);
        }
        4 => {
            child.remove(i);
        }
        5 | 6 => {
            let category = Category::of(&child[i].point).unwrap_or(Category::Service);
            child[i].kind = kind_for(category, rng);
        }
        _ => {
            let p = &mut child[i];
            p.call = if rng.below(2) == 0 || p.call == 1 {
                p.call + 1
            } else {
                p.call - 1
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(list: &[(&str, u64)]) -> Vec<(Arc<str>, u64)> {
        list.iter().map(|(p, n)| (Arc::from(*p), *n)).collect()
    }

    #[test]
    fn children_differ_from_their_parent_and_stay_on_called_points() {
        let census = Census::new(
            &points(&[
                ("service:gmail/messages", 1),
                ("service:gmail/messages/msg_001", 2),
                ("fs:open:/workspace/a", 3),
            ]),
            false,
        );
        let mut rng = SplitMix64::new(1);
        let mut parent = Schedule::default();
        for _ in 0..200 {
            let child = mutate(&parent, &census, &mut rng).unwrap();
            assert_ne!(child, parent);
            assert!(!child.is_empty());
            for p in child.perturbations() {
                assert!(p.point.starts_with("service:gmail/messages"), "{p}");
                assert!(!p.kind.is_fs());
            }
            parent = child;
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_children() {
        let census = Census::new(
            &points(&[("tool:Bash", 4), ("fs:write:/workspace/x", 2)]),
            true,
        );
        let run = |seed| {
            let mut rng = SplitMix64::new(seed);
            let mut s = Schedule::default();
            let mut all = Vec::new();
            for _ in 0..50 {
                s = mutate(&s, &census, &mut rng).unwrap();
                all.push(s.clone());
            }
            all
        };
        assert_eq!(run(9), run(9));
        assert_ne!(run(9), run(10));
    }
}
