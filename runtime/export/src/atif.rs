//! Harbor's Agent Trajectory Interchange Format (ATIF, `harbor.models.trajectories`), one
//! trajectory per trial: a folder with `TASK/TRIAL/trajectory.json` per trial, the prompt's
//! images beside it (`TASK/TRIAL/images/BLAKE3.EXT`, referenced by relative path as Harbor's
//! validator resolves them) and `index.json` listing the trajectories with their scores.
//!
//! Steps: the system prompt (`system`), the prompt (`user`), each assistant turn (`agent`,
//! with its tool calls, and the tools' results as its observation), simulated-user turns
//! (`user`). Timestamps are the trace's virtual clock. What ATIF has no field for (faults,
//! the verdict, the snapshot, audits) is in the `extra` objects.

use std::path::{Path, PathBuf};

use base64::Engine;
use clawrun_agents::{Block, Role};
use serde_json::{Map, Value, json};

use crate::error::ExportError;
use crate::inspect::sample::arguments;
use crate::run::{ExportRun, Trial};
use crate::time::rfc3339;
use crate::trial::{Step, ToolStep, TrialTrace, fault_json, image_note, text_of};

/// The ATIF version written.
pub const SCHEMA_VERSION: &str = "ATIF-v1.7";

/// The media types ATIF's `ImageSource` allows.
const IMAGE_TYPES: [(&str, &str); 4] = [
    ("image/jpeg", "jpg"),
    ("image/png", "png"),
    ("image/gif", "gif"),
    ("image/webp", "webp"),
];

/// One trial's trajectory and the image files it references (path relative to its folder,
/// bytes).
pub struct Trajectory {
    /// The folder of the trajectory in the export, `TASK/TRIAL`.
    pub folder: String,
    /// The trajectory.
    pub json: Value,
    /// Images: (path relative to `folder`, bytes).
    pub images: Vec<(String, Vec<u8>)>,
}

/// Writes the export into folder `out`: a trajectory per trial and `index.json`. A folder that
/// holds anything but an earlier export (its `index.json`) is refused; an earlier export is
/// replaced.
pub fn write(run: &ExportRun, out: &Path) -> Result<Vec<PathBuf>, ExportError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExportError::Write { path, source }
    };
    if out.is_dir() && std::fs::read_dir(out).map_err(io(out))?.next().is_some() {
        if !out.join("index.json").is_file() {
            return Err(ExportError::Write {
                path: out.to_path_buf(),
                source: std::io::Error::other(
                    "the folder is not empty and holds no earlier ATIF export (index.json): give a new or empty folder",
                ),
            });
        }
        std::fs::remove_dir_all(out).map_err(io(out))?;
    }
    let mut written = Vec::new();
    let mut index = Vec::new();
    for trial in &run.trials {
        let t = trajectory(run, trial)?;
        let dir = out.join(&t.folder);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        for (rel, bytes) in &t.images {
            let path = dir.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
            std::fs::write(&path, bytes).map_err(io(&path))?;
        }
        let path = dir.join("trajectory.json");
        let mut text = serde_json::to_vec_pretty(&t.json).expect("JSON values serialise");
        text.push(b'\n');
        std::fs::write(&path, text).map_err(io(&path))?;
        let extra = &t.json["extra"];
        index.push(json!({
            "trajectory": format!("{}/trajectory.json", t.folder),
            "task_id": extra["task_id"], "trial": extra["trial"], "status": extra["status"],
            "score": extra["verdict"]["score"], "passed": extra["verdict"]["passed"],
            "judgement": extra["judgement"],
        }));
        written.push(path);
    }
    let path = out.join("index.json");
    let doc =
        json!({"schema_version": SCHEMA_VERSION, "session_id": run.id, "trajectories": index});
    let mut text = serde_json::to_vec_pretty(&doc).expect("JSON values serialise");
    text.push(b'\n');
    std::fs::write(&path, text).map_err(io(&path))?;
    Ok(written)
}

/// A task id as a folder name: one plain path component.
fn folder_name(id: &str) -> Result<&str, ExportError> {
    let why = if id.is_empty() || id == "." || id == ".." {
        Some("empty, `.` or `..`")
    } else if id.contains(['/', '\\', '\0']) {
        Some("it holds a path separator")
    } else {
        None
    };
    match why {
        Some(why) => Err(ExportError::TaskId {
            id: id.to_string(),
            why,
        }),
        None => Ok(id),
    }
}

/// One trial's trajectory.
pub fn trajectory(run: &ExportRun, trial: &Trial) -> Result<Trajectory, ExportError> {
    let r = &trial.record;
    let folder = format!("{}/{}", folder_name(&r.task_id)?, r.trial);
    let trace = TrialTrace::walk(&trial.events()?);
    let calls_model = r.calls_a_model();
    let model = r.agent.split_once(':').map(|(_, m)| m.to_string());
    let mut images = Vec::new();
    let mut steps: Vec<Value> = Vec::new();
    let push = |steps: &mut Vec<Value>, mut step: Value| {
        step["step_id"] = json!(steps.len() + 1);
        steps.push(step);
    };
    push(
        &mut steps,
        json!({"timestamp": rfc3339(trace.start_ns), "source": "system", "message": trace.system}),
    );
    push(
        &mut steps,
        json!({"timestamp": rfc3339(trace.prompt_ns), "source": "user",
        "message": message(&trace.prompt, &mut images)}),
    );
    // Faults and model calls met before an assistant turn go into that turn's `extra`.
    let mut pending_faults: Vec<Value> = Vec::new();
    let mut pending_calls: Vec<Value> = Vec::new();
    for step in &trace.steps {
        match step {
            Step::Message { t_ns, role: Role::Assistant, content, usage, cached, .. } => {
                let mut s = json!({"timestamp": rfc3339(*t_ns), "source": "agent",
                    "message": text_of(content)});
                let calls: Vec<Value> = content.iter().filter_map(|b| match b {
                    Block::ToolUse { id, name, input } => Some(json!({
                        "tool_call_id": id, "function_name": name, "arguments": arguments(input)})),
                    _ => None,
                }).collect();
                if !calls.is_empty() {
                    s["tool_calls"] = json!(calls);
                }
                if calls_model {
                    s["llm_call_count"] = json!(1);
                    if let Some(m) = &model {
                        s["model_name"] = json!(m);
                    }
                    if let Some(u) = usage {
                        s["metrics"] = json!({"prompt_tokens": u.input_tokens,
                            "completion_tokens": u.output_tokens, "cached_tokens": u.cached_input_tokens});
                    }
                } else {
                    // The oracle, scripted, replayed and idle agents call no model.
                    s["llm_call_count"] = json!(0);
                }
                let mut extra = Map::new();
                if *cached {
                    extra.insert("cached".into(), json!(true));
                }
                if !pending_faults.is_empty() {
                    extra.insert("faults".into(), Value::Array(std::mem::take(&mut pending_faults)));
                }
                if !pending_calls.is_empty() {
                    extra.insert("model_calls".into(), Value::Array(std::mem::take(&mut pending_calls)));
                }
                if !extra.is_empty() {
                    s["extra"] = Value::Object(extra);
                }
                push(&mut steps, s);
            }
            Step::Message { t_ns, content, .. } => push(&mut steps, json!({
                "timestamp": rfc3339(*t_ns), "source": "user", "message": message(content, &mut images)})),
            Step::Tool(call) => attach(&mut steps, call),
            Step::UserTurn { t_ns, round, text, done } => push(&mut steps, json!({
                "timestamp": rfc3339(*t_ns), "source": "user", "message": text,
                "extra": {"simulated_user_round": round, "done": done}})),
            Step::Fault(f) => pending_faults.push(fault_json(f)),
            Step::ModelCall(c) => pending_calls.push(json!({"n": c.n, "wire": c.wire,
                "status": c.status, "fault": c.fault, "content_type": c.content_type, "body": c.body})),
        }
    }
    let total_steps = steps.len();
    let verdict = r
        .verdict
        .as_ref()
        .map(|v| serde_json::to_value(v).expect("verdicts serialise"));
    let mut extra = json!({
        "task_id": r.task_id, "trial": r.trial, "seed": r.seed.to_string(), "category": r.category,
        "group": r.group, "agent": r.agent, "status": r.status, "outcome": r.outcome,
        "error": r.error, "verdict": verdict, "judgement": r.judgement().map(|j| j.as_str()),
        "grader": r.grader.as_deref().unwrap_or("clawrun"),
        "root_hash": r.root_hash, "task_hash": r.task_hash, "trace_hash": trial.trace_hash,
        "faults": trace.faults().map(fault_json).collect::<Vec<_>>(),
        "fault_rules": trace.fault_rules, "tools": trace.tools, "limits": r.limits,
        "virtual_start": rfc3339(trace.start_ns), "virtual_end": rfc3339(trace.end_ns()),
        "wall_us": trial.wall_us,
        "final_text": trace.end.as_ref().map(|e| e.final_text.clone()),
        "snapshot": trace.snapshot.as_ref().map(|s| json!({"root_hash": s.root_hash,
            "commands": s.commands, "files": s.files, "tampering": s.tampering})),
        "audits": trace.audits.iter().map(|(k, v)| (k.clone(), v.clone())).collect::<Map<_, _>>(),
    });
    if let Some(native) = &r.native_verdict {
        extra["native_verdict"] = serde_json::to_value(native).expect("verdicts serialise");
    }
    if !pending_faults.is_empty() || !pending_calls.is_empty() {
        extra["after_last_turn"] = json!({"faults": pending_faults, "model_calls": pending_calls});
    }
    let mut agent = json!({"name": r.agent, "version": run.clawrun_version(),
        "tool_definitions": trace.tools.iter().map(|n| json!({"type": "function", "function": {"name": n}})).collect::<Vec<_>>(),
        "extra": {"runner": "clawrun", "run_settings": run.manifest}});
    if let (true, Some(m)) = (calls_model, &model) {
        agent["model_name"] = json!(m);
    }
    let json = json!({
        "schema_version": SCHEMA_VERSION,
        "session_id": run.id,
        "trajectory_id": format!("{}/{}", r.task_id, r.trial),
        "agent": agent,
        "steps": steps,
        "notes": "Exported by clawrun. Timestamps are the trial's virtual clock; tool definitions carry names only (the trace records no schemas); images a tool returned are kept by hash (the trace holds no bytes); faults, the verdict, the Judge phase's snapshot and audits are in `extra`.",
        "final_metrics": {"total_prompt_tokens": r.input_tokens,
            "total_completion_tokens": r.output_tokens, "total_cached_tokens": r.cached_input_tokens,
            "total_steps": total_steps},
        "extra": extra,
    });
    Ok(Trajectory {
        folder,
        json,
        images,
    })
}

/// Attaches a tool call's result to the agent step that made the call (a call no assistant
/// turn holds gets an agent step of its own, with no model call).
fn attach(steps: &mut Vec<Value>, call: &ToolStep) {
    let owner = steps.last().is_some_and(|s| {
        s["source"] == "agent"
            && s["tool_calls"]
                .as_array()
                .is_some_and(|calls| calls.iter().any(|c| c["tool_call_id"] == call.id.as_str()))
    });
    if !owner {
        let id = steps.len() + 1;
        steps.push(
            json!({"step_id": id, "timestamp": rfc3339(call.call_ns), "source": "agent",
            "message": "", "llm_call_count": 0, "tool_calls": [{"tool_call_id": call.id,
            "function_name": call.name, "arguments": arguments(&call.input)}]}),
        );
    }
    let step = steps.last_mut().expect("an agent step");
    let mut result = json!({"source_call_id": call.id});
    let mut extra = Map::new();
    match &call.result {
        Some(r) => {
            let mut text = r.output.clone();
            for image in &r.images {
                text.push('\n');
                text.push_str(&image_note(image));
            }
            result["content"] = json!(text);
            extra.insert("is_error".into(), json!(r.is_error));
            extra.insert("timestamp".into(), json!(rfc3339(r.t_ns)));
            for (k, v) in [
                ("status", json!(r.status)),
                ("exit_code", json!(r.exit_code)),
                ("root_hash", json!(r.root_hash)),
            ] {
                if !v.is_null() {
                    extra.insert(k.into(), v);
                }
            }
            if r.truncated > 0 {
                extra.insert("truncated".into(), json!(r.truncated));
            }
            if !r.images.is_empty() {
                extra.insert("images".into(), json!(r.images));
            }
        }
        None => {
            extra.insert(
                "unanswered".into(),
                json!("the trial ended before the tool answered"),
            );
        }
    }
    if !call.faults.is_empty() {
        extra.insert(
            "faults".into(),
            Value::Array(call.faults.iter().map(fault_json).collect()),
        );
    }
    result["extra"] = Value::Object(extra);
    let results = &mut step["observation"]["results"];
    if !results.is_array() {
        *results = json!([]);
    }
    results.as_array_mut().expect("an array").push(result);
}

/// Blocks as an ATIF message: a string when they are text only, else content parts with the
/// images written beside the trajectory.
fn message(blocks: &[Block], images: &mut Vec<(String, Vec<u8>)>) -> Value {
    if blocks.iter().all(|b| matches!(b, Block::Text { .. })) {
        return json!(text_of(blocks));
    }
    let mut parts = Vec::new();
    for b in blocks {
        match b {
            Block::Text { text } => parts.push(json!({"type": "text", "text": text})),
            Block::Image { media_type, data } => {
                let ext = IMAGE_TYPES
                    .iter()
                    .find(|(t, _)| t == media_type)
                    .map(|(_, e)| *e);
                let bytes = base64::engine::general_purpose::STANDARD.decode(data);
                match (ext, bytes) {
                    (Some(ext), Ok(bytes)) => {
                        let path = format!("images/{}.{ext}", blake3::hash(&bytes).to_hex());
                        parts.push(json!({"type": "image", "source": {"media_type": media_type, "path": path}}));
                        images.push((path, bytes));
                    }
                    _ => parts.push(json!({"type": "text", "text": format!(
                        "[image {media_type} of {} base64 characters: ATIF takes jpeg, png, gif and webp images only]",
                        data.len())})),
                }
            }
            Block::ToolUse { .. } | Block::ToolResult { .. } => {}
        }
    }
    json!(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_images_become_files_beside_the_trajectory_and_other_types_a_note() {
        let png = [0x89, b'P', b'N', b'G', 1, 2, 3];
        let data = base64::engine::general_purpose::STANDARD.encode(png);
        let mut images = Vec::new();
        let m = message(
            &[
                Block::text("look"),
                Block::Image {
                    media_type: "image/png".into(),
                    data: data.clone(),
                },
                Block::Image {
                    media_type: "image/bmp".into(),
                    data,
                },
            ],
            &mut images,
        );
        let path = format!("images/{}.png", blake3::hash(&png).to_hex());
        assert_eq!(m[0], json!({"type": "text", "text": "look"}));
        assert_eq!(
            m[1],
            json!({"type": "image", "source": {"media_type": "image/png", "path": path}})
        );
        assert!(m[2]["text"].as_str().unwrap().contains("image/bmp"), "{m}");
        assert_eq!(images, vec![(path, png.to_vec())]);
        // Text alone stays a string.
        assert_eq!(
            message(&[Block::text("a"), Block::text("b")], &mut images),
            json!("a\nb")
        );
    }

    #[test]
    fn a_task_id_that_is_not_one_path_component_is_refused() {
        for bad in ["", "..", "a/b", "a\\b"] {
            assert!(folder_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            folder_name("T002_email_triage").unwrap(),
            "T002_email_triage"
        );
    }
}
