//! Where a trial's trace is in its run folder, and reading it back. A run writes each trial's
//! trace into its worker's trace pack (`traces/W.jsonl`, the traces of many trials one after
//! another), and the record names the pack and the span of bytes that is the trial's
//! ([`TraceSpan`]). Records without a span name a file that is the trial's alone
//! (`TASK/N/trace.jsonl`: runs written before trace packs, and the golden records).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

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
        self.offset.saturating_add(self.len)
    }
}

/// The trace at `trace` (relative to `run_dir`), or its `span` of that file, checked against
/// `hash` (blake3, hex) when one is given: bytes that are not the trial's trace (a crash left
/// a pack shorter or other than its journal says) are an `InvalidData` error, never a trace.
/// `trace` comes from a journal, which is input: it must name a regular file inside `run_dir`
/// (a relative path without `..`, through no symbolic link).
pub fn read_trace_bytes(
    run_dir: &Path,
    trace: &str,
    span: Option<TraceSpan>,
    hash: Option<&str>,
) -> io::Result<Vec<u8>> {
    let path = inside(run_dir, trace)?;
    let mut file = File::open(&path)?;
    let file_len = file.metadata()?.len();
    let bytes = match span {
        None => {
            let mut bytes = Vec::with_capacity(usize::try_from(file_len).unwrap_or(0));
            file.read_to_end(&mut bytes)?;
            bytes
        }
        Some(span) => {
            let too_short = || {
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "the file ends before bytes {}..{}, the trial's trace (the run was cut \
                         short before the file reached the disk?)",
                        span.offset,
                        span.end()
                    ),
                )
            };
            if span
                .offset
                .checked_add(span.len)
                .is_none_or(|end| file_len < end)
            {
                return Err(too_short());
            }
            let len = usize::try_from(span.len).map_err(|_| too_short())?;
            let mut bytes = vec![0; len];
            file.seek(SeekFrom::Start(span.offset))?;
            file.read_exact(&mut bytes)?;
            bytes
        }
    };
    if let Some(expected) = hash {
        let found = trace_hash(&bytes);
        if found != expected {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the bytes there are not the trial's trace (blake3 {}, the journal records \
                     {}): the file was damaged, e.g. by a crash before it reached the disk",
                    short_hash(&found),
                    short_hash(expected)
                ),
            ));
        }
    }
    Ok(bytes)
}

/// The first 12 characters of a hash, for messages. A hash a run folder records is input (a
/// journal or `run.json` may say anything), so the cut falls on a character boundary.
pub fn short_hash(hash: &str) -> &str {
    hash.char_indices()
        .nth(12)
        .map_or(hash, |(i, _)| &hash[..i])
}

/// The hash a record keeps of its trace bytes ([`read_trace_bytes`] checks it): blake3, hex.
pub fn trace_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// `run_dir/rel`, when `rel` (a path a run folder's journal names) stays inside `run_dir`: a
/// relative path of plain components, none of them a symbolic link, naming a regular file.
pub fn inside(run_dir: &Path, rel: &str) -> io::Result<PathBuf> {
    let outside = |why: &str| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "`{rel}` is not a file of the run folder ({why}); the journal is damaged or was edited"
            ),
        )
    };
    let relative = Path::new(rel);
    if rel.is_empty()
        || !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
    {
        return Err(outside("it must be a relative path without `..`"));
    }
    let mut path = run_dir.to_path_buf();
    for component in relative.components() {
        path.push(component);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(outside("it goes through a symbolic link"));
        }
    }
    if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Err(outside("it is not a regular file"));
    }
    Ok(path)
}

/// Whether the trace at `trace` (relative to `run_dir`), or its `span`, is on disk: the file
/// exists inside the run folder and holds the whole span.
pub fn trace_present(run_dir: &Path, trace: &str, span: Option<TraceSpan>) -> bool {
    let Ok(path) = inside(run_dir, trace) else {
        return false;
    };
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    meta.is_file()
        && span.is_none_or(|s| {
            s.offset
                .checked_add(s.len)
                .is_some_and(|end| meta.len() >= end)
        })
}

/// Whether the trace is on disk and intact: [`trace_present`], and, when `hash` is given, its
/// bytes have that hash.
pub fn trace_intact(
    run_dir: &Path,
    trace: &str,
    span: Option<TraceSpan>,
    hash: Option<&str>,
) -> bool {
    match hash {
        None => trace_present(run_dir, trace, span),
        Some(_) => read_trace_bytes(run_dir, trace, span, hash).is_ok(),
    }
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
    fn a_short_hash_is_cut_at_a_character() {
        assert_eq!(short_hash("0123456789abcdef"), "0123456789ab");
        assert_eq!(short_hash("abc"), "abc");
        // Byte 12 inside `é`: once a panic of every command reading such a run folder.
        assert_eq!(short_hash("0123456789a\u{e9}0123"), "0123456789a\u{e9}");
    }

    #[test]
    fn a_span_reads_its_bytes_and_a_short_file_is_an_error_not_a_short_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("traces")).unwrap();
        std::fs::write(dir.path().join("traces/0.jsonl"), b"{\"a\":1}\n{\"b\":2}\n").unwrap();
        let span = TraceSpan { offset: 8, len: 8 };
        let bytes = read_trace_bytes(dir.path(), "traces/0.jsonl", Some(span), None).unwrap();
        assert_eq!(bytes, b"{\"b\":2}\n");
        assert!(trace_present(dir.path(), "traces/0.jsonl", Some(span)));
        let beyond = TraceSpan { offset: 8, len: 9 };
        assert!(!trace_present(dir.path(), "traces/0.jsonl", Some(beyond)));
        let e = read_trace_bytes(dir.path(), "traces/0.jsonl", Some(beyond), None).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(e.to_string().contains("bytes 8..17"), "{e}");
        // Without a span the file is the trial's alone.
        let whole = read_trace_bytes(dir.path(), "traces/0.jsonl", None, None).unwrap();
        assert_eq!(whole.len(), 16);
        assert!(!trace_present(dir.path(), "traces/1.jsonl", None));
        assert_eq!(
            trace_location("traces/0.jsonl", Some(span)),
            "traces/0.jsonl bytes 8..16"
        );
    }

    #[test]
    fn a_recorded_hash_tells_the_trials_bytes_from_others() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("traces")).unwrap();
        std::fs::write(dir.path().join("traces/0.jsonl"), b"{\"a\":1}\n{\"b\":2}\n").unwrap();
        let span = TraceSpan { offset: 8, len: 8 };
        let good = trace_hash(b"{\"b\":2}\n");
        let read =
            |hash: &str| read_trace_bytes(dir.path(), "traces/0.jsonl", Some(span), Some(hash));
        assert_eq!(read(&good).unwrap(), b"{\"b\":2}\n");
        assert!(trace_intact(
            dir.path(),
            "traces/0.jsonl",
            Some(span),
            Some(&good)
        ));
        // The same length, other bytes (what a crash leaves when the pack was rewritten).
        let other = trace_hash(b"{\"c\":3}\n");
        let e = read(&other).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("not the trial's trace"), "{e}");
        assert!(!trace_intact(
            dir.path(),
            "traces/0.jsonl",
            Some(span),
            Some(&other)
        ));
        // A span past the end of any file is short, not an overflow.
        let huge = TraceSpan {
            offset: u64::MAX,
            len: 2,
        };
        assert!(!trace_present(dir.path(), "traces/0.jsonl", Some(huge)));
        assert!(read_trace_bytes(dir.path(), "traces/0.jsonl", Some(huge), None).is_err());
    }

    #[test]
    fn a_journal_cannot_name_a_file_outside_its_run_folder() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        std::fs::create_dir_all(run.join("traces")).unwrap();
        std::fs::write(dir.path().join("secret"), b"host file\n").unwrap();
        for rel in [
            "../secret",
            "/etc/hostname",
            "traces/../../secret",
            "",
            "traces",
        ] {
            let e = read_trace_bytes(&run, rel, None, None).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{rel}: {e}");
            assert!(!trace_present(&run, rel, None), "{rel}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret"), run.join("traces/0.jsonl"))
                .unwrap();
            let e = read_trace_bytes(&run, "traces/0.jsonl", None, None).unwrap_err();
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
    }
}
