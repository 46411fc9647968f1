//! The `Read` tool: show a text file with `cat -n` style line numbers, a PDF's text page by
//! page, or an image to the model.
//!
//! Semantics follow Claude Code's `Read`: `offset` is the 1-based first line (default 1),
//! `limit` the number of lines (default [`DEFAULT_LIMIT`]), lines longer than
//! [`text::MAX_LINE_CHARS`] are clipped. Binary files are described, not dumped. When the
//! numbered lines would not fit in the protocol's output cap, Read stops at a whole line and says
//! which `offset` continues, so the model can page instead of losing the tail.
//!
//! A PDF (by its `%PDF-` signature or a `.pdf` name) is shown as its pages' text, extracted
//! here in the sandbox and laid out as on the page, in `--- page N ---` sections; `pages`
//! picks some ([`pdf`]). A PNG, JPEG, GIF or WebP image comes back as an image in the
//! response's `images`, with a one-line description as the text ([`image`]).

#![warn(missing_docs)]

pub mod image;
pub mod pdf;

use std::fs;
use std::io::ErrorKind;

use clawrun_tool_protocol::fsutil::describe_io_error;
use clawrun_tool_protocol::text::{self, Decoded};
use clawrun_tool_protocol::{MAX_OUTPUT_CHARS, Output, State, lenient};
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
    /// PDF pages to show: `"3"`, `"1-3"`, `"2,5-7"`, `"4-"` (default: all).
    #[serde(default)]
    pub pages: Option<Pages>,
}

/// The `pages` argument: a selection string, or a bare page number.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Pages {
    /// `"1-3"`.
    Text(String),
    /// `2`.
    Number(u64),
}

impl Pages {
    /// The selection as text; `None` when it is blank.
    fn spec(&self) -> Option<String> {
        match self {
            Pages::Text(s) if s.trim().is_empty() => None,
            Pages::Text(s) => Some(s.clone()),
            Pages::Number(n) => Some(n.to_string()),
        }
    }
}

/// Runs `Read`.
pub fn read(args: ReadArgs, state: &State) -> Result<Output, String> {
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
    let pages = args.pages.as_ref().and_then(Pages::spec);
    let named_pdf = path.display.to_ascii_lowercase().ends_with(".pdf");
    if clawrun_pdf::is_pdf(&bytes) || (named_pdf && !bytes.is_empty()) {
        return pdf::read(&path, &bytes, pages.as_deref()).map(Output::from);
    }
    if pages.is_some() {
        return Err(format!(
            "Read: \"pages\" applies only to PDF files, and {path} is not a PDF"
        ));
    }
    if let Some(format) = image::sniff(&bytes) {
        return image::read(&path, &bytes, format);
    }
    if image::has_image_extension(&path.display) && !bytes.is_empty() {
        return Err(format!(
            "{path} is named like an image but is not a PNG, JPEG, GIF or WebP file"
        ));
    }
    Ok(text_file(&path, &bytes, args.offset, limit).into())
}

/// A text file as numbered lines (binary files described).
fn text_file(
    path: &clawrun_tool_protocol::ToolPath,
    bytes: &[u8],
    offset: Option<usize>,
    limit: usize,
) -> String {
    let text = match text::decode(bytes) {
        Decoded::Binary => {
            return format!(
                "Binary file {path} ({} bytes) cannot be displayed as text",
                bytes.len()
            );
        }
        Decoded::Text(text) => text,
    };
    if text.is_empty() {
        return format!("Warning: the file {path} exists but the contents are empty.");
    }
    let lines: Vec<&str> = text::split_lines(&text).collect();
    let first = offset.unwrap_or(1).max(1);
    if first > lines.len() {
        return format!(
            "Warning: the file {path} exists but is shorter than the provided offset ({first}). \
             The file has {} lines.",
            lines.len()
        );
    }
    render(&lines, first, limit)
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
