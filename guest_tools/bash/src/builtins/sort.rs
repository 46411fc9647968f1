//! `sort` and `uniq` with C-locale (bytewise) collation.

use std::cmp::Ordering;

use super::{Opt, lines, parse_opts, read_input};
use crate::io::Io;
use crate::shell::{Shell, io_err_msg};

#[derive(Clone, Default, Debug)]
struct KeyOpts {
    numeric: bool,
    general: bool,
    human: bool,
    reverse: bool,
    fold: bool,
    blanks: bool,
    version: bool,
}

impl KeyOpts {
    fn any(&self) -> bool {
        self.numeric
            || self.general
            || self.human
            || self.reverse
            || self.fold
            || self.blanks
            || self.version
    }

    fn apply(&mut self, flags: &str) {
        for c in flags.chars() {
            match c {
                'n' => self.numeric = true,
                'g' => self.general = true,
                'h' => self.human = true,
                'r' => self.reverse = true,
                'f' => self.fold = true,
                'b' => self.blanks = true,
                'V' => self.version = true,
                _ => {}
            }
        }
    }
}

#[derive(Clone, Debug)]
struct Key {
    start_field: usize,
    start_char: usize,
    end_field: Option<usize>,
    end_char: usize,
    opts: KeyOpts,
}

fn parse_key(spec: &str) -> Option<Key> {
    let (start, end) = match spec.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (spec, None),
    };
    let mut opts = KeyOpts::default();
    let split_pos = |s: &str| -> Option<(usize, usize, String)> {
        let digits_end = s
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(s.len());
        let (num, flags) = s.split_at(digits_end);
        let (f, c) = match num.split_once('.') {
            Some((f, c)) => (f.parse().ok()?, c.parse().ok()?),
            None => (num.parse().ok()?, 0),
        };
        Some((f, c, flags.to_owned()))
    };
    let (sf, sc, flags) = split_pos(start)?;
    if sf == 0 {
        return None;
    }
    opts.apply(&flags);
    let (ef, ec) = match end {
        Some(e) => {
            let (ef, ec, flags) = split_pos(e)?;
            opts.apply(&flags);
            (Some(ef), ec)
        }
        None => (None, 0),
    };
    Some(Key {
        start_field: sf,
        start_char: sc.max(1),
        end_field: ef,
        end_char: ec,
        opts,
    })
}

/// Byte ranges of the fields of `line`: with a separator, split on it; otherwise each field
/// starts at a run of blanks preceding non-blank text (GNU semantics).
fn fields(line: &[u8], sep: Option<u8>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    match sep {
        Some(s) => {
            let mut start = 0;
            for (i, &b) in line.iter().enumerate() {
                if b == s {
                    out.push((start, i));
                    start = i + 1;
                }
            }
            out.push((start, line.len()));
        }
        None => {
            let mut i = 0;
            while i < line.len() {
                let start = i;
                while i < line.len() && (line[i] == b' ' || line[i] == b'\t') {
                    i += 1;
                }
                while i < line.len() && line[i] != b' ' && line[i] != b'\t' {
                    i += 1;
                }
                out.push((start, i));
            }
        }
    }
    out
}

fn key_slice<'a>(line: &'a [u8], key: &Key, sep: Option<u8>, global_blanks: bool) -> &'a [u8] {
    let f = fields(line, sep);
    let blanks = key.opts.blanks || global_blanks;
    let skip_blanks = |pos: usize, end: usize| {
        let mut p = pos;
        while p < end && (line[p] == b' ' || line[p] == b'\t') {
            p += 1;
        }
        p
    };
    let start = match f.get(key.start_field - 1) {
        Some(&(s, e)) => {
            let s0 = if blanks { skip_blanks(s, e) } else { s };
            (s0 + key.start_char - 1).min(e.max(s0))
        }
        None => return &[],
    };
    let end = match key.end_field {
        None => line.len(),
        Some(ef) => match f.get(ef - 1) {
            Some(&(s, e)) => {
                if key.end_char == 0 {
                    e
                } else {
                    let s0 = if blanks { skip_blanks(s, e) } else { s };
                    (s0 + key.end_char).min(e)
                }
            }
            None => line.len(),
        },
    };
    if end <= start { &[] } else { &line[start..end] }
}

fn parse_num(s: &[u8]) -> f64 {
    let t = String::from_utf8_lossy(s);
    let t = t.trim_start();
    let mut end = 0;
    let b = t.as_bytes();
    if end < b.len() && (b[end] == b'-' || b[end] == b'+') {
        end += 1;
    }
    while end < b.len() && (b[end].is_ascii_digit() || b[end] == b'.') {
        end += 1;
    }
    t[..end].parse::<f64>().unwrap_or(0.0)
}

fn parse_general(s: &[u8]) -> f64 {
    let t = String::from_utf8_lossy(s);
    let t = t.trim();
    let mut best = f64::NEG_INFINITY;
    for end in (1..=t.len()).rev() {
        if let Ok(v) = t[..end].parse::<f64>() {
            best = v;
            break;
        }
    }
    best
}

fn parse_human(s: &[u8]) -> f64 {
    let t = String::from_utf8_lossy(s);
    let t = t.trim();
    let n = parse_num(t.as_bytes());
    let suffix = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    let mult = match suffix.chars().next() {
        Some('K' | 'k') => 1e3,
        Some('M') => 1e6,
        Some('G') => 1e9,
        Some('T') => 1e12,
        Some('P') => 1e15,
        _ => 1.0,
    };
    n * mult
}

fn version_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].is_ascii_digit() && b[j].is_ascii_digit() {
            let si = i;
            while i < a.len() && a[i].is_ascii_digit() {
                i += 1;
            }
            let sj = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let na: u128 = std::str::from_utf8(&a[si..i])
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            let nb: u128 = std::str::from_utf8(&b[sj..j])
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            match na.cmp(&nb) {
                Ordering::Equal => continue,
                o => return o,
            }
        }
        match a[i].cmp(&b[j]) {
            Ordering::Equal => {
                i += 1;
                j += 1;
            }
            o => return o,
        }
    }
    (a.len() - i).cmp(&(b.len() - j))
}

fn compare(a: &[u8], b: &[u8], o: &KeyOpts) -> Ordering {
    let ord = if o.numeric {
        parse_num(a)
            .partial_cmp(&parse_num(b))
            .unwrap_or(Ordering::Equal)
    } else if o.general {
        parse_general(a)
            .partial_cmp(&parse_general(b))
            .unwrap_or(Ordering::Equal)
    } else if o.human {
        parse_human(a)
            .partial_cmp(&parse_human(b))
            .unwrap_or(Ordering::Equal)
    } else if o.version {
        version_cmp(a, b)
    } else if o.fold {
        let fa: Vec<u8> = a.iter().map(|c| c.to_ascii_uppercase()).collect();
        let fb: Vec<u8> = b.iter().map(|c| c.to_ascii_uppercase()).collect();
        fa.cmp(&fb)
    } else if o.blanks {
        let trim = |s: &[u8]| -> Vec<u8> {
            s.iter()
                .skip_while(|c| **c == b' ' || **c == b'\t')
                .copied()
                .collect()
        };
        trim(a).cmp(&trim(b))
    } else {
        a.cmp(b)
    };
    if o.reverse { ord.reverse() } else { ord }
}

/// `sort [-nrufbghVs] [-k KEY]... [-t SEP] [-o FILE] FILE...`.
pub fn sort(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("sort", &argv[1..], "nrufbghVsk:t:o:cCmMRT:S:z") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 2;
        }
    };
    let mut global = KeyOpts::default();
    let mut keys = Vec::new();
    let mut sep = None;
    let mut unique = false;
    let mut stable = false;
    let mut output: Option<String> = None;
    let mut check = false;
    for o in &opts {
        match o {
            Opt::Short('k', Some(k)) => match parse_key(k) {
                Some(key) => keys.push(key),
                None => {
                    io.errln(format!(
                        "sort: invalid number at field start: invalid count at start of '{k}'"
                    ));
                    return 2;
                }
            },
            Opt::Short('t', Some(t)) => {
                let t = if t == "\\t" { "\t" } else { t.as_str() };
                if t.len() != 1 {
                    io.errln(format!("sort: multi-character tab '{t}'"));
                    return 2;
                }
                sep = Some(t.as_bytes()[0]);
            }
            Opt::Short('o', Some(f)) => output = Some(f.clone()),
            Opt::Short('u', _) => unique = true,
            Opt::Short('s', _) => stable = true,
            Opt::Short('c' | 'C', _) => check = true,
            Opt::Short(c, None) => global.apply(&c.to_string()),
            Opt::Long(name, _) => match name.as_str() {
                "numeric-sort" => global.numeric = true,
                "reverse" => global.reverse = true,
                "unique" => unique = true,
                "human-numeric-sort" => global.human = true,
                "version-sort" => global.version = true,
                "ignore-case" => global.fold = true,
                _ => {}
            },
            _ => {}
        }
    }
    for k in &mut keys {
        if !k.opts.any() {
            k.opts = global.clone();
        }
    }
    let mut data = Vec::new();
    let mut status = 0;
    let names = if files.is_empty() {
        vec!["-".to_owned()]
    } else {
        files
    };
    for f in &names {
        match read_input(sh, io, f) {
            Ok(mut d) => {
                if !d.is_empty() && !d.ends_with(b"\n") {
                    d.push(b'\n');
                }
                data.extend(d);
            }
            Err(msg) => {
                io.errln(format!("sort: cannot read: {msg}"));
                return 2;
            }
        }
    }
    let mut ls: Vec<&[u8]> = lines(&data);
    let cmp = |a: &&[u8], b: &&[u8]| -> Ordering {
        if keys.is_empty() {
            let o = compare(a, b, &global);
            if o != Ordering::Equal || stable || unique {
                return o;
            }
            if global.any() {
                let last = a.cmp(b);
                return if global.reverse { last.reverse() } else { last };
            }
            return o;
        }
        for k in &keys {
            let ka = key_slice(a, k, sep, global.blanks);
            let kb = key_slice(b, k, sep, global.blanks);
            let o = compare(ka, kb, &k.opts);
            if o != Ordering::Equal {
                return o;
            }
        }
        if stable || unique {
            return Ordering::Equal;
        }
        let last = a.cmp(b);
        if global.reverse { last.reverse() } else { last }
    };
    if check {
        for w in ls.windows(2) {
            if cmp(&w[0], &w[1]) == Ordering::Greater {
                io.errln(format!(
                    "sort: -:{}: disorder: {}",
                    ls.iter().position(|l| std::ptr::eq(*l, w[1])).unwrap_or(0) + 1,
                    String::from_utf8_lossy(w[1])
                ));
                return 1;
            }
        }
        return 0;
    }
    ls.sort_by(cmp);
    if unique {
        ls.dedup_by(|b, a| cmp(a, b) == Ordering::Equal);
    }
    let mut out = Vec::with_capacity(data.len());
    for l in ls {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    match output {
        Some(f) => {
            if let Err(e) = std::fs::write(sh.resolve(&f), &out) {
                io.errln(format!("sort: open failed: {f}: {}", io_err_msg(&e)));
                status = 2;
            }
        }
        None => io.out(out),
    }
    status
}

/// `uniq [-c] [-d] [-u] [-i] [-f N] [-s N] [INPUT [OUTPUT]]`.
pub fn uniq(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("uniq", &argv[1..], "cduif:s:w:D") {
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
    let (count, dups, uniques, icase, all_dups) =
        (has('c'), has('d'), has('u'), has('i'), has('D'));
    let mut skip_fields = 0;
    let mut skip_chars = 0;
    let mut width: Option<usize> = None;
    for o in &opts {
        match o {
            Opt::Short('f', Some(n)) => skip_fields = n.parse().unwrap_or(0),
            Opt::Short('s', Some(n)) => skip_chars = n.parse().unwrap_or(0),
            Opt::Short('w', Some(n)) => width = n.parse().ok(),
            _ => {}
        }
    }
    let data = match read_input(sh, io, files.first().map_or("-", |s| s.as_str())) {
        Ok(d) => d,
        Err(msg) => {
            io.errln(format!("uniq: {msg}"));
            return 1;
        }
    };
    let key = |l: &[u8]| -> Vec<u8> {
        let mut s = l;
        for _ in 0..skip_fields {
            let mut i = 0;
            while i < s.len() && (s[i] == b' ' || s[i] == b'\t') {
                i += 1;
            }
            while i < s.len() && s[i] != b' ' && s[i] != b'\t' {
                i += 1;
            }
            s = &s[i..];
        }
        s = &s[skip_chars.min(s.len())..];
        if let Some(w) = width {
            s = &s[..w.min(s.len())];
        }
        if icase {
            s.to_ascii_lowercase()
        } else {
            s.to_vec()
        }
    };
    let ls = lines(&data);
    let mut groups: Vec<(usize, usize)> = Vec::new(); // (start index, count)
    for (i, l) in ls.iter().enumerate() {
        match groups.last_mut() {
            Some((start, n)) if key(ls[*start]) == key(l) => *n += 1,
            _ => groups.push((i, 1)),
        }
    }
    let mut out = Vec::new();
    for (start, n) in groups {
        if (dups || all_dups) && n < 2 || uniques && n > 1 {
            continue;
        }
        let reps = if all_dups { n } else { 1 };
        for r in 0..reps {
            if count {
                out.extend_from_slice(format!("{n:>7} ").as_bytes());
            }
            out.extend_from_slice(ls[start + r]);
            out.push(b'\n');
        }
    }
    match files.get(1) {
        Some(f) => {
            if let Err(e) = std::fs::write(sh.resolve(f), &out) {
                io.errln(format!("uniq: {f}: {}", io_err_msg(&e)));
                return 1;
            }
        }
        None => io.out(out),
    }
    0
}
