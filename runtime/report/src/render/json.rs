//! The JSON report: stable field order, pretty-printed, newline-terminated. Its schema is
//! `schemas/report.schema.json` at the repository's root.

use serde::Serialize;

use crate::compare::Comparison;
use crate::summary::Summary;

/// The JSON report's format version (2: `kind`, comparisons, totals, unjudged trials left out
/// of the figures).
pub const JSON_VERSION: u32 = 2;

/// The JSON document of one run: version, kind `run`, warnings (the unjudged banner first),
/// the summary.
#[derive(Serialize)]
struct RunDocument<'a> {
    /// [`JSON_VERSION`].
    report_version: u32,
    /// `run`.
    kind: &'static str,
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
    finish(&RunDocument {
        report_version: JSON_VERSION,
        kind: "run",
        warnings: s.warnings(),
        summary: s,
    })
}

/// A comparison as JSON.
pub fn render_comparison_json(c: &Comparison) -> String {
    finish(&ComparisonDocument {
        report_version: JSON_VERSION,
        kind: "comparison",
        warnings: c.warnings(),
        comparison: c,
    })
}

/// Pretty JSON with a trailing newline.
fn finish(doc: &impl Serialize) -> String {
    let mut out = serde_json::to_string_pretty(doc).expect("a report always serialises");
    out.push('\n');
    out
}
