//! `grep` with GNU's common options.

use regex::bytes::{Regex, RegexBuilder};

use super::{Opt, lines, parse_opts};
use crate::io::Io;
use crate::pattern::Pattern;
use crate::shell::{Shell, io_err_msg};

#[derive(Default)]
struct Opts {
    invert: bool,
    line_numbers: bool,
    count: bool,
    list: bool,
    list_missing: bool,
    only: bool,
    quiet: bool,
    no_messages: bool,
    with_name: Option<bool>,
    recursive: bool,
    max: Option<usize>,
    after: usize,
    before: usize,
    include: Vec<Pattern>,
    exclude: Vec<Pattern>,
    exclude_dir: Vec<Pattern>,
}

/// `grep [OPTIONS] PATTERN [FILE...]`.
pub fn grep(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut args: Vec<String> = Vec::new();
    // `-5` means `-C 5`.
    for a in &argv[1..] {
        if a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| c.is_ascii_digit()) {
            args.push("-C".to_owned());
            args.push(a[1..].to_owned());
        } else {
            args.push(a.clone());
        }
    }
    let (opts, mut operands) =
        match parse_opts("grep", &args, "EFGPivnrRlLcoqshHwxe:f:m:A:B:C:abIUZz") {
            Ok(x) => x,
            Err(e) => {
                io.errln(e.replace(
                    "Try 'grep --help'",
                    "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help'",
                ));
                return 2;
            }
        };
    let mut o = Opts::default();
    let mut extended = argv[0] == "egrep";
    let mut fixed = argv[0] == "fgrep";
    let mut icase = false;
    let mut word = false;
    let mut line = false;
    let mut patterns: Vec<String> = Vec::new();
    let mut have_pattern = false;
    for opt in &opts {
        match opt {
            Opt::Short(c, v) => match (c, v) {
                ('E', _) => extended = true,
                ('F', _) => fixed = true,
                ('G', _) => extended = false,
                ('P', _) => extended = true,
                ('i', _) => icase = true,
                ('v', _) => o.invert = true,
                ('n', _) => o.line_numbers = true,
                ('r' | 'R', _) => o.recursive = true,
                ('l', _) => o.list = true,
                ('L', _) => o.list_missing = true,
                ('c', _) => o.count = true,
                ('o', _) => o.only = true,
                ('q', _) => o.quiet = true,
                ('s', _) => o.no_messages = true,
                ('h', _) => o.with_name = Some(false),
                ('H', _) => o.with_name = Some(true),
                ('w', _) => word = true,
                ('x', _) => line = true,
                ('e', Some(p)) => {
                    patterns.extend(p.split('\n').map(str::to_owned));
                    have_pattern = true;
                }
                ('f', Some(f)) => match super::read_input(sh, io, f) {
                    Ok(d) => {
                        patterns.extend(
                            lines(&d)
                                .iter()
                                .map(|l| String::from_utf8_lossy(l).into_owned()),
                        );
                        have_pattern = true;
                    }
                    Err(msg) => {
                        io.errln(format!("grep: {msg}"));
                        return 2;
                    }
                },
                ('m', Some(n)) => o.max = n.parse().ok(),
                ('A', Some(n)) => o.after = n.parse().unwrap_or(0),
                ('B', Some(n)) => o.before = n.parse().unwrap_or(0),
                ('C', Some(n)) => {
                    o.after = n.parse().unwrap_or(0);
                    o.before = o.after;
                }
                _ => {}
            },
            Opt::Long(name, v) => match (name.as_str(), v) {
                ("include", Some(g)) => o.include.push(Pattern::new(g)),
                ("exclude", Some(g)) => o.exclude.push(Pattern::new(g)),
                ("exclude-dir", Some(g)) => o.exclude_dir.push(Pattern::new(g)),
                ("ignore-case", _) => icase = true,
                ("invert-match", _) => o.invert = true,
                ("line-number", _) => o.line_numbers = true,
                ("count", _) => o.count = true,
                ("recursive", _) => o.recursive = true,
                ("files-with-matches", _) => o.list = true,
                ("only-matching", _) => o.only = true,
                ("quiet" | "silent", _) => o.quiet = true,
                ("word-regexp", _) => word = true,
                ("extended-regexp", _) => extended = true,
                ("fixed-strings", _) => fixed = true,
                ("no-filename", _) => o.with_name = Some(false),
                ("with-filename", _) => o.with_name = Some(true),
                ("regexp", Some(p)) => {
                    patterns.push(p.clone());
                    have_pattern = true;
                }
                _ => {}
            },
        }
    }
    if !have_pattern {
        if operands.is_empty() {
            io.errln("Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.");
            return 2;
        }
        let p = operands.remove(0);
        patterns.extend(p.split('\n').map(str::to_owned));
    }
    let parts: Vec<String> = patterns
        .iter()
        .map(|p| {
            if fixed {
                regex::escape(p)
            } else {
                crate::regex_posix::translate(p, extended)
            }
        })
        .collect();
    let mut re_text = parts
        .iter()
        .map(|p| format!("(?:{p})"))
        .collect::<Vec<_>>()
        .join("|");
    if word {
        re_text = format!("\\b(?:{re_text})\\b");
    }
    if line {
        re_text = format!("^(?:{re_text})$");
    }
    let re = match RegexBuilder::new(&re_text)
        .case_insensitive(icase)
        .unicode(false)
        .build()
        .or_else(|_| RegexBuilder::new(&re_text).case_insensitive(icase).build())
    {
        Ok(r) => r,
        Err(_) => {
            let msg = if patterns.iter().any(|p| p.contains('[') && !p.contains(']')) {
                "grep: Unmatched [, [^, [:, [., or [="
            } else if patterns
                .iter()
                .any(|p| p.contains('(') || p.contains("\\("))
            {
                "grep: Unmatched ( or \\("
            } else {
                "grep: Invalid regular expression"
            };
            io.errln(msg);
            return 2;
        }
    };
    if operands.is_empty() {
        operands.push(if o.recursive {
            ".".to_owned()
        } else {
            "-".to_owned()
        });
    }
    let mut files: Vec<(String, Option<std::path::PathBuf>)> = Vec::new();
    let mut status_err = false;
    for name in &operands {
        if name == "-" {
            files.push(("(standard input)".to_owned(), None));
            continue;
        }
        let path = sh.resolve(name);
        if path.is_dir() {
            if o.recursive {
                walk(&path, name, &o, &mut files);
            } else {
                if !o.no_messages {
                    io.errln(format!("grep: {name}: Is a directory"));
                }
                status_err = true;
            }
            continue;
        }
        files.push((name.clone(), Some(path)));
    }
    let show_name = o.with_name.unwrap_or(o.recursive || operands.len() > 1);
    let mut any = false;
    let mut out = Vec::new();
    for (name, path) in &files {
        let data = match path {
            None => io.stdin.read_all(),
            Some(p) => match std::fs::read(p) {
                Ok(d) => d,
                Err(e) => {
                    if !o.no_messages {
                        io.errln(format!("grep: {name}: {}", io_err_msg(&e)));
                    }
                    status_err = true;
                    continue;
                }
            },
        };
        let matched = grep_data(&re, &data, name, show_name, &o, &mut out);
        any |= matched;
        if o.quiet && any {
            return 0;
        }
        if out.len() > 1 << 16 {
            io.out(std::mem::take(&mut out));
        }
    }
    if !o.quiet {
        io.out(out);
    }
    if status_err && !(o.quiet && any) {
        2
    } else if any {
        0
    } else {
        1
    }
}

fn walk(
    dir: &std::path::Path,
    shown: &str,
    o: &Opts,
    files: &mut Vec<(String, Option<std::path::PathBuf>)>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for n in names {
        let path = dir.join(&n);
        let display = if shown.ends_with('/') {
            format!("{shown}{n}")
        } else {
            format!("{shown}/{n}")
        };
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if o.exclude_dir.iter().any(|p| p.matches(&n)) {
                continue;
            }
            walk(&path, &display, o, files);
        } else if meta.is_file() {
            if !o.include.is_empty() && !o.include.iter().any(|p| p.matches(&n)) {
                continue;
            }
            if o.exclude.iter().any(|p| p.matches(&n)) {
                continue;
            }
            files.push((display, Some(path)));
        }
    }
}

fn grep_data(
    re: &Regex,
    data: &[u8],
    name: &str,
    show_name: bool,
    o: &Opts,
    out: &mut Vec<u8>,
) -> bool {
    let ls = lines(data);
    let binary = data.contains(&0);
    let mut count = 0usize;
    let mut last_printed: Option<usize> = None;
    let mut after_left = 0usize;
    let context = o.after > 0 || o.before > 0;
    let prefix = |out: &mut Vec<u8>, n: usize, sep: u8| {
        if show_name {
            out.extend_from_slice(name.as_bytes());
            out.push(sep);
        }
        if o.line_numbers {
            out.extend_from_slice(n.to_string().as_bytes());
            out.push(sep);
        }
    };
    for (i, l) in ls.iter().enumerate() {
        if o.max.is_some_and(|m| count >= m) {
            if after_left > 0 && re.is_match(l) == o.invert {
                // Trailing context after the last allowed match.
            } else {
                break;
            }
        }
        let is_match = re.is_match(l) != o.invert;
        if !is_match {
            if after_left > 0 && !o.count && !o.list && !o.list_missing && !o.quiet {
                prefix(out, i + 1, b'-');
                out.extend_from_slice(l);
                out.push(b'\n');
                last_printed = Some(i);
                after_left -= 1;
            }
            continue;
        }
        count += 1;
        if o.count || o.list || o.list_missing || o.quiet {
            if o.list || o.quiet {
                break;
            }
            continue;
        }
        if binary {
            continue;
        }
        if context {
            let from = i.saturating_sub(o.before);
            let start = match last_printed {
                Some(lp) if lp + 1 >= from => lp + 1,
                Some(_) => {
                    out.extend_from_slice(b"--\n");
                    from
                }
                None => from,
            };
            for (j, cl) in ls.iter().enumerate().take(i).skip(start) {
                prefix(out, j + 1, b'-');
                out.extend_from_slice(cl);
                out.push(b'\n');
            }
            after_left = o.after;
        }
        if o.only && !o.invert {
            for m in re.find_iter(l) {
                if m.as_bytes().is_empty() {
                    continue;
                }
                prefix(out, i + 1, b':');
                out.extend_from_slice(m.as_bytes());
                out.push(b'\n');
            }
        } else if !o.only {
            prefix(out, i + 1, b':');
            out.extend_from_slice(l);
            out.push(b'\n');
        }
        last_printed = Some(i);
    }
    if o.count {
        if show_name {
            out.extend_from_slice(name.as_bytes());
            out.push(b':');
        }
        out.extend_from_slice(format!("{count}\n").as_bytes());
    }
    if o.list && count > 0 {
        out.extend_from_slice(name.as_bytes());
        out.push(b'\n');
    }
    if o.list_missing && count == 0 {
        out.extend_from_slice(name.as_bytes());
        out.push(b'\n');
    }
    if binary && count > 0 && !o.count && !o.list && !o.list_missing && !o.quiet {
        out.extend_from_slice(format!("grep: {name}: binary file matches\n").as_bytes());
    }
    count > 0
}
