//! The commit clawrun is built from, for `clawrun --version` (`clawrun 0.1.0 (401b58b
//! 2026-11-25)`): read from git when the package folder is the top of a git work tree, else
//! from the `.cargo_vcs_info.json` that `cargo package` writes (a crates.io download: the
//! commit without its date), else none (a tarball without `.git`: `clawrun 0.1.0`).
//!
//! Shared by `build.rs` and the test of the fallback (`tests/it/cli_conventions.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The commit the sources come from.
#[derive(Debug, PartialEq, Eq)]
pub struct Commit {
    /// Its abbreviated hash.
    pub hash: String,
    /// Its committer date, `YYYY-MM-DD`, when known.
    pub date: Option<String>,
}

/// `git ARGS` in `root`, trimmed stdout when it succeeds and prints something.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        // Only the folder decides which repository is read.
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_COMMON_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The commit checked out in the git work tree whose top folder is `root` (a folder inside
/// another repository, e.g. an unpacked tarball, gives none), with the files whose change
/// means another commit (for `cargo:rerun-if-changed`; only files that exist).
pub fn from_git(root: &Path) -> Option<(Commit, Vec<PathBuf>)> {
    let top = PathBuf::from(git(root, &["rev-parse", "--show-toplevel"])?);
    if top.canonicalize().ok()? != root.canonicalize().ok()? {
        return None;
    }
    let hash = git(root, &["rev-parse", "--short=7", "HEAD"])?;
    let date = git(root, &["log", "-1", "--format=%cs", "HEAD"]);
    let mut watch = Vec::new();
    if let Some(dir) = git(root, &["rev-parse", "--absolute-git-dir"]) {
        watch.push(PathBuf::from(&dir).join("HEAD"));
        // Relative to the folder git ran in (`.git` in a plain clone; absolute in a worktree).
        let common = git(root, &["rev-parse", "--git-common-dir"])
            .map(|c| root.join(c))
            .unwrap_or_else(|| PathBuf::from(&dir));
        // On a branch, the branch's ref moves with each commit (loose, or packed).
        if let Some(branch) = git(root, &["symbolic-ref", "-q", "HEAD"]) {
            watch.push(common.join(branch));
        }
        watch.push(common.join("packed-refs"));
    }
    watch.retain(|p| p.is_file());
    Some((Commit { hash, date }, watch))
}

/// The commit recorded by `cargo package` in `root/.cargo_vcs_info.json`
/// (`{"git": {"sha1": "..."}, ...}`).
pub fn from_vcs_info(root: &Path) -> Option<Commit> {
    let text = std::fs::read_to_string(root.join(".cargo_vcs_info.json")).ok()?;
    let after = &text[text.find("\"sha1\"")? + "\"sha1\"".len()..];
    let start = after.find('"')? + 1;
    let sha: String = after[start..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (sha.len() >= 7).then(|| Commit {
        hash: sha[..7].to_string(),
        date: None,
    })
}

/// The version text after the program name: `0.1.0 (401b58b 2026-11-25)`, `0.1.0 (401b58b)`
/// without a date, `0.1.0` without a commit.
pub fn version_text(package_version: &str, commit: Option<&Commit>) -> String {
    match commit {
        Some(Commit {
            hash,
            date: Some(date),
        }) => format!("{package_version} ({hash} {date})"),
        Some(Commit { hash, date: None }) => format!("{package_version} ({hash})"),
        None => package_version.to_string(),
    }
}
