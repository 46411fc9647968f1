//! The `Read` tool: show a text file with `cat -n` style line numbers.
//!
//! Semantics follow Claude Code's `Read`: `offset` is the 1-based first line (default 1),
//! `limit` the number of lines (default [`DEFAULT_LIMIT`]), lines longer than
//! [`text::MAX_LINE_CHARS`] are clipped. Binary files are described, not dumped. When the
//! numbered lines would not fit in the protocol's output cap, Read stops at a whole line and says
//! which `offset` continues, so the model can page instead of losing the tail.

#![warn(missing_docs)]

use std::fs;
use std::io::ErrorKind;

use clawrun_tool_protocol::fsutil::describe_io_error;
use clawrun_tool_protocol::text::{self, Decoded};
use clawrun_tool_protocol::{MAX_OUTPUT_CHARS, State, lenient};
use serde::Deserialize;

/// Number of lines shown when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 2000;

/// Characters kept free in the output cap for the trailing paging note.
const NOTE_RESERVE: usize = 200;

/// Arguments of `Read`.
#[derive(Debug, Deserialize)]
pub struct ReadArgs {
    /// File to read (absolute, or relative to the working directory).
    pub file_path: String,
    /// 1-based number of the first line to show; `0` is treated as `1`.
    #[serde(default, deserialize_with = "lenient::opt_usize")]
    pub offset: Option<usize>,
    /// Maximum number of lines to show.
    #[serde(default, deserialize_with = "lenient::opt_usize")]
    pub limit: Option<usize>,
}

/// Runs `Read`.
pub fn read(args: ReadArgs, state: &State) -> Result<String, String> {
    if args.file_path.is_empty() {
        return Err("Read: \"file_path\" must not be empty".into());
    }
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 {
        return Err("Read: \"limit\" must be at least 1".into());
    }
    let path = state.resolve(&args.file_path);
    match fs::metadata(&path.fs) {
        Ok(meta) if meta.is_dir() => return Err(format!("{path} is a directory")),
        Ok(_) => {}
        Err(err) if matches!(err.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return Err(format!("File does not exist: {path}"));
        }
        Err(err) => return Err(format!("Cannot read {path}: {}", describe_io_error(&err))),
    }
    let bytes = fs::read(&path.fs)
        .map_err(|err| format!("Cannot read {path}: {}", describe_io_error(&err)))?;
    let text = match text::decode(&bytes) {
        Decoded::Binary => {
            return Ok(format!(
                "Binary file {path} ({} bytes) cannot be displayed as text",
                bytes.len()
            ));
        }
        Decoded::Text(text) => text,
    };
    if text.is_empty() {
        return Ok(format!(
            "Warning: the file {path} exists but the contents are empty."
        ));
    }
    let lines: Vec<&str> = text::split_lines(&text).collect();
    let first = args.offset.unwrap_or(1).max(1);
    if first > lines.len() {
        return Ok(format!(
            "Warning: the file {path} exists but is shorter than the provided offset ({first}). \
             The file has {} lines.",
            lines.len()
        ));
    }
    Ok(render(&lines, first, limit))
}

/// Numbers `lines[first-1 ..]`, at most `limit` of them, within the output cap.
fn render(lines: &[&str], first: usize, limit: usize) -> String {
    let budget = MAX_OUTPUT_CHARS - NOTE_RESERVE;
    let wanted_last = (first - 1 + limit).min(lines.len());
    let mut out = String::new();
    let mut used = 0;
    let mut last = first - 1;
    for (index, line) in lines.iter().enumerate().take(wanted_last).skip(first - 1) {
        let mut formatted = String::new();
        text::push_numbered_line(&mut formatted, index + 1, line);
        let chars = formatted.chars().count();
        if used + chars > budget && last >= first {
            break;
        }
        used += chars;
        out.push_str(&formatted);
        last = index + 1;
    }
    out.pop(); // the final newline
    if last < lines.len() {
        let reason = if last < wanted_last {
            "output size limit reached"
        } else {
            "line limit reached"
        };
        out.push_str(&format!(
            "\n\n(Showing lines {first}-{last} of {total}; {reason}. \
             Use offset={next} to read more.)",
            total = lines.len(),
            next = last + 1
        ));
    }
    out
}
