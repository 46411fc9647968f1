//! A loaded task and the files it references, read through its folder's capability.

use std::collections::BTreeMap;

use cap_std::fs::Dir;

use crate::error::{Diagnostic, FileError, FileProblem};
use crate::model::Task;
use crate::paths::{self, Files, clean, join, read_file, read_tree};
use crate::refs::{MissingFile, Refs};
use crate::sidecar::Sidecar;
use crate::suite::{Suite, TASK_FILE};
use crate::yaml::Pos;

/// A task loaded from its folder: the model, its warnings, its hash, and access to its files.
#[derive(Debug)]
pub struct LoadedTask {
    /// The task.
    pub task: Task,
    /// The task folder, relative to the suite root (e.g. `tasks/T002_email_triage`).
    pub dir: String,
    /// Warnings (unknown fields, missing referenced files, ...), errors never.
    pub warnings: Vec<Diagnostic>,
    /// blake3 over task.yaml, the sidecar (if any) and every file the task references (paths as written, so the
    /// same task hashes the same on every machine and wherever its folder sits).
    pub hash: blake3::Hash,
    /// The `clawrun.yaml` sidecar merged into the task, if the folder has one.
    pub sidecar: Option<Sidecar>,
    /// Where `task_id` is written in task.yaml (for errors naming two tasks).
    pub(crate) id_pos: Option<Pos>,
    pub(crate) dir_handle: Dir,
    pub(crate) suite: Suite,
}

impl LoadedTask {
    /// The task file's path relative to the suite root (`tasks/T002_email_triage/task.yaml`).
    pub fn file(&self) -> String {
        join(&self.dir, TASK_FILE)
    }

    /// The file that sets field `path` (`faults`, `oracle.steps[0].call`,
    /// `user_agent.script`): the sidecar's path for the fields it set, else task.yaml's.
    /// Positions inside a field (such as those of the `faults` node tree) are in this file.
    pub fn field_file(&self, path: &str) -> String {
        match &self.sidecar {
            Some(s) if s.holds(path) => s.file.clone(),
            _ => self.file(),
        }
    }

    /// The suite the task came from.
    pub fn suite(&self) -> &Suite {
        &self.suite
    }

    /// The hash as lowercase hex.
    pub fn hash_hex(&self) -> String {
        self.hash.to_hex().to_string()
    }

    /// The files the task references (`sandbox_files`, `sandbox_grader_files`,
    /// `local_grader_files`, `prompt.attachments`, `workspace`, `judge`, the services' fixture
    /// paths) that are not in the suite now: the "referenced file missing" warnings of loading,
    /// looked up again.
    pub fn missing_files(&self) -> Vec<MissingFile> {
        Refs {
            suite: &self.suite,
            handle: &self.dir_handle,
            dir: &self.dir,
        }
        .missing(&self.task)
    }

    /// Reads a file of the task folder (`rel` relative to it; never outside it).
    pub fn read_task_file(&self, rel: &str) -> Result<Vec<u8>, FileError> {
        read_file(&self.dir_handle, "", rel)
    }

    /// Reads a suite-relative file (service fixtures; see [`Suite::resolve_suite_path`]).
    pub fn read_suite_file(&self, rel: &str) -> Result<Vec<u8>, FileError> {
        self.suite.read_suite_file(rel)
    }

    /// The agent's starting `/workspace`: the `workspace` folder's tree, then every
    /// `sandbox_files` entry at `/workspace/<path as written>` (as Claw-Eval places them).
    /// Guest paths, sorted.
    pub fn workspace_files(&self) -> Result<Files, FileError> {
        let mut out = BTreeMap::new();
        if let Some(ws) = &self.task.workspace {
            let base = clean(ws).unwrap_or_default();
            for (p, b) in read_tree(&self.dir_handle, "workspace", ws)? {
                out.insert(guest("/workspace", strip(&p, &base)), b);
            }
        }
        self.add_files(
            &mut out,
            "sandbox_files",
            &self.task.sandbox_files,
            "/workspace",
        )?;
        Ok(out.into_iter().collect())
    }

    /// What the judge sees besides the final state: `sandbox_grader_files` at
    /// `/workspace/<path>` (as Claw-Eval injects them after the run) and the `judge` folder's
    /// tree under `/judge`. Guest paths, sorted.
    pub fn judge_files(&self) -> Result<Files, FileError> {
        let mut out = BTreeMap::new();
        self.add_files(
            &mut out,
            "sandbox_grader_files",
            &self.task.sandbox_grader_files,
            "/workspace",
        )?;
        if let Some(j) = &self.task.judge {
            let base = clean(j).unwrap_or_default();
            for (p, b) in read_tree(&self.dir_handle, "judge", j)? {
                out.insert(guest("/judge", strip(&p, &base)), b);
            }
        }
        Ok(out.into_iter().collect())
    }

    /// The prompt's attachments: (path as written, bytes).
    pub fn attachments(&self) -> Result<Files, FileError> {
        self.named_files("prompt.attachments", &self.task.prompt.attachments)
    }

    /// The `local_grader_files`: (path as written, bytes), for the judge only.
    pub fn local_grader_files(&self) -> Result<Files, FileError> {
        self.named_files("local_grader_files", &self.task.local_grader_files)
    }

    fn named_files(&self, name: &str, list: &[String]) -> Result<Files, FileError> {
        list.iter()
            .enumerate()
            .map(|(i, p)| {
                Ok((
                    p.clone(),
                    read_file(&self.dir_handle, &format!("{name}[{i}]"), p)?,
                ))
            })
            .collect()
    }

    fn add_files(
        &self,
        out: &mut BTreeMap<String, Vec<u8>>,
        name: &str,
        list: &[String],
        at: &str,
    ) -> Result<(), FileError> {
        for (i, p) in list.iter().enumerate() {
            // A missing file was reported when the task loaded ("referenced file missing"); as
            // in Claw-Eval, the trial goes on without it. Escapes and other problems still fail.
            let files = match read_tree(&self.dir_handle, &format!("{name}[{i}]"), p) {
                Ok(files) => files,
                Err(e) if matches!(e.problem, FileProblem::NotFound) => continue,
                Err(e) => return Err(e),
            };
            for (rel, bytes) in files {
                out.insert(guest(at, &rel), bytes);
            }
        }
        Ok(())
    }
}

fn strip<'p>(p: &'p str, base: &str) -> &'p str {
    if base.is_empty() {
        return p;
    }
    p.strip_prefix(base)
        .map(|r| r.trim_start_matches('/'))
        .unwrap_or(p)
}

fn guest(at: &str, rel: &str) -> String {
    paths::join(at, rel)
}
