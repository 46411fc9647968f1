//! The `Edit` tool: exact string replacement in a text file.
//!
//! Semantics follow Claude Code's `Edit`: `old_string` must occur exactly once unless
//! `replace_all` is set; an empty `old_string` creates a new file (or fills an empty one).
//! When the file uses CRLF line endings and `old_string` (written with `\n`) only matches after
//! converting it to CRLF, both strings are converted, so the file keeps its line endings.
//! On success the output shows a `cat -n` snippet around the first replacement.

#![warn(missing_docs)]

use std::fs;
use std::io::ErrorKind;

use clawrun_tool_protocol::fsutil::describe_io_error;
use clawrun_tool_protocol::{State, ToolPath, lenient, text};
use serde::Deserialize;

/// Lines of context shown before and after the edited region.
pub const SNIPPET_CONTEXT_LINES: usize = 4;

/// Maximum number of lines in the success snippet.
pub const SNIPPET_MAX_LINES: usize = 40;

/// Arguments of `Edit`.
#[derive(Debug, Deserialize)]
pub struct EditArgs {
    /// File to edit (absolute, or relative to the working directory).
    pub file_path: String,
    /// The exact text to replace.
    pub old_string: String,
    /// The replacement text (must differ from `old_string`).
    pub new_string: String,
    /// Replace every occurrence instead of requiring a unique one.
    #[serde(default, deserialize_with = "lenient::opt_bool")]
    pub replace_all: Option<bool>,
}

/// Runs `Edit`.
pub fn edit(args: EditArgs, state: &State) -> Result<String, String> {
    if args.file_path.is_empty() {
        return Err("Edit: \"file_path\" must not be empty".into());
    }
    if args.old_string == args.new_string {
        return Err("No changes to make: old_string and new_string are exactly the same.".into());
    }
    let path = state.resolve(&args.file_path);
    match fs::metadata(&path.fs) {
        Ok(meta) if meta.is_dir() => return Err(format!("{path} is a directory")),
        Ok(_) => {}
        Err(err) if matches!(err.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return if args.old_string.is_empty() {
                create(&path, &args.new_string)
            } else {
                Err(format!("File does not exist: {path}"))
            };
        }
        Err(err) => return Err(format!("Cannot read {path}: {}", describe_io_error(&err))),
    }
    let bytes = fs::read(&path.fs)
        .map_err(|err| format!("Cannot read {path}: {}", describe_io_error(&err)))?;
    let content = String::from_utf8(bytes)
        .map_err(|_| format!("{path} is not valid UTF-8 text; Edit only edits text files"))?;

    if args.old_string.is_empty() {
        if !content.is_empty() {
            return Err(format!(
                "Cannot create {path}: the file already exists and is not empty. \
                 Give a non-empty old_string to edit it, or use Write to replace it."
            ));
        }
        return create(&path, &args.new_string);
    }

    let (old, new) =
        matching_strings(&content, &args.old_string, &args.new_string).ok_or_else(|| {
            format!(
                "old_string not found in {path}. It must match the file exactly, \
                 including whitespace and indentation."
            )
        })?;
    let occurrences = content.matches(old.as_str()).count();
    let replace_all = args.replace_all.unwrap_or(false);
    if occurrences > 1 && !replace_all {
        return Err(format!(
            "old_string occurs {occurrences} times in {path}, but replace_all is false. \
             Add more surrounding context to old_string to make it unique, \
             or set replace_all to true to replace every occurrence."
        ));
    }
    let first = content.find(old.as_str()).unwrap_or(0);
    let updated = if replace_all {
        content.replace(old.as_str(), &new)
    } else {
        content.replacen(old.as_str(), &new, 1)
    };
    fs::write(&path.fs, &updated)
        .map_err(|err| format!("Cannot write {path}: {}", describe_io_error(&err)))?;

    let replacements = if replace_all { occurrences } else { 1 };
    let plural = if replacements == 1 { "" } else { "s" };
    Ok(format!(
        "The file {path} has been updated ({replacements} replacement{plural}). \
         Here's the result of running `cat -n` on a snippet of the edited file:\n{}",
        snippet(&updated, first, new.len())
    ))
}

/// The `(old, new)` pair to apply: the strings as given when `old` occurs in `content`, or both
/// converted to CRLF when only that form occurs. `None` when neither occurs.
fn matching_strings(content: &str, old: &str, new: &str) -> Option<(String, String)> {
    if content.contains(old) {
        return Some((old.to_owned(), new.to_owned()));
    }
    if content.contains("\r\n") && old.contains('\n') && !old.contains("\r\n") {
        let crlf_old = old.replace('\n', "\r\n");
        if content.contains(&crlf_old) {
            return Some((crlf_old, new.replace("\r\n", "\n").replace('\n', "\r\n")));
        }
    }
    None
}

/// Creates `path` (and its parent directories) with `content`.
fn create(path: &ToolPath, content: &str) -> Result<String, String> {
    if let Some(parent) = path.fs.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|err| {
            format!(
                "Cannot create parent directories of {path}: {}",
                describe_io_error(&err)
            )
        })?;
    }
    fs::write(&path.fs, content)
        .map_err(|err| format!("Cannot write {path}: {}", describe_io_error(&err)))?;
    Ok(format!("File created: {path} ({} bytes)", content.len()))
}

/// `cat -n` lines around the replacement that starts at byte `start` and is `len` bytes long.
fn snippet(content: &str, start: usize, len: usize) -> String {
    let lines: Vec<&str> = text::split_lines(content).collect();
    if lines.is_empty() {
        return "(the file is now empty)".into();
    }
    let first_line = content[..start].matches('\n').count();
    let last_line = content[..start + len].matches('\n').count();
    let from = first_line.saturating_sub(SNIPPET_CONTEXT_LINES);
    let to = (last_line + SNIPPET_CONTEXT_LINES).min(lines.len() - 1);
    let shown = (to + 1 - from).min(SNIPPET_MAX_LINES);
    let mut out = text::numbered(from + 1, lines[from..from + shown].iter().copied());
    if from + shown <= to {
        out.push_str("\n... (snippet truncated)");
    }
    out
}
