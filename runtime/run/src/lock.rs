//! The run folder's writer lock: one process at a time writes a run's journal, trace packs and
//! timings. Two writers on one folder (a second `--resume`, or a run whose wrapper was killed
//! while clawrun itself went on) would append to the same packs at their own idea of the end,
//! and each journal would then name bytes the other wrote. The lock is an advisory exclusive
//! lock (`flock`) on `.clawrun.lock` (a shard's own: `.clawrun.shard-I-of-N.lock`, so shards
//! share a folder), held until the process ends: the kernel releases it on any exit, `kill -9`
//! included, so a crashed run never leaves a stale lock behind.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use anyhow::{Context, Result};

use super::preflight::SetupError;
use super::shard::Shard;

/// The held lock (released when dropped or when the process ends).
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

/// Whether a process is writing run folder `out` now (any of its writer locks, a shard's
/// included, is held). Asks without taking a lock anyone would wait on.
pub fn held(out: &Path) -> bool {
    std::fs::read_dir(out)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(".clawrun") && name.ends_with(".lock")
        })
        .any(|e| {
            File::open(e.path())
                .is_ok_and(|f| matches!(f.try_lock_shared(), Err(TryLockError::WouldBlock)))
        })
}

impl RunLock {
    /// Takes the writer lock of run folder `out` for this invocation's `shard`, or says which
    /// process holds it (a usage error: exit status 2).
    pub fn acquire(out: &Path, shard: Option<Shard>) -> Result<RunLock> {
        let name = match shard {
            Some(s) => format!(".clawrun.shard-{}-of-{}.lock", s.index, s.count),
            None => ".clawrun.lock".to_string(),
        };
        let path = out.join(name);
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .with_context(|| format!("opening the lock file {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(SetupError::Usage(format!(
                    "{} is being written by another clawrun{}: wait for it to end (or stop it) \
                     before continuing this run, or choose another --out",
                    out.display(),
                    if holder.is_empty() {
                        String::new()
                    } else {
                        format!(" (process {holder})")
                    }
                ))
                .into());
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", path.display()));
            }
        }
        // Who holds it, for the message above (never read for anything else).
        let _ = file
            .set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| writeln!(file, "{}", std::process::id()));
        Ok(RunLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::acquire(dir.path(), None).unwrap();
        let e = RunLock::acquire(dir.path(), None).unwrap_err();
        let text = format!("{e:#}");
        assert!(text.contains("being written by another clawrun"), "{text}");
        assert!(
            text.contains(&format!("process {}", std::process::id())),
            "{text}"
        );
        // Shards of one folder lock apart.
        let shard = RunLock::acquire(dir.path(), Some(Shard { index: 0, count: 2 })).unwrap();
        drop(first);
        let again = RunLock::acquire(dir.path(), None).unwrap();
        drop((again, shard));
    }
}
