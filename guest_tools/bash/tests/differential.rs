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

use host_bash::{copy_tree, files_diff, normalise, snapshot};

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Copies the fixture tree into `root`.
fn write_fixture(root: &Path) {
    copy_tree(&tests_dir().join("fixture"), root);
}

struct Outcome {
    stdout: String,
    status: i32,
    files: BTreeMap<String, String>,
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
        stdout: normalise(&String::from_utf8_lossy(&r.output), &dir_str),
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
        stdout: normalise(&String::from_utf8_lossy(&out.stdout), &dir_str),
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
    let filter = std::env::var("DIFF_FILTER").ok();
    let verbose = std::env::var("DIFF_VERBOSE").is_ok();
    let cmds = host_bash::corpus(&tests_dir());
    assert!(cmds.len() >= 150, "corpus has only {} commands", cmds.len());
    let mut failures = Vec::new();
    let mut ran = 0;
    for cmd in &cmds {
        if filter.as_ref().is_some_and(|f| !cmd.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        let ours = run_ours(cmd);
        let host = run_host(cmd);
        let mut problems = Vec::new();
        if ours.stdout != host.stdout {
            problems.push(format!(
                "stdout differs:\n--- bash\n{}\n--- ours\n{}",
                host.stdout, ours.stdout
            ));
        }
        if ours.status != host.status {
            problems.push(format!("status: bash {} ours {}", host.status, ours.status));
        }
        if ours.files != host.files {
            problems.push(format!(
                "files differ:\n{}",
                files_diff(&host.files, &ours.files)
            ));
        }
        if verbose || !problems.is_empty() {
            eprintln!(
                "{} {cmd}\n{}",
                if problems.is_empty() { "ok  " } else { "FAIL" },
                problems.join("\n")
            );
        }
        if !problems.is_empty() {
            failures.push(cmd.clone());
        }
    }
    eprintln!("differential: {} commands, {} failed", ran, failures.len());
    assert!(
        failures.is_empty(),
        "failing commands:\n{}",
        failures.join("\n")
    );
}
