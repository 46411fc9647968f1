//! Small utilities: base64, sha256sum, date, sleep, uname, timeout, time.

use base64::Engine;
use sha2::Digest;

use super::{Opt, parse_opts, read_input};
use crate::io::Io;
use crate::shell::{ExecResult, Shell};
use crate::timefmt;

/// `base64 [-d] [-w COLS] [FILE]`.
pub fn base64(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("base64", &argv[1..], "dw:i") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    let decode = opts
        .iter()
        .any(|o| matches!(o, Opt::Short('d', _)) || matches!(o, Opt::Long(n, _) if n == "decode"));
    let wrap: usize = opts
        .iter()
        .find_map(|o| match o {
            Opt::Short('w', Some(w)) => w.parse().ok(),
            Opt::Long(n, Some(w)) if n == "wrap" => w.parse().ok(),
            _ => None,
        })
        .unwrap_or(76);
    let data = match read_input(sh, io, files.first().map_or("-", |s| s.as_str())) {
        Ok(d) => d,
        Err(msg) => {
            io.errln(format!("base64: {msg}"));
            return 1;
        }
    };
    let engine = base64::engine::general_purpose::STANDARD;
    if decode {
        let clean: Vec<u8> = data
            .iter()
            .copied()
            .filter(|b| !b.is_ascii_whitespace())
            .collect();
        match engine.decode(&clean) {
            Ok(bytes) => {
                io.out(bytes);
                0
            }
            Err(_) => {
                // Decode what we can, like GNU, then report.
                let valid = clean.len() / 4 * 4;
                if let Ok(bytes) = engine.decode(&clean[..valid]) {
                    io.out(bytes);
                }
                io.errln("base64: invalid input");
                1
            }
        }
    } else {
        let enc = engine.encode(&data);
        let mut out = String::new();
        if wrap == 0 {
            out.push_str(&enc);
            out.push('\n');
        } else {
            for chunk in enc.as_bytes().chunks(wrap) {
                out.push_str(std::str::from_utf8(chunk).unwrap_or(""));
                out.push('\n');
            }
            if enc.is_empty() {
                out.clear();
            }
        }
        io.out(out);
        0
    }
}

/// `sha256sum [FILE...]` (and `-c` verification).
pub fn sha256sum(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (opts, files) = match parse_opts("sha256sum", &argv[1..], "cbtw") {
        Ok(x) => x,
        Err(e) => {
            io.errln(e);
            return 1;
        }
    };
    let hex = |d: &[u8]| -> String {
        sha2::Sha256::digest(d)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    };
    let mut status = 0;
    let names = if files.is_empty() {
        vec!["-".to_owned()]
    } else {
        files
    };
    if opts.contains(&Opt::Short('c', None)) {
        for list in &names {
            let Ok(data) = read_input(sh, io, list) else {
                io.errln(format!("sha256sum: {list}: No such file or directory"));
                return 1;
            };
            for line in String::from_utf8_lossy(&data).lines() {
                let Some((sum, name)) = line.split_once("  ").or_else(|| line.split_once(" *"))
                else {
                    continue;
                };
                let ok = read_input(sh, io, name).is_ok_and(|d| hex(&d) == sum);
                io.out(format!("{name}: {}\n", if ok { "OK" } else { "FAILED" }));
                if !ok {
                    status = 1;
                }
            }
        }
        return status;
    }
    for n in &names {
        match read_input(sh, io, n) {
            Ok(d) => io.out(format!("{}  {n}\n", hex(&d))),
            Err(msg) => {
                io.errln(format!("sha256sum: {msg}"));
                status = 1;
            }
        }
    }
    status
}

fn parse_date(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Some(n) = s.strip_prefix('@') {
        return n.parse().ok();
    }
    let now = timefmt::epoch(std::time::SystemTime::now()).0;
    match s {
        "now" | "" => return Some(now),
        "today" => return Some(now),
        "yesterday" => return Some(now - 86_400),
        "tomorrow" => return Some(now + 86_400),
        _ => {}
    }
    let (date, time) = match s.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t.trim_end_matches('Z'))),
        None => (s, None),
    };
    let mut parts = date.split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    let mut secs = timefmt::days_from_civil(y, m, d) * 86_400;
    if let Some(t) = time {
        let mut tp = t.split(':');
        let h: i64 = tp.next()?.parse().ok()?;
        let mi: i64 = tp.next().unwrap_or("0").parse().ok()?;
        let se: f64 = tp.next().unwrap_or("0").parse().ok()?;
        secs += h * 3600 + mi * 60 + se as i64;
    }
    Some(secs)
}

/// `date [-u] [-d DATE] [-I[FMT]] [-R] [+FORMAT]` on the sandbox's virtual clock (UTC).
pub fn date(_sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let (mut secs, mut nanos) = timefmt::epoch(std::time::SystemTime::now());
    let mut fmt = "%a %b %e %H:%M:%S %Z %Y".to_owned();
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        if let Some(f) = a.strip_prefix('+') {
            fmt = f.to_owned();
        } else if a == "-u" || a == "--utc" {
            // Always UTC.
        } else if a == "-d" || a == "--date" {
            i += 1;
            let v = argv.get(i).cloned().unwrap_or_default();
            match parse_date(&v) {
                Some(s) => {
                    secs = s;
                    nanos = 0;
                }
                None => {
                    io.errln(format!("date: invalid date '{v}'"));
                    return 1;
                }
            }
        } else if let Some(v) = a.strip_prefix("--date=").or_else(|| a.strip_prefix("-d")) {
            match parse_date(v) {
                Some(s) => {
                    secs = s;
                    nanos = 0;
                }
                None => {
                    io.errln(format!("date: invalid date '{v}'"));
                    return 1;
                }
            }
        } else if a == "-R" || a == "--rfc-email" {
            fmt = "%a, %d %b %Y %H:%M:%S +0000".to_owned();
        } else if a.starts_with("-I") || a.starts_with("--iso-8601") {
            let kind = a.split(['=', 'I']).next_back().unwrap_or("");
            fmt = match kind {
                "seconds" => "%Y-%m-%dT%H:%M:%S+00:00",
                "minutes" => "%Y-%m-%dT%H:%M+00:00",
                "hours" => "%Y-%m-%dT%H+00:00",
                "ns" => "%Y-%m-%dT%H:%M:%S,%N+00:00",
                _ => "%Y-%m-%d",
            }
            .to_owned();
        } else if a == "-s" || a == "--set" {
            io.errln("date: cannot set date: Operation not permitted");
            return 1;
        } else {
            io.errln(format!("date: invalid date '{a}'"));
            return 1;
        }
        i += 1;
    }
    let tm = timefmt::gmtime(secs);
    io.out(format!("{}\n", timefmt::strftime(&fmt, &tm, secs, nanos)));
    0
}

/// `sleep DURATION...` (`s`, `m`, `h`, `d` suffixes). The sandbox clock is virtual.
pub fn sleep(_sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    if argv.len() < 2 {
        io.errln("sleep: missing operand\nTry 'sleep --help' for more information.");
        return 1;
    }
    let mut total = 0.0;
    for a in &argv[1..] {
        let (num, mult) = match a.chars().last() {
            Some('s') => (&a[..a.len() - 1], 1.0),
            Some('m') => (&a[..a.len() - 1], 60.0),
            Some('h') => (&a[..a.len() - 1], 3600.0),
            Some('d') => (&a[..a.len() - 1], 86400.0),
            _ => (a.as_str(), 1.0),
        };
        match num.parse::<f64>() {
            Ok(v) if v >= 0.0 => total += v * mult,
            _ => {
                io.errln(format!(
                    "sleep: invalid time interval '{a}'\nTry 'sleep --help' for more information."
                ));
                return 1;
            }
        }
    }
    std::thread::sleep(std::time::Duration::from_secs_f64(total.min(3600.0)));
    0
}

/// `uname [-asnrmo]`.
pub fn uname(_sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let flags: String = argv[1..]
        .iter()
        .filter_map(|a| a.strip_prefix('-'))
        .collect();
    let mut parts = Vec::new();
    let all = flags.contains('a');
    if flags.is_empty() || flags.contains('s') || all {
        parts.push("Linux");
    }
    if flags.contains('n') || all {
        parts.push("sandbox");
    }
    if flags.contains('r') || all {
        parts.push("6.1.0");
    }
    if flags.contains('v') || all {
        parts.push("#1 SMP");
    }
    if flags.contains('m') || all {
        parts.push("x86_64");
    }
    if flags.contains('o') || all {
        parts.push("GNU/Linux");
    }
    io.out(format!("{}\n", parts.join(" ")));
    0
}

/// `timeout DURATION COMMAND...`: runs the command (the command budget bounds it anyway).
pub fn timeout(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    let mut i = 1;
    while i < argv.len() && argv[i].starts_with('-') {
        if matches!(argv[i].as_str(), "-s" | "-k" | "--signal" | "--kill-after") {
            i += 1;
        }
        i += 1;
    }
    let rest = argv.get(i + 1..).unwrap_or(&[]).to_vec();
    if rest.is_empty() {
        io.errln("timeout: missing operand\nTry 'timeout --help' for more information.");
        return Ok(125);
    }
    sh.run_argv(&rest, io)
}

/// `time COMMAND...`: runs the command and reports zero elapsed time on stderr.
pub fn time(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    let status = if argv.len() < 2 {
        0
    } else {
        sh.run_argv(&argv[1..], io)?
    };
    io.errln("\nreal\t0m0.000s\nuser\t0m0.000s\nsys\t0m0.000s");
    Ok(status)
}
