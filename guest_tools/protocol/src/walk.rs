//! Deterministic recursive file listing shared by Glob and Grep.

use std::fs;

use crate::path::ToolPath;

/// Version-control metadata directories that are never descended into (unless they are the
/// root of the walk itself), like ripgrep with `--hidden`.
pub const SKIPPED_DIRS: &[&str] = &[".git", ".hg", ".svn", ".jj"];

/// A file found by [`walk_files`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkEntry {
    /// The file's path (filesystem and display form).
    pub path: ToolPath,
    /// The path relative to the walk root, `/`-separated.
    pub relative: String,
}

/// Lists every file under `root` recursively, sorted by display path.
///
/// Hidden files are included; [`SKIPPED_DIRS`] are not entered. Symbolic links to files are
/// listed, symbolic links to directories are not followed (no cycles). Unreadable directories
/// are skipped silently. Names that are not valid UTF-8 are converted lossily.
pub fn walk_files(root: &ToolPath) -> Vec<WalkEntry> {
    let mut files = Vec::new();
    let mut pending = vec![(root.clone(), String::new())];
    while let Some((dir, relative)) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir.fs) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let child_relative = if relative.is_empty() {
                name.clone()
            } else {
                format!("{relative}/{name}")
            };
            let child = dir.join(&name);
            if file_type.is_dir() {
                if !SKIPPED_DIRS.contains(&name.as_str()) {
                    pending.push((child, child_relative));
                }
            } else if file_type.is_file()
                || (file_type.is_symlink() && fs::metadata(&child.fs).is_ok_and(|m| m.is_file()))
            {
                files.push(WalkEntry {
                    path: child,
                    relative: child_relative,
                });
            }
        }
    }
    files.sort_by(|a, b| a.path.display.cmp(&b.path.display));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_files_sorted_and_skips_vcs_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::create_dir_all(root.join(".git/objects")).unwrap();
        fs::write(root.join("a/b/c.txt"), "c").unwrap();
        fs::write(root.join("a.txt"), "a").unwrap();
        fs::write(root.join(".hidden"), "h").unwrap();
        fs::write(root.join(".git/HEAD"), "ref").unwrap();

        let root_path = ToolPath::resolve(root.to_str().unwrap(), "");
        let rel: Vec<_> = walk_files(&root_path)
            .into_iter()
            .map(|e| e.relative)
            .collect();
        assert_eq!(rel, [".hidden", "a.txt", "a/b/c.txt"]);

        let git = ToolPath::resolve(root.to_str().unwrap(), ".git");
        let rel: Vec<_> = walk_files(&git).into_iter().map(|e| e.relative).collect();
        assert_eq!(rel, ["HEAD"]);
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_dirs_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("d")).unwrap();
        fs::write(root.join("d/f"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("d"), root.join("loop")).unwrap();
        std::os::unix::fs::symlink(root.join("d/f"), root.join("link")).unwrap();
        let root_path = ToolPath::resolve(root.to_str().unwrap(), "");
        let rel: Vec<_> = walk_files(&root_path)
            .into_iter()
            .map(|e| e.relative)
            .collect();
        assert_eq!(rel, ["d/f", "link"]);
    }
}
