//! The `csv_cell` check and a small RFC 4180 reader (quoted fields, doubled quotes, embedded
//! separators and newlines, CRLF or LF line ends, a leading BOM ignored).

use clawrun_task::check::RowSelector;

use super::Outcome;
use super::snapshot::{DEFAULT_TOLERANCE, parse_loose_number, read_text};
use crate::evidence::Evidence;
use crate::text::{guest_path, quote};

/// Parses CSV text into rows of fields. Blank lines are skipped.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rows = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    // Whether the current row has anything (a separator or a character).
    let mut started = false;
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                quoted = true;
                started = true;
            }
            ',' => {
                row.push(std::mem::take(&mut field));
                started = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                if started {
                    row.push(std::mem::take(&mut field));
                    rows.push(std::mem::take(&mut row));
                }
                started = false;
            }
            _ => {
                field.push(c);
                started = true;
            }
        }
    }
    if started {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// The index of `column` in `header`: exact, else trimmed and case-insensitive.
fn column_index(header: &[String], column: &str) -> Option<usize> {
    header.iter().position(|h| h == column).or_else(|| {
        let want = column.trim().to_lowercase();
        header.iter().position(|h| h.trim().to_lowercase() == want)
    })
}

/// `csv_cell`: a cell of a CSV file with a header row, chosen by data-row index (0-based) or by
/// the first row whose columns equal given values (trimmed), and a header name. The cell must
/// equal `equals` (both trimmed) and/or be a number within `tolerance` (default 1e-6) of
/// `approx` (`,` `$` `%` ignored); with neither, the cell must exist.
pub fn csv_cell(
    ev: &Evidence,
    path: &str,
    row: &RowSelector,
    column: &str,
    equals: Option<&str>,
    approx: Option<f64>,
    tolerance: Option<f64>,
) -> Outcome {
    let p = guest_path(path);
    let text = match read_text(ev, path) {
        Ok(t) => t,
        Err(e) => return Outcome::pass(false, e),
    };
    let rows = parse_csv(&text);
    let Some((header, data)) = rows.split_first() else {
        return Outcome::pass(false, format!("{p} is empty"));
    };
    let Some(col) = column_index(header, column) else {
        return Outcome::pass(
            false,
            format!("{p}: no column `{column}` (header: {})", header.join(", ")),
        );
    };
    let (found, which) = match row {
        RowSelector::Index(i) => (
            usize::try_from(*i).ok().and_then(|i| data.get(i)),
            format!("row {i}"),
        ),
        RowSelector::Match(m) => {
            let mut cols = Vec::new();
            for (k, v) in m {
                match column_index(header, k) {
                    Some(c) => cols.push((c, v.trim())),
                    None => {
                        return Outcome::pass(
                            false,
                            format!("{p}: no column `{k}` (header: {})", header.join(", ")),
                        );
                    }
                }
            }
            let shown: Vec<String> = m.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let r = data.iter().find(|r| {
                cols.iter()
                    .all(|(c, v)| r.get(*c).is_some_and(|x| x.trim() == *v))
            });
            (r, format!("row where {}", shown.join(", ")))
        }
    };
    let Some(r) = found else {
        return Outcome::pass(false, format!("{p}: no {which} ({} data rows)", data.len()));
    };
    let Some(cell) = r.get(col) else {
        return Outcome::pass(false, format!("{p}: {which} has no `{column}` cell"));
    };
    let mut problems = Vec::new();
    if let Some(want) = equals
        && cell.trim() != want.trim()
    {
        problems.push(format!("expected {}", quote(want, 80)));
    }
    if let Some(want) = approx {
        let tol = tolerance.unwrap_or(DEFAULT_TOLERANCE);
        match parse_loose_number(cell) {
            Some(x) if (x - want).abs() <= tol => {}
            Some(x) => problems.push(format!("{x} is not within ±{tol} of {want}")),
            None => problems.push(format!("not a number (expected ≈{want})")),
        }
    }
    let head = format!("{p}: {which}, column `{column}` = {}", quote(cell, 80));
    if problems.is_empty() {
        Outcome::pass(true, format!("{head}: ok"))
    } else {
        Outcome::pass(false, format!("{head}: {}", problems.join("; ")))
    }
}
