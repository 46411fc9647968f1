//! What can go wrong while reading journals and building a summary.

/// A report could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A journal or trace could not be read.
    #[error("{source_name}: {message}")]
    Read {
        /// The file (or other source) that failed.
        source_name: String,
        /// What went wrong.
        message: String,
    },
    /// A journal line is not a valid record.
    #[error("{source_name}:{line}: invalid journal record: {message}")]
    Parse {
        /// The journal.
        source_name: String,
        /// The line, from 1.
        line: usize,
        /// The parser's complaint.
        message: String,
    },
    /// The same trial was recorded twice with different contents.
    #[error(
        "trial {task_id}/{trial} is recorded twice with different contents: {first} and {second}"
    )]
    Duplicate {
        /// The task.
        task_id: String,
        /// The trial index.
        trial: u32,
        /// Where the first record came from.
        first: String,
        /// Where the second record came from.
        second: String,
    },
    /// Records of one task disagree on its category or group.
    #[error("task {task_id}: records disagree: {detail}")]
    Inconsistent {
        /// The task.
        task_id: String,
        /// Which field, both values and where each was seen.
        detail: String,
    },
    /// A record with status `scored` carries no verdict.
    #[error("{source_name}: trial {task_id}/{trial} is scored but has no verdict")]
    MissingVerdict {
        /// Where the record came from.
        source_name: String,
        /// The task.
        task_id: String,
        /// The trial index.
        trial: u32,
    },
    /// The price table is unreadable or lacks a model.
    #[error("{source_name}: {message}")]
    Prices {
        /// The price file.
        source_name: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// `k` must be at least 1.
    #[error("k must be at least 1")]
    InvalidK,
}
