//! `jq` on top of the `jaq` crates (jaq-core, jaq-std, jaq-json), with jq 1.6's output
//! formatting (2-space indentation, `%.17g`-style numbers).

use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data, unwrap_valr};
use jaq_json::{Num, Val};

use crate::io::Io;
use crate::shell::Shell;

/// jq formatters that jaq lacks.
const EXTRA_DEFS: &str = r#"
def @csv: map(if type == "string" then "\"" + gsub("\""; "\"\"") + "\"" elif . == null then "" else tostring end) | join(",");
def @tsv: map(if type == "string" then gsub("\\\\"; "\\\\") | gsub("\t"; "\\t") | gsub("\n"; "\\n") | gsub("\r"; "\\r") elif . == null then "" else tostring end) | join("\t");
"#;

/// Formats a float like jq 1.6 (`jvp_dtoa_fmt`).
fn fmt_f64(f: f64) -> String {
    if f.is_nan() {
        return "null".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "1.7976931348623157e+308"
        } else {
            "-1.7976931348623157e+308"
        }
        .to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    let sci = format!("{:e}", f.abs());
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let nd = digits.len() as i32;
    let decpt = exp + 1;
    let sign = if f < 0.0 { "-" } else { "" };
    if decpt <= -4 || decpt > nd + 15 {
        let rest = &digits[1..];
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{}{frac}e{esign}{:02}", &digits[..1], exp.abs());
    }
    if decpt <= 0 {
        format!("{sign}0.{}{digits}", "0".repeat((-decpt) as usize))
    } else if decpt >= nd {
        format!("{sign}{digits}{}", "0".repeat((decpt - nd) as usize))
    } else {
        format!(
            "{sign}{}.{}",
            &digits[..decpt as usize],
            &digits[decpt as usize..]
        )
    }
}

fn fmt_num(n: &Num) -> String {
    match n {
        Num::Int(i) => {
            if (*i as i128).unsigned_abs() < 100_000_000_000_000_000 {
                i.to_string()
            } else {
                fmt_f64(*i as f64)
            }
        }
        Num::Float(f) => fmt_f64(*f),
        Num::Dec(s) => fmt_f64(s.parse::<f64>().unwrap_or(f64::NAN)),
        other => {
            let s = format!("{}", Val::Num(other.clone()));
            match s.parse::<f64>() {
                Ok(f) => fmt_f64(f),
                Err(_) => s,
            }
        }
    }
}

fn write_str(out: &mut String, bytes: &[u8]) {
    let s = String::from_utf8_lossy(bytes);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

struct Fmt {
    indent: Option<String>,
    sort_keys: bool,
}

fn write_val(out: &mut String, v: &Val, f: &Fmt, level: usize) {
    let nl = |out: &mut String, level: usize| {
        if let Some(ind) = &f.indent {
            out.push('\n');
            for _ in 0..level {
                out.push_str(ind);
            }
        }
    };
    match v {
        Val::Null => out.push_str("null"),
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Num(n) => out.push_str(&fmt_num(n)),
        Val::TStr(s) | Val::BStr(s) => write_str(out, s),
        Val::Arr(a) => {
            if a.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                nl(out, level + 1);
                write_val(out, x, f, level + 1);
            }
            nl(out, level);
            out.push(']');
        }
        Val::Obj(o) => {
            if o.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            let mut entries: Vec<(&Val, &Val)> = o.iter().collect();
            if f.sort_keys {
                entries.sort_by(|a, b| a.0.cmp(b.0));
            }
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                nl(out, level + 1);
                match k {
                    Val::TStr(s) | Val::BStr(s) => write_str(out, s),
                    other => {
                        let mut ks = String::new();
                        write_val(&mut ks, other, f, 0);
                        write_str(out, ks.as_bytes());
                    }
                }
                out.push(':');
                if f.indent.is_some() {
                    out.push(' ');
                }
                write_val(out, x, f, level + 1);
            }
            nl(out, level);
            out.push('}');
        }
    }
}

fn line_col(data: &[u8], offset: usize) -> (usize, usize) {
    let upto = &data[..offset.min(data.len())];
    let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = upto.iter().rev().take_while(|&&b| b != b'\n').count();
    (line, col)
}

/// `jq [-r] [-j] [-c] [-n] [-s] [-e] [-S] [--tab] [--indent N] [--arg N V] [--argjson N J] FILTER [FILE...]`.
pub fn jq(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut raw = false;
    let mut join = false;
    let mut compact = false;
    let mut null_input = false;
    let mut slurp = false;
    let mut exit_status = false;
    let mut sort_keys = false;
    let mut raw_input = false;
    let mut indent = "  ".to_owned();
    let mut vars: Vec<(String, Val)> = Vec::new();
    let mut filter: Option<String> = None;
    let mut files: Vec<String> = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        i += 1;
        if !a.starts_with('-') || a == "-" {
            if filter.is_none() {
                filter = Some(a.to_owned());
            } else {
                files.push(a.to_owned());
            }
            continue;
        }
        match a {
            "-r" | "--raw-output" => raw = true,
            "-j" | "--join-output" => {
                raw = true;
                join = true;
            }
            "-c" | "--compact-output" => compact = true,
            "-n" | "--null-input" => null_input = true,
            "-s" | "--slurp" => slurp = true,
            "-e" | "--exit-status" => exit_status = true,
            "-S" | "--sort-keys" => sort_keys = true,
            "-R" | "--raw-input" => raw_input = true,
            "-M" | "-C" | "--monochrome-output" | "--color-output" | "-a" | "--ascii-output" => {}
            "--tab" => indent = "\t".to_owned(),
            "--indent" => {
                let n: usize = argv.get(i).and_then(|v| v.parse().ok()).unwrap_or(2);
                i += 1;
                indent = " ".repeat(n.min(7));
                if n == 0 {
                    compact = true;
                }
            }
            "--arg" | "--argjson" | "--slurpfile" | "--rawfile" => {
                let (Some(name), Some(value)) = (argv.get(i), argv.get(i + 1)) else {
                    io.errln(format!(
                        "jq: {a} takes two parameters (e.g. {a} varname value)"
                    ));
                    return 2;
                };
                i += 2;
                let v = match a {
                    "--arg" => Val::from(value.clone()),
                    "--argjson" => match jaq_json::read::parse_single(value.as_bytes()) {
                        Ok(v) => v,
                        Err(_) => {
                            io.errln("jq: invalid JSON text passed to --argjson");
                            return 2;
                        }
                    },
                    _ => match super::read_input(sh, io, value) {
                        Ok(d) if a == "--rawfile" => {
                            Val::from(String::from_utf8_lossy(&d).into_owned())
                        }
                        Ok(d) => {
                            let vals: Result<Vec<Val>, _> =
                                jaq_json::read::parse_many(&d).collect();
                            match vals {
                                Ok(v) => v.into_iter().collect(),
                                Err(_) => {
                                    io.errln(format!("jq: Bad JSON in --slurpfile {name} {value}"));
                                    return 2;
                                }
                            }
                        }
                        Err(msg) => {
                            io.errln(format!("jq: error: Could not open {msg}"));
                            return 2;
                        }
                    },
                };
                vars.push((format!("${name}"), v));
            }
            _ => {
                // Combined short flags such as -rc.
                let flags = &a[1..];
                if a.starts_with("--") || !flags.chars().all(|c| "rjcnseSRMCa".contains(c)) {
                    io.errln(format!("jq: Unknown option: {a}\nUse jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq"));
                    return 2;
                }
                for c in flags.chars() {
                    match c {
                        'r' => raw = true,
                        'j' => {
                            raw = true;
                            join = true;
                        }
                        'c' => compact = true,
                        'n' => null_input = true,
                        's' => slurp = true,
                        'e' => exit_status = true,
                        'S' => sort_keys = true,
                        'R' => raw_input = true,
                        _ => {}
                    }
                }
            }
        }
    }
    let Some(code) = filter else {
        io.errln("Usage:\tjq [OPTIONS] FILTER [FILES...]");
        return 2;
    };
    // Compile.
    let extra = jaq_core::load::parse(EXTRA_DEFS, |p| p.defs()).unwrap_or_default();
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs())
        .chain(extra);
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs());
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let modules = match loader.load(
        &arena,
        File {
            code: code.as_str(),
            path: (),
        },
    ) {
        Ok(m) => m,
        Err(_) => {
            io.errln(format!(
                "jq: error: syntax error in filter: {code}\njq: 1 compile error"
            ));
            return 3;
        }
    };
    let names: Vec<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
    let filter = match Compiler::default()
        .with_funs(funs)
        .with_global_vars(names.iter().copied())
        .compile(modules)
    {
        Ok(f) => f,
        Err(_) => {
            io.errln(format!(
                "jq: error: {code}: undefined function or variable\njq: 1 compile error"
            ));
            return 3;
        }
    };
    // Read inputs.
    let mut sources: Vec<(String, Vec<u8>)> = Vec::new();
    if files.is_empty() {
        sources.push((
            "<stdin>".to_owned(),
            if null_input {
                Vec::new()
            } else {
                io.stdin.read_all()
            },
        ));
    } else {
        for f in &files {
            match super::read_input(sh, io, f) {
                Ok(d) => sources.push((f.clone(), d)),
                Err(msg) => {
                    io.errln(format!("jq: error: Could not open {msg}"));
                    return 2;
                }
            }
        }
    }
    let mut inputs: Vec<Val> = Vec::new();
    let mut parse_failed = false;
    if !null_input {
        for (_, data) in &sources {
            if raw_input {
                let text = String::from_utf8_lossy(data).into_owned();
                if slurp {
                    inputs.push(Val::from(text));
                } else {
                    for l in text.lines() {
                        inputs.push(Val::from(l.to_owned()));
                    }
                }
                continue;
            }
            for r in jaq_json::read::parse_many(data) {
                match r {
                    Ok(v) => inputs.push(v),
                    Err(e) => {
                        let msg = e.to_string();
                        let offset = msg
                            .split(|c: char| !c.is_ascii_digit())
                            .find(|s| !s.is_empty())
                            .and_then(|s| s.parse::<usize>().ok())
                            .unwrap_or(0);
                        let (line, col) = line_col(data, offset);
                        io.errln(format!(
                            "parse error: Invalid literal at line {line}, column {col}"
                        ));
                        parse_failed = true;
                        break;
                    }
                }
            }
            if parse_failed {
                break;
            }
        }
        if slurp && !raw_input {
            inputs = vec![inputs.into_iter().collect()];
        }
    } else {
        inputs.push(Val::Null);
    }
    let fmt = Fmt {
        indent: if compact { None } else { Some(indent) },
        sort_keys,
    };
    let var_values: Vec<Val> = vars.iter().map(|(_, v)| v.clone()).collect();
    let mut out = String::new();
    let mut status = 0;
    let mut last: Option<Val> = None;
    for input in inputs {
        let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new(var_values.clone()));
        for r in filter.id.run((ctx, input)).map(unwrap_valr) {
            match r {
                Ok(v) => {
                    match (&v, raw) {
                        (Val::TStr(s), true) => out.push_str(&String::from_utf8_lossy(s)),
                        _ => write_val(&mut out, &v, &fmt, 0),
                    }
                    if !join {
                        out.push('\n');
                    }
                    last = Some(v);
                }
                Err(e) => {
                    io.out(std::mem::take(&mut out));
                    let msg = e.to_string();
                    io.errln(format!("jq: error (at <stdin>:0): {msg}"));
                    status = 5;
                    break;
                }
            }
            if out.len() > 1 << 16 {
                io.out(std::mem::take(&mut out));
            }
        }
    }
    let produced = last.is_some();
    io.out(out);
    if parse_failed {
        // jq 1.6 exits 2 after a parse error, or 4 when nothing at all was output.
        return if produced { 2 } else { 4 };
    }
    if status != 0 {
        return status;
    }
    if exit_status {
        return match last {
            None => 4,
            Some(Val::Null) | Some(Val::Bool(false)) => 1,
            _ => 0,
        };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::fmt_f64;

    #[test]
    fn numbers_like_jq_16() {
        assert_eq!(fmt_f64(1.0), "1");
        assert_eq!(fmt_f64(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(fmt_f64(1e100), "1e+100");
        assert_eq!(fmt_f64(1.5e-7), "1.5e-07");
        assert_eq!(fmt_f64(1e20), "1e+20");
        assert_eq!(fmt_f64(0.0001), "0.0001");
        assert_eq!(fmt_f64(2.5), "2.5");
        assert_eq!(fmt_f64(-300.0), "-300");
    }
}
