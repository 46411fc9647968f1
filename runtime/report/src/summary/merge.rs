//! Merging records from one or more journals (shards): duplicates and consistency.
//!
//! A long run is summarised from a stream of records, so what is kept per trial is small: a
//! [`MergedTrial`] (its figures, where it came from, a digest to recognise an identical copy)
//! of about 150 bytes instead of the record. Only trials graded both ways keep their two
//! verdicts (the grader comparison quotes them).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use clawrun_judge::{Scores, Verdict};

use crate::error::ReportError;
use crate::record::{Judgement, Sourced, Status, TrialRecord};
use crate::summary::Inputs;
use crate::summary::totals::Totals;

/// One trial's record as the summary reads it.
#[derive(Clone, Debug)]
pub struct MergedTrial {
    /// The trial index.
    pub trial: u32,
    /// Its status.
    pub status: Status,
    /// How completely it was judged (`None` without a verdict: not scored).
    pub judgement: Option<Judgement>,
    /// Its verdict's scores (`None` without a verdict).
    pub scores: Option<Scores>,
    /// Faults injected during it, as its verdict counts them.
    pub faults_seen: u32,
    /// Tool calls that failed, as its verdict counts them.
    pub failed_calls: u32,
    /// Rubric weight its judge could not judge.
    pub unjudged_weight: f64,
    /// Assistant turns served from the response cache.
    pub cached_turns: u32,
    /// What it spent.
    pub totals: Totals,
    /// Where its record came from.
    source: SourceRef,
    /// A digest of its record: an identical copy (the same line in two shards) is dropped.
    digest: [u8; 16],
}

/// One task's records after merging, in trial order.
#[derive(Clone, Debug)]
pub struct TaskRecords {
    /// The task's first record (reduced by
    /// [`TrialRecord::for_summary`](crate::TrialRecord::for_summary)): its category, group
    /// and hash, which every other record must repeat.
    pub first: TrialRecord,
    /// Scored trials, one per trial index, sorted by trial.
    pub scored: Vec<MergedTrial>,
    /// Infrastructure and task errors (several per trial index when it was retried), sorted by
    /// trial.
    pub infra: Vec<MergedTrial>,
    /// Scored trials graded both ways, in trial order: the trial, Claw-Eval's verdict and
    /// clawrun's.
    pub graded_both: Vec<(u32, Verdict, Verdict)>,
    /// Where `first` came from.
    first_source: String,
}

/// Every task's merged records and the agents that ran them.
#[derive(Clone, Debug, Default)]
pub struct Merged {
    /// Per task id, sorted.
    pub tasks: BTreeMap<String, TaskRecords>,
    /// The agents seen, sorted.
    pub agents: BTreeSet<String>,
    /// The journal files the records came from (sources are kept as an index into it).
    files: Vec<Arc<str>>,
}

/// Where a record came from: a journal file (an index into [`Merged::files`]) and a line.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SourceRef {
    file: u32,
    line: Option<u32>,
}

impl Merged {
    /// Notes where a record came from (`path:line`), the path kept once.
    fn intern(&mut self, source: &str) -> SourceRef {
        let (file, line) = source
            .rsplit_once(':')
            .and_then(|(file, line)| Some((file, Some(line.parse::<u32>().ok()?))))
            .unwrap_or((source, None));
        let index = match self.files.iter().rposition(|f| &**f == file) {
            Some(i) => i,
            None => {
                self.files.push(Arc::from(file));
                self.files.len() - 1
            }
        };
        SourceRef {
            file: index as u32,
            line,
        }
    }
}

/// Groups records by task id (sorted), dropping exact duplicates.
///
/// Two records for the same task and trial are fine when they are identical (the same line
/// in two shards) or when at least one of them is an infrastructure error (a retried trial);
/// two different scored records are an error naming both sources. Records of one task must
/// agree on its category, group and task hash.
pub fn merge(
    records: impl IntoIterator<Item = Sourced>,
    inputs: &Inputs<'_>,
) -> Result<Merged, ReportError> {
    let mut merged = Merged::default();
    for rec in records {
        let digest = blake3::hash(rec.record.to_line().as_bytes());
        let digest: [u8; 16] = digest.as_bytes()[..16].try_into().expect("16 of 32 bytes");
        let r = rec.record.for_summary();
        if r.is_scored() && r.verdict.is_none() {
            return Err(ReportError::MissingVerdict {
                source_name: rec.source,
                task_id: r.task_id,
                trial: r.trial,
            });
        }
        if let Some(task) = merged.tasks.get(&r.task_id) {
            check_same(&task.first, &task.first_source, &r, &rec.source)?;
        }
        if !merged.agents.contains(&r.agent) {
            merged.agents.insert(r.agent.clone());
        }
        let trial = MergedTrial {
            trial: r.trial,
            status: r.status,
            judgement: r.judgement(),
            scores: r.verdict.as_ref().map(|v| v.scores),
            faults_seen: r.verdict.as_ref().map_or(0, |v| v.faults_seen),
            failed_calls: r.verdict.as_ref().map_or(0, |v| v.failed_calls),
            unjudged_weight: r.verdict.as_ref().map_or(0.0, |v| v.unjudged_weight),
            cached_turns: r.cached_turns,
            totals: Totals::of_record(&r, &inputs.timings, inputs.prices)?,
            source: merged.intern(&rec.source),
            digest,
        };
        let task = merged
            .tasks
            .entry(r.task_id.clone())
            .or_insert_with(|| TaskRecords {
                first: r.clone(),
                scored: Vec::new(),
                infra: Vec::new(),
                graded_both: Vec::new(),
                first_source: rec.source.clone(),
            });
        if r.is_scored() {
            if let (Some(v), Some(n)) = (r.verdict.clone(), r.native_verdict.clone()) {
                task.graded_both.push((r.trial, v, n));
            }
            task.scored.push(trial);
        } else {
            task.infra.push(trial);
        }
    }
    let Merged { tasks, files, .. } = &mut merged;
    let source = |s: SourceRef| -> String {
        let file = &files[s.file as usize];
        s.line
            .map_or(file.to_string(), |line| format!("{file}:{line}"))
    };
    for (task_id, task) in tasks.iter_mut() {
        // Stable sorts: copies of one trial stay in the order they were read.
        task.scored.sort_by_key(|t| t.trial);
        task.infra.sort_by_key(|t| t.trial);
        // Copies of one trial: an identical one is dropped, a different one is an error.
        let mut conflict = None;
        task.scored.dedup_by(|later, earlier| {
            if later.trial != earlier.trial {
                return false;
            }
            if later.digest != earlier.digest && conflict.is_none() {
                conflict = Some((later.trial, earlier.source, later.source));
            }
            true
        });
        if let Some((trial, first, second)) = conflict {
            return Err(ReportError::Duplicate {
                task_id: task_id.clone(),
                trial,
                first: source(first),
                second: source(second),
            });
        }
        let mut seen: BTreeSet<(u32, [u8; 16])> = BTreeSet::new();
        task.infra.retain(|t| seen.insert((t.trial, t.digest)));
        task.graded_both.sort_by_key(|both| both.0);
        task.graded_both.dedup_by_key(|both| both.0);
    }
    Ok(merged)
}

impl MergedTrial {
    /// Its verdict's scores; only for scored trials (a scored record always has a verdict).
    pub fn scored(&self) -> &Scores {
        self.scores
            .as_ref()
            .expect("merge checked: a scored trial has a verdict")
    }

    /// Whether it counts in the figures (scored and not unjudged).
    pub fn counts(&self) -> bool {
        self.judgement.is_some_and(|j| j != Judgement::Unjudged)
    }
}

/// Fails when `b` disagrees with `a` on the task's category or group, or on the task's hash:
/// two different tasks sharing an id (or a task edited between runs) are never merged.
fn check_same(
    a: &TrialRecord,
    a_source: &str,
    b: &TrialRecord,
    b_source: &str,
) -> Result<(), ReportError> {
    if a.task_hash != b.task_hash {
        return Err(ReportError::Inconsistent {
            task_id: a.task_id.clone(),
            detail: format!(
                "{a_source} has task hash {} but {b_source} has {}: these are two different \
                 tasks with one id, or the task changed between the runs (report such runs \
                 separately; a run resumed with --force after a task changed is consistent \
                 again once `clawrun run --resume` has re-run all of that task's trials)",
                a.task_hash, b.task_hash
            ),
        });
    }
    let pairs = [
        ("category", a.category.clone(), b.category.clone()),
        ("group", a.group.to_string(), b.group.to_string()),
    ];
    for (field, x, y) in pairs {
        if x != y {
            return Err(ReportError::Inconsistent {
                task_id: a.task_id.clone(),
                detail: format!("{a_source} says {field} is {x:?} but {b_source} says {y:?}"),
            });
        }
    }
    Ok(())
}
