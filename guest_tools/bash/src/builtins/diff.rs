//! `diff` in GNU's normal and unified formats, using the `similar` crate's line diff.

use similar::{Algorithm, DiffOp, capture_diff_slices};

use super::{Opt, parse_opts, read_input};
use crate::io::Io;
use crate::shell::Shell;

struct Side {
    name: String,
    lines: Vec<String>,
    /// Whether the last line lacked a trailing newline.
    no_eol: bool,
    mtime: String,
}

fn load(sh: &Shell, io: &Io, name: &str) -> Result<Side, String> {
    let data = read_input(sh, io, name)?;
    let text = String::from_utf8_lossy(&data).into_owned();
    let no_eol = !text.is_empty() && !text.ends_with('\n');
    let lines: Vec<String> = super::lines(text.as_bytes())
        .iter()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect();
    let mtime = if name == "-" {
        crate::timefmt::epoch(std::time::SystemTime::now())
    } else {
        std::fs::metadata(sh.resolve(name))
            .and_then(|m| m.modified())
            .map(crate::timefmt::epoch)
            .unwrap_or((0, 0))
    };
    let tm = crate::timefmt::gmtime(mtime.0);
    Ok(Side {
        name: name.to_owned(),
        lines,
        no_eol,
        mtime: format!(
            "{}.{:09} +0000",
            crate::timefmt::strftime("%Y-%m-%d %H:%M:%S", &tm, mtime.0, 0),
            mtime.1
        ),
    })
}

/// A change: old range `[o, o+ol)` replaced by new range `[n, n+nl)` (0-based).
#[derive(Debug, Clone, Copy)]
struct Change {
    o: usize,
    ol: usize,
    n: usize,
    nl: usize,
}

fn changes(a: &[String], b: &[String], key: impl Fn(&str) -> String) -> Vec<Change> {
    let ka: Vec<String> = a.iter().map(|l| key(l)).collect();
    let kb: Vec<String> = b.iter().map(|l| key(l)).collect();
    let ops = capture_diff_slices(Algorithm::Myers, &ka, &kb);
    let mut out: Vec<Change> = Vec::new();
    for op in ops {
        let c = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
            } => Change {
                o: old_index,
                ol: old_len,
                n: new_index,
                nl: 0,
            },
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => Change {
                o: old_index,
                ol: 0,
                n: new_index,
                nl: new_len,
            },
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => Change {
                o: old_index,
                ol: old_len,
                n: new_index,
                nl: new_len,
            },
        };
        match out.last_mut() {
            Some(last) if last.o + last.ol == c.o && last.n + last.nl == c.n => {
                last.ol += c.ol;
                last.nl += c.nl;
            }
            _ => out.push(c),
        }
    }
    out
}

fn range(start: usize, len: usize) -> String {
    // `start` is 1-based.
    if len <= 1 {
        start.to_string()
    } else {
        format!("{start},{}", start + len - 1)
    }
}

fn push_line(out: &mut String, prefix: &str, side: &Side, i: usize) {
    out.push_str(prefix);
    out.push_str(&side.lines[i]);
    out.push('\n');
    if side.no_eol && i + 1 == side.lines.len() {
        out.push_str("\\ No newline at end of file\n");
    }
}

fn normal(a: &Side, b: &Side, cs: &[Change]) -> String {
    let mut out = String::new();
    for c in cs {
        let head = if c.nl == 0 {
            format!("{}d{}", range(c.o + 1, c.ol), c.n)
        } else if c.ol == 0 {
            format!("{}a{}", c.o, range(c.n + 1, c.nl))
        } else {
            format!("{}c{}", range(c.o + 1, c.ol), range(c.n + 1, c.nl))
        };
        out.push_str(&head);
        out.push('\n');
        for i in c.o..c.o + c.ol {
            push_line(&mut out, "< ", a, i);
        }
        if c.ol > 0 && c.nl > 0 {
            out.push_str("---\n");
        }
        for i in c.n..c.n + c.nl {
            push_line(&mut out, "> ", b, i);
        }
    }
    out
}

fn unified(a: &Side, b: &Side, cs: &[Change], ctx: usize, labels: &[String]) -> String {
    let mut out = String::new();
    let la = labels
        .first()
        .cloned()
        .unwrap_or_else(|| format!("{}\t{}", a.name, a.mtime));
    let lb = labels
        .get(1)
        .cloned()
        .unwrap_or_else(|| format!("{}\t{}", b.name, b.mtime));
    out.push_str(&format!("--- {la}\n+++ {lb}\n"));
    // Group changes whose context overlaps.
    let mut groups: Vec<Vec<Change>> = Vec::new();
    for c in cs {
        match groups.last_mut() {
            Some(g) => {
                let last = g[g.len() - 1];
                if c.o <= last.o + last.ol + 2 * ctx {
                    g.push(*c);
                } else {
                    groups.push(vec![*c]);
                }
            }
            None => groups.push(vec![*c]),
        }
    }
    for g in groups {
        let first = g[0];
        let last = g[g.len() - 1];
        let os = first.o.saturating_sub(ctx);
        let oe = (last.o + last.ol + ctx).min(a.lines.len());
        let ns = first.n - (first.o - os);
        let ne = last.n + last.nl + (oe - (last.o + last.ol));
        let ol = oe - os;
        let nl = ne - ns;
        let ostart = if ol == 0 { os } else { os + 1 };
        let nstart = if nl == 0 { ns } else { ns + 1 };
        let fmt = |s: usize, l: usize| {
            if l == 1 {
                s.to_string()
            } else {
                format!("{s},{l}")
            }
        };
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            fmt(ostart, ol),
            fmt(nstart, nl)
        ));
        let mut i = os;
        for c in &g {
            while i < c.o {
                push_line(&mut out, " ", a, i);
                i += 1;
            }
            for k in c.o..c.o + c.ol {
                push_line(&mut out, "-", a, k);
            }
            for k in c.n..c.n + c.nl {
                push_line(&mut out, "+", b, k);
            }
            i = c.o + c.ol;
        }
        while i < oe {
            push_line(&mut out, " ", a, i);
            i += 1;
        }
    }
    out
}

/// `diff [-u|-U N] [-q] [-i] [-w] [-b] [--label L] FILE1 FILE2`.
pub fn diff(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("diff", &argv[1..], "uU:qiwbBsNrac") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e.replace("Try 'diff --help'", "diff: Try 'diff --help'"));
            return 2;
        }
    };
    let mut ctx = None;
    let mut brief = false;
    let mut icase = false;
    let mut ignore_ws = false;
    let mut ignore_space_change = false;
    let mut report_same = false;
    let mut labels = Vec::new();
    for o in &opts {
        match o {
            Opt::Short('u', _) => ctx = Some(3),
            Opt::Short('U', Some(n)) => ctx = n.parse().ok(),
            Opt::Short('q', _) => brief = true,
            Opt::Short('i', _) => icase = true,
            Opt::Short('w', _) => ignore_ws = true,
            Opt::Short('b', _) => ignore_space_change = true,
            Opt::Short('s', _) => report_same = true,
            Opt::Long(n, Some(v)) if n == "label" => labels.push(v.clone()),
            Opt::Long(n, Some(v)) if n == "unified" => ctx = v.parse().ok(),
            Opt::Long(n, None) if n == "unified" => ctx = Some(3),
            Opt::Long(n, _) if n == "brief" => brief = true,
            _ => {}
        }
    }
    if files.len() != 2 {
        let msg = if files.len() < 2 {
            format!(
                "diff: missing operand after '{}'",
                files.last().map_or("diff", |s| s.as_str())
            )
        } else {
            format!("diff: extra operand '{}'", files[2])
        };
        io.errln(format!(
            "{msg}\ndiff: Try 'diff --help' for more information."
        ));
        return 2;
    }
    let mut sides = Vec::new();
    for f in &files {
        let mut name = f.clone();
        let other = if f == &files[0] { &files[1] } else { &files[0] };
        if sh.resolve(f).is_dir() && !sh.resolve(other).is_dir() {
            let base = other.rsplit('/').next().unwrap_or(other);
            name = format!("{}/{base}", f.trim_end_matches('/'));
        }
        match load(sh, io, &name) {
            Ok(s) => sides.push(s),
            Err(msg) => {
                io.errln(format!("diff: {msg}"));
                return 2;
            }
        }
    }
    let (a, b) = (&sides[0], &sides[1]);
    let key = |l: &str| -> String {
        let mut s = l.to_owned();
        if icase {
            s = s.to_lowercase();
        }
        if ignore_ws {
            s.retain(|c| !c.is_whitespace());
        } else if ignore_space_change {
            s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        }
        s
    };
    let mut cs = changes(&a.lines, &b.lines, key);
    if cs.is_empty() && a.no_eol != b.no_eol && !a.lines.is_empty() && !b.lines.is_empty() {
        cs.push(Change {
            o: a.lines.len() - 1,
            ol: 1,
            n: b.lines.len() - 1,
            nl: 1,
        });
    }
    if cs.is_empty() {
        if report_same {
            io.out(format!("Files {} and {} are identical\n", a.name, b.name));
        }
        return 0;
    }
    if brief {
        io.out(format!("Files {} and {} differ\n", a.name, b.name));
        return 1;
    }
    let text = match ctx {
        Some(n) => unified(a, b, &cs, n, &labels),
        None => normal(a, b, &cs),
    };
    io.out(text);
    1
}
