//! Lays placed text runs out as lines of text, the way `pdftotext -layout` does in spirit: runs
//! sharing a baseline form a line, lines go top to bottom, runs left to right; a gap about a
//! word space wide becomes one space, a wider gap (a table column) pads to the run's column on a
//! character grid so the columns of a table line up from row to row.

use crate::text::Run;

/// Gaps narrower than this (in font sizes) join runs without a space (kerning, split words).
const JOIN: f64 = 0.12;
/// Gaps narrower than this (in font sizes) are one space; wider ones are column gaps.
const WORD: f64 = 0.9;
/// Runs whose baselines differ by less than this (in font sizes) share a line.
const SAME_LINE: f64 = 0.4;
/// A vertical gap wider than this (in font sizes) between lines becomes one blank line.
const PARAGRAPH: f64 = 2.2;
/// Runs further right than this many columns start at it (a page is about a hundred wide), so
/// a far-off coordinate cannot pad a line without end.
const MAX_COLUMN: f64 = 1000.0;

struct Line<'r> {
    y: f64,
    size: f64,
    runs: Vec<&'r Run>,
}

/// The page's runs as text lines (no trailing spaces; no trailing newline).
pub fn render(runs: &[Run]) -> String {
    let mut runs: Vec<&Run> = runs
        .iter()
        .filter(|r| !r.text.trim().is_empty() && r.size > 0.0)
        .collect();
    if runs.is_empty() {
        return String::new();
    }
    let left = runs.iter().map(|r| r.x).fold(f64::INFINITY, f64::min);
    let mut sizes: Vec<f64> = runs.iter().map(|r| r.size).collect();
    sizes.sort_by(f64::total_cmp);
    // One character column of the grid: half the typical font size.
    let cell = (sizes[sizes.len() / 2] * 0.5).max(0.5);

    runs.sort_by(|a, b| b.y.total_cmp(&a.y).then(a.x.total_cmp(&b.x)));
    let mut lines: Vec<Line<'_>> = Vec::new();
    for r in runs {
        match lines.last_mut() {
            Some(line) if (line.y - r.y).abs() <= SAME_LINE * line.size.max(r.size) => {
                line.size = line.size.max(r.size);
                line.runs.push(r);
            }
            _ => lines.push(Line {
                y: r.y,
                size: r.size,
                runs: vec![r],
            }),
        }
    }

    let mut out = String::new();
    let mut previous: Option<(f64, f64)> = None;
    for mut line in lines {
        line.runs.sort_by(|a, b| a.x.total_cmp(&b.x));
        if let Some((y, size)) = previous {
            out.push('\n');
            if y - line.y > PARAGRAPH * size.max(line.size) {
                out.push('\n');
            }
        }
        previous = Some((line.y, line.size));
        out.push_str(&render_line(&line.runs, left, cell));
    }
    out
}

/// One line: runs sorted by `x`.
fn render_line(runs: &[&Run], left: f64, cell: f64) -> String {
    let mut s = String::new();
    let mut chars = 0usize;
    let mut end = f64::NEG_INFINITY;
    let mut last: Option<&Run> = None;
    for &r in runs {
        // Text drawn twice at a tiny offset (simulated bold) is shown once.
        if let Some(p) = last
            && p.text == r.text
            && (r.x - p.x).abs() < 0.2 * r.size
        {
            continue;
        }
        let column = ((r.x - left) / cell).round().clamp(0.0, MAX_COLUMN) as usize;
        if last.is_none() {
            pad(&mut s, &mut chars, column);
        } else {
            let gap = r.x - end;
            let size = r.size.max(last.map_or(0.0, |p| p.size));
            if gap < JOIN * size {
            } else if gap < WORD * size {
                if !s.ends_with(' ') && !r.text.starts_with(' ') {
                    s.push(' ');
                    chars += 1;
                }
            } else {
                let trailing = s.len() - s.trim_end_matches(' ').len();
                let base = chars - trailing;
                pad(&mut s, &mut chars, column.max(base + 2));
            }
        }
        s.push_str(&r.text);
        chars += r.text.chars().count();
        end = end.max(r.end_x);
        last = Some(r);
    }
    s.truncate(s.trim_end().len());
    s
}

fn pad(s: &mut String, chars: &mut usize, column: usize) {
    while *chars < column {
        s.push(' ');
        *chars += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(x: f64, y: f64, text: &str) -> Run {
        // 10-point text, 5 points per character.
        Run {
            x,
            y,
            end_x: x + 5.0 * text.chars().count() as f64,
            size: 10.0,
            text: text.into(),
        }
    }

    #[test]
    fn lines_go_top_to_bottom_and_runs_left_to_right() {
        let runs = [
            run(72.0, 700.0, "second"),
            run(72.0, 712.0, "first"),
            run(110.0, 700.0, "line"),
        ];
        assert_eq!(render(&runs), "first\nsecond line");
    }

    #[test]
    fn split_words_join_and_word_gaps_are_one_space() {
        let runs = [
            run(72.0, 700.0, "Inv"),
            run(87.5, 700.0, "oice"),
            run(110.0, 700.0, "total"),
        ];
        assert_eq!(render(&runs), "Invoice total");
    }

    #[test]
    fn table_columns_line_up() {
        let runs = [
            run(72.0, 700.0, "Quarter"),
            run(172.0, 700.0, "Revenue"),
            run(72.0, 688.0, "Q1"),
            run(172.0, 688.0, "1,240"),
        ];
        let text = render(&runs);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0].find("Revenue"), lines[1].find("1,240"), "{text}");
        assert!(lines[1].starts_with("Q1  "), "{text}");
    }

    #[test]
    fn wide_vertical_gaps_become_one_blank_line() {
        let runs = [run(72.0, 700.0, "Title"), run(72.0, 650.0, "Body")];
        assert_eq!(render(&runs), "Title\n\nBody");
    }

    #[test]
    fn simulated_bold_is_shown_once() {
        let runs = [run(72.0, 700.0, "Total"), run(72.5, 700.0, "Total")];
        assert_eq!(render(&runs), "Total");
    }
}
