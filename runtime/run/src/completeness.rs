//! Whether a run folder holds every trial it was asked for: each shard that its manifests'
//! names announce (`run.shard-I-of-N.json`) started and recorded all its (task, trial) pairs,
//! or the unsharded run did. `clawrun report` names what is missing or unfinished, and exits
//! non-zero under `--require-complete` (for CI over a cluster's shards).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use clawrun_report::Status;
use serde_json::Value;

use super::journal::latest_statuses;
use super::manifest::read_manifest;
use super::shard::Shard;

/// What a run folder lacks, one line per shard (empty: complete).
pub fn gaps(out: &Path) -> Result<Vec<String>> {
    let mut shards: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for entry in std::fs::read_dir(out)?.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if let Some(shard) = Shard::of_manifest(&name) {
            shards.entry(shard.count).or_default().push(shard.index);
        }
    }
    let mut gaps = Vec::new();
    if shards.is_empty() {
        if let Some(manifest) = read_manifest(&out.join("run.json"))? {
            let expected = pairs(&manifest);
            let (recorded, infra) = recorded(&out.join("journal.jsonl"), &manifest)?;
            if recorded < expected {
                gaps.push(unfinished("the run", recorded, expected, infra));
            }
        }
        return Ok(gaps);
    }
    for (count, present) in shards {
        for index in 0..count {
            let shard = format!("shard {index}/{count}");
            let name = format!("run.shard-{index}-of-{count}.json");
            let Some(manifest) = present
                .contains(&index)
                .then(|| read_manifest(&out.join(&name)))
                .transpose()?
                .flatten()
            else {
                gaps.push(format!(
                    "{shard}: missing (no {name}: it never started; run it with --shard \
                     {index}/{count} --resume)"
                ));
                continue;
            };
            let all = pairs(&manifest);
            // The round-robin split: position p belongs to shard p mod count.
            let expected = (all + u64::from(count) - 1 - u64::from(index)) / u64::from(count);
            let journal = out.join(format!("journal.shard-{index}-of-{count}.jsonl"));
            let (recorded, infra) = recorded(&journal, &manifest)?;
            if recorded < expected {
                gaps.push(unfinished(&shard, recorded, expected, infra));
            }
        }
    }
    Ok(gaps)
}

/// The (task, trial) pairs a manifest asks for: its tasks times its trials.
fn pairs(manifest: &Value) -> u64 {
    let tasks = manifest
        .get("tasks")
        .and_then(Value::as_object)
        .map_or(0, |t| t.len() as u64);
    tasks * manifest.get("trials").and_then(Value::as_u64).unwrap_or(0)
}

/// The trials of `manifest` whose latest record in `journal` is final (scored or a task
/// error), and how many are infrastructure errors.
fn recorded(journal: &Path, manifest: &Value) -> Result<(u64, u64)> {
    let trials = manifest.get("trials").and_then(Value::as_u64).unwrap_or(0);
    let tasks = manifest.get("tasks").and_then(Value::as_object);
    let (mut done, mut infra) = (0, 0);
    for (task, statuses) in latest_statuses(journal)? {
        if !tasks.is_some_and(|t| t.contains_key(&task)) {
            continue;
        }
        for (trial, status) in statuses {
            if u64::from(trial) >= trials {
                continue;
            }
            match status {
                Status::InfraError => infra += 1,
                Status::Scored | Status::TaskError => done += 1,
            }
        }
    }
    Ok((done, infra))
}

/// The line for a shard (or the run) that recorded `recorded` of `expected` trials.
fn unfinished(what: &str, recorded: u64, expected: u64, infra: u64) -> String {
    format!(
        "{what}: unfinished: {recorded} of {expected} trials recorded{} (continue it with \
         --resume)",
        if infra > 0 {
            format!(", {infra} infrastructure errors")
        } else {
            String::new()
        }
    )
}
