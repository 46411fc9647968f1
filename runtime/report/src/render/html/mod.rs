//! The self-contained HTML report: one file, inline CSS and JS, no network. The summary cards
//! and tables are rendered here in Rust, so they read fine with JavaScript off; the trial
//! viewer is rendered by inline JS from JSON embedded in a `<script type="application/json">`
//! element.
//!
//! - [`page`]: the server-rendered parts (banners, cards, tables).
//! - [`viewer`]: the viewer's embedded data and trial picker.

pub mod charts;
pub mod compare;
pub mod failure;
pub mod page;
pub mod viewer;

use crate::compare::Comparison;
use crate::render::text;
use crate::summary::Summary;
use crate::view::TrialView;

/// The page's style sheet.
const CSS: &str = include_str!("report.css");

/// The viewer and table-sorting script.
const JS: &str = include_str!("viewer.js");

/// The report as one self-contained HTML page. `trials` feed the trial viewer (sorted by task
/// and trial; the first is shown when the page opens, or the one named by `#trial=TASK/N`).
pub fn render_html(summary: &Summary, trials: &[TrialView]) -> String {
    let trials = viewer::sorted(trials);
    let mut out = report_page_start(summary, &viewer::Facets::of(&trials));
    for (i, t) in trials.iter().enumerate() {
        out.push_str(&viewer::list_item(i, t));
    }
    out.push_str(&page_between_list_and_data());
    for (i, t) in trials.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&viewer::data_entry(t));
    }
    out.push_str(&page_end());
    out
}

/// The report page up to its open trial list, for a writer that adds the trials one at a
/// time: [`viewer::list_item`] for each, [`page_between_list_and_data`], [`viewer::data_entry`]
/// for each (comma-separated, in the same order), then [`page_end`]. [`render_html`] is this
/// over trials in memory.
pub fn report_page_start(summary: &Summary, facets: &viewer::Facets) -> String {
    let mut out = head("clawrun report");
    out.push_str(&format!(
        "<p class=\"meta\">{} tasks &middot; {} counted trials &middot; k = {} &middot; agents: {}</p>\n",
        summary.overall.tasks,
        summary.overall.trials,
        summary.k,
        esc(&text::agents(summary))
    ));
    if !summary.runs.is_empty() {
        out.push_str("<ul id=\"runs\" class=\"meta\">\n");
        for run in &summary.runs {
            out.push_str(&format!(
                "<li>run <code>{}</code>: {}</li>\n",
                esc(&run.folder),
                esc(&run.text)
            ));
        }
        out.push_str("</ul>\n");
    }
    out.push_str("</header>\n");
    out.push_str(&page::banners(summary));
    out.push_str(&page::cards(summary));
    out.push_str(&charts::section(summary));
    out.push_str(&page::aggregate_table(summary));
    out.push_str(&page::task_table(summary));
    out.push_str(&page::graders(summary));
    out.push_str(&viewer::section_head(facets));
    out
}

/// What comes between a page's trial list and its trial data: the list's end and the data's
/// start (`[`).
pub fn page_between_list_and_data() -> String {
    format!(
        "{}<script type=\"application/json\" id=\"trial-data\">[",
        viewer::SECTION_END
    )
}

/// A page's end after its trial data: the data's end (`]`) and the script.
pub fn page_end() -> String {
    format!("]</script>\n<script>\n{JS}</script>\n</body>\n</html>\n")
}

/// A comparison as one self-contained HTML page: the arms, the paired differences and the
/// per-task comparison (rendered by the page's script from embedded JSON, with a
/// server-rendered table of the arms for JS-off readers), each arm's groups and categories,
/// and a trial viewer over every arm's trials (`arm` set on each view).
pub fn render_comparison_html(c: &Comparison, trials: &[TrialView]) -> String {
    let trials = viewer::sorted(trials);
    let mut out = head("clawrun comparison");
    out.push_str(&compare::body(c));
    out.push_str(&tail(&trials));
    out
}

/// A page in the report's style (its style sheet, viewport, heading) up to the end of its
/// header: other commands' pages (`clawrun fuzz`'s index) look like the reports. End it with
/// [`PAGE_CLOSE`].
pub fn styled_page_start(title: &str) -> String {
    let mut out = head(title);
    out.push_str("</header>\n");
    out
}

/// The end of a [`styled_page_start`] page.
pub const PAGE_CLOSE: &str = "</body>\n</html>\n";

/// The document's start up to the open `<header>`'s title.
fn head(title: &str) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    out.push_str(&format!("<title>{}</title>\n<style>\n", esc(title)));
    out.push_str(CSS);
    out.push_str(&format!(
        "</style>\n</head>\n<body>\n<header>\n<h1>{}</h1>\n",
        esc(title)
    ));
    out
}

/// The trial viewer, its data and the script, to the document's end.
fn tail(trials: &[&TrialView]) -> String {
    let mut out = viewer::section(trials);
    out.push_str("<script type=\"application/json\" id=\"trial-data\">");
    out.push_str(&viewer::data_json(trials));
    out.push_str(&page_end()[1..]);
    out
}

/// Escapes text for HTML element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(ch),
        }
    }
    out
}

/// JSON made safe inside a `<script>` element: every `<` becomes `\u003c` (it can only occur
/// inside JSON strings, where the escape means the same), so neither `</script>` nor `<!--`
/// can appear.
pub fn script_safe_json(json: &str) -> String {
    json.replace('<', "\\u003c")
}
