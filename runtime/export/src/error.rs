//! What can go wrong while exporting a run.

use std::path::PathBuf;

use clawrun_report::RunFolderError;

/// A run could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A run folder could not be read.
    #[error(transparent)]
    Folder(#[from] RunFolderError),
    /// The folders given are not one run.
    #[error(
        "{first} and {other} are different runs (their run.json settings differ): export one run at a time (the shards of one run, or one folder)"
    )]
    NotOneRun {
        /// A folder of the first run.
        first: String,
        /// A folder of another.
        other: String,
    },
    /// The run has no trials.
    #[error("{folder}: the journal records no trial: nothing to export")]
    Empty {
        /// The run's (first) folder.
        folder: String,
    },
    /// Two different scored records of one trial (shards that overlap).
    #[error(
        "trial {key} is recorded twice with different scores: {first} and {second} (two runs merged into one folder?): export the folders separately"
    )]
    Conflict {
        /// `task/trial`.
        key: String,
        /// Where the first record is.
        first: String,
        /// Where the second is.
        second: String,
    },
    /// A trial's trace could not be read.
    #[error(
        "{location}: the trace of trial {key} could not be read ({why}); `clawrun run --resume --out FOLDER` with the run's options runs it again"
    )]
    Trace {
        /// `task/trial`.
        key: String,
        /// Where the trace is (`RUN/traces/0.jsonl bytes 0..120`).
        location: String,
        /// What is wrong.
        why: String,
    },
    /// A task id cannot name a file of the export.
    #[error("task id {id:?} cannot name a folder of the export ({why})")]
    TaskId {
        /// The id.
        id: String,
        /// Why.
        why: &'static str,
    },
    /// Writing the export failed.
    #[error("writing {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The zip writer failed.
    #[error("writing the .eval log: {0}")]
    Zip(#[from] zip::result::ZipError),
    /// Sending to an OTLP endpoint failed.
    #[error("--otlp-endpoint {endpoint}: {why}")]
    Send {
        /// The endpoint.
        endpoint: String,
        /// What went wrong.
        why: String,
    },
}
