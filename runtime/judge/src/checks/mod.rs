//! The check catalog, evaluated: each check reads one evidence channel and gives an
//! [`Finding`] (a score in 0..=1, or none when it cannot be judged, plus what it found).
//!
//! - [`trace`]: tool calls (`tool_called`, `tool_not_called`, `tool_order`, `distinct_args`).
//! - [`text`]: the answer text (`keywords_present`, `categories_present`, `min_length`,
//!   `final_text_regex`).
//! - [`audit`]: the services' audit logs (`audit`).
//! - [`snapshot`]: the final filesystem and judge commands (`file_exists`, `file_absent`,
//!   `file_regex`, `json_path`, `interval_iou`, `command`), with [`csv`] (`csv_cell`) and
//!   [`number`] (`number_within`).
//! - `llm_judge` is in [`crate::llm`].

pub mod audit;
pub mod csv;
pub mod number;
pub mod snapshot;
pub mod text;
pub mod trace;

use clawrun_task::check::{Check, NumberSource};

use crate::evidence::Evidence;

/// What one check found.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The score in 0..=1; `None` when the check could not be judged.
    pub score: Option<f64>,
    /// What was looked at and found, for people.
    pub evidence: String,
}

impl Finding {
    /// 1 if `ok`, else 0.
    pub fn pass(ok: bool, evidence: impl Into<String>) -> Self {
        Finding {
            score: Some(if ok { 1.0 } else { 0.0 }),
            evidence: evidence.into(),
        }
    }

    /// A partial score (clamped to 0..=1).
    pub fn scored(score: f64, evidence: impl Into<String>) -> Self {
        Finding {
            score: Some(if score.is_nan() {
                0.0
            } else {
                score.clamp(0.0, 1.0)
            }),
            evidence: evidence.into(),
        }
    }

    /// Could not be judged.
    pub fn unjudged(evidence: impl Into<String>) -> Self {
        Finding {
            score: None,
            evidence: evidence.into(),
        }
    }
}

/// Evaluates a deterministic check; `None` for `llm_judge` (see [`crate::llm`]).
pub fn evaluate(check: &Check, ev: &Evidence) -> Option<Finding> {
    Some(match check {
        Check::ToolCalled {
            tool_name,
            min_calls,
        } => trace::tool_called(ev, tool_name, *min_calls),
        Check::ToolNotCalled { tool_name } => trace::tool_not_called(ev, tool_name),
        Check::ToolOrder { tools } => trace::tool_order(ev, tools),
        Check::DistinctArgs {
            tool_name,
            field,
            min,
        } => trace::distinct_args(ev, tool_name, field, *min),
        Check::KeywordsPresent { keywords, field } => text::keywords_present(ev, keywords, *field),
        Check::KeywordsAbsent { keywords, field } => text::keywords_absent(ev, keywords, *field),
        Check::CategoriesPresent { categories } => text::categories_present(ev, categories),
        Check::MinLength { field, min_length } => text::min_length(ev, *field, *min_length),
        Check::FinalTextRegex { pattern } => text::final_text_regex(ev, pattern),
        Check::Audit {
            service,
            key,
            where_,
            min,
            max,
        } => audit::audit(ev, service, key, where_, *min, *max),
        Check::FileExists { path } => snapshot::file_exists(ev, path),
        Check::FileAbsent { path } => snapshot::file_absent(ev, path),
        Check::FileRegex { path, pattern } => snapshot::file_regex(ev, path, pattern),
        Check::JsonPath {
            path,
            pointer,
            equals,
            regex,
            approx,
            tolerance,
        } => snapshot::json_path(
            ev,
            path,
            pointer,
            &snapshot::ValueTest {
                equals: equals.as_ref(),
                regex: regex.as_deref(),
                approx: *approx,
                tolerance: *tolerance,
            },
        ),
        Check::CsvCell {
            path,
            row,
            column,
            equals,
            approx,
            tolerance,
        } => csv::csv_cell(
            ev,
            path,
            row,
            column,
            equals.as_deref(),
            *approx,
            *tolerance,
        ),
        Check::NumberWithin {
            source,
            value,
            tolerance,
        } => match source {
            NumberSource::FinalText => {
                number::number_within_text("final_text", &ev.final_text, *value, *tolerance)
            }
            NumberSource::File(path) => number::number_within_file(ev, path, *value, *tolerance),
        },
        Check::IntervalIou {
            path,
            pointer,
            start,
            end,
            min_iou,
        } => snapshot::interval_iou(ev, path, pointer, (*start, *end), *min_iou),
        Check::Command {
            command,
            exit,
            stdout_regex,
        } => snapshot::command(ev, command, *exit, stdout_regex.as_deref()),
        Check::LlmJudge { .. } => return None,
    })
}

/// Whether an outcome of this check counts as passed (and, for a gate, as held): deterministic
/// checks must score 1; LLM-judged ones 0.5 or more.
pub fn passes(check_type: &str, score: f64) -> bool {
    if check_type == "llm_judge" {
        score >= 0.5
    } else {
        score >= 1.0
    }
}
