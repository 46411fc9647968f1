//! `clawrun exec --write-back`: copies a run's changes into the host folders they came from,
//! only if a later host reader could safely follow everything written, and atomically per
//! folder.
//!
//! Per folder: the folder is cloned next to itself (`.NAME.clawrun-stage-PID`; unchanged files
//! are hard-linked, so the clone is cheap and the originals are never written through), the
//! changes are applied to the clone, and the clone is swapped in with one atomic
//! `renameat2(RENAME_EXCHANGE)`; the old tree is then deleted. Where the exchange is not
//! supported, two renames are used (the folder is briefly absent, never half-applied). Any
//! failure before the swap deletes the clone and leaves the folder untouched.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use clawrun_vfs::Vfs;

/// When `--write-back` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum WriteBack {
    /// Only after the program exited with status 0 (the default for a bare `--write-back`).
    OnSuccess,
    /// Whatever the program's exit status (also after a trap or running out of fuel).
    Always,
}

/// A writable mapping to write back: guest path in the VFS, host folder.
pub struct Target<'a> {
    /// Guest path of the mapped folder (absolute, normalised).
    pub guest: &'a str,
    /// The host folder as given on the command line.
    pub host: &'a Path,
}

/// Checks every target, then writes each one's changes back; returns how many paths changed.
/// A refused symlink in any target stops everything before anything is written.
pub fn write_back(base: &mut Vfs, after: &mut Vfs, targets: &[Target<'_>]) -> Result<usize> {
    for t in targets {
        let dir = after
            .resolve_nofollow(t.guest)
            .with_context(|| format!("{} is gone from the sandbox", t.guest))?;
        let before = base.resolve_nofollow(t.guest).ok();
        after
            .check_exportable(dir, before.map(|ino| (&*base, ino)))
            .with_context(|| {
                format!(
                    "not writing changes back to '{}' (or any other folder)",
                    t.host.display()
                )
            })?;
    }
    let mut changed = 0;
    for t in targets {
        changed += apply(base, after, t)
            .with_context(|| format!("writing changes back to '{}'", t.host.display()))?;
    }
    Ok(changed)
}

/// Writes one target's changes through a staged clone (see the module docs).
fn apply(base: &mut Vfs, after: &mut Vfs, t: &Target<'_>) -> Result<usize> {
    let prefix = format!("{}/", t.guest.trim_end_matches('/'));
    if !Vfs::diff(base, after)
        .iter()
        .any(|c| c.path.starts_with(&prefix))
    {
        return Ok(0);
    }
    let folder = std::fs::canonicalize(t.host).context("resolving the host folder")?;
    let (Some(parent), Some(name)) = (folder.parent(), folder.file_name()) else {
        bail!("cannot write back to the file system root; map a folder below it");
    };
    let name = name.to_string_lossy();
    let stage = unique(parent, &format!(".{name}.clawrun-stage"))?;
    let result = (|| {
        clone_tree(&folder, &stage)?;
        let dir = Dir::open_ambient_dir(&stage, ambient_authority())
            .with_context(|| format!("opening the staging folder '{}'", stage.display()))?;
        let changes = Vfs::export_changes(base, after, t.guest, &dir)?;
        swap(&folder, &stage, parent, &name)?;
        Ok(changes.len())
    })();
    // After a swap the stage holds the old tree; before it, the unfinished clone.
    if stage.exists() {
        let _ = std::fs::remove_dir_all(&stage);
    }
    result
}

/// A fresh, empty folder `parent/BASE-PID[-N]`.
fn unique(parent: &Path, base: &str) -> Result<PathBuf> {
    let pid = std::process::id();
    for n in 0..100 {
        let path = parent.join(if n == 0 {
            format!("{base}-{pid}")
        } else {
            format!("{base}-{pid}-{n}")
        });
        match std::fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(e).with_context(|| {
                    format!(
                        "creating a staging folder next to the target in '{}' (the parent \
                         folder must be writable)",
                        parent.display()
                    )
                });
            }
        }
    }
    bail!("no free staging folder name in '{}'", parent.display())
}

/// Copies the tree at `from` into the empty folder `to`: directories are created with their
/// modes, files hard-linked (copied where linking is refused), symlinks recreated verbatim.
fn clone_tree(from: &Path, to: &Path) -> Result<()> {
    let perms = std::fs::metadata(from)?.permissions();
    for entry in std::fs::read_dir(from).with_context(|| format!("reading '{}'", from.display()))? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            std::fs::create_dir(&dst)?;
            clone_tree(&src, &dst)?;
        } else if kind.is_symlink() {
            symlink(&std::fs::read_link(&src)?, &dst)?;
        } else if kind.is_file() {
            if std::fs::hard_link(&src, &dst).is_err() {
                std::fs::copy(&src, &dst)
                    .with_context(|| format!("copying '{}' to stage it", src.display()))?;
            }
        } else {
            bail!(
                "'{}' is not a file, folder or symlink; cannot stage it",
                src.display()
            );
        }
    }
    std::fs::set_permissions(to, perms)?;
    Ok(())
}

#[cfg(unix)]
fn symlink(target: &Path, at: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, at)
}

#[cfg(not(unix))]
fn symlink(_target: &Path, _at: &Path) -> std::io::Result<()> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "symlinks cannot be staged on this platform",
    ))
}

/// Puts the staged tree at `folder` and the old tree at `stage`.
fn swap(folder: &Path, stage: &Path, parent: &Path, name: &str) -> Result<()> {
    if exchange(folder, stage)? {
        return Ok(());
    }
    let old = unique(parent, &format!(".{name}.clawrun-old"))?;
    std::fs::remove_dir(&old)?;
    std::fs::rename(folder, &old).context("moving the old folder aside")?;
    if let Err(e) = std::fs::rename(stage, folder) {
        std::fs::rename(&old, folder).context("restoring the old folder")?;
        return Err(e).context("moving the staged folder in place");
    }
    std::fs::rename(&old, stage).context("moving the old folder away")?;
    Ok(())
}

/// Atomically exchanges two paths; `false` where the kernel or file system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes())?;
    let cb = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: both are valid NUL-terminated paths; AT_FDCWD with absolute paths.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => Ok(false),
        _ => Err(e).context("swapping the staged folder in"),
    }
}

/// Atomically exchanges two paths; `false` where the kernel or file system cannot.
#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> Result<bool> {
    Ok(false)
}
