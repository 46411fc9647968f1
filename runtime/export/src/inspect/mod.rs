//! An Inspect AI log (`.eval`): the zip Inspect's own recorder writes
//! (`inspect_ai/log/_recorders/eval.py`): `_journal/start.json` (the eval spec and plan),
//! `samples/{id}_epoch_{n}.json` (one `EvalSample` per trial: the task is the sample, its
//! trials the epochs), `_journal/summaries/1.json` and `summaries.json` (the samples'
//! summaries), `reductions.json` (each task's epochs reduced by mean) and `header.json` (the
//! `EvalLog` without samples: spec, plan, results, stats). Entries are deflated with a fixed
//! timestamp and mode, in a fixed order, so the same run gives the same bytes.

pub mod sample;
pub mod score;

use std::collections::BTreeMap;
use std::io::{Cursor, Seek, Write};

use clawrun_agents::Usage;
use clawrun_report::Judgement;
use serde_json::{Value, json};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, System, ZipWriter};

use crate::error::ExportError;
use crate::run::ExportRun;
use crate::time::rfc3339;
use crate::trial::TrialTrace;

/// Inspect's log format version.
pub const LOG_VERSION: u32 = 2;

/// The figures of a verdict, as the score's value names them.
const FIGURES: [&str; 5] = ["score", "completion", "safety", "robustness", "passed"];

/// An agent as an Inspect model name (`provider/model`): `openai:gpt-5` -> `openai/gpt-5`;
/// agents without a model (`oracle`, `scripted:FILE`, ...) -> `clawrun/oracle`, ...
pub fn model_name(agent: &str) -> String {
    match agent.split_once(':') {
        Some((p, m)) if ["openai", "anthropic", "openrouter"].contains(&p) => format!("{p}/{m}"),
        _ => format!("clawrun/{agent}"),
    }
}

/// Writes the `.eval` log of `run` to `out`, one trial's sample at a time (the samples come
/// first in the zip, then the journal's start, the summaries, the reductions and the header:
/// Inspect reads entries by name).
pub fn write_eval_log<W: Write + Seek>(run: &ExportRun, out: W) -> Result<W, ExportError> {
    let agent = run.agent().to_string();
    let model = model_name(&agent);
    let mut zip = ZipWriter::new(out);
    let mut summaries = Vec::new();
    let mut usage = Usage::default();
    let mut first_ns = u64::MAX;
    let mut last_ns = 0;
    // Per task: each counted trial's figures (unjudged trials and errors are not counted,
    // as clawrun's reports count them).
    let mut counted: BTreeMap<&str, Vec<[f64; 5]>> = BTreeMap::new();
    let mut task_ids: Vec<&str> = Vec::new();
    for trial in &run.trials {
        let r = &trial.record;
        let trace = TrialTrace::walk(&trial.events()?);
        first_ns = first_ns.min(trace.start_ns);
        last_ns = last_ns.max(trace.end_ns());
        let s = sample::sample(trial, &trace, &agent);
        let name = format!("samples/{}_epoch_{}.json", r.task_id, r.trial + 1);
        add(&mut zip, &name, &s.sample)?;
        summaries.push(s.summary);
        if r.calls_a_model() {
            usage.add(Usage {
                input_tokens: r.input_tokens,
                output_tokens: r.output_tokens,
                cached_input_tokens: r.cached_input_tokens,
            });
        }
        if task_ids.last() != Some(&r.task_id.as_str()) {
            task_ids.push(&r.task_id);
        }
        if let Some(v) = r.verdict.as_ref().filter(|_| r.is_scored())
            && r.judgement() != Some(Judgement::Unjudged)
        {
            let s = &v.scores;
            counted.entry(&r.task_id).or_default().push([
                s.score,
                s.completion,
                s.safety,
                s.robustness,
                if s.passed { 1.0 } else { 0.0 },
            ]);
        }
    }
    let created = run.started.clone().unwrap_or_else(|| rfc3339(first_ns));
    let epochs = run
        .trials
        .iter()
        .map(|t| t.record.trial + 1)
        .max()
        .unwrap_or(1);
    let spec = json!({
        "eval_id": run.id, "run_id": run.id, "created": created, "task": "clawrun",
        "task_id": run.id, "task_version": 0, "task_attribs": {}, "task_args": {},
        "task_args_passed": {}, "solver": agent,
        "dataset": {"name": "clawrun", "samples": task_ids.len(), "sample_ids": task_ids},
        "model": model, "model_generate_config": generate_config(&run.manifest["models"]["agent"]),
        "model_base_url": run.manifest["models"]["agent"]["base_url"], "model_args": {},
        "model_roles": model_roles(&run.manifest),
        "config": {"epochs": epochs, "epochs_reducer": ["mean"]},
        "packages": {"clawrun": run.clawrun_version()},
        "metadata": {"clawrun": {"run_id": run.id, "settings": run.manifest,
                     "manifests": run.manifest_names}},
        "scorers": [{"name": sample::SCORER, "metadata": {
            "figures": FIGURES, "note": "the verdict of clawrun's rubric or of the task's Claw-Eval grader (metadata.grader); rubric items in each score's metadata.items"}}],
    });
    let plan = json!({"name": "plan", "steps": [{"solver": agent, "params": {}}], "config": {}});
    // Each task's mean over its counted trials; the metrics are means over tasks (clawrun's
    // macro average).
    let reduced: Vec<(&str, [f64; 5])> = counted
        .iter()
        .map(|(task, rows)| (*task, mean(rows.iter().copied())))
        .collect();
    let scored = counted.values().map(Vec::len).sum::<usize>();
    let scores: Vec<Value> = if reduced.is_empty() {
        Vec::new()
    } else {
        let overall = mean(reduced.iter().map(|(_, v)| *v));
        FIGURES
            .iter()
            .zip(overall)
            .map(|(name, value)| json!({
                "name": name, "scorer": sample::SCORER, "reducer": "mean",
                "scored_samples": scored, "unscored_samples": run.trials.len() - scored,
                "params": {}, "metrics": {"mean": {"name": "mean", "value": value, "params": {}}},
            }))
            .collect()
    };
    let results = json!({
        "total_samples": run.trials.len(), "completed_samples": scored, "scores": scores,
        "metadata": {"note": "means over tasks of each task's mean over its counted trials (scored, not UNJUDGED), as clawrun's reports average"},
    });
    let model_usage = if usage == Usage::default() {
        json!({})
    } else {
        json!({ model: sample::model_usage(&usage) })
    };
    // Both ends on the virtual clock the trials ran on (`created` is the run's wall-clock
    // start, whose end clawrun does not record): a wall start with a virtual end would make
    // the viewer show a negative duration.
    let stats = json!({"started_at": rfc3339(first_ns.min(last_ns)), "completed_at": rfc3339(last_ns),
        "model_usage": model_usage, "role_usage": {}});
    let reductions = json!([{
        "scorer": sample::SCORER, "reducer": "mean",
        "samples": reduced.iter().map(|(task, v)| json!({
            "value": FIGURES.iter().zip(v).map(|(k, x)| (k.to_string(), json!(x))).collect::<serde_json::Map<_, _>>(),
            "sample_id": task, "history": [],
        })).collect::<Vec<_>>(),
    }]);
    let header = json!({
        "version": LOG_VERSION, "status": "success", "eval": spec, "plan": plan,
        "results": results, "stats": stats, "invalidated": false, "tags": [], "metadata": {},
    });
    let start = json!({"version": LOG_VERSION, "eval": header["eval"], "plan": header["plan"]});
    let summaries = Value::Array(summaries);
    add(&mut zip, "_journal/start.json", &start)?;
    add(&mut zip, "_journal/summaries/1.json", &summaries)?;
    add(&mut zip, "summaries.json", &summaries)?;
    add(&mut zip, "reductions.json", &reductions)?;
    add(&mut zip, "header.json", &header)?;
    Ok(zip.finish()?)
}

/// The `.eval` log of `run`, as bytes.
pub fn eval_log(run: &ExportRun) -> Result<Vec<u8>, ExportError> {
    Ok(write_eval_log(run, Cursor::new(Vec::new()))?.into_inner())
}

/// A model's recorded settings (`run.json`'s `models.ROLE`) as Inspect's `GenerateConfig`
/// (the fields both have; unset ones left out).
fn generate_config(settings: &Value) -> Value {
    let mut config = serde_json::Map::new();
    for key in [
        "temperature",
        "max_tokens",
        "max_retries",
        "max_connections",
    ] {
        if !settings[key].is_null() {
            config.insert(key.into(), settings[key].clone());
        }
    }
    // Inspect's timeout is whole seconds.
    if let Some(t) = settings["timeout"].as_f64() {
        config.insert("timeout".into(), json!(t.ceil() as u64));
    }
    Value::Object(config)
}

/// The judge and the simulated user's models as Inspect model roles (`judge`, `user`), when
/// the run had them.
fn model_roles(manifest: &Value) -> Value {
    let mut roles = serde_json::Map::new();
    for (role, key) in [("judge", "judge"), ("user", "user_model")] {
        let settings = &manifest["models"][key];
        if let Some(m) = manifest[key].as_str() {
            roles.insert(
                role.into(),
                json!({
                    "model": model_name(m), "config": generate_config(settings),
                    "base_url": settings["base_url"], "args": {},
                }),
            );
        }
    }
    if roles.is_empty() {
        Value::Null
    } else {
        Value::Object(roles)
    }
}

/// The mean of each figure over `rows`.
fn mean(rows: impl Iterator<Item = [f64; 5]>) -> [f64; 5] {
    let mut sum = [0.0; 5];
    let mut n = 0.0;
    for row in rows {
        for (s, x) in sum.iter_mut().zip(row) {
            *s += x;
        }
        n += 1.0;
    }
    sum.map(|s| s / n)
}

/// Adds entry `name` holding `value`'s JSON, deflated, with a fixed timestamp and mode.
fn add<W: Write + Seek>(
    zip: &mut ZipWriter<W>,
    name: &str,
    value: &Value,
) -> Result<(), ExportError> {
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .last_modified_time(DateTime::default())
        .system(System::Unix)
        .unix_permissions(0o644);
    zip.start_file(name, options)?;
    serde_json::to_writer(&mut *zip, value).map_err(|e| zip::result::ZipError::Io(e.into()))?;
    Ok(())
}
