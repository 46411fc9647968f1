//! The files a task references: checking them at load time (confinement, existence, service
//! fixtures exposed in /workspace) and hashing them.

use std::collections::BTreeMap;

use cap_std::fs::Dir;

use crate::error::{FileError, FileProblem, problem};
use crate::model::Task;
use crate::paths::{Files, clean, join, read_tree};
use crate::sidecar::SIDECAR_FILE;
use crate::source::Report;
use crate::suite::{Suite, TASK_FILE};

/// Environment variables of a `services:` entry that name fixture paths (relative to the
/// suite root).
pub fn is_path_var(var: &str) -> bool {
    var.ends_with("_FIXTURES") || var.ends_with("_DIR")
}

/// A file a task references that its suite does not hold ([`LoadedTask::missing_files`]).
///
/// [`LoadedTask::missing_files`]: crate::LoadedTask::missing_files
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingFile {
    /// The field that names it (`sandbox_files[0]`, `services[1].env.GMAIL_FIXTURES`).
    pub field: String,
    /// The path as written in the field.
    pub written: String,
    /// Where the suite should hold it, relative to the suite root
    /// (`tasks/M090_video_movie_qa_wedding/fixtures/video.mp4`).
    pub path: String,
    /// Whether the path, relative to the task folder, starts with `tasks/` as a suite-relative
    /// path would: such a file is never found, by Claw-Eval either (its trials run without it).
    pub misplaced: bool,
}

/// The task's file references, checked and hashed.
pub(crate) struct Refs<'a> {
    /// The suite.
    pub suite: &'a Suite,
    /// The task folder.
    pub handle: &'a Dir,
    /// Its path relative to the suite root.
    pub dir: &'a str,
}

/// The task-relative file references: (field path, path as written).
pub(crate) fn task_refs(task: &Task) -> Vec<(String, &str)> {
    let mut out = Vec::new();
    let lists = [
        ("sandbox_files", &task.sandbox_files),
        ("sandbox_grader_files", &task.sandbox_grader_files),
        ("local_grader_files", &task.local_grader_files),
        ("prompt.attachments", &task.prompt.attachments),
    ];
    for (name, items) in lists {
        for (i, p) in items.iter().enumerate() {
            out.push((format!("{name}[{i}]"), p.as_str()));
        }
    }
    for (name, v) in [("workspace", &task.workspace), ("judge", &task.judge)] {
        if let Some(p) = v {
            out.push((name.to_string(), p.as_str()));
        }
    }
    out
}

impl Refs<'_> {
    /// Checks every reference, recording diagnostics (each in the file of its field).
    pub fn check(&self, r: &mut Report<'_>, task: &Task) {
        if let Some(folder) = self.dir.rsplit('/').next().filter(|f| !f.is_empty())
            && folder != task.task_id
        {
            r.warn(
                "task_id",
                format!("`{}` differs from the folder name `{folder}`", task.task_id),
                "Claw-Eval's task ids equal their folder names; rename one",
            );
        }
        for (field, path) in task_refs(task) {
            let want_dir = field == "workspace" || field == "judge";
            match self.stat(path) {
                Ok(is_dir) if want_dir && !is_dir => r.error(
                    &field,
                    format!("`{path}` is a file, not a folder"),
                    format!("`{field}:` names a folder relative to the task folder"),
                ),
                Ok(_) => {}
                Err(FileProblem::NotFound) => {
                    let mut hint = "the task still loads; trials run without this file".to_string();
                    if path.starts_with("tasks/") {
                        hint = "the path looks relative to the suite root, but task files are \
                                relative to the task folder (Claw-Eval never found it either)"
                            .into();
                    }
                    r.warn(&field, format!("referenced file missing: `{path}`"), hint);
                }
                Err(p) => r.error(
                    &field,
                    format!("`{path}`: {}", escape_message(&p, "the task folder")),
                    "name a file inside the task folder, relative to it (no `..`, no absolute paths, no symlinks out)",
                ),
            }
        }
        self.check_services(r, task);
    }

    /// The referenced files (and folders) the suite does not hold, in field order: the
    /// task-relative references, then the services' fixture paths. References with other
    /// problems (escaping the folder, ...) are not listed: loading reports them.
    pub fn missing(&self, task: &Task) -> Vec<MissingFile> {
        let mut out = Vec::new();
        for (field, written) in task_refs(task) {
            if let (Err(FileProblem::NotFound), Ok(rel)) = (self.stat(written), clean(written)) {
                out.push(MissingFile {
                    field,
                    written: written.to_string(),
                    path: join(self.dir, &rel),
                    misplaced: rel.starts_with("tasks/"),
                });
            }
        }
        for (i, s) in task.services.iter().enumerate() {
            for (var, value) in &s.env {
                if !is_path_var(var) || value.is_empty() {
                    continue;
                }
                if let (
                    Err(FileError {
                        problem: FileProblem::NotFound,
                        ..
                    }),
                    Ok(path),
                ) = (self.suite.resolve_suite_path(value), clean(value))
                {
                    out.push(MissingFile {
                        field: format!("services[{i}].env.{var}"),
                        written: value.clone(),
                        path,
                        misplaced: false,
                    });
                }
            }
        }
        out
    }

    /// Whether `path` (task-relative) is a folder; its problem otherwise.
    fn stat(&self, path: &str) -> Result<bool, FileProblem> {
        let rel = clean(path)?;
        let meta = if rel.is_empty() {
            self.handle.dir_metadata()
        } else {
            self.handle.metadata(&rel)
        };
        meta.map(|m| m.is_dir()).map_err(|e| problem(&e))
    }

    fn check_services(&self, r: &mut Report<'_>, task: &Task) {
        // Suite-relative fixture paths, for the exposure warning.
        let mut fixtures: Vec<(String, String, String)> = Vec::new();
        for (i, s) in task.services.iter().enumerate() {
            for (var, value) in &s.env {
                if !is_path_var(var) || value.is_empty() {
                    continue;
                }
                let field = format!("services[{i}].env.{var}");
                match self.suite.resolve_suite_path(value) {
                    Ok(p) => fixtures.push((p, s.name.clone(), var.clone())),
                    Err(FileError { problem: FileProblem::NotFound, .. }) => r.warn(
                        &field,
                        format!("referenced file missing: `{value}`"),
                        "fixture paths are relative to the suite root (the folder holding `tasks/`)",
                    ),
                    Err(e) => r.error(
                        &field,
                        format!("`{value}`: {}", escape_message(&e.problem, "the suite root")),
                        "name a fixture inside the suite, relative to its root",
                    ),
                }
            }
        }
        for (i, p) in task.sandbox_files.iter().enumerate() {
            let Ok(rel) = clean(p) else { continue };
            if self.stat(&rel).is_err() {
                continue;
            }
            let full = join(self.dir, &rel);
            for (fx, service, var) in &fixtures {
                if full == *fx || full.starts_with(&format!("{fx}/")) {
                    let field = format!("sandbox_files[{i}]");
                    r.warn(
                        &field,
                        format!(
                            "`{p}` is also the fixture of service `{service}` ({var}): it exposes \
                             the service's data in /workspace; an agent can skip the service"
                        ),
                        "drop it from sandbox_files unless the task means the agent to read it directly",
                    );
                    break;
                }
            }
        }
    }

    /// The task's hash over task.yaml, the sidecar's text `side` (when there is one) and
    /// every referenced file; a referenced file that exists but cannot be read (a symlink out
    /// of a folder tree, ...) is an error naming its field.
    pub fn hash(
        &self,
        text: &str,
        side: Option<&str>,
        task: &Task,
    ) -> Result<blake3::Hash, FileError> {
        let mut entries: BTreeMap<(String, String), Option<blake3::Hash>> = BTreeMap::new();
        entries.insert(
            (TASK_FILE.into(), String::new()),
            Some(blake3::hash(text.as_bytes())),
        );
        if let Some(side) = side {
            entries.insert(
                (SIDECAR_FILE.into(), String::new()),
                Some(blake3::hash(side.as_bytes())),
            );
        }
        let label = |f: &str| f.split('[').next().unwrap_or(f).to_string();
        for (field, path) in task_refs(task) {
            let files = read_tree(self.handle, &field, path);
            add(&mut entries, &label(&field), path, files)?;
        }
        for (i, s) in task.services.iter().enumerate() {
            for (var, value) in &s.env {
                if is_path_var(var) && !value.is_empty() {
                    let label = format!("services.env.{var}");
                    let files = self.suite.read_suite_tree(value);
                    // Paths inside a fixture tree, relative to it, so the hash does not depend
                    // on where the suite keeps the task.
                    let files = files.map(|fs| {
                        let base = self.suite.resolve_suite_path(value).unwrap_or_default();
                        fs.into_iter()
                            .map(|(p, b)| (p.strip_prefix(&base).unwrap_or(&p).to_string(), b))
                            .collect()
                    });
                    add(&mut entries, &label, value, files).map_err(|e| FileError {
                        field: format!("services[{i}].env.{var}"),
                        ..e
                    })?;
                }
            }
        }
        let mut h = blake3::Hasher::new();
        h.update(b"clawrun-task v1\0");
        for ((label, path), content) in &entries {
            h.update(label.as_bytes());
            h.update(b"\0");
            h.update(path.as_bytes());
            h.update(b"\0");
            match content {
                Some(c) => h.update(c.as_bytes()),
                None => h.update(b"missing"),
            };
        }
        Ok(h.finalize())
    }
}

type Entries = BTreeMap<(String, String), Option<blake3::Hash>>;

fn add(
    entries: &mut Entries,
    label: &str,
    path: &str,
    files: Result<Files, FileError>,
) -> Result<(), FileError> {
    match files {
        Ok(files) => {
            for (p, bytes) in files {
                let key = (label.to_string(), format!("{path}\0{p}"));
                entries.insert(key, Some(blake3::hash(&bytes)));
            }
        }
        Err(FileError {
            problem: FileProblem::NotFound,
            ..
        }) => {
            entries.insert((label.to_string(), path.to_string()), None);
        }
        Err(e) => return Err(e),
    }
    Ok(())
}

pub(crate) fn escape_message(p: &FileProblem, scope: &str) -> String {
    match p {
        FileProblem::Escapes => format!("leads outside {scope} (`..` or a symlink)"),
        FileProblem::Absolute => "absolute paths are not allowed".into(),
        other => other.to_string(),
    }
}
