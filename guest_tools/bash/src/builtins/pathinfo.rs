//! Path and metadata utilities: basename, dirname, realpath/readlink, stat, du.

use super::{Opt, parse_opts};
use crate::io::Io;
use crate::shell::{Shell, io_err_msg, resolve_str};

/// `basename NAME [SUFFIX]` / `basename -a [-s SUFFIX] NAME...`.
pub fn basename(_sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, names) = match parse_opts("basename", &argv[1..], "as:z") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    if names.is_empty() {
        io.errln("basename: missing operand\nTry 'basename --help' for more information.");
        return 1;
    }
    let mut suffix = None;
    let mut multi = false;
    for o in &opts {
        match o {
            Opt::Short('a', _) => multi = true,
            Opt::Short('s', Some(s)) => {
                suffix = Some(s.clone());
                multi = true;
            }
            _ => {}
        }
    }
    let list: Vec<&String> = if multi {
        names.iter().collect()
    } else {
        if names.len() > 2 {
            io.errln(format!(
                "basename: extra operand '{}'\nTry 'basename --help' for more information.",
                names[2]
            ));
            return 1;
        }
        suffix = names.get(1).cloned();
        vec![&names[0]]
    };
    let mut out = String::new();
    for n in list {
        let t = n.trim_end_matches('/');
        let mut b = if t.is_empty() && n.starts_with('/') {
            "/".to_owned()
        } else {
            t.rsplit('/').next().unwrap_or(t).to_owned()
        };
        if let Some(s) = &suffix
            && b.len() > s.len()
            && b.ends_with(s.as_str())
        {
            b.truncate(b.len() - s.len());
        }
        out.push_str(&b);
        out.push('\n');
    }
    io.out(out);
    0
}

/// `dirname NAME...`.
pub fn dirname(_sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    if argv.len() < 2 {
        io.errln("dirname: missing operand\nTry 'dirname --help' for more information.");
        return 1;
    }
    let mut out = String::new();
    for n in &argv[1..] {
        let t = n.trim_end_matches('/');
        let d = match t.rfind('/') {
            Some(p) => {
                let d = t[..p].trim_end_matches('/');
                if d.is_empty() { "/" } else { d }
            }
            None if n.starts_with('/') => "/",
            None => ".",
        };
        out.push_str(d);
        out.push('\n');
    }
    io.out(out);
    0
}

/// `realpath [-m|-e] PATH...` and `readlink [-f] PATH`.
pub fn realpath(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let readlink = argv[0] == "readlink";
    let (opts, names) = match parse_opts(&argv[0], &argv[1..], "mefsqnz") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    let missing_ok = opts.contains(&Opt::Short('m', None));
    let canonical = !readlink
        || opts
            .iter()
            .any(|o| matches!(o, Opt::Short('f' | 'e' | 'm', _)));
    let mut status = 0;
    let mut out = String::new();
    for n in &names {
        let path = sh.resolve(n);
        if readlink && !canonical {
            match std::fs::read_link(&path) {
                Ok(t) => out.push_str(&format!("{}\n", t.display())),
                Err(_) => status = 1,
            }
            continue;
        }
        match std::fs::canonicalize(&path) {
            Ok(p) => out.push_str(&format!("{}\n", p.display())),
            Err(e) => {
                if missing_ok || (readlink && path.parent().is_some_and(|p| p.exists())) {
                    out.push_str(&resolve_str(&sh.cwd, n));
                    out.push('\n');
                } else {
                    if !readlink {
                        io.errln(format!("realpath: {n}: {}", io_err_msg(&e)));
                    }
                    status = 1;
                }
            }
        }
    }
    io.out(out);
    status
}

/// `stat [-c FORMAT] FILE...`.
pub fn stat(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, names) = match parse_opts("stat", &argv[1..], "c:Lt") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    let fmt = opts.iter().find_map(|o| match o {
        Opt::Short('c', Some(f)) => Some(f.clone()),
        Opt::Long(n, Some(f)) if n == "format" || n == "printf" => Some(f.clone()),
        _ => None,
    });
    if names.is_empty() {
        io.errln("stat: missing operand\nTry 'stat --help' for more information.");
        return 1;
    }
    let mut status = 0;
    let mut out = String::new();
    for n in &names {
        let path = sh.resolve(n);
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) => {
                io.errln(format!("stat: cannot statx '{n}': {}", io_err_msg(&e)));
                status = 1;
                continue;
            }
        };
        let kind = if meta.is_symlink() {
            "symbolic link"
        } else if meta.is_dir() {
            "directory"
        } else if meta.len() == 0 {
            "regular empty file"
        } else {
            "regular file"
        };
        let (mtime, _) = crate::timefmt::epoch(meta.modified().unwrap_or(std::time::UNIX_EPOCH));
        let tm = crate::timefmt::gmtime(mtime);
        let mtime_str =
            crate::timefmt::strftime("%Y-%m-%d %H:%M:%S.000000000 +0000", &tm, mtime, 0);
        match &fmt {
            Some(f) => {
                let mut s = String::new();
                let mut chars = f.chars();
                while let Some(c) = chars.next() {
                    if c != '%' {
                        s.push(c);
                        continue;
                    }
                    match chars.next() {
                        Some('n') => s.push_str(n),
                        Some('N') => s.push_str(&format!("'{n}'")),
                        Some('s') => s.push_str(&super::ls::size_of(&meta).to_string()),
                        Some('F') => s.push_str(kind),
                        Some('a') => s.push_str(&format!("{:o}", super::ls::mode_bits(&meta))),
                        Some('A') => s.push_str(&super::ls::mode_string(&meta)),
                        Some('U' | 'G') => s.push_str("user"),
                        Some('u' | 'g') => s.push_str("1000"),
                        Some('h') => s.push_str(&super::ls::nlink(&meta, &path).to_string()),
                        Some('Y') => s.push_str(&mtime.to_string()),
                        Some('y') => s.push_str(&mtime_str),
                        Some('b') => s.push_str(&(super::ls::kblocks(&meta) * 2).to_string()),
                        Some('%') => s.push('%'),
                        Some(o) => {
                            s.push('%');
                            s.push(o);
                        }
                        None => s.push('%'),
                    }
                }
                out.push_str(&s);
                out.push('\n');
            }
            None => {
                out.push_str(&format!(
                    "  File: {n}\n  Size: {:<15} Blocks: {:<10} IO Block: 4096   {kind}\nAccess: ({:04o}/{})  Uid: ( 1000/    user)   Gid: ( 1000/    user)\nModify: {mtime_str}\n",
                    super::ls::size_of(&meta),
                    super::ls::kblocks(&meta) * 2,
                    super::ls::mode_bits(&meta),
                    super::ls::mode_string(&meta),
                ));
            }
        }
    }
    io.out(out);
    status
}

fn du_walk(
    path: &std::path::Path,
    shown: &str,
    depth: usize,
    max: Option<usize>,
    all: bool,
    lines: &mut Vec<(u64, String)>,
) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    let mut total = super::ls::kblocks(&meta);
    if meta.is_dir() {
        if let Ok(rd) = std::fs::read_dir(path) {
            let mut names: Vec<String> = rd
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            for n in names {
                let child = if shown.ends_with('/') {
                    format!("{shown}{n}")
                } else {
                    format!("{shown}/{n}")
                };
                total += du_walk(&path.join(&n), &child, depth + 1, max, all, lines);
            }
        }
        if max.is_none_or(|m| depth <= m) {
            lines.push((total, shown.to_owned()));
        }
    } else if all && max.is_none_or(|m| depth <= m) || depth == 0 {
        lines.push((total, shown.to_owned()));
    }
    total
}

fn human(kb: u64) -> String {
    let bytes = kb * 1024;
    if bytes < 1024 {
        return bytes.to_string();
    }
    let units = ["K", "M", "G", "T"];
    let mut v = bytes as f64 / 1024.0;
    let mut u = 0;
    while v >= 1024.0 && u < units.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if v < 10.0 {
        let r = (v * 10.0).ceil() / 10.0;
        if r < 10.0 {
            return format!("{r:.1}{}", units[u]);
        }
    }
    format!("{}{}", v.ceil() as u64, units[u])
}

/// `du [-s] [-h] [-a] [-c] [-d N] [FILE...]`.
pub fn du(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, mut names) = match parse_opts("du", &argv[1..], "shacd:kbm") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    let has = |c: char| {
        opts.iter()
            .any(|o| matches!(o, Opt::Short(x, _) if *x == c))
    };
    let summarize = has('s');
    let hum = has('h');
    let all = has('a');
    let total_line = has('c');
    let mut max = opts.iter().find_map(|o| match o {
        Opt::Short('d', Some(v)) => v.parse().ok(),
        Opt::Long(n, Some(v)) if n == "max-depth" => v.parse().ok(),
        _ => None,
    });
    if summarize {
        max = Some(0);
    }
    if names.is_empty() {
        names.push(".".to_owned());
    }
    let mut status = 0;
    let mut out = String::new();
    let mut grand = 0;
    for n in &names {
        let path = sh.resolve(n);
        if let Err(e) = std::fs::symlink_metadata(&path) {
            io.errln(format!("du: cannot access '{n}': {}", io_err_msg(&e)));
            status = 1;
            continue;
        }
        let mut lines = Vec::new();
        grand += du_walk(&path, n, 0, max, all, &mut lines);
        for (size, name) in lines {
            let s = if hum { human(size) } else { size.to_string() };
            out.push_str(&format!("{s}\t{name}\n"));
        }
    }
    if total_line {
        let s = if hum { human(grand) } else { grand.to_string() };
        out.push_str(&format!("{s}\ttotal\n"));
    }
    io.out(out);
    status
}
