//! Output formats for a [`Summary`](crate::Summary): plain text for the terminal, JSON,
//! Markdown and a self-contained HTML page. Identical input gives byte-identical output.
//!
//! - [`columns`]: the task and aggregate tables' columns, for every output.
//! - [`rows`], [`compare_rows`], [`grader_rows`]: the table rows text and Markdown share.
//! - [`table`]: aligned plain-text columns.
//! - [`text`], [`markdown`], [`json`], [`html`]: the formats.

pub mod columns;
pub mod compare_rows;
pub mod grader_rows;
pub mod html;
pub mod json;
pub mod markdown;
pub mod rows;
pub mod table;
pub mod text;

use crate::summary::Estimate;

/// A figure with three decimals, or `-` when there is none.
pub fn num(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_string(), |x| format!("{x:.3}"))
}

/// A figure with its interval, `0.734 [0.612, 0.845]`, or `-`.
pub fn estimate(e: Option<Estimate>) -> String {
    e.map_or_else(
        || "-".to_string(),
        |e| format!("{:.3} [{:.3}, {:.3}]", e.value, e.ci95.lo, e.ci95.hi),
    )
}

/// A figure from an estimate without its interval.
pub fn value(e: Option<Estimate>) -> Option<f64> {
    e.map(|e| e.value)
}

/// `yes`, `no` or `-`.
pub fn yes_no(b: Option<bool>) -> String {
    match b {
        Some(true) => "yes".to_string(),
        Some(false) => "no".to_string(),
        None => "-".to_string(),
    }
}
