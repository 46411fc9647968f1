//! File-manipulating utilities: mkdir, rmdir, rm, cp, mv, touch, ln.

use std::path::{Path, PathBuf};

use super::{Opt, parse_opts};
use crate::io::Io;
use crate::shell::{Shell, io_err_msg};

fn has(opts: &[Opt], c: char) -> bool {
    opts.iter()
        .any(|o| matches!(o, Opt::Short(x, _) if *x == c))
}

fn has_long(opts: &[Opt], name: &str) -> bool {
    opts.iter()
        .any(|o| matches!(o, Opt::Long(n, _) if n == name))
}

fn missing_operand(io: &Io, cmd: &str) -> i32 {
    io.errln(format!(
        "{cmd}: missing operand\nTry '{cmd} --help' for more information."
    ));
    1
}

/// `mkdir [-p] [-v] DIR...`.
pub fn mkdir(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, dirs) = match parse_opts("mkdir", &argv[1..], "pvm:") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    if dirs.is_empty() {
        return missing_operand(io, "mkdir");
    }
    let parents = has(&opts, 'p') || has_long(&opts, "parents");
    let verbose = has(&opts, 'v');
    let mut status = 0;
    for d in &dirs {
        let path = sh.resolve(d);
        let r = if parents {
            if path.is_dir() {
                Ok(())
            } else {
                std::fs::create_dir_all(&path)
            }
        } else {
            std::fs::create_dir(&path)
        };
        match r {
            Ok(()) => {
                if verbose {
                    io.out(format!("mkdir: created directory '{d}'\n"));
                }
            }
            Err(e) => {
                io.errln(format!(
                    "mkdir: cannot create directory '{d}': {}",
                    io_err_msg(&e)
                ));
                status = 1;
            }
        }
    }
    status
}

/// `rmdir [-p] DIR...`.
pub fn rmdir(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (_, dirs) = match parse_opts("rmdir", &argv[1..], "pv") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    if dirs.is_empty() {
        return missing_operand(io, "rmdir");
    }
    let mut status = 0;
    for d in &dirs {
        let path = sh.resolve(d);
        let r = if path.is_dir() {
            std::fs::remove_dir(&path)
        } else if path.exists() {
            Err(std::io::Error::from(std::io::ErrorKind::NotADirectory))
        } else {
            Err(std::io::Error::from(std::io::ErrorKind::NotFound))
        };
        if let Err(e) = r {
            let msg = if path.is_dir()
                && std::fs::read_dir(&path).is_ok_and(|mut r| r.next().is_some())
            {
                "Directory not empty"
            } else {
                io_err_msg(&e)
            };
            io.errln(format!("rmdir: failed to remove '{d}': {msg}"));
            status = 1;
        }
    }
    status
}

/// `rm [-rRf] [-d] [-v] FILE...`.
pub fn rm(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("rm", &argv[1..], "rRfdvi") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    let recursive = has(&opts, 'r') || has(&opts, 'R') || has_long(&opts, "recursive");
    let force = has(&opts, 'f') || has_long(&opts, "force");
    let dir_ok = has(&opts, 'd');
    let verbose = has(&opts, 'v');
    if files.is_empty() {
        return if force { 0 } else { missing_operand(io, "rm") };
    }
    let mut status = 0;
    for f in &files {
        let path = sh.resolve(f);
        if f.trim_end_matches('/').ends_with("/.") || f == "." || f == ".." || f.ends_with("/..") {
            io.errln(format!(
                "rm: refusing to remove '.' or '..' directory: skipping '{f}'"
            ));
            status = 1;
            continue;
        }
        if path == Path::new("/") {
            io.errln("rm: it is dangerous to operate recursively on '/'\nrm: use --no-preserve-root to override this failsafe");
            status = 1;
            continue;
        }
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) => {
                if !force {
                    io.errln(format!("rm: cannot remove '{f}': {}", io_err_msg(&e)));
                    status = 1;
                }
                continue;
            }
        };
        let r = if meta.is_dir() {
            if recursive {
                std::fs::remove_dir_all(&path)
            } else if dir_ok {
                std::fs::remove_dir(&path)
            } else {
                io.errln(format!("rm: cannot remove '{f}': Is a directory"));
                status = 1;
                continue;
            }
        } else {
            std::fs::remove_file(&path)
        };
        match r {
            Ok(()) => {
                if verbose {
                    io.out(format!("removed '{f}'\n"));
                }
            }
            Err(e) => {
                io.errln(format!("rm: cannot remove '{f}': {}", io_err_msg(&e)));
                status = 1;
            }
        }
    }
    status
}

fn copy_tree(src: &Path, dst: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(src)?;
    if meta.is_symlink() {
        let target = std::fs::read_link(src)?;
        return make_symlink(&target, dst);
    }
    if meta.is_dir() {
        if !dst.is_dir() {
            std::fs::create_dir(dst)?;
        }
        let mut names: Vec<_> = std::fs::read_dir(src)?.filter_map(|e| e.ok()).collect();
        names.sort_by_key(|e| e.file_name());
        for e in names {
            copy_tree(&e.path(), &dst.join(e.file_name()))?;
        }
        return Ok(());
    }
    std::fs::copy(src, dst).map(|_| ())
}

/// Creates a symbolic link at `link` pointing to `target`.
pub fn make_symlink(target: &Path, link: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)
    }
    #[cfg(target_os = "wasi")]
    {
        // `std::os::wasi::fs::symlink_path` is unstable; wasi-libc's POSIX `symlink` resolves
        // the link path against the preopened directories for us.
        use std::ffi::CString;
        unsafe extern "C" {
            fn symlink(target: *const std::ffi::c_char, link: *const std::ffi::c_char) -> i32;
        }
        let t = CString::new(target.to_string_lossy().as_bytes())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
        let l = CString::new(link.to_string_lossy().as_bytes())
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
        // SAFETY: both pointers are valid NUL-terminated strings for the duration of the call.
        if unsafe { symlink(t.as_ptr(), l.as_ptr()) } == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
    #[cfg(not(any(unix, target_os = "wasi")))]
    {
        let _ = (target, link);
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }
}

fn base_name(p: &str) -> String {
    let t = p.trim_end_matches('/');
    t.rsplit('/').next().unwrap_or(t).to_owned()
}

/// Splits operands into sources and destination, resolving "copy into directory".
fn targets(
    sh: &Shell,
    io: &Io,
    cmd: &str,
    operands: &[String],
) -> Option<Vec<(String, PathBuf, PathBuf)>> {
    if operands.is_empty() {
        missing_operand(io, cmd);
        return None;
    }
    if operands.len() == 1 {
        io.errln(format!(
            "{cmd}: missing destination file operand after '{}'\nTry '{cmd} --help' for more information.",
            operands[0]
        ));
        return None;
    }
    let (srcs, dst) = operands.split_at(operands.len() - 1);
    let dst_name = &dst[0];
    let dst_path = sh.resolve(dst_name);
    let into_dir = dst_path.is_dir();
    if srcs.len() > 1 && !into_dir {
        io.errln(format!("{cmd}: target '{dst_name}': Not a directory"));
        return None;
    }
    Some(
        srcs.iter()
            .map(|s| {
                let sp = sh.resolve(s);
                let dp = if into_dir {
                    dst_path.join(base_name(s))
                } else {
                    dst_path.clone()
                };
                (s.clone(), sp, dp)
            })
            .collect(),
    )
}

/// `cp [-rRaf] [-n] [-v] SRC... DEST`.
pub fn cp(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, operands) = match parse_opts("cp", &argv[1..], "rRafnvpiuLPdT") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    let recursive =
        has(&opts, 'r') || has(&opts, 'R') || has(&opts, 'a') || has_long(&opts, "recursive");
    let no_clobber = has(&opts, 'n');
    let verbose = has(&opts, 'v');
    let Some(list) = targets(sh, io, "cp", &operands) else {
        return 1;
    };
    let mut status = 0;
    for (name, src, dst) in list {
        let meta = match std::fs::metadata(&src) {
            Ok(m) => m,
            Err(e) => {
                io.errln(format!("cp: cannot stat '{name}': {}", io_err_msg(&e)));
                status = 1;
                continue;
            }
        };
        if meta.is_dir() && !recursive {
            io.errln(format!("cp: -r not specified; omitting directory '{name}'"));
            status = 1;
            continue;
        }
        if src == dst {
            io.errln(format!(
                "cp: '{name}' and '{}' are the same file",
                dst.display()
            ));
            status = 1;
            continue;
        }
        if meta.is_dir() && dst.starts_with(&src) {
            io.errln(format!(
                "cp: cannot copy a directory, '{name}', into itself, '{}'",
                dst.display()
            ));
            status = 1;
            continue;
        }
        if no_clobber && dst.exists() {
            continue;
        }
        let r = if meta.is_dir() {
            copy_tree(&src, &dst)
        } else {
            std::fs::copy(&src, &dst).map(|_| ())
        };
        match r {
            Ok(()) => {
                if verbose {
                    io.out(format!("'{name}' -> '{}'\n", dst.display()));
                }
            }
            Err(e) => {
                io.errln(format!(
                    "cp: cannot create regular file '{}': {}",
                    dst.display(),
                    io_err_msg(&e)
                ));
                status = 1;
            }
        }
    }
    status
}

/// `mv [-f] [-n] [-v] SRC... DEST`.
pub fn mv(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, operands) = match parse_opts("mv", &argv[1..], "fnviuT") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    let no_clobber = has(&opts, 'n');
    let verbose = has(&opts, 'v');
    let Some(list) = targets(sh, io, "mv", &operands) else {
        return 1;
    };
    let mut status = 0;
    for (name, src, dst) in list {
        if let Err(e) = std::fs::symlink_metadata(&src) {
            io.errln(format!("mv: cannot stat '{name}': {}", io_err_msg(&e)));
            status = 1;
            continue;
        }
        if src == dst {
            io.errln(format!(
                "mv: '{name}' and '{}' are the same file",
                dst.display()
            ));
            status = 1;
            continue;
        }
        if dst.starts_with(&src) {
            io.errln(format!(
                "mv: cannot move '{name}' to a subdirectory of itself, '{}'",
                dst.display()
            ));
            status = 1;
            continue;
        }
        if no_clobber && dst.exists() {
            continue;
        }
        if src.is_dir() && dst.is_dir() {
            // Renaming onto an existing (empty) directory replaces it.
            let _ = std::fs::remove_dir(&dst);
        }
        let r = std::fs::rename(&src, &dst).or_else(|_| {
            copy_tree(&src, &dst)?;
            if src.is_dir() {
                std::fs::remove_dir_all(&src)
            } else {
                std::fs::remove_file(&src)
            }
        });
        match r {
            Ok(()) => {
                if verbose {
                    io.out(format!("renamed '{name}' -> '{}'\n", dst.display()));
                }
            }
            Err(e) => {
                io.errln(format!(
                    "mv: cannot move '{name}' to '{}': {}",
                    dst.display(),
                    io_err_msg(&e)
                ));
                status = 1;
            }
        }
    }
    status
}

/// `touch [-c] FILE...`: creates files or updates their modification time.
pub fn touch(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("touch", &argv[1..], "camd:t:r:") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    if files.is_empty() {
        return missing_operand(io, "touch");
    }
    let no_create = has(&opts, 'c');
    let mut status = 0;
    for f in &files {
        let path = sh.resolve(f);
        if path.exists() {
            if let Ok(file) = std::fs::File::options().append(true).open(&path) {
                let _ = file.set_modified(std::time::SystemTime::now());
            }
            continue;
        }
        if no_create {
            continue;
        }
        if let Err(e) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            io.errln(format!("touch: cannot touch '{f}': {}", io_err_msg(&e)));
            status = 1;
        }
    }
    status
}

/// `ln [-s] [-f] TARGET LINK_NAME` (or `TARGET... DIR`).
pub fn ln(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, operands) = match parse_opts("ln", &argv[1..], "sfnvrT") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    let symbolic = has(&opts, 's');
    let force = has(&opts, 'f');
    let operands = if operands.len() == 1 {
        vec![operands[0].clone(), base_name(&operands[0])]
    } else {
        operands
    };
    let Some(list) = targets(sh, io, "ln", &operands) else {
        return 1;
    };
    let mut status = 0;
    for (name, src, dst) in list {
        if force && std::fs::symlink_metadata(&dst).is_ok() {
            let _ = std::fs::remove_file(&dst);
        }
        let r = if symbolic {
            make_symlink(Path::new(&name), &dst)
        } else {
            std::fs::hard_link(&src, &dst)
        };
        if let Err(e) = r {
            let msg = if e.kind() == std::io::ErrorKind::AlreadyExists {
                format!(
                    "ln: failed to create symbolic link '{}': File exists",
                    dst.display()
                )
            } else if !symbolic && !src.exists() {
                format!("ln: failed to access '{name}': No such file or directory")
            } else {
                format!(
                    "ln: failed to create link '{}': {}",
                    dst.display(),
                    io_err_msg(&e)
                )
            };
            io.errln(msg);
            status = 1;
        }
    }
    status
}
