//! The JSON report: stable field order, pretty-printed, newline-terminated.

use serde::Serialize;

use crate::summary::Summary;

/// The JSON report's format version.
pub const JSON_VERSION: u32 = 1;

/// The JSON document: version, warnings (the unjudged banner first), the summary.
#[derive(Serialize)]
struct Document<'a> {
    /// [`JSON_VERSION`].
    report_version: u32,
    /// [`Summary::warnings`].
    warnings: Vec<String>,
    /// Everything else.
    summary: &'a Summary,
}

/// The report as JSON.
pub fn render_json(s: &Summary) -> String {
    let doc = Document {
        report_version: JSON_VERSION,
        warnings: s.warnings(),
        summary: s,
    };
    let mut out = serde_json::to_string_pretty(&doc).expect("a summary always serialises");
    out.push('\n');
    out
}
