//! Merging records from one or more journals (shards): duplicates and consistency.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::ReportError;
use crate::record::Sourced;

/// One task's records after merging, in trial order, reduced for the summary
/// ([`TrialRecord::for_summary`](crate::TrialRecord::for_summary)).
#[derive(Clone, Debug, Default)]
pub struct TaskRecords {
    /// Scored records, one per trial index, sorted by trial.
    pub scored: Vec<Sourced>,
    /// Infrastructure-error records (several per trial index when it was retried), sorted by
    /// trial.
    pub infra: Vec<Sourced>,
    /// The trial and content digest of every record kept (duplicates are recognised by it).
    digests: BTreeSet<(u32, [u8; 32])>,
    /// The position in `scored` of each trial's scored record.
    scored_at: BTreeMap<u32, usize>,
}

/// Groups records by task id (sorted), dropping exact duplicates.
///
/// Two records for the same task and trial are fine when they are identical (the same line
/// in two shards) or when at least one of them is an infrastructure error (a retried trial);
/// two different scored records are an error naming both sources. Records of one task must
/// agree on its category, group and task hash.
pub fn merge(
    records: impl IntoIterator<Item = Sourced>,
) -> Result<BTreeMap<String, TaskRecords>, ReportError> {
    let mut tasks: BTreeMap<String, TaskRecords> = BTreeMap::new();
    for rec in records {
        let entry = tasks.entry(rec.record.task_id.clone()).or_default();
        if let Some(first) = entry.scored.first().or(entry.infra.first()) {
            check_same(first, &rec)?;
        }
        let digest = *blake3::hash(rec.record.to_line().as_bytes()).as_bytes();
        if !entry.digests.insert((rec.record.trial, digest)) {
            continue;
        }
        let rec = Sourced {
            source: rec.source,
            record: rec.record.for_summary(),
        };
        if rec.record.is_scored() {
            if rec.record.verdict.is_none() {
                return Err(ReportError::MissingVerdict {
                    source_name: rec.source,
                    task_id: rec.record.task_id,
                    trial: rec.record.trial,
                });
            }
            if let Some(&other) = entry.scored_at.get(&rec.record.trial) {
                return Err(ReportError::Duplicate {
                    task_id: rec.record.task_id.clone(),
                    trial: rec.record.trial,
                    first: entry.scored[other].source.clone(),
                    second: rec.source,
                });
            }
            entry.scored_at.insert(rec.record.trial, entry.scored.len());
            entry.scored.push(rec);
        } else {
            entry.infra.push(rec);
        }
    }
    for entry in tasks.values_mut() {
        entry.scored.sort_by_key(|s| s.record.trial);
        entry.infra.sort_by_key(|s| s.record.trial);
    }
    Ok(tasks)
}

/// Fails when `b` disagrees with `a` on the task's category or group, or on the task's hash:
/// two different tasks sharing an id (or a task edited between runs) are never merged.
fn check_same(a: &Sourced, b: &Sourced) -> Result<(), ReportError> {
    if a.record.task_hash != b.record.task_hash {
        return Err(ReportError::Inconsistent {
            task_id: a.record.task_id.clone(),
            detail: format!(
                "{} has task hash {} but {} has {}: these are two different tasks with one id, \
                 or the task changed between the runs (report such runs separately; a run \
                 resumed with --force after a task changed is consistent again once \
                 `clawrun run --resume` has re-run all of that task's trials)",
                a.source, a.record.task_hash, b.source, b.record.task_hash
            ),
        });
    }
    let pairs = [
        (
            "category",
            a.record.category.clone(),
            b.record.category.clone(),
        ),
        (
            "group",
            a.record.group.to_string(),
            b.record.group.to_string(),
        ),
    ];
    for (field, x, y) in pairs {
        if x != y {
            return Err(ReportError::Inconsistent {
                task_id: a.record.task_id.clone(),
                detail: format!(
                    "{} says {field} is {x:?} but {} says {y:?}",
                    a.source, b.source
                ),
            });
        }
    }
    Ok(())
}
