//! Differential test: every command in `tests/corpus.txt` runs through our shell and through
//! the host's real `/bin/bash -c` (with `LC_ALL=C TZ=UTC`), each in a fresh copy of the same
//! fixture tree (`tests/fixture/`). Stdout, the exit status and the resulting files must be
//! identical (after replacing each run's directory with `<DIR>` and normalising `ls -l` owners
//! and times).
//!
//! Set `DIFF_FILTER=substring` to run only matching commands, `DIFF_VERBOSE=1` to print all.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clawrun_tool_bash::io::{Input, Io, Stream};

/// The fixture tree every command starts from (CSV, JSON, JSONL, logs, a small source tree,
/// a directory with a space in its name, a dotfile and an empty file).
mod host_bash;

use host_bash::{Outcome, compare_corpus, copy_tree, differences, normalise, snapshot};

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Copies the fixture tree into `root`.
fn write_fixture(root: &Path) {
    copy_tree(&tests_dir().join("fixture"), root);
}

fn run_ours(cmd: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let dir_str = dir.path().to_string_lossy().into_owned();
    let mut cwd = dir_str.clone();
    let mut env = BTreeMap::new();
    let out = Stream::buffer();
    let err = Stream::buffer();
    let io = Io {
        stdin: Input::empty(),
        stdout: out.clone(),
        stderr: err.clone(),
    };
    let r = clawrun_tool_bash::run_with_io(cmd, &mut cwd, &mut env, &io, &out);
    Outcome {
        text: normalise(&String::from_utf8_lossy(&r.output), &dir_str),
        status: r.status,
        files: snapshot(dir.path()),
    }
}

fn run_host(cmd: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let dir_str = dir.path().to_string_lossy().into_owned();
    let out = host_bash::host_bash(cmd, dir.path()).output().unwrap();
    Outcome {
        text: normalise(&String::from_utf8_lossy(&out.stdout), &dir_str),
        status: out.status.code().unwrap_or(-1),
        files: snapshot(dir.path()),
    }
}

#[test]
fn corpus_matches_host_bash() {
    if !Path::new("/bin/bash").exists() {
        eprintln!("skipping: /bin/bash not found");
        return;
    }
    let cmds = host_bash::corpus(&tests_dir());
    assert!(cmds.len() >= 150, "corpus has only {} commands", cmds.len());
    let (ran, failures) = compare_corpus(
        &cmds,
        |_| false,
        |cmd| differences(&run_host(cmd), &run_ours(cmd)),
    );
    eprintln!("differential: {} commands, {} failed", ran, failures.len());
    assert!(
        failures.is_empty(),
        "failing commands:\n{}",
        failures.join("\n")
    );
}
