//! The `number_within` check and number extraction from free text.
//!
//! Numbers are found as written: an optional sign (`-` or `−`, only when not glued to a
//! preceding letter or digit, so `2020-2021` gives 2020 and 2021), digits with optional
//! thousands separators (`1,234,567`), an optional fraction (`.5`), and an optional `%` that is
//! kept as written (`12%` is 12, not 0.12). Unit words (`million`) are not applied.

use std::sync::LazyLock;

use regex::Regex;

use super::Finding;
use super::snapshot::read_text;
use crate::evidence::Evidence;
use crate::text::guest_path;

/// The number pattern (see the module docs).
static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"([-−]?)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)").expect("valid regex")
});

/// Every number in `text`, in order.
pub fn extract_numbers(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    for caps in NUMBER.captures_iter(text) {
        let whole = caps.get(0).expect("match");
        let digits = caps.get(2).expect("group").as_str().replace(',', "");
        let glued = text[..whole.start()]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '.');
        let negative = !caps[1].is_empty() && !glued;
        if let Ok(x) = digits.parse::<f64>() {
            out.push(if negative { -x } else { x });
        }
    }
    out
}

/// `number_within` over a text: passes if any number in it is within `tolerance` of `value`.
pub fn number_within_text(label: &str, text: &str, value: f64, tolerance: f64) -> Finding {
    let numbers = extract_numbers(text);
    let closest = numbers.iter().copied().min_by(|a, b| {
        (a - value)
            .abs()
            .partial_cmp(&(b - value).abs())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    match closest {
        None => Finding::pass(
            false,
            format!("{label}: no numbers (expected {value} ± {tolerance})"),
        ),
        Some(x) => {
            let d = (x - value).abs();
            let ok = d <= tolerance;
            Finding::pass(
                ok,
                format!(
                    "{label}: {} number(s); closest to {value} is {x} (|Δ| = {d} {} {tolerance})",
                    numbers.len(),
                    if ok { "≤" } else { ">" }
                ),
            )
        }
    }
}

/// `number_within` over a file of the final snapshot.
pub fn number_within_file(ev: &Evidence, path: &str, value: f64, tolerance: f64) -> Finding {
    match read_text(ev, path) {
        Ok(text) => number_within_text(&guest_path(path), &text, value, tolerance),
        Err(e) => Finding::pass(false, e),
    }
}
