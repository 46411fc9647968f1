//! The columns of the task and aggregate tables, spelled once for every output: the text and
//! Markdown tables ([`super::rows`]) and the HTML page ([`super::html`]) take their headers
//! from here, and their row builders fill cells in this order.

/// One column: its sort key in the HTML page, its labels, and how long it survives on a narrow
/// terminal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// The HTML table's sort key (`data-key`).
    pub key: &'static str,
    /// The label in text and Markdown.
    pub text: String,
    /// The label in the HTML page; `None` for a column the page does not show.
    pub html: Option<String>,
    /// Dropped from narrow terminal tables highest first (0: never).
    pub priority: u8,
}

fn col(
    key: &'static str,
    text: impl Into<String>,
    html: impl Into<String>,
    priority: u8,
) -> Column {
    Column {
        key,
        text: text.into(),
        html: Some(html.into()),
        priority,
    }
}

/// The per-task table's columns (`k` trials per task; a cost column when `priced`).
pub fn task_columns(k: u32, priced: bool) -> Vec<Column> {
    let mut cols = vec![
        col("task", "task", "task", 0),
        col("category", "category", "category", 3),
        col("group", "group", "group", 4),
        col("n", "n", "n", 1),
        col("c", "c", "c", 2),
        col("score", "score", "score", 0),
        col("completion", "compl", "compl.", 5),
        col("safety", "safety", "safety", 6),
        col("robustness", "robust", "robust.", 6),
        col("pass1", "pass@1", "Pass@1", 1),
        col("passk", format!("pass@{k}"), format!("Pass@{k}"), 2),
        col("powk", format!("pass^{k}"), format!("Pass^{k}"), 2),
        Column {
            html: None,
            ..col("allk", format!("all{k}"), "", 4)
        },
        Column {
            html: None,
            ..col("hatk", format!("(c/n)^{k}"), "", 6)
        },
        col("flip", "flip", "flip", 3),
    ];
    cols.extend(spending(priced));
    cols.push(col("trials", "trials", "trials", 7));
    cols
}

/// The columns both tables end with: faults, infrastructure errors, unjudged trials, tokens,
/// wall time and, when `priced`, cost.
fn spending(priced: bool) -> Vec<Column> {
    let mut cols = vec![
        col("faults", "faults", "faults", 4),
        col("infra", "infra", "infra", 3),
        col("unjudged", "unjudged", "unjudged", 1),
        col("tokens", "tokens in/out", "tokens in/out", 5),
        col("wall", "wall", "wall", 5),
    ];
    if priced {
        cols.push(col("cost", "cost", "cost", 2));
    }
    cols
}

/// The aggregate table's columns (categories, groups, overall).
pub fn aggregate_columns(k: u32, priced: bool) -> Vec<Column> {
    let mut cols = vec![
        col("name", "name", "name", 0),
        col("tasks", "tasks", "tasks", 2),
        col("trials", "trials", "trials", 1),
        col("score", "score [95% CI]", "mean score [95% CI]", 0),
        col("pass1", "pass@1", "Pass@1", 1),
        col(
            "passk",
            format!("pass@{k} [95% CI]"),
            format!("Pass@{k} [95% CI]"),
            2,
        ),
        col(
            "powk",
            format!("pass^{k} [95% CI]"),
            format!("Pass^{k} [95% CI]"),
            2,
        ),
        col("allk", format!("all{k}"), format!("all {k} pass"), 4),
        col("flip", "flip rate", "flip rate", 3),
    ];
    cols.extend(spending(priced));
    cols
}
