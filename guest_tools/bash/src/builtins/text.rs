//! Line-oriented text utilities: cat, head, tail, wc, tee, tac, rev, nl, cut, tr, paste, seq.

use super::{Opt, lines, parse_count, parse_opts, read_input};
use crate::io::Io;
use crate::shell::{Shell, io_err_msg};

fn usage_err(io: &Io, msg: &str, status: i32) -> i32 {
    io.errln(msg);
    status
}

/// Calls `f(name, data)` for each operand (stdin when none); reports unreadable inputs as
/// `cmd: NAME: REASON` and returns 1 if any failed.
fn each_input(
    sh: &Shell,
    io: &Io,
    cmd: &str,
    files: &[String],
    mut f: impl FnMut(&str, Vec<u8>),
) -> i32 {
    let mut status = 0;
    let default = ["-".to_owned()];
    let files = if files.is_empty() {
        &default[..]
    } else {
        files
    };
    for name in files {
        match read_input(sh, io, name) {
            Ok(data) => f(name, data),
            Err(msg) => {
                io.errln(format!("{cmd}: {msg}"));
                status = 1;
            }
        }
    }
    status
}

/// `cat [-nbsEA] FILE...`.
pub fn cat(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("cat", &argv[1..], "nbsEAvte") {
        Ok(x) => x,
        Err(e) => return usage_err(io, &e, 1),
    };
    let has = |c: char| opts.contains(&Opt::Short(c, None));
    let number = has('n');
    let nonblank = has('b');
    let squeeze = has('s');
    let ends = has('E') || has('A') || has('e');
    let mut n = 0;
    let mut prev_blank = false;
    each_input(sh, io, "cat", &files, |_, data| {
        if !(number || nonblank || squeeze || ends) {
            io.out(data);
            return;
        }
        let mut out = Vec::new();
        for line in data.split_inclusive(|&b| b == b'\n') {
            let (body, nl) = match line.strip_suffix(b"\n") {
                Some(b) => (b, true),
                None => (line, false),
            };
            let blank = body.is_empty();
            if squeeze && blank && prev_blank {
                continue;
            }
            prev_blank = blank;
            if (number && !nonblank) || (nonblank && !blank) {
                n += 1;
                out.extend_from_slice(format!("{n:>6}\t").as_bytes());
            }
            out.extend_from_slice(body);
            if ends && nl {
                out.push(b'$');
            }
            if nl {
                out.push(b'\n');
            }
        }
        io.out(out);
    })
}

/// Rewrites the obsolete `-N` / `+N` count forms into `-n N`.
fn normalize_count_args(argv: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in argv.iter().enumerate() {
        let after_value_opt = i > 0 && matches!(argv[i - 1].as_str(), "-n" | "-c");
        if i > 0
            && !after_value_opt
            && a.len() > 1
            && a.starts_with('-')
            && a[1..].chars().all(|c| c.is_ascii_digit())
        {
            out.push("-n".to_owned());
            out.push(a[1..].to_owned());
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// `head [-n N|-N|-c N] FILE...`.
pub fn head(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let argv = normalize_count_args(argv);
    let (opts, files) = match parse_opts("head", &argv[1..], "n:c:qv") {
        Ok(x) => x,
        Err(e) => return usage_err(io, &e, 1),
    };
    let mut count: i64 = 10;
    let mut bytes = false;
    let mut quiet = false;
    let mut verbose = false;
    for o in &opts {
        match o {
            Opt::Short(c @ ('n' | 'c'), Some(v)) => {
                bytes = *c == 'c';
                let (neg, num) = match v.strip_prefix('-') {
                    Some(n) => (true, n),
                    None => (false, v.as_str()),
                };
                let Some(n) = parse_count(num) else {
                    let what = if bytes { "bytes" } else { "lines" };
                    return usage_err(io, &format!("head: invalid number of {what}: '{v}'"), 1);
                };
                count = if neg { -(n as i64) } else { n as i64 };
            }
            Opt::Short('q', _) => quiet = true,
            Opt::Short('v', _) => verbose = true,
            _ => {}
        }
    }
    let headers = (files.len() > 1 && !quiet) || verbose;
    let mut first = true;
    each_input(sh, io, "head", &files, |name, data| {
        if headers {
            file_header(io, name, first);
        }
        first = false;
        if bytes {
            let n = if count >= 0 {
                (count as usize).min(data.len())
            } else {
                data.len().saturating_sub(count.unsigned_abs() as usize)
            };
            io.out(&data[..n]);
            return;
        }
        let parts: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
        let n = if count >= 0 {
            (count as usize).min(parts.len())
        } else {
            parts.len().saturating_sub(count.unsigned_abs() as usize)
        };
        io.out(parts[..n].concat());
    })
}

/// `tail [-n N|-n +N|-N|-c N] FILE...`.
pub fn tail(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut argv = normalize_count_args(argv);
    for i in 1..argv.len() {
        let a = &argv[i];
        let after_value_opt = matches!(argv[i - 1].as_str(), "-n" | "-c");
        if !after_value_opt
            && a.len() > 1
            && a.starts_with('+')
            && a[1..].chars().all(|c| c.is_ascii_digit())
        {
            argv[i] = format!("-n{a}");
        }
    }
    let (opts, files) = match parse_opts("tail", &argv[1..], "n:c:qvfF") {
        Ok(x) => x,
        Err(e) => return usage_err(io, &e, 1),
    };
    let mut count: u64 = 10;
    let mut from_start = false;
    let mut bytes = false;
    let mut quiet = false;
    let mut verbose = false;
    for o in &opts {
        match o {
            Opt::Short(c @ ('n' | 'c'), Some(v)) => {
                bytes = *c == 'c';
                let (plus, num) = match v.strip_prefix('+') {
                    Some(n) => (true, n),
                    None => (false, v.strip_prefix('-').unwrap_or(v)),
                };
                let Some(n) = parse_count(num) else {
                    let what = if bytes { "bytes" } else { "lines" };
                    return usage_err(io, &format!("tail: invalid number of {what}: '{v}'"), 1);
                };
                from_start = plus;
                count = n;
            }
            Opt::Short('q', _) => quiet = true,
            Opt::Short('v', _) => verbose = true,
            _ => {}
        }
    }
    let headers = (files.len() > 1 && !quiet) || verbose;
    let mut first = true;
    each_input(sh, io, "tail", &files, |name, data| {
        if headers {
            file_header(io, name, first);
        }
        first = false;
        if bytes {
            let start = if from_start {
                (count.saturating_sub(1) as usize).min(data.len())
            } else {
                data.len().saturating_sub(count as usize)
            };
            io.out(&data[start..]);
            return;
        }
        let parts: Vec<&[u8]> = data.split_inclusive(|&b| b == b'\n').collect();
        let start = if from_start {
            (count.saturating_sub(1) as usize).min(parts.len())
        } else {
            parts.len().saturating_sub(count as usize)
        };
        io.out(parts[start..].concat());
    })
}

/// `wc [-lwcm] FILE...` with GNU's column widths.
pub fn wc(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("wc", &argv[1..], "lwcmL") {
        Ok(x) => x,
        Err(e) => return usage_err(io, &e, 1),
    };
    let mut show: Vec<char> = Vec::new();
    for c in ['l', 'w', 'm', 'c', 'L'] {
        if opts.contains(&Opt::Short(c, None)) {
            show.push(c);
        }
    }
    if show.is_empty() {
        show = vec!['l', 'w', 'c'];
    }
    let mut rows: Vec<(Vec<u64>, Option<String>)> = Vec::new();
    let mut status = 0;
    let mut regular_total = 0u64;
    let mut min_width = 1;
    let names: Vec<String> = if files.is_empty() {
        vec!["-".to_owned()]
    } else {
        files.clone()
    };
    let mut totals = vec![0u64; show.len()];
    for name in &names {
        let data = match read_input(sh, io, name) {
            Ok(d) => d,
            Err(msg) => {
                io.errln(format!("wc: {msg}"));
                status = 1;
                continue;
            }
        };
        if name == "-" {
            min_width = 7;
        } else {
            regular_total += data.len() as u64;
        }
        let text = String::from_utf8_lossy(&data);
        let counts: Vec<u64> = show
            .iter()
            .map(|c| match c {
                'l' => data.iter().filter(|&&b| b == b'\n').count() as u64,
                'w' => text.split_ascii_whitespace().count() as u64,
                'm' => text.chars().count() as u64,
                'c' => data.len() as u64,
                _ => text.lines().map(|l| l.chars().count()).max().unwrap_or(0) as u64,
            })
            .collect();
        for (t, c) in totals.iter_mut().zip(&counts) {
            *t += c;
        }
        rows.push((
            counts,
            if files.is_empty() {
                None
            } else {
                Some(name.clone())
            },
        ));
    }
    if names.len() > 1 {
        rows.push((totals, Some("total".to_owned())));
    }
    let mut width = 1;
    let mut t = regular_total;
    while t >= 10 {
        width += 1;
        t /= 10;
    }
    let width = if show.len() == 1 && names.len() == 1 {
        1
    } else {
        width.max(min_width)
    };
    for (counts, name) in rows {
        let mut line = counts
            .iter()
            .map(|c| format!("{c:>width$}"))
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(n) = name {
            line.push(' ');
            line.push_str(&n);
        }
        line.push('\n');
        io.out(line);
    }
    status
}

/// `tee [-a] FILE...`.
pub fn tee(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("tee", &argv[1..], "ai") {
        Ok(x) => x,
        Err(e) => return usage_err(io, &e, 1),
    };
    let append = opts.contains(&Opt::Short('a', None));
    let data = io.stdin.read_all();
    let mut status = 0;
    for f in &files {
        let path = sh.resolve(f);
        let r = if append {
            use std::io::Write;
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .and_then(|mut h| h.write_all(&data))
        } else {
            std::fs::write(&path, &data)
        };
        if let Err(e) = r {
            io.errln(format!("tee: {f}: {}", io_err_msg(&e)));
            status = 1;
        }
    }
    io.out(data);
    status
}

/// `tac FILE...`.
pub fn tac(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    each_input(sh, io, "tac", &argv[1..], |_, data| {
        let mut parts: Vec<Vec<u8>> = data
            .split_inclusive(|&b| b == b'\n')
            .map(|p| p.to_vec())
            .collect();
        if let Some(last) = parts.last_mut()
            && !last.ends_with(b"\n")
        {
            // GNU tac glues an unterminated last line to the next one.
            let l = std::mem::take(last);
            parts.pop();
            parts.push(l);
        }
        parts.reverse();
        io.out(parts.concat());
    })
}

/// `rev FILE...`.
pub fn rev(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    each_input(sh, io, "rev", &argv[1..], |_, data| {
        let text = String::from_utf8_lossy(&data);
        let mut out = String::new();
        for line in text.split_inclusive('\n') {
            let (body, nl) = match line.strip_suffix('\n') {
                Some(b) => (b, "\n"),
                None => (line, ""),
            };
            out.extend(body.chars().rev());
            out.push_str(nl);
        }
        io.out(out);
    })
}

/// `nl [-ba] FILE...`.
pub fn nl(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let all = argv.iter().any(|a| a == "-ba");
    let files: Vec<String> = argv[1..]
        .iter()
        .filter(|a| !a.starts_with('-') || *a == "-")
        .cloned()
        .collect();
    let mut n = 0;
    each_input(sh, io, "nl", &files, |_, data| {
        let mut out = String::new();
        for line in lines(&data) {
            let l = String::from_utf8_lossy(line);
            if l.is_empty() && !all {
                out.push_str("       \n");
            } else {
                n += 1;
                out.push_str(&format!("{n:>6}\t{l}\n"));
            }
        }
        io.out(out);
    })
}

/// A `cut` list such as `1,3-5,7-`.
fn parse_list(spec: &str) -> Option<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    for part in spec.split(',') {
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (
                if a.is_empty() { 1 } else { a.parse().ok()? },
                if b.is_empty() {
                    usize::MAX
                } else {
                    b.parse().ok()?
                },
            ),
            None => {
                let n = part.parse().ok()?;
                (n, n)
            }
        };
        if a == 0 {
            return None;
        }
        out.push((a, b));
    }
    Some(out)
}

/// `cut -d DELIM -f LIST | -c LIST | -b LIST [-s] [--complement] FILE...`.
pub fn cut(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("cut", &argv[1..], "d:f:c:b:sn") {
        Ok(x) => x,
        Err(e) => return usage_err(io, &e, 1),
    };
    let mut delim = b'\t';
    let mut list = None;
    let mut chars_mode = false;
    let mut only_delim = false;
    let mut complement = false;
    let mut out_delim: Option<String> = None;
    for o in &opts {
        match o {
            Opt::Short('d', Some(d)) => {
                if d.len() != 1 {
                    return usage_err(
                        io,
                        "cut: the delimiter must be a single character\nTry 'cut --help' for more information.",
                        1,
                    );
                }
                delim = d.as_bytes()[0];
            }
            Opt::Short('f', Some(l)) => list = Some(l.clone()),
            Opt::Short('c' | 'b', Some(l)) => {
                list = Some(l.clone());
                chars_mode = true;
            }
            Opt::Short('s', _) => only_delim = true,
            Opt::Long(name, v) if name == "complement" => {
                let _ = v;
                complement = true;
            }
            Opt::Long(name, Some(v)) if name == "output-delimiter" => out_delim = Some(v.clone()),
            _ => {}
        }
    }
    let Some(list) = list else {
        return usage_err(
            io,
            "cut: you must specify a list of bytes, characters, or fields\nTry 'cut --help' for more information.",
            1,
        );
    };
    let Some(ranges) = parse_list(&list) else {
        return usage_err(io, &format!("cut: invalid field value '{list}'"), 1);
    };
    let selected = |i: usize| ranges.iter().any(|&(a, b)| a <= i && i <= b) != complement;
    each_input(sh, io, "cut", &files, |_, data| {
        let mut out = Vec::new();
        for line in lines(&data) {
            if chars_mode {
                let sel: Vec<u8> = line
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| selected(i + 1))
                    .map(|(_, b)| *b)
                    .collect();
                out.extend_from_slice(&sel);
                out.push(b'\n');
                continue;
            }
            if !line.contains(&delim) {
                if !only_delim {
                    out.extend_from_slice(line);
                    out.push(b'\n');
                }
                continue;
            }
            let od = out_delim
                .clone()
                .map(String::into_bytes)
                .unwrap_or_else(|| vec![delim]);
            let fields: Vec<&[u8]> = line
                .split(|&b| b == delim)
                .enumerate()
                .filter(|(i, _)| selected(i + 1))
                .map(|(_, f)| f)
                .collect();
            out.extend_from_slice(&fields.join(&od[..]));
            out.push(b'\n');
        }
        io.out(out);
    })
}

/// Expands a `tr` set (ranges, classes, escapes) into bytes.
fn tr_set(spec: &str) -> Vec<u8> {
    let b = spec.as_bytes();
    let mut items: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'['
            && b.get(i + 1) == Some(&b':')
            && let Some(end) = spec[i + 2..].find(":]")
        {
            let class = &spec[i + 2..i + 2 + end];
            let pred: fn(&u8) -> bool = match class {
                "lower" => u8::is_ascii_lowercase,
                "upper" => u8::is_ascii_uppercase,
                "digit" => u8::is_ascii_digit,
                "alpha" => u8::is_ascii_alphabetic,
                "alnum" => u8::is_ascii_alphanumeric,
                "space" => |c| c.is_ascii_whitespace() || *c == 11,
                "blank" => |c| *c == b' ' || *c == b'\t',
                "punct" => u8::is_ascii_punctuation,
                "xdigit" => u8::is_ascii_hexdigit,
                "cntrl" => u8::is_ascii_control,
                "print" => |c| (32..127).contains(c),
                "graph" => u8::is_ascii_graphic,
                _ => |_| false,
            };
            items.extend((0u8..=255).filter(pred));
            i += 2 + end + 2;
            continue;
        }
        let (c, next) = tr_char(b, i);
        if next < b.len() && b[next] == b'-' && next + 1 < b.len() {
            let (hi, after) = tr_char(b, next + 1);
            if hi >= c {
                items.extend(c..=hi);
            }
            i = after;
            continue;
        }
        items.push(c);
        i = next;
    }
    items
}

fn tr_char(b: &[u8], i: usize) -> (u8, usize) {
    if b[i] == b'\\' && i + 1 < b.len() {
        let c = match b[i + 1] {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'\\' => b'\\',
            b'0'..=b'7' => {
                let mut v = 0u32;
                let mut j = i + 1;
                while j < b.len() && j < i + 4 && (b'0'..=b'7').contains(&b[j]) {
                    v = v * 8 + u32::from(b[j] - b'0');
                    j += 1;
                }
                return (v as u8, j);
            }
            c => c,
        };
        (c, i + 2)
    } else {
        (b[i], i + 1)
    }
}

/// `tr [-d] [-s] [-c] SET1 [SET2]`.
pub fn tr(_sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, sets) = match parse_opts("tr", &argv[1..], "dscC") {
        Ok(x) => x,
        Err(e) => return usage_err(io, &e, 1),
    };
    let has = |c: char| opts.contains(&Opt::Short(c, None));
    let (delete, squeeze, complement) = (has('d'), has('s'), has('c') || has('C'));
    if sets.is_empty() {
        return usage_err(
            io,
            "tr: missing operand\nTry 'tr --help' for more information.",
            1,
        );
    }
    if !delete && !squeeze && sets.len() < 2 {
        return usage_err(
            io,
            &format!(
                "tr: missing operand after '{}'\nTry 'tr --help' for more information.",
                sets[0]
            ),
            1,
        );
    }
    let mut set1 = tr_set(&sets[0]);
    if complement {
        set1 = (0u8..=255).filter(|c| !set1.contains(c)).collect();
    }
    let set2 = sets.get(1).map(|s| tr_set(s)).unwrap_or_default();
    let mut map: [Option<u8>; 256] = [None; 256];
    if !delete && !set2.is_empty() {
        for (i, &c) in set1.iter().enumerate() {
            let to = set2.get(i).copied().unwrap_or(*set2.last().unwrap_or(&c));
            map[c as usize] = Some(to);
        }
    }
    let in_set1 = |c: u8| set1.contains(&c);
    let squeeze_set: Vec<u8> = if delete || set2.is_empty() {
        if delete { set2.clone() } else { set1.clone() }
    } else {
        set2.clone()
    };
    let data = io.stdin.read_all();
    let mut out = Vec::with_capacity(data.len());
    for &c in &data {
        if delete && in_set1(c) {
            continue;
        }
        let c = map[c as usize].unwrap_or(c);
        if squeeze && squeeze_set.contains(&c) && out.last() == Some(&c) {
            continue;
        }
        out.push(c);
    }
    io.out(out);
    0
}

/// `paste [-d DELIMS] [-s] FILE...`.
pub fn paste(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("paste", &argv[1..], "d:s") {
        Ok(x) => x,
        Err(e) => return usage_err(io, &e, 1),
    };
    let mut delims: Vec<u8> = vec![b'\t'];
    let mut serial = false;
    for o in &opts {
        match o {
            Opt::Short('d', Some(d)) => {
                delims = super::echo::unescape(d, false).0;
                if delims.is_empty() {
                    delims = Vec::new();
                }
            }
            Opt::Short('s', _) => serial = true,
            _ => {}
        }
    }
    let mut status = 0;
    let files = if files.is_empty() {
        vec!["-".to_owned()]
    } else {
        files
    };
    // Every `-` column reads successive lines of the one shared stdin.
    let stdin_data = if files.iter().any(|f| f == "-") {
        io.stdin.read_all()
    } else {
        Vec::new()
    };
    let stdin_lines: Vec<Vec<u8>> = lines(&stdin_data).iter().map(|l| l.to_vec()).collect();
    let mut columns: Vec<Option<Vec<Vec<u8>>>> = Vec::new();
    for f in &files {
        if f == "-" {
            columns.push(None);
            continue;
        }
        match read_input(sh, io, f) {
            Ok(d) => columns.push(Some(lines(&d).iter().map(|l| l.to_vec()).collect())),
            Err(msg) => {
                io.errln(format!("paste: {msg}"));
                status = 1;
            }
        }
    }
    let delim_at = |i: usize| -> Option<u8> {
        if delims.is_empty() {
            None
        } else {
            Some(delims[i % delims.len()])
        }
    };
    let mut out = Vec::new();
    let mut next_stdin = 0;
    if serial {
        for col in &columns {
            let ls: Vec<Vec<u8>> = match col {
                Some(l) => l.clone(),
                None => {
                    let rest = stdin_lines[next_stdin.min(stdin_lines.len())..].to_vec();
                    next_stdin = stdin_lines.len();
                    rest
                }
            };
            for (i, l) in ls.iter().enumerate() {
                if i > 0 {
                    out.extend(delim_at(i - 1));
                }
                out.extend_from_slice(l);
            }
            out.push(b'\n');
        }
    } else {
        let mut row = 0;
        loop {
            let files_left = columns.iter().flatten().any(|c| c.len() > row);
            let stdin_left = columns.iter().any(|c| c.is_none()) && next_stdin < stdin_lines.len();
            if !files_left && !stdin_left {
                break;
            }
            for (i, col) in columns.iter().enumerate() {
                if i > 0 {
                    out.extend(delim_at(i - 1));
                }
                match col {
                    Some(ls) => {
                        if let Some(l) = ls.get(row) {
                            out.extend_from_slice(l);
                        }
                    }
                    None => {
                        if let Some(l) = stdin_lines.get(next_stdin) {
                            out.extend_from_slice(l);
                            next_stdin += 1;
                        }
                    }
                }
            }
            out.push(b'\n');
            row += 1;
        }
    }
    io.out(out);
    status
}

/// `seq [-s SEP] [-w] [FIRST [INCR]] LAST`.
pub fn seq(_sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut sep = "\n".to_owned();
    let mut equal_width = false;
    let mut nums: Vec<String> = Vec::new();
    let mut fmt: Option<String> = None;
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        match a.as_str() {
            "-s" => {
                i += 1;
                sep = argv.get(i).cloned().unwrap_or_default();
            }
            "-w" => equal_width = true,
            "-f" => {
                i += 1;
                fmt = argv.get(i).cloned();
            }
            _ if a.starts_with("-s") && a.len() > 2 => sep = a[2..].to_owned(),
            _ => nums.push(a.clone()),
        }
        i += 1;
    }
    let parsed: Vec<f64> = match nums.iter().map(|n| n.parse::<f64>()).collect() {
        Ok(v) => v,
        Err(_) => {
            let bad = nums.iter().find(|n| n.parse::<f64>().is_err()).cloned();
            io.errln(format!(
                "seq: invalid floating point argument: '{}'\nTry 'seq --help' for more information.",
                bad.unwrap_or_default()
            ));
            return 1;
        }
    };
    let (first, incr, last) = match parsed.as_slice() {
        [l] => (1.0, 1.0, *l),
        [f, l] => (*f, 1.0, *l),
        [f, s, l] => (*f, *s, *l),
        _ => {
            io.errln("seq: missing operand\nTry 'seq --help' for more information.");
            return 1;
        }
    };
    if incr == 0.0 {
        io.errln("seq: invalid Zero increment value: '0'\nTry 'seq --help' for more information.");
        return 1;
    }
    let prec_args: &[String] = match nums.len() {
        1 => &[],
        2 => &nums[..1],
        _ => &nums[..2],
    };
    let decimals = prec_args
        .iter()
        .map(|n| n.split_once('.').map_or(0, |(_, d)| d.len()))
        .max()
        .unwrap_or(0);
    let mut values = Vec::new();
    let mut k = 0u64;
    loop {
        let v = first + incr * k as f64;
        if (incr > 0.0 && v > last + 1e-9) || (incr < 0.0 && v < last - 1e-9) {
            break;
        }
        let s = match &fmt {
            Some(f) => simple_float_format(f, v),
            None => format!("{v:.decimals$}"),
        };
        values.push(s);
        k += 1;
        if values.len() > 10_000_000 {
            break;
        }
    }
    if equal_width {
        let w = values.iter().map(|s| s.len()).max().unwrap_or(0);
        for s in &mut values {
            let neg = s.starts_with('-');
            let digits = s.trim_start_matches('-').to_owned();
            let pad = w - s.len();
            *s = format!("{}{}{digits}", if neg { "-" } else { "" }, "0".repeat(pad));
        }
    }
    if !values.is_empty() {
        io.out(values.join(&sep) + "\n");
    }
    0
}

fn simple_float_format(fmt: &str, v: f64) -> String {
    // Supports one %[flags][width][.prec](f|g|e|d) conversion.
    let Some(p) = fmt.find('%') else {
        return fmt.to_owned();
    };
    let rest = &fmt[p + 1..];
    let end = rest
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    let spec = &rest[..end];
    let conv = rest[end..].chars().next().unwrap_or('g');
    let (width, prec) = match spec.split_once('.') {
        Some((w, p)) => (w, p.parse().unwrap_or(6)),
        None => (spec, 6),
    };
    let zero = width.starts_with('0');
    let width: usize = width.trim_start_matches(['0', '-']).parse().unwrap_or(0);
    let body = super::echo::format_float(v, conv, prec, false);
    let body = if zero {
        format!("{body:0>width$}")
    } else {
        format!("{body:>width$}")
    };
    format!(
        "{}{body}{}",
        &fmt[..p],
        &rest[end + conv.len_utf8().min(rest.len() - end)..]
    )
}

/// The `==> NAME <==` line head and tail print before each file when there are several.
fn file_header(io: &Io, name: &str, first: bool) {
    let shown = if name == "-" { "standard input" } else { name };
    io.out(format!(
        "{}==> {shown} <==\n",
        if first { "" } else { "\n" }
    ));
}
