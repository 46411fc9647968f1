//! The native reference Python of the Claw-Eval grader tests: CPython with the real pydantic,
//! openai and PyYAML (`scripts/pyref.sh`, which `scripts/test.sh` runs).

use std::path::PathBuf;
use std::process::Command;

/// `CLAWRUN_PYREF`, else `scripts/pyref.sh`'s venv in the target folder; panics with what to do
/// when it cannot import the packages. A relative path is taken from the repository root, so
/// tests may run it from any working directory.
pub fn reference_python() -> PathBuf {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var_os("CLAWRUN_PYREF").map_or_else(
        || {
            std::env::var_os("CARGO_TARGET_DIR")
                .map_or_else(|| repo.join("target"), PathBuf::from)
                .join("pyref/bin/python")
        },
        PathBuf::from,
    );
    let python = repo.join(python);
    let ok = Command::new(&python)
        .args(["-c", "import pydantic, openai, yaml"])
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "{} cannot import pydantic, openai and yaml: run scripts/pyref.sh (scripts/test.sh does) \
         or point CLAWRUN_PYREF at a Python that has them",
        python.display()
    );
    python
}
