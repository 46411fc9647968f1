//! The Judge phase's evidence. Execution is over and the agent is gone: grader files enter the
//! filesystem only now (`sandbox_grader_files` under /workspace, the judge folder under
//! /judge), sealed against whatever the agent left on their paths ([`super::seal`]);
//! `env_snapshot_commands` and the rubric's judge commands run through the Bash tool (their
//! status taken from beside the output; Claw-Eval's `take_recording.py` on the host's
//! browser instead, [`super::recording`]), `env_snapshot_files` are read back, and every
//! service's audit log is collected.

use anyhow::{Context, Result};
use clawrun_agents::trace::{AuditData, CommandOutput, EventKind, SnapshotFile};
use clawrun_judge::Audits;
use globset::{GlobBuilder, GlobSetBuilder};
use serde_json::json;

use super::network;
use super::recorder::Recorder;
use super::recording;
use super::seal;
use super::setup::{Harness, TaskEnv, TrialEnv};
use clawrun_sandbox::tools::{ToolCall, ToolEnv, ToolState};
use clawrun_vfs::{NodeKind, Vfs};

/// What the Judge phase collected.
pub struct Judged {
    /// Each service's audit document.
    pub audits: Audits,
    /// The final filesystem with the judge files added.
    pub vfs: Vfs,
    /// Judge commands and their output.
    pub commands: Vec<CommandOutput>,
    /// Links the agent planted towards judge files ([`super::seal::links_into_judge`]).
    pub tampering: Vec<String>,
}

impl Judged {
    /// No evidence: the Judge phase did not run (a task error).
    pub fn nothing(vfs: &Vfs) -> Judged {
        Judged {
            audits: Audits::default(),
            vfs: vfs.fork(),
            commands: Vec::new(),
            tampering: Vec::new(),
        }
    }
}

/// Runs the Judge phase over the trial's final state and records `snapshot` and `audit`
/// events.
pub fn judge_phase(
    harness: &Harness,
    task: &TaskEnv,
    env: &mut TrialEnv,
    rec: &mut Recorder,
) -> Result<Judged> {
    let root_hash = env.vfs.root_hash().to_hex().to_string();
    let mut vfs = env.vfs.fork();
    let placed = seal::place_judge_files(&mut vfs, &task.judge_files).with_context(|| {
        format!(
            "{}: placing the judge files (the task's judge folder or sandbox_grader_files)",
            task.loaded.file()
        )
    })?;
    let tampering = seal::links_into_judge(&vfs, &placed);

    // The audits as the agent left them (Claw-Eval collects them before the snapshot
    // commands, which may reach the services too).
    let all: Vec<(String, String)> = env
        .services
        .audit_texts()
        .map(|(service, text)| (service.to_string(), text))
        .collect();
    // Judge commands run without faults, from /workspace, each with fresh shell state; their
    // `python3` imports nothing the agent could have written (`python::judge_imports`).
    let lent = network::lend(task, env, network::Borrower::Judge);
    let tool_env = ToolEnv {
        seed: env.seed,
        clock: env.clock.clone(),
        faults: None,
        network: lent.as_ref().map(|l| l.network.clone()),
        judge_imports: Some(task.judge_imports.clone()),
    };
    let mut commands = Vec::new();
    let web = &env.web;
    let ran = (|| -> Result<Vfs> {
        for command in judge_commands(&task.loaded.task) {
            if let Some(asked) = recording::recognise(command, &vfs) {
                let done = recording::run(harness, web, &mut vfs, &asked, tool_env.clock.wall())?;
                commands.push(CommandOutput {
                    command: command.to_string(),
                    exit_code: done.exit_code,
                    output: done.output,
                    truncated: 0,
                });
                continue;
            }
            let args = json!({ "command": command });
            let outcome = harness.toolbox.call(
                harness.sandbox()?,
                ToolCall {
                    name: "Bash",
                    args: &args,
                    state: &ToolState::default(),
                },
                vfs.fork(),
                &tool_env,
            )?;
            vfs = outcome.vfs;
            commands.push(CommandOutput {
                command: command.to_string(),
                exit_code: outcome.exit_code.unwrap_or(i32::from(outcome.is_error)),
                output: outcome.output,
                truncated: outcome.truncated,
            });
        }
        Ok(vfs.fork())
    })();
    drop(tool_env);
    if let Some(lent) = lent {
        lent.give_back(env);
    }
    let vfs = ran?;

    let files = snapshot_files(&vfs, &task.loaded.task.env_snapshot_files);
    rec.push(
        env,
        EventKind::Snapshot {
            root_hash,
            commands: commands.clone(),
            files,
            tampering: tampering.clone(),
        },
    );

    // Written as the text the trace holds, never built as values: the judge parses a
    // document only when a check reads it.
    let mut audits = Audits::default();
    for (service, text) in all {
        let data = AuditData::from_json_text(text);
        audits.insert(service.as_str(), data.clone());
        rec.push(env, EventKind::Audit { service, data });
    }
    Ok(Judged {
        audits,
        vfs,
        commands,
        tampering,
    })
}

/// The files `patterns` name (paths or globs; relative ones are under /workspace), sorted.
pub fn snapshot_files(vfs: &Vfs, patterns: &[String]) -> Vec<SnapshotFile> {
    if patterns.is_empty() {
        return Vec::new();
    }
    let mut set = GlobSetBuilder::new();
    for p in patterns {
        let abs = if p.starts_with('/') {
            p.clone()
        } else {
            format!("{}/{p}", clawrun_sandbox::tools::WORKSPACE)
        };
        if let Ok(g) = GlobBuilder::new(&abs).literal_separator(true).build() {
            set.add(g);
        }
    }
    let Ok(set) = set.build() else {
        return Vec::new();
    };
    let Ok(entries) = vfs.walk("/") else {
        return Vec::new();
    };
    let mut files: Vec<SnapshotFile> = entries
        .into_iter()
        .filter(|(path, _, kind)| *kind == NodeKind::File && set.is_match(path))
        .filter_map(|(path, _, _)| {
            let bytes = vfs.read_file(&path).ok()?;
            Some(SnapshotFile {
                hash: blake3::hash(&bytes).to_hex().to_string(),
                size: bytes.len() as u64,
                path,
            })
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// The commands the Judge phase runs: `env_snapshot_commands`, then every rubric `command`
/// check's command (each once, in rubric order).
pub fn judge_commands(task: &clawrun_task::Task) -> Vec<&str> {
    let mut out: Vec<&str> = task
        .env_snapshot_commands
        .iter()
        .map(String::as_str)
        .collect();
    let checks = task
        .scoring_components
        .iter()
        .map(|c| &c.check)
        .chain(task.rubric.iter().map(|r| &r.check));
    for check in checks {
        if let clawrun_task::Check::Command { command, .. } = check
            && !out.contains(&command.as_str())
        {
            out.push(command);
        }
    }
    out
}
