//! What both Bash differential tests share (the native one in this crate and the one that runs
//! the component in clawrun's sandbox, which includes this file by path): the corpus, the
//! fixture tree, the host's `/bin/bash` invocation, snapshots and normalisation, and comparing
//! the two sides command by command.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::LazyLock;

/// The commands of `corpus.txt` in `dir`: one per line, `⏎` for a newline, `#` comments and
/// blank lines skipped.
pub fn corpus(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("corpus.txt")).expect("corpus.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.replace('⏎', "\n"))
        .collect()
}

/// Copies the tree `from` into the existing folder `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            std::fs::create_dir(&dst).unwrap();
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// A tree as relative path -> normalised content, `<dir>` or `<link TARGET>`.
pub fn snapshot(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let root_str = root.to_string_lossy();
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            let value = if meta.is_symlink() {
                format!("<link {}>", std::fs::read_link(&p).unwrap().display())
            } else if meta.is_dir() {
                walk(root, &p, out);
                "<dir>".to_string()
            } else {
                String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned()
            };
            out.insert(rel, normalise(&value, &root_str));
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Replaces the run's directory with `<DIR>`, bash's `/bin/bash: [-c: ]line N: ` message prefix
/// with ours (`bash: `), and the owner/group and time columns of `ls -l` lines.
pub fn normalise(text: &str, dir: &str) -> String {
    static LS_LINE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r"(?m)^([-dlcbps][rwxsStT-]{9}[.+]?)\s+(\d+)\s+\S+\s+\S+\s+(\d+)\s+\w{3}\s+\d+\s+[\d:]+\s",
        )
        .unwrap()
    });
    static BASH_PREFIX: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"(?m)^/bin/bash: (-c: )?line \d+: ").unwrap());
    let text = text.replace(dir, "<DIR>");
    let text = BASH_PREFIX.replace_all(&text, "bash: ");
    LS_LINE
        .replace_all(&text, "$1 $2 OWNER GROUP $3 TIME ")
        .into_owned()
}

/// `/bin/bash -c cmd` in `dir` with the environment our shell starts with (C locale, UTC).
pub fn host_bash(cmd: &str, dir: &Path) -> Command {
    let mut c = Command::new("/bin/bash");
    c.arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env_clear()
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("HOME", "/root")
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("USER", "user")
        .env("SHELL", "/bin/bash")
        .env("PWD", dir)
        .stdin(Stdio::null());
    c
}

/// A readable list of how two snapshots differ.
pub fn files_diff(host: &BTreeMap<String, String>, ours: &BTreeMap<String, String>) -> String {
    let mut d = String::new();
    for (k, v) in host {
        match ours.get(k) {
            None => d.push_str(&format!("  missing in ours: {k}\n")),
            Some(o) if o != v => d.push_str(&format!(
                "  {k} differs:\n    bash: {v:?}\n    ours: {o:?}\n"
            )),
            _ => {}
        }
    }
    for k in ours.keys().filter(|k| !host.contains_key(*k)) {
        d.push_str(&format!("  extra in ours: {k}\n"));
    }
    d
}

/// What a command left, on either side: the text shown, the exit status and the files (relative
/// path -> content, `<dir>` or `<link TARGET>`), all normalised.
pub struct Outcome {
    /// Stdout (native test) or the tool's text, stdout and stderr interleaved (sandbox test).
    pub text: String,
    /// The exit status.
    pub status: i32,
    /// The tree the command left.
    pub files: BTreeMap<String, String>,
}

/// How `ours` differs from `host`, one line (or block) per difference; empty if they agree.
pub fn differences(host: &Outcome, ours: &Outcome) -> Vec<String> {
    let mut problems = Vec::new();
    if ours.text != host.text {
        problems.push(format!(
            "output differs:\n--- bash\n{}\n--- ours\n{}",
            host.text, ours.text
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
    problems
}

/// Runs `compare` (the differences found) on each command of `cmds` that `DIFF_FILTER` (a
/// substring) selects and `skip` does not, printing the failing ones (all with `DIFF_VERBOSE`).
/// Returns how many were compared and the failing commands.
pub fn compare_corpus(
    cmds: &[String],
    skip: impl Fn(&str) -> bool,
    mut compare: impl FnMut(&str) -> Vec<String>,
) -> (usize, Vec<String>) {
    let filter = std::env::var("DIFF_FILTER").ok();
    let verbose = std::env::var("DIFF_VERBOSE").is_ok();
    let mut failures = Vec::new();
    let mut compared = 0;
    for cmd in cmds {
        if filter.as_ref().is_some_and(|f| !cmd.contains(f.as_str())) || skip(cmd) {
            continue;
        }
        compared += 1;
        let problems = compare(cmd);
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
    (compared, failures)
}
