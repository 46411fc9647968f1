//! `ls` with GNU's non-terminal output format (one name per line), plus metadata helpers
//! shared with `stat` and `du`.

use std::fs::Metadata;
use std::path::Path;

use super::{Opt, parse_opts};
use crate::io::Io;
use crate::shell::{Shell, io_err_msg};
use crate::timefmt;

/// The permission bits of a file (synthesised where the platform has none).
pub fn mode_bits(meta: &Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        // The sandbox filesystem has no permission bits: report the usual defaults.
        if meta.is_dir() || meta.is_symlink() {
            0o755
        } else {
            0o644
        }
    }
}

/// `drwxr-xr-x`-style mode string.
pub fn mode_string(meta: &Metadata) -> String {
    let kind = if meta.is_symlink() {
        'l'
    } else if meta.is_dir() {
        'd'
    } else {
        '-'
    };
    let bits = if meta.is_symlink() {
        0o777
    } else {
        mode_bits(meta)
    };
    let mut s = String::from(kind);
    for shift in [6, 3, 0] {
        let b = (bits >> shift) & 7;
        s.push(if b & 4 != 0 { 'r' } else { '-' });
        s.push(if b & 2 != 0 { 'w' } else { '-' });
        s.push(if b & 1 != 0 { 'x' } else { '-' });
    }
    s
}

/// Hard link count (directories: 2 + subdirectories where the platform does not say).
pub fn nlink(meta: &Metadata, path: &Path) -> u64 {
    #[cfg(unix)]
    {
        let _ = path;
        use std::os::unix::fs::MetadataExt;
        meta.nlink()
    }
    #[cfg(not(unix))]
    {
        if meta.is_dir() {
            2 + std::fs::read_dir(path)
                .map(|rd| {
                    rd.filter_map(|e| e.ok())
                        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                        .count() as u64
                })
                .unwrap_or(0)
        } else {
            1
        }
    }
}

/// Size in 1 KiB blocks as `ls -s`/`du` count it.
pub fn kblocks(meta: &Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.blocks() / 2
    }
    #[cfg(not(unix))]
    {
        if meta.is_symlink() {
            0
        } else {
            meta.len().div_ceil(4096) * 4
        }
    }
}

/// Size as reported by `ls -l` (directories report 4096 where the platform says 0).
pub fn size_of(meta: &Metadata) -> u64 {
    if meta.is_dir() && meta.len() == 0 {
        4096
    } else {
        meta.len()
    }
}

fn human(n: u64) -> String {
    if n < 1024 {
        return n.to_string();
    }
    let units = ["K", "M", "G", "T", "P"];
    let mut v = n as f64;
    let mut u = 0;
    v /= 1024.0;
    while v >= 1024.0 && u < units.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if v < 10.0 {
        let r = (v * 10.0).ceil() / 10.0;
        if r < 10.0 {
            return format!("{r:.1}{}", units[u]);
        }
        return format!("{}{}", r as u64, units[u]);
    }
    format!("{}{}", v.ceil() as u64, units[u])
}

/// `ls -l` date column: `Mon DD HH:MM`, or `Mon DD  YYYY` for times over six months away.
pub fn ls_time(meta: &Metadata) -> String {
    let (secs, _) = timefmt::epoch(meta.modified().unwrap_or(std::time::UNIX_EPOCH));
    let (now, _) = timefmt::epoch(std::time::SystemTime::now());
    let tm = timefmt::gmtime(secs);
    let six_months = 15_778_476; // 365.2425 / 2 days
    if secs > now - six_months && secs <= now + 60 {
        timefmt::strftime("%b %e %H:%M", &tm, secs, 0)
    } else {
        timefmt::strftime("%b %e  %Y", &tm, secs, 0)
    }
}

struct Entry {
    name: String,
    path: std::path::PathBuf,
    meta: Metadata,
}

#[derive(Default)]
struct Flags {
    all: bool,
    almost: bool,
    long: bool,
    recursive: bool,
    dir_itself: bool,
    human: bool,
    reverse: bool,
    by_time: bool,
    by_size: bool,
    classify: bool,
    slash: bool,
    unsorted: bool,
    no_group: bool,
    size_blocks: bool,
    inode: bool,
}

fn sort_entries(entries: &mut [Entry], f: &Flags) {
    if f.unsorted {
        return;
    }
    entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    if f.by_time {
        entries.sort_by(|a, b| {
            let ta = a.meta.modified().ok();
            let tb = b.meta.modified().ok();
            tb.cmp(&ta)
        });
    } else if f.by_size {
        entries.sort_by_key(|e| std::cmp::Reverse(size_of(&e.meta)));
    }
    if f.reverse {
        entries.reverse();
    }
}

fn suffix(meta: &Metadata, f: &Flags) -> &'static str {
    if meta.is_symlink() && f.classify && !f.long {
        "@"
    } else if meta.is_dir() && (f.classify || f.slash) {
        "/"
    } else if f.classify && meta.is_file() && mode_bits(meta) & 0o111 != 0 {
        "*"
    } else {
        ""
    }
}

fn print_entries(entries: &[Entry], f: &Flags, out: &mut String, with_total: bool) {
    if !f.long {
        for e in entries {
            if f.size_blocks {
                out.push_str(&format!("{} ", kblocks(&e.meta)));
            }
            out.push_str(&e.name);
            out.push_str(suffix(&e.meta, f));
            out.push('\n');
        }
        return;
    }
    if with_total {
        let total: u64 = entries.iter().map(|e| kblocks(&e.meta)).sum();
        let t = if f.human {
            human(total * 1024)
        } else {
            total.to_string()
        };
        out.push_str(&format!("total {t}\n"));
    }
    let rows: Vec<(String, String, String, String)> = entries
        .iter()
        .map(|e| {
            let size = if f.human {
                human(size_of(&e.meta))
            } else {
                size_of(&e.meta).to_string()
            };
            (
                mode_string(&e.meta),
                nlink(&e.meta, &e.path).to_string(),
                size,
                ls_time(&e.meta),
            )
        })
        .collect();
    let wl = rows.iter().map(|r| r.1.len()).max().unwrap_or(1);
    let ws = rows.iter().map(|r| r.2.len()).max().unwrap_or(1);
    for (e, (mode, links, size, time)) in entries.iter().zip(rows) {
        let owner = if f.no_group { "user" } else { "user user" };
        let mut name = e.name.clone();
        if e.meta.is_symlink() {
            if let Ok(t) = std::fs::read_link(&e.path) {
                name.push_str(&format!(" -> {}", t.display()));
            }
        } else {
            name.push_str(suffix(&e.meta, f));
        }
        out.push_str(&format!(
            "{mode} {links:>wl$} {owner} {size:>ws$} {time} {name}\n"
        ));
    }
}

fn read_dir_entries(dir: &Path, f: &Flags) -> std::io::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    if f.all {
        for n in [".", ".."] {
            // Resolve `..` lexically: WASI filesystems refuse to walk above a preopen.
            let p = if n == "." {
                dir.to_path_buf()
            } else {
                dir.parent()
                    .map_or_else(|| dir.to_path_buf(), Path::to_path_buf)
            };
            // Above the sandbox root `..` may be unreadable: show the directory itself.
            let meta = std::fs::metadata(&p).or_else(|_| std::fs::metadata(dir));
            if let Ok(meta) = meta {
                entries.push(Entry {
                    name: n.to_owned(),
                    path: p,
                    meta,
                });
            }
        }
    }
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && !f.all && !f.almost {
            continue;
        }
        let path = e.path();
        if let Ok(meta) = std::fs::symlink_metadata(&path) {
            entries.push(Entry { name, path, meta });
        }
    }
    Ok(entries)
}

#[allow(clippy::too_many_arguments)]
fn list_dir(
    shown: &str,
    dir: &Path,
    f: &Flags,
    out: &mut String,
    io: &Io,
    status: &mut i32,
    header: bool,
    first: &mut bool,
) {
    let mut entries = match read_dir_entries(dir, f) {
        Ok(e) => e,
        Err(e) => {
            io.out(std::mem::take(out));
            io.errln(format!(
                "ls: cannot open directory '{shown}': {}",
                io_err_msg(&e)
            ));
            *status = 2;
            return;
        }
    };
    sort_entries(&mut entries, f);
    if header {
        if !*first {
            out.push('\n');
        }
        out.push_str(&format!("{shown}:\n"));
    }
    *first = false;
    print_entries(&entries, f, out, true);
    if f.recursive {
        for e in &entries {
            if e.meta.is_dir() && e.name != "." && e.name != ".." {
                let child = if shown.ends_with('/') {
                    format!("{shown}{}", e.name)
                } else {
                    format!("{shown}/{}", e.name)
                };
                list_dir(&child, &e.path, f, out, io, status, true, first);
            }
        }
    }
}

/// `ls [-laAR1dhtrSFp] [FILE...]`.
pub fn ls(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, mut operands) = match parse_opts("ls", &argv[1..], "laAR1dhtrSFpUCxmGgnosi") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 2;
        }
    };
    let mut f = Flags::default();
    for o in &opts {
        match o {
            Opt::Short(c, _) => match c {
                'l' | 'n' => f.long = true,
                'g' | 'o' => {
                    f.long = true;
                    f.no_group = true;
                }
                'a' => f.all = true,
                'A' => f.almost = true,
                'R' => f.recursive = true,
                'd' => f.dir_itself = true,
                'h' => f.human = true,
                't' => f.by_time = true,
                'r' => f.reverse = true,
                'S' => f.by_size = true,
                'F' => f.classify = true,
                'p' => f.slash = true,
                'U' => f.unsorted = true,
                's' => f.size_blocks = true,
                'i' => f.inode = true,
                _ => {}
            },
            Opt::Long(name, _) => match name.as_str() {
                "all" => f.all = true,
                "almost-all" => f.almost = true,
                "recursive" => f.recursive = true,
                "human-readable" => f.human = true,
                "directory" => f.dir_itself = true,
                "classify" => f.classify = true,
                _ => {}
            },
        }
    }
    if operands.is_empty() {
        operands.push(".".to_owned());
    }
    let mut status = 0;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for name in &operands {
        let path = sh.resolve(name);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) => {
                let is_dir = meta.is_dir() || (meta.is_symlink() && !f.long && path.is_dir());
                if is_dir && !f.dir_itself {
                    dirs.push((name.clone(), path));
                } else {
                    files.push(Entry {
                        name: name.clone(),
                        path,
                        meta,
                    });
                }
            }
            Err(e) => {
                io.errln(format!("ls: cannot access '{name}': {}", io_err_msg(&e)));
                status = 2;
            }
        }
    }
    let mut out = String::new();
    sort_entries(&mut files, &f);
    print_entries(&files, &f, &mut out, false);
    dirs.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    if f.reverse {
        dirs.reverse();
    }
    let header = f.recursive || operands.len() > 1;
    let mut first = files.is_empty();
    for (name, path) in &dirs {
        list_dir(
            name,
            path,
            &f,
            &mut out,
            io,
            &mut status,
            header,
            &mut first,
        );
    }
    io.out(out);
    status
}
