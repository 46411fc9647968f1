//! Aligned plain-text columns: the first columns (names) left-aligned, the rest right-aligned.
//! With a width limit, the least important columns are dropped until the table fits, and the
//! table says which.

/// A table to lay out.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Column titles.
    pub header: Vec<String>,
    /// The rows (as many cells as titles).
    pub rows: Vec<Vec<String>>,
    /// Per column, how important it is: 0 is never dropped, higher numbers go first.
    pub priority: Vec<u8>,
    /// The first `left` columns are left-aligned.
    pub left: usize,
}

/// Lays out `header` and `rows` with two spaces between columns and a dashed rule under the
/// header; the first `left` columns are left-aligned; trailing spaces are trimmed.
pub fn layout(header: &[String], rows: &[Vec<String>], left: usize) -> String {
    let table = Table {
        header: header.to_vec(),
        rows: rows.to_vec(),
        priority: vec![0; header.len()],
        left,
    };
    fit(&table, None)
}

/// Lays out `table` within `width` columns (`None`: no limit). Columns are dropped from the
/// highest priority number down (the rightmost first among equals) until the table fits; a
/// line under it names the hidden columns. Priority-0 columns always stay, so a very narrow
/// terminal still gets the names and the headline figure (the lines may then wrap).
pub fn fit(table: &Table, width: Option<usize>) -> String {
    let ncol = table.header.len();
    let mut widths: Vec<usize> = table.header.iter().map(|h| h.chars().count()).collect();
    for row in &table.rows {
        for (i, cell) in row.iter().enumerate().take(ncol) {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut shown: Vec<bool> = vec![true; ncol];
    let total = |shown: &[bool]| -> usize {
        let cols: Vec<usize> = (0..ncol).filter(|&i| shown[i]).map(|i| widths[i]).collect();
        cols.iter().sum::<usize>() + 2 * cols.len().saturating_sub(1)
    };
    if let Some(limit) = width {
        // Drop order: highest priority number first, rightmost first among equals.
        let mut order: Vec<usize> = (0..ncol)
            .filter(|&i| table.priority.get(i).copied().unwrap_or(0) > 0)
            .collect();
        order.sort_by_key(|&i| {
            (
                std::cmp::Reverse(table.priority.get(i).copied().unwrap_or(0)),
                std::cmp::Reverse(i),
            )
        });
        for i in order {
            if total(&shown) <= limit {
                break;
            }
            shown[i] = false;
        }
    }
    let line = |cells: &[String]| -> String {
        let parts: Vec<String> = (0..ncol)
            .filter(|&i| shown[i])
            .map(|i| {
                let c = cells.get(i).map_or("", String::as_str);
                // Padded by hand: `format!`'s width stops at 65535 characters.
                let pad = " ".repeat(widths[i].saturating_sub(c.chars().count()));
                if i < table.left {
                    format!("{c}{pad}")
                } else {
                    format!("{pad}{c}")
                }
            })
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    let rule: Vec<String> = (0..ncol)
        .filter(|&i| shown[i])
        .map(|i| "-".repeat(widths[i]))
        .collect();
    let mut out = String::new();
    out.push_str(&line(&table.header));
    out.push('\n');
    out.push_str(&rule.join("  "));
    out.push('\n');
    for row in &table.rows {
        out.push_str(&line(row));
        out.push('\n');
    }
    let hidden: Vec<&str> = (0..ncol)
        .filter(|&i| !shown[i])
        .map(|i| table.header[i].as_str())
        .collect();
    if !hidden.is_empty() {
        out.push_str(&format!(
            "({} columns hidden to fit {} characters: {}; --width 0 shows all)\n",
            hidden.len(),
            width.unwrap_or(0),
            hidden.join(", ")
        ));
    }
    out
}
