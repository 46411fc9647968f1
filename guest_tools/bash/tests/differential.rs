//! Differential test: every command in `tests/corpus.txt` runs through our shell and through
//! the host's real `/bin/bash -c` (with `LC_ALL=C TZ=UTC`), each in a fresh copy of the same
//! fixture tree (`tests/fixture/`). Stdout, the exit status and the resulting files must be
//! identical (after replacing each run's directory with `<DIR>` and normalising `ls -l` owners
//! and times).
//!
//! Set `DIFF_FILTER=substring` to run only matching commands, `DIFF_VERBOSE=1` to print all.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use clawrun_tool_bash::io::{Input, Io, Stream};

/// The fixture tree every command starts from (CSV, JSON, JSONL, logs, a small source tree,
/// a directory with a space in its name, a dotfile and an empty file).
fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture")
}

/// Copies the fixture tree into `root`.
fn write_fixture(root: &Path) {
    fn copy(from: &Path, to: &Path) {
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let (src, dst) = (e.path(), to.join(e.file_name()));
            if e.file_type().unwrap().is_dir() {
                std::fs::create_dir(&dst).unwrap();
                copy(&src, &dst);
            } else {
                std::fs::copy(&src, &dst).unwrap();
            }
        }
    }
    copy(&fixture_dir(), root);
}

/// Snapshot of a tree: relative path -> file content (or `<dir>` / `<link target>`).
fn snapshot(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_symlink() {
                let t = std::fs::read_link(&p).unwrap();
                out.insert(rel, format!("<link {}>", t.display()));
            } else if meta.is_dir() {
                out.insert(rel.clone(), "<dir>".to_owned());
                walk(root, &p, out);
            } else {
                let data = std::fs::read(&p).unwrap();
                out.insert(rel, String::from_utf8_lossy(&data).into_owned());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Replaces owner/group and time columns of `ls -l` lines so both sides compare equal.
fn normalise(text: &str, dir: &str) -> String {
    let ls_line = regex::Regex::new(
        r"(?m)^([-dlcbps][rwxsStT-]{9}[.+]?)\s+(\d+)\s+\S+\s+\S+\s+(\d+)\s+\w{3}\s+\d+\s+[\d:]+\s",
    )
    .unwrap();
    let text = text.replace(dir, "<DIR>");
    ls_line
        .replace_all(&text, "$1 $2 OWNER GROUP $3 TIME ")
        .into_owned()
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
    let out = Command::new("/bin/bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir.path())
        .env_clear()
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("HOME", "/root")
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("USER", "user")
        .env("SHELL", "/bin/bash")
        .env("PWD", &dir_str)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Outcome {
        stdout: normalise(&String::from_utf8_lossy(&out.stdout), &dir_str),
        status: out.status.code().unwrap_or(-1),
        files: snapshot(dir.path()),
    }
}

fn corpus() -> Vec<String> {
    let text = include_str!("corpus.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.replace('⏎', "\n"))
        .collect()
}

#[test]
fn corpus_matches_host_bash() {
    if !Path::new("/bin/bash").exists() {
        eprintln!("skipping: /bin/bash not found");
        return;
    }
    let filter = std::env::var("DIFF_FILTER").ok();
    let verbose = std::env::var("DIFF_VERBOSE").is_ok();
    let cmds = corpus();
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
            let mut d = String::new();
            for (k, v) in &host.files {
                match ours.files.get(k) {
                    None => d.push_str(&format!("  missing in ours: {k}\n")),
                    Some(o) if o != v => d.push_str(&format!(
                        "  {k} differs:\n    bash: {v:?}\n    ours: {o:?}\n"
                    )),
                    _ => {}
                }
            }
            for k in ours.files.keys() {
                if !host.files.contains_key(k) {
                    d.push_str(&format!("  extra in ours: {k}\n"));
                }
            }
            problems.push(format!("files differ:\n{d}"));
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
