//! Where a trial's trace is in its run folder, and reading it back. A run writes each trial's
//! trace into its worker's trace pack (`traces/W.jsonl`, the traces of many trials one after
//! another), and the record names the pack and the span of bytes that is the trial's
//! ([`TraceSpan`]). Records without a span name a file that is the trial's alone
//! (`TASK/N/trace.jsonl`: runs written before trace packs, and the golden records).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The bytes of one trial's trace within a trace pack: whole JSONL lines, the first a
/// `trace_start`, the last a `trace_end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceSpan {
    /// Where the trace starts, in bytes from the start of the file.
    pub offset: u64,
    /// Its length in bytes (its last newline included).
    pub len: u64,
}

impl TraceSpan {
    /// The first byte after the trace.
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }
}

/// The trace at `trace` (relative to `run_dir`), or its `span` of that file.
pub fn read_trace_bytes(
    run_dir: &Path,
    trace: &str,
    span: Option<TraceSpan>,
) -> io::Result<Vec<u8>> {
    let path = run_dir.join(trace);
    let Some(span) = span else {
        return std::fs::read(path);
    };
    let mut file = File::open(path)?;
    let too_short = || {
        io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the file ends before bytes {}..{}, the trial's trace (the run was cut short \
                 before the file reached the disk?)",
                span.offset,
                span.end()
            ),
        )
    };
    if file.metadata()?.len() < span.end() {
        return Err(too_short());
    }
    let len = usize::try_from(span.len).map_err(|_| too_short())?;
    let mut bytes = vec![0; len];
    file.seek(SeekFrom::Start(span.offset))?;
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// Whether the trace at `trace` (relative to `run_dir`), or its `span`, is on disk: the file
/// exists and holds the whole span.
pub fn trace_present(run_dir: &Path, trace: &str, span: Option<TraceSpan>) -> bool {
    let Ok(meta) = std::fs::metadata(run_dir.join(trace)) else {
        return false;
    };
    meta.is_file() && span.is_none_or(|s| meta.len() >= s.end())
}

/// `trace` and its span, for messages: `traces/0.jsonl bytes 120..4410`, or the path alone.
pub fn trace_location(trace: &str, span: Option<TraceSpan>) -> String {
    match span {
        Some(s) => format!("{trace} bytes {}..{}", s.offset, s.end()),
        None => trace.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_reads_its_bytes_and_a_short_file_is_an_error_not_a_short_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("traces")).unwrap();
        std::fs::write(dir.path().join("traces/0.jsonl"), b"{\"a\":1}\n{\"b\":2}\n").unwrap();
        let span = TraceSpan { offset: 8, len: 8 };
        let bytes = read_trace_bytes(dir.path(), "traces/0.jsonl", Some(span)).unwrap();
        assert_eq!(bytes, b"{\"b\":2}\n");
        assert!(trace_present(dir.path(), "traces/0.jsonl", Some(span)));
        let beyond = TraceSpan { offset: 8, len: 9 };
        assert!(!trace_present(dir.path(), "traces/0.jsonl", Some(beyond)));
        let e = read_trace_bytes(dir.path(), "traces/0.jsonl", Some(beyond)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(e.to_string().contains("bytes 8..17"), "{e}");
        // Without a span the file is the trial's alone.
        let whole = read_trace_bytes(dir.path(), "traces/0.jsonl", None).unwrap();
        assert_eq!(whole.len(), 16);
        assert!(!trace_present(dir.path(), "traces/1.jsonl", None));
        assert_eq!(
            trace_location("traces/0.jsonl", Some(span)),
            "traces/0.jsonl bytes 8..16"
        );
    }
}
