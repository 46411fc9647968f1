//! The judge firewall: during Execution no tool may find a judge file, a grader file, the task
//! definition, or a service fixture the task does not itself place in the workspace. The probe
//! plays an agent that searches the whole sandbox for them.

use std::collections::BTreeSet;

use anyhow::Result;
use serde_json::json;

use super::setup::{Harness, TaskEnv};
use clawrun_sandbox::tools::{ToolCall, ToolState};

/// What must stay invisible: (label, needle) pairs — for each hidden file, its longest line
/// (at least 12 bytes, cut to 60 characters) that no workspace file contains, so content the
/// task legitimately shares with the agent is never mistaken for a leak.
pub fn secrets(task: &TaskEnv) -> Result<Vec<(String, String)>> {
    let workspace = task.loaded.workspace_files()?;
    let visible: BTreeSet<[u8; 32]> = workspace
        .iter()
        .map(|(_, b)| *blake3::hash(b).as_bytes())
        .collect();
    let shared: Vec<String> = workspace
        .iter()
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .collect();
    let mut out = Vec::new();
    let mut add_content = |label: &str, bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes);
        let mut lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| l.len() >= 12)
            .collect();
        lines.sort_by_key(|l| std::cmp::Reverse(l.len()));
        let needle = lines
            .into_iter()
            .map(|l| l.chars().take(60).collect::<String>())
            .find(|n| !shared.iter().any(|w| w.contains(n.as_str())));
        if let Some(needle) = needle {
            out.push((label.to_string(), needle));
        }
    };
    for (path, bytes) in &task.judge_files {
        add_content(&format!("judge file {path}"), bytes);
    }
    add_content("task.yaml", &task.loaded.read_task_file("task.yaml")?);
    // A fixture the task itself copies into the workspace (sandbox_files) is the task's
    // choice (the loader warns about it); any other fixture must stay invisible.
    for path in fixture_paths(task) {
        if let Ok(bytes) = task.loaded.read_suite_file(&path)
            && !visible.contains(blake3::hash(&bytes).as_bytes())
        {
            add_content(&format!("service fixture {path}"), &bytes);
        }
    }
    Ok(out)
}

/// Searches a fresh trial's sandbox with every system tool (whether or not the task offers
/// it); returns what leaked (empty = sealed).
pub fn probe(harness: &Harness, task: &TaskEnv) -> Result<Vec<String>> {
    let secrets = secrets(task)?;
    let mut calls = vec![
        (
            "Bash",
            json!({"command": "find / 2>/dev/null | sort; cat /task.yaml /judge/* 2>&1; ls -la / /workspace 2>&1"}),
        ),
        ("Glob", json!({"pattern": "**/*", "path": "/"})),
        ("Read", json!({"file_path": "/workspace/task.yaml"})),
    ];
    for (_, needle) in &secrets {
        calls.push((
            "Grep",
            json!({"pattern": regex::escape(needle), "path": "/", "output_mode": "content"}),
        ));
    }
    let mut env = task.fork(0, 0);
    // A judge file copied whole into the workspace is a leak however the probe searches.
    let placed = task.loaded.workspace_files()?;
    let mut leaks = Vec::new();
    for (path, bytes) in &task.judge_files {
        if let Some((copy, _)) = placed.iter().find(|(_, b)| b.as_slice() == &bytes[..]) {
            leaks.push(format!(
                "judge file {path} is visible during Execution as {copy}"
            ));
        }
    }
    let mut seen = String::new();
    // Files the Execution phase holds must be exactly the workspace files.
    let placed: BTreeSet<String> = placed.into_iter().map(|(p, _)| p).collect();
    for (path, _, kind) in env.vfs.walk("/")? {
        if kind == clawrun_vfs::NodeKind::File && !placed.contains(&path) {
            leaks.push(format!(
                "{path} exists during Execution but is not a workspace file"
            ));
        }
    }
    for (name, args) in calls {
        let vfs = std::mem::take(&mut env.vfs);
        let outcome = harness.toolbox.call(
            harness.sandbox()?,
            ToolCall {
                name,
                args: &args,
                state: &ToolState::default(),
            },
            vfs,
            &env.tool_env(),
        )?;
        env.vfs = outcome.vfs;
        seen.push_str(&outcome.output);
        seen.push('\n');
    }
    for (label, needle) in secrets {
        if seen.contains(&needle) {
            leaks.push(format!(
                "{label} is visible during Execution (found {needle:?})"
            ));
        }
    }
    for line in seen.lines() {
        let l = line.trim_end();
        if (l.ends_with("task.yaml") || l.ends_with("grader.py") || l.starts_with("/judge"))
            && !["No such file", "does not exist", "not found"]
                .iter()
                .any(|m| l.contains(m))
        {
            leaks.push(format!("listed during Execution: {l}"));
        }
    }
    Ok(leaks)
}

/// The fixture files the task's services read (their `env` values that name files).
pub fn fixture_paths(task: &TaskEnv) -> Vec<String> {
    let mut out: Vec<String> = task
        .loaded
        .task
        .services
        .iter()
        .flat_map(|s| s.env.values())
        .filter(|v| {
            v.contains("/fixtures/") && v.rsplit('/').next().is_some_and(|f| f.contains('.'))
        })
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}
