//! The `Glob` tool: find files by glob pattern.
//!
//! The pattern is matched against each file's path relative to `path` (default: the working
//! directory): `*`, `?` and `[...]` stay within one path component, `**` spans directories and
//! `{a,b}` is alternation. An absolute pattern, or one climbing out with `..`, is matched against
//! absolute paths instead. Only files are returned, as absolute paths.
//!
//! Claude Code sorts results by modification time; clawrun's clock is virtual, so mtimes carry
//! little information there, and Glob sorts by path for determinism.

#![warn(missing_docs)]

use std::fs;

use clawrun_tool_protocol::walk::walk_files;
use clawrun_tool_protocol::{State, ToolPath, normalize_lexically};
use globset::GlobBuilder;
use serde::Deserialize;

/// Maximum number of paths returned.
pub const MAX_RESULTS: usize = 1000;

/// Characters with a special meaning in glob patterns.
const GLOB_META: &[char] = &['*', '?', '[', ']', '{', '}', '\\'];

/// Arguments of `Glob`.
#[derive(Debug, Deserialize)]
pub struct GlobArgs {
    /// The glob pattern, e.g. `**/*.rs` or `src/*.{ts,tsx}`.
    pub pattern: String,
    /// Directory to search in (default: the working directory).
    #[serde(default)]
    pub path: Option<String>,
}

/// Runs `Glob`.
pub fn glob(args: GlobArgs, state: &State) -> Result<String, String> {
    if args.pattern.is_empty() {
        return Err("Glob: \"pattern\" must not be empty".into());
    }
    let dir = state.resolve(args.path.as_deref().unwrap_or(""));
    match fs::metadata(&dir.fs) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(format!("Path is not a directory: {dir}")),
        Err(_) => return Err(format!("Directory does not exist: {dir}")),
    }

    // Match absolute display paths against an absolute pattern: the search directory (escaped,
    // since its name is literal) joined with the model's pattern.
    let absolute_pattern = if args.pattern.starts_with('/') {
        normalize_lexically(&args.pattern)
    } else {
        let base = globset::escape(dir.display.trim_end_matches('/'));
        normalize_lexically(&format!("{base}/{}", args.pattern))
    };
    let matcher = GlobBuilder::new(&absolute_pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|err| format!("Invalid glob pattern \"{}\": {}", args.pattern, err.kind()))?
        .compile_matcher();

    let root = ToolPath::resolve("/", &literal_prefix(&absolute_pattern));
    let candidates = match fs::metadata(&root.fs) {
        Ok(meta) if meta.is_dir() => walk_files(&root).into_iter().map(|e| e.path).collect(),
        Ok(_) => vec![root],
        Err(_) => Vec::new(),
    };
    let matches: Vec<String> = candidates
        .into_iter()
        .map(|path| path.display)
        .filter(|display| matcher.is_match(display))
        .collect();

    if matches.is_empty() {
        return Ok("No files found".into());
    }
    let total = matches.len();
    let mut out = matches
        .into_iter()
        .take(MAX_RESULTS)
        .collect::<Vec<_>>()
        .join("\n");
    if total > MAX_RESULTS {
        out.push_str(&format!(
            "\n(Results are truncated: showing the first {MAX_RESULTS} of {total} files. \
             Use a more specific path or pattern.)"
        ));
    }
    Ok(out)
}

/// The leading components of an absolute pattern that contain no glob syntax: the directory
/// the walk can start from (or the file itself when the whole pattern is literal).
fn literal_prefix(pattern: &str) -> String {
    let literal: Vec<&str> = pattern
        .split('/')
        .take_while(|component| !component.contains(GLOB_META))
        .collect();
    let prefix = literal.join("/");
    if prefix.is_empty() {
        "/".into()
    } else {
        prefix
    }
}

#[cfg(test)]
mod tests {
    use super::literal_prefix;

    #[test]
    fn literal_prefix_stops_at_glob_syntax() {
        assert_eq!(literal_prefix("/workspace/src/**/*.rs"), "/workspace/src");
        assert_eq!(literal_prefix("/workspace/a.txt"), "/workspace/a.txt");
        assert_eq!(literal_prefix("/*.txt"), "/");
        assert_eq!(literal_prefix("/w/[[]x]/*"), "/w");
    }
}
