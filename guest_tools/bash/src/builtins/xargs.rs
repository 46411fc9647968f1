//! `xargs`: builds command lines from standard input and runs them in this shell.

use crate::io::{Input, Io};
use crate::shell::{ExecResult, Shell};

fn split_args(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(x) => cur.push(x),
                        None => {
                            let kind = if c == '\'' { "single" } else { "double" };
                            return Err(format!(
                                "xargs: unmatched {kind} quote; by default quotes are special to xargs unless you use the -0 option"
                            ));
                        }
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

/// `xargs [-n N] [-I R] [-L N] [-0] [-d D] [-r] [-t] [COMMAND [ARGS...]]`.
pub fn xargs(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    let mut max_args: Option<usize> = None;
    let mut max_lines: Option<usize> = None;
    let mut replace: Option<String> = None;
    let mut delim: Option<u8> = None;
    let mut no_empty = false;
    let mut trace = false;
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        if !a.starts_with('-') || a == "-" {
            break;
        }
        let take_value = |i: &mut usize, a: &str, flag: &str| -> Option<String> {
            if a.len() > flag.len() {
                Some(a[flag.len()..].to_owned())
            } else {
                *i += 1;
                argv.get(*i).cloned()
            }
        };
        match a {
            "--" => {
                i += 1;
                break;
            }
            "-0" | "--null" => delim = Some(0),
            "-r" | "--no-run-if-empty" => no_empty = true,
            "-t" | "--verbose" => trace = true,
            "-x" | "-p" => {}
            _ if a.starts_with("-n") => {
                max_args = take_value(&mut i, a, "-n").and_then(|v| v.parse().ok());
            }
            _ if a.starts_with("-L") => {
                max_lines = take_value(&mut i, a, "-L").and_then(|v| v.parse().ok());
            }
            _ if a.starts_with("-I") => replace = take_value(&mut i, a, "-I"),
            _ if a.starts_with("-i") => {
                replace = Some(if a.len() > 2 {
                    a[2..].to_owned()
                } else {
                    "{}".to_owned()
                });
            }
            _ if a.starts_with("-d") => {
                let v = take_value(&mut i, a, "-d").unwrap_or_default();
                let (b, _) = super::echo::unescape(&v, false);
                delim = b.first().copied();
            }
            _ if a.starts_with("-P") || a.starts_with("-s") || a.starts_with("-E") => {
                take_value(&mut i, a, &a[..2]);
            }
            _ => {
                io.errln(format!(
                    "xargs: invalid option -- '{}'\nUsage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...\nTry 'xargs --help' for more information.",
                    a.trim_start_matches('-')
                ));
                return Ok(1);
            }
        }
        i += 1;
    }
    let mut cmd: Vec<String> = argv[i..].to_vec();
    if cmd.is_empty() {
        cmd.push("echo".to_owned());
    }
    let input = io.stdin.read_all();
    let text = String::from_utf8_lossy(&input).into_owned();
    // Each invocation's arguments.
    let mut groups: Vec<Vec<String>> = Vec::new();
    if let Some(r) = &replace {
        for line in text.lines() {
            let item = line.trim_start();
            if item.is_empty() {
                continue;
            }
            groups.push(cmd.iter().map(|a| a.replace(r.as_str(), item)).collect());
        }
    } else {
        let items: Vec<String> = match delim {
            Some(d) => {
                let mut v: Vec<String> = text.split(d as char).map(str::to_owned).collect();
                if v.last()
                    .is_some_and(|l| l.is_empty() || (d != b'\n' && l == "\n"))
                {
                    v.pop();
                }
                v
            }
            None if max_lines.is_some() => {
                let n = max_lines.unwrap_or(1).max(1);
                let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
                for chunk in lines.chunks(n) {
                    let mut args = cmd.clone();
                    for l in chunk {
                        match split_args(l) {
                            Ok(a) => args.extend(a),
                            Err(msg) => {
                                io.errln(msg);
                                return Ok(1);
                            }
                        }
                    }
                    groups.push(args);
                }
                Vec::new()
            }
            None => match split_args(&text) {
                Ok(v) => v,
                Err(msg) => {
                    io.errln(msg);
                    return Ok(1);
                }
            },
        };
        if max_lines.is_none() || delim.is_some() {
            if items.is_empty() {
                if !no_empty {
                    groups.push(cmd.clone());
                }
            } else {
                let n = max_args.unwrap_or(usize::MAX).max(1);
                for chunk in items.chunks(n.min(items.len())) {
                    let mut args = cmd.clone();
                    args.extend(chunk.iter().cloned());
                    groups.push(args);
                }
            }
        }
    }
    let mut status = 0;
    let child_io = Io {
        stdin: Input::empty(),
        stdout: io.stdout.clone(),
        stderr: io.stderr.clone(),
    };
    for args in groups {
        if trace {
            io.errln(args.join(" "));
        }
        let s = sh.run_argv(&args, &child_io)?;
        match s {
            0 => {}
            127 => return Ok(127),
            126 => return Ok(126),
            255 => {
                io.errln(format!(
                    "xargs: {}: exited with status 255; aborting",
                    args[0]
                ));
                return Ok(124);
            }
            _ => status = 123,
        }
    }
    Ok(status)
}
