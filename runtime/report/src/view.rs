//! What the HTML trial viewer shows for one trial: its record, its trace and an optional
//! snapshot diff.

use std::path::Path;

use clawrun_agents::trace::{Event, read_trace};
use serde::Serialize;

use crate::error::ReportError;
use crate::record::TrialRecord;

/// One trial for the viewer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrialView {
    /// The journal record.
    pub record: TrialRecord,
    /// Its trace events, in order.
    pub events: Vec<Event>,
    /// Paths the trial changed in the workspace and how (`added`, `modified`, `deleted`, ...),
    /// when the caller computed them.
    pub diff: Option<Vec<(String, String)>>,
    /// The trial's wall time in milliseconds, when the run recorded it (`timings.jsonl`).
    pub wall_ms: Option<u64>,
    /// The comparison arm (`A`, `B`, ...) it belongs to, in a comparison report.
    pub arm: Option<String>,
    /// Where the page loads the trial from (a script beside the report) when it is not
    /// embedded: such a view is only the page's index entry (its `events` are not read).
    pub src: Option<String>,
}

impl TrialView {
    /// Reads the record's trace from run folder `run_dir` (no diff).
    pub fn load(run_dir: &Path, record: TrialRecord) -> Result<TrialView, ReportError> {
        let read_err = |message: String| ReportError::Read {
            source_name: run_dir.join(record.trace_location()).display().to_string(),
            message,
        };
        let bytes = record
            .trace_bytes(run_dir)
            .map_err(|e| read_err(e.to_string()))?;
        let events = read_trace(bytes.as_slice()).map_err(|e| read_err(e.to_string()))?;
        Ok(TrialView {
            record,
            events,
            diff: None,
            wall_ms: None,
            arm: None,
            src: None,
        })
    }
}
