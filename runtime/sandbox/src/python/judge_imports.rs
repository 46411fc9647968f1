//! What the Judge phase's `python3` may import (README, "Evaluation integrity").
//!
//! Judge commands run from `/workspace`, so CPython's own rules would put the agent's folder
//! first on `sys.path`, and load a `__pycache__` file beside a sealed grader file instead of
//! its source. During the Judge phase the interpreter instead runs `judge_imports.py` before
//! anything else: every folder outside the read-only standard library yields only the task's
//! sealed grader `.py` files (by exact path and sealed content, compiled from source), the
//! folders on their way are namespace packages, and no bytecode cache is read or written.
//! The standard library, built-in and frozen modules import as always; so a grader importing
//! its sibling sealed files works unchanged, and a module the agent wrote is never imported.

use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::argv::py_str;
use super::runtime::STDLIB_GUEST_DIR;

/// The rule's Python source.
const GUARD: &str = include_str!("judge_imports.py");

/// The sealed grader modules of a task: each `.py` judge file's guest path and sha256.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JudgeImports {
    sealed: Vec<(String, String)>,
}

impl JudgeImports {
    /// The rule for `judge_files` (absolute guest paths and contents, as the seal places them):
    /// their `.py` files are the only modules outside the standard library.
    pub fn sealed(judge_files: &[(String, Arc<[u8]>)]) -> Self {
        let mut sealed: Vec<(String, String)> = judge_files
            .iter()
            .filter(|(path, _)| path.ends_with(".py"))
            .map(|(path, bytes)| (path.clone(), hex(&Sha256::digest(bytes))))
            .collect();
        sealed.sort();
        Self { sealed }
    }

    /// The sealed files' guest paths.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.sealed.iter().map(|(path, _)| path.as_str())
    }

    /// The statement that installs the rule, to run before anything else (an expression
    /// evaluating to `None`, for the `-c` prelude's `or` chain).
    pub(super) fn prelude(&self) -> String {
        let sealed: Vec<String> = self
            .sealed
            .iter()
            .map(|(path, hash)| format!("({}, {})", py_str(path), py_str(hash)))
            .collect();
        format!(
            "exec({}, {{'__name__': '_clawrun_judge_imports', 'STDLIB': {}, 'SEALED': [{}]}})",
            py_str(GUARD),
            py_str(STDLIB_GUEST_DIR),
            sealed.join(", ")
        )
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_python_files_are_sealed_modules_with_their_hashes() {
        let files: Vec<(String, Arc<[u8]>)> = vec![
            ("/workspace/g/helper.py".into(), Arc::from(&b"x = 1\n"[..])),
            ("/judge/expected.csv".into(), Arc::from(&b"a,b\n"[..])),
        ];
        let rule = JudgeImports::sealed(&files);
        assert_eq!(rule.paths().collect::<Vec<_>>(), ["/workspace/g/helper.py"]);
        let prelude = rule.prelude();
        assert!(prelude.starts_with("exec('"), "{prelude}");
        assert!(prelude.contains("'STDLIB': '/usr/local/lib'"), "{prelude}");
        assert!(prelude.contains(&format!(
            "('/workspace/g/helper.py', '{}')",
            hex(&Sha256::digest(b"x = 1\n"))
        )));
        assert!(!prelude.contains("expected.csv"));
    }
}
