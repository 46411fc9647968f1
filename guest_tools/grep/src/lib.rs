//! The `Grep` tool: ripgrep-like regex search over files.
//!
//! Semantics follow Claude Code's `Grep` (which wraps ripgrep):
//! - `pattern` uses Rust `regex` syntax (what ripgrep uses); `-i` makes it case-insensitive and
//!   `multiline` lets matches span lines with `.` matching newlines (`rg -U --multiline-dotall`).
//! - `path` is a file or a directory (searched recursively in sorted order; binary files and
//!   version-control directories are skipped). `glob` and `type` filter the files of a directory
//!   search.
//! - `output_mode` is `files_with_matches` (default: `Found N files` then one path per line),
//!   `content` (`path:line`, `path:lineno:line` with `-n`, context lines `path-lineno-line`, `--`
//!   between non-adjacent groups) or `count` (`path:count`, counting matching lines).
//! - `-n` defaults to true, as in Claude Code; `-A`/`-B` override `-C`.
//! - `head_limit` keeps the first N output lines/entries (`| head -N`); `0` means no limit.
//!
//! Paths are always printed, absolute, even when `path` names a single file.

#![warn(missing_docs)]

mod filter;
mod render;
mod search;
mod types;

use std::fs;

use clawrun_tool_protocol::walk::walk_files;
use clawrun_tool_protocol::{State, lenient};
use regex::RegexBuilder;
use serde::Deserialize;

pub use types::FILE_TYPES;

/// Which form of result `Grep` prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// Matching lines, with optional line numbers and context.
    Content,
    /// Paths of files with at least one match.
    #[default]
    FilesWithMatches,
    /// Number of matching lines per file.
    Count,
}

/// Arguments of `Grep`, named as Claude Code names them (`-i`, `-A`, ...) or as Claw-Eval's
/// sandbox does (`case_insensitive`, `after_context`, ...).
#[derive(Debug, Deserialize)]
pub struct GrepArgs {
    /// The regular expression.
    pub pattern: String,
    /// File or directory to search (default: the working directory).
    #[serde(default)]
    pub path: Option<String>,
    /// Glob(s) restricting which files are searched, e.g. `*.rs`, `*.{ts,tsx}`, `!**/gen/**`.
    /// Several globs may be given separated by whitespace.
    #[serde(default)]
    pub glob: Option<String>,
    /// Output form (default `files_with_matches`).
    #[serde(default)]
    pub output_mode: Option<OutputMode>,
    /// Case-insensitive matching.
    #[serde(
        rename = "-i",
        alias = "case_insensitive",
        default,
        deserialize_with = "lenient::opt_bool"
    )]
    pub case_insensitive: Option<bool>,
    /// Show line numbers in `content` mode (default true).
    #[serde(rename = "-n", default, deserialize_with = "lenient::opt_bool")]
    pub line_numbers: Option<bool>,
    /// Lines of context after each match (`content` mode).
    #[serde(
        rename = "-A",
        alias = "after_context",
        default,
        deserialize_with = "lenient::opt_usize"
    )]
    pub after: Option<usize>,
    /// Lines of context before each match (`content` mode).
    #[serde(
        rename = "-B",
        alias = "before_context",
        default,
        deserialize_with = "lenient::opt_usize"
    )]
    pub before: Option<usize>,
    /// Lines of context before and after each match (`content` mode).
    #[serde(
        rename = "-C",
        alias = "context_lines",
        default,
        deserialize_with = "lenient::opt_usize"
    )]
    pub context: Option<usize>,
    /// Keep only the first N output lines / entries.
    #[serde(default, deserialize_with = "lenient::opt_usize")]
    pub head_limit: Option<usize>,
    /// ripgrep file type, e.g. `rust`, `py`, `js` (see [`FILE_TYPES`]).
    #[serde(rename = "type", default)]
    pub file_type: Option<String>,
    /// Let matches span lines.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub multiline: Option<bool>,
}

/// Runs `Grep`.
pub fn grep(args: GrepArgs, state: &State) -> Result<String, String> {
    if args.pattern.is_empty() {
        return Err("Grep: \"pattern\" must not be empty".into());
    }
    let multiline = args.multiline.unwrap_or(false);
    let regex = RegexBuilder::new(&args.pattern)
        .case_insensitive(args.case_insensitive.unwrap_or(false))
        .multi_line(true)
        .dot_matches_new_line(multiline)
        .build()
        .map_err(|err| format!("Invalid regex pattern \"{}\": {err}", args.pattern))?;
    let filter = filter::FileFilter::new(args.glob.as_deref(), args.file_type.as_deref())?;

    let root = state.resolve(args.path.as_deref().unwrap_or(""));
    let files = match fs::metadata(&root.fs) {
        Ok(meta) if meta.is_dir() => walk_files(&root)
            .into_iter()
            .filter(|entry| filter.accepts(&entry.relative))
            .map(|entry| entry.path)
            .collect(),
        Ok(_) => vec![root],
        Err(_) => return Err(format!("Path does not exist: {root}")),
    };

    let mode = args.output_mode.unwrap_or_default();
    let head_limit = args.head_limit.filter(|&n| n > 0);
    let options = render::Options {
        line_numbers: args.line_numbers.unwrap_or(true),
        before: args.before.or(args.context).unwrap_or(0),
        after: args.after.or(args.context).unwrap_or(0),
    };
    let mut out = render::Output::new(mode, options, head_limit);
    for path in files {
        if out.is_full() {
            break;
        }
        let Ok(bytes) = fs::read(&path.fs) else {
            continue;
        };
        if let Some(found) = search::search(&bytes, &regex, multiline) {
            out.add_file(&path.display, &found);
        }
    }
    Ok(out.finish())
}
