//! A suite of tasks on disk, read only through a `cap_std` capability for its root folder:
//! discovery, loading (checking and hashing the files a task references), and
//! suite-relative files such as service fixtures.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use crate::error::{Diagnostic, Error, FileError, FileProblem, problem};
use crate::ids::duplicate_ids;
use crate::load::{node_at, sorted_in};
use crate::loaded::LoadedTask;
use crate::model::Task;
use crate::paths::{Files, clean, join, read_file, read_tree};
use crate::refs::{Refs, escape_message};
use crate::sidecar::SIDECAR_FILE;
use crate::source::{Report, Source, Sources};

/// The name of a task's file.
pub const TASK_FILE: &str = "task.yaml";

/// Tasks loaded from a selection of folders ([`Suite::load_selection`]).
#[derive(Debug)]
pub struct Selection {
    /// The tasks that loaded and whose ids are unique, in the order of the folders given.
    pub tasks: Vec<LoadedTask>,
    /// Why the others did not load; repeated ids come last, as one error.
    pub errors: Vec<Error>,
}

/// A suite root: the folder that holds `tasks/` (or any tree of task folders).
#[derive(Clone, Debug)]
pub struct Suite {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    root: Dir,
    /// Where [`Suite::open`] opened it (for messages).
    path: Option<PathBuf>,
    /// The task folders, found once.
    found: OnceLock<Vec<String>>,
}

impl Suite {
    /// Opens the suite root at `path` (the one use of ambient authority).
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let root = Dir::open_ambient_dir(path, ambient_authority()).map_err(|e| Error::Io {
            file: path.display().to_string(),
            problem: problem(&e),
        })?;
        let mut suite = Self::from_dir(root);
        if let Some(inner) = Arc::get_mut(&mut suite.inner) {
            inner.path = Some(path.to_path_buf());
        }
        Ok(suite)
    }

    /// A suite over an already opened folder.
    pub fn from_dir(root: Dir) -> Self {
        Self {
            inner: Arc::new(Inner {
                root,
                path: None,
                found: OnceLock::new(),
            }),
        }
    }

    /// The folder the suite was opened at, as given to [`Suite::open`] (for messages that
    /// name it in a command to type); `None` for a suite made from a capability.
    pub fn path(&self) -> Option<&Path> {
        self.inner.path.as_deref()
    }

    /// The root folder's capability.
    pub fn dir(&self) -> &Dir {
        &self.inner.root
    }

    /// Every task folder of the suite (relative paths, sorted): with a `tasks/` folder,
    /// `tasks/ID/task.yaml` and `tasks/GROUP/ID/task.yaml`; without one, `ID/task.yaml` and
    /// `GROUP/ID/task.yaml` under the root (`""` if the root itself is a task). Nothing deeper
    /// is searched ([`TASK_DEPTH`]), nor inside a task folder; hidden folders and symlinked
    /// folders are skipped.
    pub fn discover(&self) -> Result<Vec<String>, Error> {
        if let Some(found) = self.inner.found.get() {
            return Ok(found.clone());
        }
        let mut found = Vec::new();
        let root = self.inner.root.try_clone().map_err(|e| io("", &e))?;
        // A suite root holds `tasks/` (Claw-Eval's layout): search only there, so a repository
        // used as the suite root (with build output, vendored copies, test fixtures) is not
        // walked; a folder without `tasks/` is searched whole.
        match root.open_dir(TASKS_DIR) {
            Ok(tasks)
                if !root
                    .symlink_metadata(TASKS_DIR)
                    .is_ok_and(|m| m.is_symlink()) =>
            {
                find_tasks(&tasks, TASKS_DIR, &mut found, TASK_DEPTH)?
            }
            _ => find_tasks(&root, "", &mut found, TASK_DEPTH)?,
        }
        found.sort();
        Ok(self.inner.found.get_or_init(|| found).clone())
    }

    /// The folder of the task whose folder is named `task_id` (the first, sorted, if several).
    pub fn find(&self, task_id: &str) -> Result<Option<String>, Error> {
        Ok(self
            .discover()?
            .into_iter()
            .find(|d| d.rsplit('/').next() == Some(task_id)))
    }

    /// Loads every discovered task; the errors of all failing tasks (and repeated task ids)
    /// are collected into one.
    pub fn load_all(&self) -> Result<Vec<LoadedTask>, Error> {
        let selection = self.load_selection(&self.discover()?);
        let mut diags = Vec::new();
        for e in selection.errors {
            match e {
                Error::Invalid(d) => diags.extend(d.into_iter().filter(Diagnostic::is_error)),
                e => return Err(e),
            }
        }
        if diags.is_empty() {
            Ok(selection.tasks)
        } else {
            Err(Error::Invalid(diags))
        }
    }

    /// Loads the task folders `dirs` (relative to the root), in order, and refuses tasks that
    /// share a task id (ASCII case ignored): every task involved in a repeat moves from
    /// [`Selection::tasks`] to one error per repeat, naming both files with the line:column
    /// of their `task_id`. The one place `clawrun run`, `validate` and `list` load a suite
    /// through.
    pub fn load_selection(&self, dirs: &[String]) -> Selection {
        let mut tasks = Vec::new();
        let mut errors = Vec::new();
        for dir in dirs {
            match self.load(dir) {
                Ok(t) => tasks.push(t),
                Err(e) => errors.push(e),
            }
        }
        let (repeats, involved) = duplicate_ids(&tasks);
        if !repeats.is_empty() {
            errors.push(Error::Invalid(repeats));
            tasks = tasks
                .into_iter()
                .enumerate()
                .filter(|(i, _)| involved.binary_search(i).is_err())
                .map(|(_, t)| t)
                .collect();
        }
        Selection { tasks, errors }
    }

    /// Parses, validates and hashes the task in folder `rel_dir` (relative to the root),
    /// merging the folder's `clawrun.yaml` sidecar into it when there is one.
    pub fn load(&self, rel_dir: &str) -> Result<LoadedTask, Error> {
        let dir = clean(rel_dir).map_err(|problem| Error::Io {
            file: rel_dir.to_string(),
            problem,
        })?;
        let handle = if dir.is_empty() {
            self.inner.root.try_clone()
        } else {
            self.inner.root.open_dir(&dir)
        }
        .map_err(|e| io(&dir, &e))?;
        let file = join(&dir, TASK_FILE);
        let text = handle
            .read_to_string(TASK_FILE)
            .map_err(|e| io(&file, &e))?;
        let side_file = join(&dir, SIDECAR_FILE);
        let side_text = match handle.read_to_string(SIDECAR_FILE) {
            Ok(t) => Some(t),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(io(&side_file, &e)),
        };
        let sidecar = side_text.as_deref().map(|t| (t, side_file.as_str()));
        let parsed = Task::from_yaml_with_sidecar(&text, &file, sidecar)?;
        let main = Source {
            file: &file,
            text: &text,
            root: &parsed.root,
        };
        let srcs = Sources::new(main, parsed.sidecar.as_ref().zip(side_text.as_deref()));
        let mut report = Report::new(&srcs);
        report.diags = parsed.warnings.clone();
        let refs = Refs {
            suite: self,
            handle: &handle,
            dir: &dir,
        };
        refs.check(&mut report, &parsed.task);
        let diags = sorted_in(report.diags, &file);
        if diags.iter().any(Diagnostic::is_error) {
            return Err(Error::Invalid(diags));
        }
        let hash = refs
            .hash(&text, side_text.as_deref(), &parsed.task)
            .map_err(|e| {
                let msg = format!("`{}`: {}", e.path, escape_message(&e.problem, "its folder"));
                let hint = "task files must be regular files or folders inside the task folder";
                let mut r = Report::new(&srcs);
                r.error(&e.field, msg, hint);
                Error::Invalid(r.diags)
            })?;
        let id_pos = node_at(&parsed.root, "task_id").and_then(|n| n.pos);
        Ok(LoadedTask {
            task: parsed.task,
            dir,
            warnings: diags,
            hash,
            sidecar: parsed.sidecar,
            id_pos,
            dir_handle: handle,
            suite: self.clone(),
        })
    }

    /// Where a suite-relative path (a service fixture path such as
    /// `tasks/T002_email_triage/fixtures/gmail/inbox.json`) really is: itself when it exists,
    /// else `tasks/<ID>/<rest>` resolved against the folder of task `<ID>` in this suite (tasks
    /// may live in group subfolders).
    pub fn resolve_suite_path(&self, rel: &str) -> Result<String, FileError> {
        let err = |problem| FileError {
            field: String::new(),
            path: rel.to_string(),
            problem,
        };
        let path = clean(rel).map_err(err)?;
        match self.inner.root.metadata(&path) {
            Ok(_) => return Ok(path),
            Err(e) if problem(&e) != FileProblem::NotFound => return Err(err(problem(&e))),
            Err(_) => {}
        }
        let mut parts = path.splitn(3, '/');
        if let (Some("tasks"), Some(id), Some(rest)) = (parts.next(), parts.next(), parts.next())
            && let Ok(Some(dir)) = self.find(id)
        {
            let moved = join(&dir, rest);
            if moved != path && self.inner.root.metadata(&moved).is_ok() {
                return Ok(moved);
            }
        }
        Err(err(FileProblem::NotFound))
    }

    /// Reads a suite-relative file (see [`Suite::resolve_suite_path`]).
    pub fn read_suite_file(&self, rel: &str) -> Result<Vec<u8>, FileError> {
        let path = self.resolve_suite_path(rel)?;
        read_file(&self.inner.root, "", &path).map_err(|e| FileError {
            path: rel.to_string(),
            ..e
        })
    }

    /// Reads a suite-relative file or folder tree (paths relative to the suite root).
    pub fn read_suite_tree(&self, rel: &str) -> Result<Files, FileError> {
        let path = self.resolve_suite_path(rel)?;
        read_tree(&self.inner.root, "", &path)
    }
}

fn io(file: &str, e: &std::io::Error) -> Error {
    Error::Io {
        file: if file.is_empty() {
            ".".into()
        } else {
            file.to_string()
        },
        problem: problem(e),
    }
}

/// The folder of a suite root that holds the tasks.
pub const TASKS_DIR: &str = "tasks";

/// Folder levels searched for task folders below the tasks folder (`tasks/`, or the root
/// without one): `ID/task.yaml` and `GROUP/ID/task.yaml`, the layouts of Claw-Eval's checkout
/// and of the bundled suite.
pub const TASK_DEPTH: usize = 2;

/// Appends the task folders at or under `dir` (named `prefix` relative to the root), at most
/// `levels` folders down, to `out`.
fn find_tasks(dir: &Dir, prefix: &str, out: &mut Vec<String>, levels: usize) -> Result<(), Error> {
    if dir.metadata(TASK_FILE).is_ok_and(|m| m.is_file()) {
        out.push(prefix.to_string());
        return Ok(());
    }
    if levels == 0 {
        return Ok(());
    }
    let mut subs = Vec::new();
    for entry in dir.entries().map_err(|e| io(prefix, &e))? {
        let entry = entry.map_err(|e| io(prefix, &e))?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            subs.push(name);
        }
    }
    subs.sort();
    for name in subs {
        let path = join(prefix, &name);
        let sub = dir.open_dir(&name).map_err(|e| io(&path, &e))?;
        find_tasks(&sub, &path, out, levels - 1)?;
    }
    Ok(())
}
