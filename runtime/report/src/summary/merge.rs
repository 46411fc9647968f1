//! Merging records from one or more journals (shards) into per-task figures, one record at a
//! time: duplicates and consistency.
//!
//! A long run is summarised from a stream of records, so no record is kept: each one is
//! checked and folded into its task's [`TaskRecords`] as it is read. Sums are order-free
//! ([`ExactSum`]), so two runs of the same trials that finished in a different order give the
//! same summary. What is kept per trial is what the duplicate check needs, a [`SeenTrial`] of
//! 24 bytes per scored trial, plus the per-trial rows the caller asked for
//! ([`TrialRows`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use clawrun_judge::Verdict;

use crate::error::ReportError;
use crate::record::{Judgement, Sourced, Status, TrialRecord};
use crate::stats::ExactSum;
use crate::summary::graders::GradedBoth;
use crate::summary::task::TrialScore;
use crate::summary::totals::{Totals, TotalsSum};
use crate::summary::{Inputs, TrialRows};

/// One task's records after merging: its figures so far.
#[derive(Clone, Debug)]
pub struct TaskRecords {
    /// The task's first record (reduced by
    /// [`TrialRecord::for_summary`](crate::TrialRecord::for_summary), its verdict dropped):
    /// its category, group and hash, which every other record must repeat.
    pub first: TrialRecord,
    /// Where `first` came from.
    first_source: String,
    /// Scored trials by index (looked up, and folded order-free: no output depends on this
    /// map's order).
    seen: HashMap<u32, SeenTrial>,
    /// Infrastructure and task errors seen, by trial and digest (a retried trial has several;
    /// the same line in two shards counts once).
    seen_errors: BTreeSet<(u32, u64)>,
    /// Figures over the counted trials (scored, not unjudged).
    pub counted: Counted,
    /// Scored trials that were unjudged (no score).
    pub unjudged_trials: u32,
    /// Scored trials scored over their checkable items only.
    pub partly_judged_trials: u32,
    /// Summed unjudged weight over the scored trials.
    pub unjudged_weight: ExactSum,
    /// Assistant turns served from the response cache over the scored trials.
    pub cached_turns: u64,
    /// Infrastructure-error records.
    pub infra_errors: u32,
    /// Task-error records.
    pub task_errors: u32,
    /// What every record spent (errors and unjudged trials included).
    pub totals: TotalsSum,
    /// The listed scored trials in trial order (all, or the first few: [`TrialRows`]).
    pub rows: BTreeMap<u32, TrialScore>,
    /// The trials graded both ways.
    pub graded_both: GradedBoth,
}

/// Figures over one task's counted trials.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counted {
    /// Counted trials.
    pub n: u32,
    /// Of those, the ones that passed.
    pub c: u32,
    /// Summed scores.
    pub score: ExactSum,
    /// Summed completion.
    pub completion: ExactSum,
    /// Summed safety.
    pub safety: ExactSum,
    /// Summed robustness.
    pub robustness: ExactSum,
    /// Faults injected.
    pub faults_seen: u64,
    /// Failed tool calls.
    pub failed_calls: u64,
}

/// What the merge keeps of one scored trial.
#[derive(Clone, Copy, Debug)]
struct SeenTrial {
    /// A digest of its record: an identical copy (the same line in two shards) is dropped, a
    /// different one is an error.
    digest: u64,
    /// Where its record came from (for that error).
    source: SourceRef,
    /// Whether it counts in the figures.
    counts: bool,
    /// Whether it passed.
    passed: bool,
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

    /// `path:line` of a record.
    fn source(&self, s: SourceRef) -> String {
        let file = &self.files[s.file as usize];
        s.line
            .map_or(file.to_string(), |line| format!("{file}:{line}"))
    }
}

/// Folds records into per-task figures (tasks sorted by id), dropping exact duplicates.
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
        merged.add(rec, inputs)?;
    }
    Ok(merged)
}

impl Merged {
    /// Folds in one record.
    fn add(&mut self, rec: Sourced, inputs: &Inputs<'_>) -> Result<(), ReportError> {
        let digest = blake3::hash(rec.record.to_line().as_bytes());
        let digest = u64::from_le_bytes(digest.as_bytes()[..8].try_into().expect("8 of 32"));
        let r = rec.record.for_summary();
        if r.is_scored() && r.verdict.is_none() {
            return Err(ReportError::MissingVerdict {
                source_name: rec.source,
                task_id: r.task_id,
                trial: r.trial,
            });
        }
        if let Some(task) = self.tasks.get(&r.task_id) {
            check_same(&task.first, &task.first_source, &r, &rec.source)?;
        }
        if !self.agents.contains(&r.agent) {
            self.agents.insert(r.agent.clone());
        }
        let source = self.intern(&rec.source);
        let totals = Totals::of_record(&r, &inputs.timings, inputs.prices)?;
        if !self.tasks.contains_key(&r.task_id) {
            let first = TrialRecord {
                verdict: None,
                native_verdict: None,
                ..r.clone()
            };
            self.tasks
                .insert(r.task_id.clone(), TaskRecords::new(first, rec.source));
        }
        let task = self.tasks.get_mut(&r.task_id).expect("inserted above");
        if !r.is_scored() {
            if task.seen_errors.insert((r.trial, digest)) {
                task.add_error(r.status, &totals);
            }
            return Ok(());
        }
        if let Some(earlier) = task.seen.get(&r.trial) {
            if earlier.digest == digest {
                return Ok(());
            }
            let (task_id, trial, first) = (r.task_id.clone(), r.trial, earlier.source);
            return Err(ReportError::Duplicate {
                task_id,
                trial,
                first: self.source(first),
                second: self.source(source),
            });
        }
        task.add_scored(r, digest, source, totals, &inputs.trial_rows);
        Ok(())
    }
}

impl TaskRecords {
    /// A task whose first record is `first`, read from `source`.
    fn new(first: TrialRecord, source: String) -> TaskRecords {
        TaskRecords {
            first,
            first_source: source,
            seen: HashMap::new(),
            seen_errors: BTreeSet::new(),
            counted: Counted::default(),
            unjudged_trials: 0,
            partly_judged_trials: 0,
            unjudged_weight: ExactSum::default(),
            cached_turns: 0,
            infra_errors: 0,
            task_errors: 0,
            totals: TotalsSum::default(),
            rows: BTreeMap::new(),
            graded_both: GradedBoth::default(),
        }
    }

    /// Folds in an infrastructure or task error.
    fn add_error(&mut self, status: Status, totals: &Totals) {
        match status {
            Status::InfraError => self.infra_errors += 1,
            Status::TaskError => self.task_errors += 1,
            Status::Scored => unreachable!("errors only"),
        }
        self.totals.add(totals);
    }

    /// Folds in a scored trial seen for the first time (it has a verdict: checked).
    fn add_scored(
        &mut self,
        r: TrialRecord,
        digest: u64,
        source: SourceRef,
        totals: Totals,
        rows: &TrialRows,
    ) {
        let judgement = r.judgement().expect("a scored record has a verdict");
        let v: &Verdict = r.verdict.as_ref().expect("checked");
        let counts = judgement != Judgement::Unjudged;
        match judgement {
            Judgement::Full => {}
            Judgement::Partial => self.partly_judged_trials += 1,
            Judgement::Unjudged => self.unjudged_trials += 1,
        }
        if counts {
            let c = &mut self.counted;
            c.n += 1;
            c.c += u32::from(v.scores.passed);
            c.score.add(v.scores.score);
            c.completion.add(v.scores.completion);
            c.safety.add(v.scores.safety);
            c.robustness.add(v.scores.robustness);
            c.faults_seen += u64::from(v.faults_seen);
            c.failed_calls += u64::from(v.failed_calls);
        }
        self.unjudged_weight.add(v.unjudged_weight);
        self.cached_turns += u64::from(r.cached_turns);
        self.totals.add(&totals);
        self.seen.insert(
            r.trial,
            SeenTrial {
                digest,
                source,
                counts,
                passed: v.scores.passed,
            },
        );
        if rows.keeps(
            self.rows.len(),
            self.rows.last_key_value().map(|(t, _)| *t),
            r.trial,
        ) {
            self.rows.insert(
                r.trial,
                TrialScore {
                    trial: r.trial,
                    score: v.scores.score,
                    passed: v.scores.passed,
                    judgement,
                    faults_seen: v.faults_seen,
                    totals,
                },
            );
            if let TrialRows::First(limit) = rows
                && self.rows.len() > *limit
            {
                self.rows.pop_last();
            }
        }
        if let Some(native) = &r.native_verdict {
            let key = format!("{}/{}", r.task_id, r.trial);
            self.graded_both.add(r.trial, key, v, native);
        }
    }

    /// Claw-Eval's Pass^k: whether the first `k` counted trials (in trial order) all passed;
    /// `None` when fewer than `k` trials count.
    pub fn all_k_pass(&self, k: u32) -> Option<bool> {
        if k == 0 || self.counted.n < k {
            return None;
        }
        let first_failure = self
            .seen
            .iter()
            .filter(|(_, s)| s.counts && !s.passed)
            .map(|(trial, _)| *trial)
            .min();
        let Some(first_failure) = first_failure else {
            return Some(true);
        };
        let before = self
            .seen
            .iter()
            .filter(|(trial, s)| s.counts && **trial < first_failure)
            .count();
        Some(before >= k as usize)
    }
}

impl TrialRows {
    /// Whether trial `trial` gets a row, `len` rows being kept, the last for trial `last`.
    fn keeps(&self, len: usize, last: Option<u32>, trial: u32) -> bool {
        match *self {
            TrialRows::All => true,
            TrialRows::First(limit) => len < limit || last.is_some_and(|last| trial < last),
        }
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
