//! Checks over the environment snapshot: the final filesystem (with judge files added) and
//! the judge commands' output. Relative paths are under `/workspace`.

use clawrun_vfs::{NodeKind, VfsError};
use regex::Regex;
use serde_json::Value;

use super::Finding;
use super::audit::json_equal;
use crate::evidence::Evidence;
use crate::text::{guest_path, json_text, quote, truncate};

/// Why a file of the snapshot could not be read (its message is an item's evidence).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file cannot be read.
    #[error("{path}: {source}")]
    Vfs {
        /// The guest path.
        path: String,
        /// What the VFS said.
        source: VfsError,
    },
    /// The file is not JSON.
    #[error("{path}: not JSON: {source}")]
    Json {
        /// The guest path.
        path: String,
        /// The parser's complaint.
        source: serde_json::Error,
    },
}

/// The message, as evidence.
impl From<ReadError> for String {
    fn from(e: ReadError) -> String {
        e.to_string()
    }
}

/// The file at guest path `path` as text (lossy UTF-8), or why it cannot be read.
pub fn read_text(ev: &Evidence, path: &str) -> Result<String, ReadError> {
    let p = guest_path(path);
    match ev.vfs.read_file(&p) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(source) => Err(ReadError::Vfs { path: p, source }),
    }
}

/// The file at `path` parsed as JSON, or why not.
pub fn read_json(ev: &Evidence, path: &str) -> Result<Value, ReadError> {
    let text = read_text(ev, path)?;
    serde_json::from_str(&text).map_err(|source| ReadError::Json {
        path: guest_path(path),
        source,
    })
}

/// What a node is, for evidence.
fn kind_name(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::File => "file",
        NodeKind::Directory => "directory",
        NodeKind::Symlink => "symlink",
    }
}

/// What is at `path` (symlinks followed): its kind and size, if anything.
fn stat(ev: &Evidence, path: &str) -> Option<(NodeKind, u64)> {
    let ino = ev.vfs.resolve(&guest_path(path)).ok()?;
    let meta = ev.vfs.metadata(ino).ok()?;
    Some((meta.kind, meta.size))
}

/// `file_exists`: something (file or directory; symlinks followed) exists at the path.
pub fn file_exists(ev: &Evidence, path: &str) -> Finding {
    let p = guest_path(path);
    match stat(ev, path) {
        Some((kind, size)) => Finding::pass(
            true,
            format!("{p} exists ({}, {size} bytes)", kind_name(kind)),
        ),
        None => Finding::pass(false, format!("{p} does not exist")),
    }
}

/// `file_absent`: nothing exists at the path.
pub fn file_absent(ev: &Evidence, path: &str) -> Finding {
    let p = guest_path(path);
    match stat(ev, path) {
        Some((kind, _)) => Finding::pass(false, format!("{p} exists ({})", kind_name(kind))),
        None => Finding::pass(true, format!("{p} is absent")),
    }
}

/// `file_regex`: the file's content (lossy UTF-8) matches the regex.
pub fn file_regex(ev: &Evidence, path: &str, pattern: &str) -> Finding {
    let re = match Regex::new(pattern) {
        Ok(re) => re,
        Err(e) => return Finding::pass(false, format!("invalid regex /{pattern}/: {e}")),
    };
    let text = match read_text(ev, path) {
        Ok(t) => t,
        Err(e) => return Finding::pass(false, e),
    };
    let p = guest_path(path);
    match re.find(&text) {
        Some(m) => Finding::pass(
            true,
            format!("{p} matches /{pattern}/ at {}", quote(m.as_str(), 120)),
        ),
        None => Finding::pass(
            false,
            format!("{p} ({} bytes) does not match /{pattern}/", text.len()),
        ),
    }
}

/// What a `json_path` value must satisfy (every given test; none given = it exists).
#[derive(Clone, Copy, Debug, Default)]
pub struct ValueTest<'a> {
    /// Equal to this JSON value (numbers by value).
    pub equals: Option<&'a Value>,
    /// Its text (a string as is, other values as JSON) matches this regex.
    pub regex: Option<&'a str>,
    /// A number (or numeric string) within `tolerance` of this.
    pub approx: Option<f64>,
    /// Absolute tolerance for `approx` (default 1e-6).
    pub tolerance: Option<f64>,
}

/// Default absolute tolerance of `approx`.
pub const DEFAULT_TOLERANCE: f64 = 1e-6;

/// A JSON value as a number: numbers, and strings that parse once `,` `$` `%` and spaces are
/// removed.
pub fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => parse_loose_number(s),
        _ => None,
    }
}

/// Parses `s` as a number after removing `,` `$` `%` and whitespace.
pub fn parse_loose_number(s: &str) -> Option<f64> {
    let cleaned: String = s
        .chars()
        .filter(|c| !matches!(c, ',' | '$' | '%') && !c.is_whitespace())
        .collect();
    cleaned.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// Applies `test` to `value`; Err says which test failed.
fn apply(test: &ValueTest<'_>, value: &Value) -> Result<(), String> {
    if let Some(want) = test.equals
        && !json_equal(value, want)
    {
        return Err(format!("expected {want}"));
    }
    if let Some(r) = test.regex {
        let re = Regex::new(r).map_err(|e| format!("invalid regex /{r}/: {e}"))?;
        if !re.is_match(&json_text(value)) {
            return Err(format!("does not match /{r}/"));
        }
    }
    if let Some(want) = test.approx {
        let tol = test.tolerance.unwrap_or(DEFAULT_TOLERANCE);
        match as_number(value) {
            Some(x) if (x - want).abs() <= tol => {}
            Some(x) => return Err(format!("{x} is not within ±{tol} of {want}")),
            None => return Err(format!("not a number (expected ≈{want})")),
        }
    }
    Ok(())
}

/// `json_path`: the value at the RFC 6901 pointer of a JSON file passes every given test.
pub fn json_path(ev: &Evidence, path: &str, pointer: &str, test: &ValueTest<'_>) -> Finding {
    let doc = match read_json(ev, path) {
        Ok(d) => d,
        Err(e) => return Finding::pass(false, e),
    };
    let p = guest_path(path);
    let Some(value) = doc.pointer(pointer) else {
        return Finding::pass(false, format!("{p}: nothing at pointer `{pointer}`"));
    };
    let shown = truncate(&value.to_string(), 160);
    match apply(test, value) {
        Ok(()) => Finding::pass(true, format!("{p}{pointer} = {shown}: ok")),
        Err(why) => Finding::pass(false, format!("{p}{pointer} = {shown}: {why}")),
    }
}

/// Intersection over union of two intervals (each given in any order); 0 when the union is
/// empty.
pub fn iou(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (a0, a1) = (a.0.min(a.1), a.0.max(a.1));
    let (b0, b1) = (b.0.min(b.1), b.0.max(b.1));
    let inter = (a1.min(b1) - a0.max(b0)).max(0.0);
    let union = (a1.max(b1) - a0.min(b0)).max(0.0);
    if union <= 0.0 {
        // Two identical points overlap fully.
        return if a0 == b0 && a1 == b1 { 1.0 } else { 0.0 };
    }
    inter / union
}

/// The interval at `value`: `[start, end]` (numbers or numeric strings) or `{start, end}`.
fn interval(value: &Value) -> Option<(f64, f64)> {
    match value {
        Value::Array(a) if a.len() == 2 => Some((as_number(&a[0])?, as_number(&a[1])?)),
        Value::Object(o) => Some((as_number(o.get("start")?)?, as_number(o.get("end")?)?)),
        _ => None,
    }
}

/// `interval_iou`: the interval at the pointer against the expected one. Score 1 when IoU ≥
/// `min_iou`, else IoU / `min_iou` (partial credit that reaches 1 at the threshold).
pub fn interval_iou(
    ev: &Evidence,
    path: &str,
    pointer: &str,
    expected: (f64, f64),
    min_iou: f64,
) -> Finding {
    let doc = match read_json(ev, path) {
        Ok(d) => d,
        Err(e) => return Finding::pass(false, e),
    };
    let p = guest_path(path);
    let Some(value) = doc.pointer(pointer) else {
        return Finding::pass(false, format!("{p}: nothing at pointer `{pointer}`"));
    };
    let Some(got) = interval(value) else {
        return Finding::pass(
            false,
            format!(
                "{p}{pointer} = {} is not a [start, end] pair of numbers",
                truncate(&value.to_string(), 120)
            ),
        );
    };
    let v = iou(got, expected);
    let score = if v >= min_iou || min_iou <= 0.0 {
        1.0
    } else {
        v / min_iou
    };
    Finding::scored(
        score,
        format!(
            "{p}{pointer} = [{}, {}] vs expected [{}, {}]: IoU {v:.3} (min {min_iou})",
            got.0, got.1, expected.0, expected.1
        ),
    )
}

/// A Bash tool output without its trailing `[exit code: N]` line.
fn strip_exit_line(output: &str) -> &str {
    let trimmed = output.trim_end();
    match trimmed.rsplit_once('\n') {
        Some((rest, last)) if last.starts_with("[exit code: ") => rest,
        None if trimmed.starts_with("[exit code: ") => "",
        _ => output,
    }
}

/// `command`: the judge command ran in the Judge phase (found in `evidence.commands` by its
/// text), exited with `exit`, and its output (the Bash tool's, exit line removed) matches
/// `stdout_regex`. Unjudged when the command did not run.
pub fn command(ev: &Evidence, command: &str, exit: u64, stdout_regex: Option<&str>) -> Finding {
    let Some(out) = ev
        .commands
        .iter()
        .find(|c| c.command == command)
        .or_else(|| {
            ev.commands
                .iter()
                .find(|c| c.command.trim() == command.trim())
        })
    else {
        return Finding::unjudged(format!(
            "judge command `{}` did not run (no output recorded)",
            truncate(command, 120)
        ));
    };
    // The tool adds the exit line only for a non-zero status; the status itself travels beside
    // the output, so text that merely looks like an exit line changes nothing.
    let stdout = if out.exit_code != 0 {
        strip_exit_line(&out.output)
    } else {
        out.output.as_str()
    };
    let mut problems = Vec::new();
    if i64::from(out.exit_code) != exit as i64 {
        problems.push(format!("exit {} (expected {exit})", out.exit_code));
    }
    if let Some(r) = stdout_regex {
        match Regex::new(r) {
            Ok(re) if re.is_match(stdout) => {}
            Ok(_) => problems.push(format!("output does not match /{r}/")),
            Err(e) => problems.push(format!("invalid regex /{r}/: {e}")),
        }
    }
    let cut = if out.truncated > 0 {
        format!(
            " (output cut by the tool's cap: {} more characters)",
            out.truncated
        )
    } else {
        String::new()
    };
    let head = format!(
        "`{}` exited {}; output {}{cut}",
        truncate(command, 120),
        out.exit_code,
        quote(stdout.trim(), 200)
    );
    if problems.is_empty() {
        Finding::pass(true, format!("{head}: ok"))
    } else {
        Finding::pass(false, format!("{head}: {}", problems.join("; ")))
    }
}
