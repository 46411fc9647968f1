//! A Claw-Eval checkout: the upstream repository's layout (`src/claw_eval/`, the package;
//! `tasks/<ID>/grader.py`, each task's grader), opened read-only.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clawrun_task::{LoadedTask, Suite};
use clawrun_vfs::Vfs;

/// Where the checkout appears inside the grading sandbox.
pub const GUEST_ROOT: &str = "/claw-eval";
/// The package folder of a checkout, relative to its root.
const PACKAGE_DIR: &str = "src/claw_eval";

/// A task's own folder as the grading sandbox holds it.
pub struct TaskFiles {
    /// (guest path, bytes) of each file.
    pub files: Vec<(String, Vec<u8>)>,
    /// The guest path of its `task.yaml`.
    pub task_yaml: String,
}

/// A Claw-Eval checkout.
#[derive(Clone)]
pub struct Checkout {
    root: PathBuf,
    suite: Suite,
}

impl Checkout {
    /// Whether `path` looks like a checkout (it holds `src/claw_eval/__init__.py`).
    pub fn is_checkout(path: &Path) -> bool {
        path.join(PACKAGE_DIR).join("__init__.py").is_file()
    }

    /// Whether the folder of `suite` looks like a checkout, as [`Checkout::is_checkout`].
    pub fn holds_checkout(suite: &Suite) -> bool {
        suite.dir().is_file(format!("{PACKAGE_DIR}/__init__.py"))
    }

    /// Opens the checkout at `path`; the error says what is missing.
    pub fn open(path: &Path) -> Result<Self> {
        if !Self::is_checkout(path) {
            bail!(
                "{} is not a Claw-Eval checkout: it has no {PACKAGE_DIR}/__init__.py (point \
                 --claw-eval at a clone of github.com/claw-eval/claw-eval, or at \
                 third_party/claw-eval in clawrun's repository)",
                path.display()
            );
        }
        let suite = Suite::open(path)
            .with_context(|| format!("opening the Claw-Eval checkout {}", path.display()))?;
        Ok(Self {
            root: path.to_path_buf(),
            suite,
        })
    }

    /// The checkout's folder on the host.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether the checkout has a grader for `task_id` (`tasks/<task_id>/grader.py`, the path
    /// Claw-Eval's registry looks at first).
    pub fn has_grader(&self, task_id: &str) -> bool {
        self.grader_rel(task_id).is_some()
    }

    /// Where `task`'s grader calls an LLM judge (`judge.evaluate...`, `judge.client`), read
    /// from its source: the grader, the peer graders it loads (`load_peer_grader("ID")`) and
    /// the checkout's grader modules it imports (`claw_eval.graders.NAME`, and within the
    /// graders package `from .NAME import`), each once. Entries
    /// name the file and the call; empty when no path through the grader reaches a judge.
    /// A static reading: a call behind a condition counts.
    pub fn judge_uses(&self, task: &LoadedTask) -> Vec<String> {
        let first = match task.read_task_file("grader.py") {
            Ok(bytes) => (format!("{}/grader.py", task.dir), bytes),
            Err(_) => match self.grader_rel(&task.task.task_id) {
                Some(rel) => match self.suite.read_suite_file(&rel) {
                    Ok(bytes) => (rel, bytes),
                    Err(_) => return Vec::new(),
                },
                None => return Vec::new(),
            },
        };
        let mut seen = std::collections::BTreeSet::new();
        let mut queue = vec![first];
        let mut uses = Vec::new();
        while let Some((name, bytes)) = queue.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            for call in [
                "judge.evaluate_actions",
                "judge.evaluate_visual",
                "judge.client",
            ] {
                if text.contains(call) {
                    uses.push(format!("{name}: {call}"));
                }
            }
            if text
                .match_indices("judge.evaluate")
                .any(|(i, _)| !text[i + "judge.evaluate".len()..].starts_with('_'))
            {
                uses.push(format!("{name}: judge.evaluate"));
            }
            for peer in quoted_after(&text, "load_peer_grader(") {
                let rel = format!("tasks/{peer}/grader.py");
                if let Ok(bytes) = self.suite.read_suite_file(&rel) {
                    queue.push((rel, bytes));
                }
            }
            // `from .visual_grader import ...` inside the graders package (webpage_grader.py).
            let relative: Vec<String> = if name.starts_with(&format!("{PACKAGE_DIR}/graders/")) {
                words_after(&text, "from .")
                    .into_iter()
                    .chain(words_after(&text, "from . import "))
                    .collect()
            } else {
                Vec::new()
            };
            for module in words_after(&text, "claw_eval.graders.")
                .into_iter()
                .chain(relative)
            {
                if matches!(module.as_str(), "base" | "registry" | "llm_judge") {
                    continue;
                }
                let rel = format!("{PACKAGE_DIR}/graders/{module}.py");
                if let Ok(bytes) = self.suite.read_suite_file(&rel) {
                    queue.push((rel, bytes));
                }
            }
        }
        uses.sort();
        uses.dedup();
        uses
    }

    fn grader_rel(&self, task_id: &str) -> Option<String> {
        let rel = format!("tasks/{task_id}/grader.py");
        // Through the checkout's capability, as every other read of it.
        self.suite.dir().is_file(&rel).then_some(rel)
    }

    /// The layer every grading starts from: the package at `/claw-eval/src/claw_eval` and every
    /// task folder's `task.yaml` and `grader.py` (graders load their peers' by task id; a peer
    /// folder may hold only its grader).
    pub fn base_layer(&self) -> Result<Vfs> {
        let mut vfs = Vfs::new();
        let package = self
            .suite
            .read_suite_tree(PACKAGE_DIR)
            .map_err(|e| anyhow::anyhow!("reading the Claw-Eval package: {e}"))?;
        for (rel, bytes) in package {
            put(&mut vfs, &format!("{GUEST_ROOT}/{rel}"), &bytes)?;
        }
        let mut folders: Vec<String> = match self.suite.dir().read_dir("tasks") {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .filter_map(|e| e.file_name().into_string().ok())
                .collect(),
            Err(e) => bail!("listing {}/tasks: {e}", self.root.display()),
        };
        folders.sort();
        for folder in folders {
            for name in ["task.yaml", "grader.py"] {
                let rel = format!("tasks/{folder}/{name}");
                if let Ok(bytes) = self.suite.read_suite_file(&rel) {
                    put(&mut vfs, &format!("{GUEST_ROOT}/{rel}"), &bytes)?;
                }
            }
        }
        Ok(vfs)
    }

    /// `task`'s own folder as clawrun loaded it, at `/claw-eval/tasks/<folder name>`, with the
    /// checkout's grader placed in it when the folder has none.
    pub fn task_files(&self, task: &LoadedTask) -> Result<TaskFiles> {
        let name = task
            .dir
            .rsplit('/')
            .next()
            .filter(|n| !n.is_empty())
            .unwrap_or(&task.task.task_id);
        let task_dir = format!("{GUEST_ROOT}/tasks/{name}");
        let own = task
            .suite()
            .read_suite_tree(&task.dir)
            .map_err(|e| anyhow::anyhow!("reading the task folder {}: {e}", task.dir))?;
        let mut files: Vec<(String, Vec<u8>)> = own
            .into_iter()
            .map(|(rel, bytes)| {
                let inside = rel
                    .strip_prefix(&task.dir)
                    .map(|r| r.trim_start_matches('/').to_string())
                    .unwrap_or(rel);
                (format!("{task_dir}/{inside}"), bytes)
            })
            .collect();
        let grader = format!("{task_dir}/grader.py");
        if !files.iter().any(|(p, _)| p == &grader) {
            let Some(rel) = self.grader_rel(&task.task.task_id) else {
                bail!(
                    "the Claw-Eval checkout {} has no grader for {} (tasks/{}/grader.py)",
                    self.root.display(),
                    task.task.task_id,
                    task.task.task_id
                );
            };
            let bytes = self
                .suite
                .read_suite_file(&rel)
                .map_err(|e| anyhow::anyhow!("reading the checkout's {rel}: {e}"))?;
            files.push((grader, bytes));
        }
        Ok(TaskFiles {
            files,
            task_yaml: format!("{task_dir}/task.yaml"),
        })
    }
}

/// The string literals right after each `prefix` (`load_peer_grader("T001zh")` gives
/// `T001zh`).
fn quoted_after(text: &str, prefix: &str) -> Vec<String> {
    text.match_indices(prefix)
        .filter_map(|(i, _)| {
            let rest = &text[i + prefix.len()..];
            let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let end = rest[1..].find(quote)?;
            Some(rest[1..1 + end].to_string())
        })
        .collect()
}

/// The identifiers right after each `prefix` (`claw_eval.graders.pinbench_common` gives
/// `pinbench_common`).
fn words_after(text: &str, prefix: &str) -> Vec<String> {
    text.match_indices(prefix)
        .map(|(i, _)| {
            text[i + prefix.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Writes `bytes` at `path` in `vfs`, making its folders.
pub(crate) fn put(vfs: &mut Vfs, path: &str, bytes: &[u8]) -> Result<()> {
    if let Some((dir, _)) = path.rsplit_once('/') {
        vfs.create_dir_all(dir)?;
    }
    vfs.write_file(path, bytes)?;
    Ok(())
}
