//! The `csv_cell` check and its CSV reading (RFC 4180, by the `csv` crate).

use clawrun_task::check::RowSelector;

use super::Finding;
use super::snapshot::{DEFAULT_TOLERANCE, parse_loose_number, read_text};
use crate::evidence::Evidence;
use crate::text::{guest_path, quote};

/// Parses CSV text into rows of fields with the `csv` crate: quoted fields, doubled quotes,
/// embedded separators and newlines, CRLF, LF or CR line ends, rows of any length. A leading BOM
/// is ignored and blank lines are skipped.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The input is UTF-8 and rows may differ in length, so reading cannot fail.
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes())
        .into_records()
        .map_while(Result::ok)
        .map(|r| r.iter().map(str::to_owned).collect())
        .collect()
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
) -> Finding {
    let p = guest_path(path);
    let text = match read_text(ev, path) {
        Ok(t) => t,
        Err(e) => return Finding::pass(false, e),
    };
    let rows = parse_csv(&text);
    let Some((header, data)) = rows.split_first() else {
        return Finding::pass(false, format!("{p} is empty"));
    };
    let Some(col) = column_index(header, column) else {
        return Finding::pass(
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
                        return Finding::pass(
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
        return Finding::pass(false, format!("{p}: no {which} ({} data rows)", data.len()));
    };
    let Some(cell) = r.get(col) else {
        return Finding::pass(false, format!("{p}: {which} has no `{column}` cell"));
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
        Finding::pass(true, format!("{head}: ok"))
    } else {
        Finding::pass(false, format!("{head}: {}", problems.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_csv;

    #[test]
    fn a_quote_inside_an_unquoted_field_is_kept_as_python_csv_does() {
        // Python: list(csv.reader(io.StringIO(s, newline=""))) (less its empty rows).
        assert_eq!(parse_csv("a\"b\"c,d"), vec![vec!["a\"b\"c", "d"]]);
        assert_eq!(parse_csv("\"ab\"cd,e"), vec![vec!["abcd", "e"]]);
        assert_eq!(
            parse_csv("a\"\r\n\r\nb\"\rc"),
            vec![vec!["a\""], vec!["b\""], vec!["c"]]
        );
    }

    #[test]
    fn rows_may_differ_in_length_and_end_without_a_newline() {
        assert_eq!(
            parse_csv("a,b,c\n1\n,,\n\"x\ny\""),
            vec![
                vec!["a", "b", "c"],
                vec!["1"],
                vec!["", "", ""],
                vec!["x\ny"]
            ]
        );
        assert!(parse_csv("").is_empty());
        assert!(parse_csv("\u{feff}\r\n\n").is_empty());
    }
}
