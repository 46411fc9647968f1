//! Hooks for the crash-safety tests (`tests/it/crash_safety.rs`), inert unless their variable
//! is set:
//!
//! - `CLAWRUN_CRASH_AT=POINT:N` aborts the process (as `kill -9` would end it: no destructor,
//!   no flush) the `N`th time (from 1) the run passes crash point `POINT`, one of
//!   [`POINTS`]: each comes right after a step that writes a run folder's files, so a test
//!   can stop a run between any two of them. `POINT:N:panic` panics there instead (the test
//!   that the test command notices a clawrun ending with status 101, `CLAWRUN_PANIC_LOG`).
//! - `CLAWRUN_SYNC_LOG=FILE` appends a line `PATH LEN` to `FILE` each time the run has synced
//!   file `PATH` (relative to the run folder) to the disk with its first `LEN` bytes: what a
//!   power loss would keep at least, so that a test can cut the files back to any length a
//!   power loss could leave.

use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The crash points, in the order a trial passes them.
pub const POINTS: &[&str] = &[
    // run.json written (before any trial).
    "manifest-written",
    // A trial's trace appended to its worker's pack; its record not yet sent.
    "trace-written",
    // A batch of journal lines written (in the kernel's cache), not yet synced.
    "journal-written",
    // The trace packs synced in a group commit, the journal not yet.
    "packs-synced",
    // The journal synced.
    "journal-synced",
    // A batch of timing lines written.
    "timings-written",
];

/// The crash point and pass to abort (or, `true`, panic) at, from `CLAWRUN_CRASH_AT`.
fn target() -> Option<&'static (String, u64, bool)> {
    static TARGET: OnceLock<Option<(String, u64, bool)>> = OnceLock::new();
    TARGET
        .get_or_init(|| {
            let spec = std::env::var("CLAWRUN_CRASH_AT").ok()?;
            let (point, rest) = spec.split_once(':')?;
            let (n, panic) = match rest.strip_suffix(":panic") {
                Some(n) => (n, true),
                None => (rest, false),
            };
            Some((point.to_string(), n.parse().ok()?, panic))
        })
        .as_ref()
}

/// Passes crash point `name` (one of [`POINTS`]): aborts the process when it is the one
/// `CLAWRUN_CRASH_AT` names, for the time it names.
pub fn point(name: &'static str) {
    debug_assert!(POINTS.contains(&name), "{name} is not a crash point");
    static PASSES: AtomicU64 = AtomicU64::new(0);
    if let Some((point, n, panic)) = target()
        && point == name
        && PASSES.fetch_add(1, Ordering::SeqCst) + 1 == *n
    {
        if *panic {
            panic!("CLAWRUN_CRASH_AT: a panic asked for at {name}");
        }
        std::process::abort();
    }
}

/// Notes, for `CLAWRUN_SYNC_LOG`, that `path` (in run folder `out`) is on the disk with its
/// first `len` bytes.
pub fn synced(out: &Path, path: &Path, len: u64) {
    static LOG: OnceLock<Option<std::path::PathBuf>> = OnceLock::new();
    let Some(log) = LOG
        .get_or_init(|| std::env::var_os("CLAWRUN_SYNC_LOG").map(Into::into))
        .as_ref()
    else {
        return;
    };
    let rel = path.strip_prefix(out).unwrap_or(path);
    let line = format!("{} {len}\n", rel.display());
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
    {
        let _ = f.write_all(line.as_bytes());
    }
}
