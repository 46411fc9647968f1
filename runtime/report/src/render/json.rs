//! The JSON report: stable field order, pretty-printed, newline-terminated. Its schema is
//! `schemas/report.schema.json` at the repository's root.

use std::io::{self, Write};

use serde::Serialize;

use crate::compare::Comparison;
use crate::summary::Summary;

/// The JSON report's format version (2: `kind`, comparisons, totals, unjudged trials left out
/// of the figures).
pub const JSON_VERSION: u32 = 2;

/// The JSON document of one run: version, kind `run`, its folders, warnings (the unjudged banner first),
/// the summary.
#[derive(Serialize)]
struct RunDocument<'a> {
    /// [`JSON_VERSION`].
    report_version: u32,
    /// `run`.
    kind: &'static str,
    /// The run folders reported, as given (`clawrun run --json`: its `--out`).
    folders: Vec<&'a str>,
    /// [`Summary::warnings`].
    warnings: Vec<String>,
    /// Everything else.
    summary: &'a Summary,
}

/// The JSON document of a comparison.
#[derive(Serialize)]
struct ComparisonDocument<'a> {
    /// [`JSON_VERSION`].
    report_version: u32,
    /// `comparison`.
    kind: &'static str,
    /// [`Comparison::warnings`].
    warnings: Vec<String>,
    /// The arms and pairs.
    comparison: &'a Comparison,
}

/// The report as JSON.
pub fn render_json(s: &Summary) -> String {
    let mut out = Vec::new();
    write_json(s, &mut out).expect("writing to memory never fails");
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// Writes the report as JSON to `out` as it is serialised (a long run's per-trial figures are
/// never held as one string).
pub fn write_json(s: &Summary, out: impl Write) -> io::Result<()> {
    finish(
        &RunDocument {
            report_version: JSON_VERSION,
            kind: "run",
            folders: s.runs.iter().map(|r| r.folder.as_str()).collect(),
            warnings: s.warnings(),
            summary: s,
        },
        out,
    )
}

/// A comparison as JSON.
pub fn render_comparison_json(c: &Comparison) -> String {
    let mut out = Vec::new();
    write_comparison_json(c, &mut out).expect("writing to memory never fails");
    String::from_utf8(out).expect("JSON is UTF-8")
}

/// Writes a comparison as JSON to `out` as it is serialised.
pub fn write_comparison_json(c: &Comparison, out: impl Write) -> io::Result<()> {
    finish(
        &ComparisonDocument {
            report_version: JSON_VERSION,
            kind: "comparison",
            warnings: c.warnings(),
            comparison: c,
        },
        out,
    )
}

/// Pretty JSON with a trailing newline, written through a buffer.
fn finish(doc: &impl Serialize, out: impl Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(out);
    serde_json::to_writer_pretty(&mut out, doc)?;
    out.write_all(b"\n")?;
    out.flush()
}
