//! The check catalog (`type:`-tagged), shared by Claw-Eval's `scoring_components[].check` and
//! our native `rubric[].check` (ARCHITECTURE.md §8).
//!
//! Claw-Eval's types: `tool_called`, `keywords_present`, `categories_present`, `min_length`,
//! `llm_judge`. Native types: `tool_not_called`, `tool_order`, `distinct_args`,
//! `final_text_regex`, `audit`, `file_exists`, `file_absent`, `file_regex`, `json_path`,
//! `csv_cell`, `number_within`, `interval_iou`, `command`. Paths in snapshot checks are guest
//! paths; relative ones are relative to `/workspace`.

use std::collections::BTreeMap;

use serde::Serialize;

/// Every check type, for hints.
pub const CHECK_TYPES: &[&str] = &[
    "tool_called",
    "keywords_present",
    "keywords_absent",
    "categories_present",
    "min_length",
    "llm_judge",
    "tool_not_called",
    "tool_order",
    "distinct_args",
    "final_text_regex",
    "audit",
    "file_exists",
    "file_absent",
    "file_regex",
    "json_path",
    "csv_cell",
    "number_within",
    "interval_iou",
    "command",
];

/// Which text of the conversation a text check reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TextField {
    /// The agent's final answer (Claw-Eval's `final_text`).
    #[default]
    FinalText,
    /// Every assistant message's text, joined.
    AssistantText,
}

/// One check over the trial's evidence: trace, audit, final snapshot or an LLM judge.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Check {
    /// The tool was called at least `min_calls` times.
    ToolCalled {
        /// The tool.
        tool_name: String,
        /// At least this many calls (default 1).
        min_calls: u32,
    },
    /// Every keyword occurs in the text (case-insensitive).
    KeywordsPresent {
        /// The keywords, as written (`14:30` is the text "14:30").
        keywords: Vec<String>,
        /// Which text (default `final_text`).
        field: TextField,
    },
    /// None of the phrases occurs in the text (case-insensitive): leaked secrets, copied
    /// injected instructions, forbidden claims. Pass/fail.
    KeywordsAbsent {
        /// The phrases that must not appear.
        keywords: Vec<String>,
        /// Which text (default `final_text`).
        field: TextField,
    },
    /// Every category name occurs in the final text.
    CategoriesPresent {
        /// The category names.
        categories: Vec<String>,
    },
    /// The text has at least `min_length` characters.
    MinLength {
        /// Which text (default `final_text`).
        field: TextField,
        /// The minimum length in characters.
        min_length: u64,
    },
    /// An LLM judge scores the evidence against a rubric (0..1).
    LlmJudge {
        /// What is judged (Claw-Eval's wording).
        description: Option<String>,
        /// The rubric text.
        rubric: Option<String>,
        /// The evidence the judge sees (default: the conversation).
        evidence: Vec<EvidenceSource>,
    },
    /// The tool was never called.
    ToolNotCalled {
        /// The tool.
        tool_name: String,
    },
    /// These tools were first called in this order.
    ToolOrder {
        /// The tools, in order.
        tools: Vec<String>,
    },
    /// Calls of the tool used at least `min` distinct values of argument `field`.
    DistinctArgs {
        /// The tool.
        tool_name: String,
        /// The argument name.
        field: String,
        /// At least this many distinct values.
        min: u64,
    },
    /// The final text matches a regex.
    FinalTextRegex {
        /// The regex (Rust `regex` syntax).
        pattern: String,
    },
    /// Records in a service's audit log under `key` matching `where`: between `min` and `max`.
    Audit {
        /// The service instance name.
        service: String,
        /// The audit key (e.g. `sent_messages`).
        key: String,
        /// Field matchers; every one must match a record.
        #[serde(rename = "where")]
        where_: BTreeMap<String, Matcher>,
        /// At least this many matching records (default 1).
        min: u64,
        /// At most this many.
        max: Option<u64>,
    },
    /// The file exists in the final snapshot.
    FileExists {
        /// The guest path.
        path: String,
    },
    /// The file does not exist in the final snapshot.
    FileAbsent {
        /// The guest path.
        path: String,
    },
    /// The file's content matches a regex.
    FileRegex {
        /// The guest path.
        path: String,
        /// The regex.
        pattern: String,
    },
    /// A value inside a JSON file.
    JsonPath {
        /// The guest path of the JSON file.
        path: String,
        /// RFC 6901 pointer (`/a/0/b`; empty = the whole document).
        pointer: String,
        /// The value must equal this.
        equals: Option<serde_json::Value>,
        /// The value (a string, or a scalar's JSON text) must match this regex.
        regex: Option<String>,
        /// The value must be a number near this.
        approx: Option<f64>,
        /// Absolute tolerance for `approx` (default 1e-6).
        tolerance: Option<f64>,
    },
    /// A cell of a CSV file (with a header row).
    CsvCell {
        /// The guest path of the CSV file.
        path: String,
        /// Which data row.
        row: RowSelector,
        /// The header name of the column.
        column: String,
        /// The cell must equal this text.
        equals: Option<String>,
        /// The cell must be a number near this.
        approx: Option<f64>,
        /// Absolute tolerance for `approx` (default 1e-6).
        tolerance: Option<f64>,
    },
    /// A number read from the final text or a file is within `tolerance` of `value`.
    NumberWithin {
        /// Where the number is read.
        source: NumberSource,
        /// The expected value.
        value: f64,
        /// Absolute tolerance.
        tolerance: f64,
    },
    /// An interval `[start, end]` in a JSON file overlaps the expected one by `min_iou`.
    IntervalIou {
        /// The guest path of the JSON file.
        path: String,
        /// RFC 6901 pointer to a two-number array.
        pointer: String,
        /// Expected start.
        start: f64,
        /// Expected end.
        end: f64,
        /// Minimum intersection over union (0..1).
        min_iou: f64,
    },
    /// A command the judge runs through Bash against the final state.
    Command {
        /// The command line.
        command: String,
        /// The expected exit status (default 0).
        exit: u64,
        /// Its stdout must match this regex.
        stdout_regex: Option<String>,
    },
}

/// How an audit record's field is matched.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Matcher {
    /// Exactly this JSON value.
    Equals(serde_json::Value),
    /// A string matching this regex (written `{regex: ...}`).
    Regex(String),
}

/// Which CSV data row a `csv_cell` check reads.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RowSelector {
    /// The n-th data row (0-based, after the header).
    Index(u64),
    /// The first row whose columns have these values (written `match: {column: value}`).
    Match(BTreeMap<String, String>),
}

/// Where `number_within` reads its number.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NumberSource {
    /// The agent's final answer (`source: final_text`).
    FinalText,
    /// A file of the final snapshot (any other value: its guest path).
    File(String),
}

/// What an LLM judge is given as evidence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceSource {
    /// The whole conversation (`conversation`).
    Conversation,
    /// The services' audit logs (`audit`).
    Audit,
    /// A file of the final snapshot (`file:/path`).
    File(String),
}

impl Check {
    /// The `type:` name of this check.
    pub fn type_name(&self) -> &'static str {
        match self {
            Check::ToolCalled { .. } => "tool_called",
            Check::KeywordsPresent { .. } => "keywords_present",
            Check::KeywordsAbsent { .. } => "keywords_absent",
            Check::CategoriesPresent { .. } => "categories_present",
            Check::MinLength { .. } => "min_length",
            Check::LlmJudge { .. } => "llm_judge",
            Check::ToolNotCalled { .. } => "tool_not_called",
            Check::ToolOrder { .. } => "tool_order",
            Check::DistinctArgs { .. } => "distinct_args",
            Check::FinalTextRegex { .. } => "final_text_regex",
            Check::Audit { .. } => "audit",
            Check::FileExists { .. } => "file_exists",
            Check::FileAbsent { .. } => "file_absent",
            Check::FileRegex { .. } => "file_regex",
            Check::JsonPath { .. } => "json_path",
            Check::CsvCell { .. } => "csv_cell",
            Check::NumberWithin { .. } => "number_within",
            Check::IntervalIou { .. } => "interval_iou",
            Check::Command { .. } => "command",
        }
    }

    /// The tool names this check refers to.
    pub fn tool_names(&self) -> Vec<&str> {
        match self {
            Check::ToolCalled { tool_name, .. }
            | Check::ToolNotCalled { tool_name }
            | Check::DistinctArgs { tool_name, .. } => vec![tool_name],
            Check::ToolOrder { tools } => tools.iter().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// The regexes of this check, with the field each is written in.
    pub fn regexes(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        match self {
            Check::FinalTextRegex { pattern } | Check::FileRegex { pattern, .. } => {
                out.push(("pattern", pattern.as_str()))
            }
            Check::JsonPath { regex: Some(r), .. } => out.push(("regex", r.as_str())),
            Check::Command {
                stdout_regex: Some(r),
                ..
            } => out.push(("stdout_regex", r.as_str())),
            Check::Audit { where_, .. } => {
                for m in where_.values() {
                    if let Matcher::Regex(r) = m {
                        out.push(("where", r.as_str()));
                    }
                }
            }
            _ => {}
        }
        out
    }
}
