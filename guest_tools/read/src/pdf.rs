//! `Read` on a PDF: the text of each page, laid out as on the page (tables as aligned text
//! lines), in `--- page N ---` sections; `pages` picks some ("3", "1-3", "2,5-7", "4-").

use std::collections::BTreeSet;

use clawrun_pdf::Pdf;
use clawrun_tool_protocol::MAX_OUTPUT_CHARS;
use clawrun_tool_protocol::path::ToolPath;

/// Characters kept free in the output cap for the trailing note.
const NOTE_RESERVE: usize = 300;

/// What an empty page shows.
const NO_TEXT: &str = "(no extractable text on this page; it may be a scanned image)";

/// Renders the pages of the PDF `bytes` at `path` that `pages` selects (all when `None`).
pub fn read(path: &ToolPath, bytes: &[u8], pages: Option<&str>) -> Result<String, String> {
    let pdf = Pdf::parse(bytes).map_err(|e| format!("Cannot read {path} as a PDF: {e}"))?;
    let count = pdf.page_count();
    if count == 0 {
        return Ok(format!("The PDF {path} has no pages."));
    }
    let wanted = match pages {
        Some(spec) => parse_pages(spec, count)?,
        None => (1..=count).collect(),
    };
    let budget = MAX_OUTPUT_CHARS - NOTE_RESERVE;
    let mut out = String::new();
    let mut used = 0;
    let mut shown: Vec<usize> = Vec::new();
    let mut rest: Vec<usize> = Vec::new();
    for &n in &wanted {
        if !rest.is_empty() {
            rest.push(n);
            continue;
        }
        let text = pdf.page_layout(n - 1).unwrap_or_default();
        let text = if text.trim().is_empty() {
            NO_TEXT.to_string()
        } else {
            text
        };
        let mut section = format!("--- page {n} ---\n{text}\n");
        let chars = section.chars().count() + 1;
        if used + chars > budget {
            if !shown.is_empty() {
                rest.push(n);
                continue;
            }
            // A single page larger than the cap: cut it at a line.
            section = cut_at_line(&section, budget.saturating_sub(used));
            section.push_str(&format!("\n[page {n} cut at the output size limit]\n"));
            out.push_str(&section);
            shown.push(n);
            rest.extend(wanted.iter().copied().filter(|&p| p > n));
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        used += chars;
        out.push_str(&section);
        shown.push(n);
    }
    if let Some(e) = pdf.limit_hit() {
        return Err(format!("Cannot read {path} as a PDF: {e}"));
    }
    let out = out.trim_end().to_string();
    let mut notes = Vec::new();
    if !rest.is_empty() {
        notes.push(format!(
            "Output size limit reached: showing {} of the {} requested pages. Use pages=\"{}\" \
             to read more.",
            shown.len(),
            wanted.len(),
            ranges(&rest)
        ));
    } else if wanted.len() < count {
        let noun = if wanted.len() == 1 { "page" } else { "pages" };
        notes.push(format!("Showing {noun} {} of {count}.", ranges(&wanted)));
    }
    Ok(if notes.is_empty() {
        out
    } else {
        format!("{out}\n\n({})", notes.join(" "))
    })
}

/// The text of `section` up to the last whole line within `max` characters.
fn cut_at_line(section: &str, max: usize) -> String {
    let end = section
        .char_indices()
        .nth(max)
        .map_or(section.len(), |(i, _)| i);
    let cut = &section[..end];
    match cut.rfind('\n') {
        Some(i) if i > 0 => cut[..i].to_string(),
        _ => cut.to_string(),
    }
}

/// Parses a page selection ("3", "1-3", "2,5-7", "4-") against `count` pages: the 1-based
/// page numbers in order. Ranges reaching past the end stop at the last page.
pub fn parse_pages(spec: &str, count: usize) -> Result<Vec<usize>, String> {
    let bad = || {
        format!(
            "Read: invalid \"pages\" value {spec:?}: use a page number or a range like \"1-3\" \
             (pages are numbered from 1)"
        )
    };
    let mut set = BTreeSet::new();
    for part in spec.split(',').map(str::trim) {
        if part.is_empty() {
            return Err(bad());
        }
        let (lo, hi) = match part.split_once('-') {
            Some((lo, hi)) => {
                let lo: usize = lo.trim().parse().map_err(|_| bad())?;
                let hi: usize = match hi.trim() {
                    "" => count.max(lo),
                    hi => hi.parse().map_err(|_| bad())?,
                };
                (lo, hi)
            }
            None => {
                let n: usize = part.parse().map_err(|_| bad())?;
                (n, n)
            }
        };
        if lo == 0 || hi < lo {
            return Err(bad());
        }
        if lo > count {
            return Err(format!(
                "Read: page {lo} is out of range: the PDF has {count} page{}",
                if count == 1 { "" } else { "s" }
            ));
        }
        set.extend(lo..=hi.min(count));
    }
    Ok(set.into_iter().collect())
}

/// Page numbers (sorted) written as ranges: `[1, 2, 3, 5]` -> `1-3,5`.
fn ranges(pages: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < pages.len() {
        let mut j = i;
        while j + 1 < pages.len() && pages[j + 1] == pages[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            pages[i].to_string()
        } else {
            format!("{}-{}", pages[i], pages[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_selections() {
        assert_eq!(parse_pages("2", 5), Ok(vec![2]));
        assert_eq!(parse_pages("1-3", 5), Ok(vec![1, 2, 3]));
        assert_eq!(parse_pages(" 4- ", 5), Ok(vec![4, 5]));
        assert_eq!(parse_pages("5,1-2,2", 5), Ok(vec![1, 2, 5]));
        assert_eq!(parse_pages("3-9", 5), Ok(vec![3, 4, 5]));
        assert_eq!(
            parse_pages("6", 5),
            Err("Read: page 6 is out of range: the PDF has 5 pages".into())
        );
        for bad in ["", "0", "3-1", "a", "1-b", "1,,2", "-2"] {
            let err = parse_pages(bad, 5).unwrap_err();
            assert!(
                err.starts_with("Read: invalid \"pages\" value"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn ranges_are_compact() {
        assert_eq!(ranges(&[1, 2, 3, 5, 7, 8]), "1-3,5,7-8");
        assert_eq!(ranges(&[4]), "4");
    }
}
