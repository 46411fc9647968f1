//! Relative paths as tasks write them, and reading them through a capability (`cap_std` `Dir`)
//! so nothing outside the folder is ever read.

use cap_std::fs::Dir;

use crate::error::{FileError, FileProblem, problem};

/// A path relative to some folder, checked lexically: not absolute, no `..` that climbs above
/// the folder; `.` and empty segments dropped. `""` is the folder itself.
pub fn clean(p: &str) -> Result<String, FileProblem> {
    if p.starts_with('/') || p.starts_with('\\') || p.as_bytes().get(1) == Some(&b':') {
        return Err(FileProblem::Absolute);
    }
    if p.contains('\0') || p.contains('\\') {
        return Err(FileProblem::BadPath);
    }
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(FileProblem::Escapes);
                }
            }
            s => parts.push(s),
        }
    }
    Ok(parts.join("/"))
}

/// `a/b` from `a` and `b` (either may be empty).
pub fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}/{b}"),
    }
}

/// Files read from a folder: (path relative to the folder, bytes), sorted by path.
pub type Files = Vec<(String, Vec<u8>)>;

/// Reads the file or the whole tree at `path` (cleaned, relative to `dir`). Files come back
/// with their paths relative to `dir`. Symlinks are followed only while they stay in `dir`;
/// symlinked folders inside a tree are refused.
pub fn read_tree(dir: &Dir, field: &str, path: &str) -> Result<Files, FileError> {
    let err = |problem| FileError {
        field: field.to_string(),
        path: path.to_string(),
        problem,
    };
    let rel = clean(path).map_err(err)?;
    let meta = if rel.is_empty() {
        dir.dir_metadata()
    } else {
        dir.metadata(&rel)
    }
    .map_err(|e| err(problem(&e)))?;
    let mut out = Vec::new();
    if meta.is_dir() {
        let sub = if rel.is_empty() {
            dir.try_clone()
        } else {
            dir.open_dir(&rel)
        }
        .map_err(|e| err(problem(&e)))?;
        walk(&sub, &rel, field, &mut out)?;
    } else {
        let bytes = dir.read(&rel).map_err(|e| err(problem(&e)))?;
        out.push((rel, bytes));
    }
    out.sort();
    Ok(out)
}

/// Reads one file at `path` (cleaned, relative to `dir`).
pub fn read_file(dir: &Dir, field: &str, path: &str) -> Result<Vec<u8>, FileError> {
    let err = |problem| FileError {
        field: field.to_string(),
        path: path.to_string(),
        problem,
    };
    let rel = clean(path).map_err(err)?;
    if rel.is_empty() {
        return Err(err(FileProblem::WrongKind("a file, found a folder")));
    }
    dir.read(&rel).map_err(|e| err(problem(&e)))
}

fn walk(dir: &Dir, prefix: &str, field: &str, out: &mut Files) -> Result<(), FileError> {
    let err = |path: &str, problem| FileError {
        field: field.to_string(),
        path: path.to_string(),
        problem,
    };
    let mut entries = Vec::new();
    for entry in dir.entries().map_err(|e| err(prefix, problem(&e)))? {
        let entry = entry.map_err(|e| err(prefix, problem(&e)))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            let shown = join(prefix, &name.to_string_lossy());
            return Err(err(&shown, FileProblem::BadPath));
        };
        let kind = entry
            .file_type()
            .map_err(|e| err(&join(prefix, name), problem(&e)))?;
        entries.push((name.to_string(), kind));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in entries {
        let path = join(prefix, &name);
        if kind.is_dir() {
            let sub = dir.open_dir(&name).map_err(|e| err(&path, problem(&e)))?;
            walk(&sub, &path, field, out)?;
            continue;
        }
        if kind.is_symlink() {
            // Follow it, confined to `dir`: a link out of the folder is an error.
            let meta = dir.metadata(&name).map_err(|e| err(&path, problem(&e)))?;
            if meta.is_dir() {
                return Err(err(
                    &path,
                    FileProblem::WrongKind("a file (symlinked folders are not copied)"),
                ));
            }
        }
        let bytes = dir.read(&name).map_err(|e| err(&path, problem(&e)))?;
        out.push((path, bytes));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning() {
        assert_eq!(
            clean("fixtures/./a//b.json"),
            Ok("fixtures/a/b.json".into())
        );
        assert_eq!(clean("a/../b"), Ok("b".into()));
        assert_eq!(clean("../../etc/passwd"), Err(FileProblem::Escapes));
        assert_eq!(clean("a/../../b"), Err(FileProblem::Escapes));
        assert_eq!(clean("/etc/passwd"), Err(FileProblem::Absolute));
        assert_eq!(clean("C:/x"), Err(FileProblem::Absolute));
        assert_eq!(clean(""), Ok(String::new()));
    }
}
