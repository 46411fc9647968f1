//! Resolving the paths models pass to tools.

use std::fmt;
use std::path::PathBuf;

/// A path argument resolved against the working directory.
///
/// `fs` is what the filesystem is asked about: the argument joined onto `cwd` unchanged, so
/// `..` is interpreted by the filesystem itself. `display` is the same path with `.` and `..`
/// removed lexically, which is what tools print back to the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolPath {
    /// The path handed to `std::fs`.
    pub fs: PathBuf,
    /// The lexically normalised absolute path shown to the model.
    pub display: String,
}

impl ToolPath {
    /// Resolves `path` against `cwd`; absolute paths are taken as they are.
    pub fn resolve(cwd: &str, path: &str) -> Self {
        let joined = if path.starts_with('/') || cwd.is_empty() {
            path.to_owned()
        } else if path.is_empty() {
            cwd.to_owned()
        } else {
            format!("{}/{path}", cwd.trim_end_matches('/'))
        };
        ToolPath {
            display: normalize_lexically(&joined),
            fs: PathBuf::from(joined),
        }
    }

    /// A child of this path (`name` may contain `/`).
    pub fn join(&self, name: &str) -> Self {
        ToolPath {
            fs: self.fs.join(name),
            display: if self.display.ends_with('/') {
                format!("{}{name}", self.display)
            } else {
                format!("{}/{name}", self.display)
            },
        }
    }
}

impl fmt::Display for ToolPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display)
    }
}

/// Removes empty, `.` and `..` components without touching the filesystem.
///
/// `..` at the root stays at the root (`/..` is `/`); a relative path keeps leading `..`s.
/// An empty relative result is `.`.
pub fn normalize_lexically(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for component in path.split('/') {
        match component {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_dots() {
        assert_eq!(normalize_lexically("/workspace/./a/../b/"), "/workspace/b");
        assert_eq!(normalize_lexically("/a//b"), "/a/b");
        assert_eq!(normalize_lexically("/../.."), "/");
        assert_eq!(normalize_lexically("/"), "/");
        assert_eq!(normalize_lexically("a/../.."), "..");
        assert_eq!(normalize_lexically("./"), ".");
    }

    #[test]
    fn resolves_relative_and_absolute() {
        let p = ToolPath::resolve("/workspace", "src/../lib.rs");
        assert_eq!(p.display, "/workspace/lib.rs");
        assert_eq!(p.fs, PathBuf::from("/workspace/src/../lib.rs"));

        let p = ToolPath::resolve("/workspace/", "/etc/./hosts");
        assert_eq!(p.display, "/etc/hosts");
        assert_eq!(p.fs, PathBuf::from("/etc/./hosts"));

        let p = ToolPath::resolve("/workspace", "");
        assert_eq!(p.display, "/workspace");

        let p = ToolPath::resolve("/", "a");
        assert_eq!(p.display, "/a");
        assert_eq!(p.fs, PathBuf::from("/a"));
    }

    #[test]
    fn join_handles_root() {
        let root = ToolPath::resolve("/", "");
        assert_eq!(root.join("x/y").display, "/x/y");
        let ws = ToolPath::resolve("/workspace", ".");
        assert_eq!(ws.join("a").display, "/workspace/a");
    }
}
