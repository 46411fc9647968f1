//! `awk`: a POSIX awk interpreter (with the common gawk extensions agents use).

mod interp;
mod lexer;
mod parser;

use crate::io::Io;
use crate::shell::{Shell, io_err_msg};

/// `awk [-F FS] [-v VAR=VALUE]... [-f PROGFILE | 'PROGRAM'] [FILE | VAR=VALUE]...`.
pub fn awk(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut fs: Option<String> = None;
    let mut assigns: Vec<(String, String)> = Vec::new();
    let mut program: Option<String> = None;
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        let value = |i: &mut usize, flag: &str| -> Option<String> {
            if a.len() > flag.len() {
                Some(a[flag.len()..].to_owned())
            } else {
                *i += 1;
                argv.get(*i).cloned()
            }
        };
        if a.starts_with("-F") {
            fs = value(&mut i, "-F");
        } else if a.starts_with("-v") {
            let Some(v) = value(&mut i, "-v") else {
                io.errln("awk: option requires an argument -- v");
                return 2;
            };
            match v.split_once('=') {
                Some((k, val)) => assigns.push((k.to_owned(), lexer::unescape(val))),
                None => {
                    io.errln(format!("awk: invalid -v argument: {v}"));
                    return 2;
                }
            }
        } else if a.starts_with("-f") {
            let Some(f) = value(&mut i, "-f") else {
                io.errln("awk: option requires an argument -- f");
                return 2;
            };
            match std::fs::read_to_string(sh.resolve(&f)) {
                Ok(t) => program = Some(program.unwrap_or_default() + &t + "\n"),
                Err(e) => {
                    io.errln(format!("awk: can't open file {f}: {}", io_err_msg(&e)));
                    return 2;
                }
            }
        } else if a == "--version" {
            io.out("awk (clawrun) 1.0\n");
            return 0;
        } else {
            io.errln(format!("awk: unknown option {a} ignored"));
        }
        i += 1;
    }
    let program = match program {
        Some(p) => p,
        None => match argv.get(i) {
            Some(p) => {
                i += 1;
                p.clone()
            }
            None => {
                io.errln("usage: awk [-F fs][-v var=value][prog | -f progfile][file ...]");
                return 2;
            }
        },
    };
    let operands = argv[i..].to_vec();
    let toks = match lexer::lex(&program) {
        Ok(t) => t,
        Err(msg) => {
            io.errln(msg);
            return 2;
        }
    };
    let prog = match parser::Parser::new(toks).program() {
        Ok(p) => p,
        Err(msg) => {
            io.errln(format!(
                "{msg}\n awk: source line 1 context is\n\t{}",
                program.lines().next().unwrap_or("")
            ));
            return 2;
        }
    };
    let fs = fs.map(|f| {
        if f == "t" {
            "\t".to_owned()
        } else {
            lexer::unescape(&f)
        }
    });
    interp::run(sh, io, prog, fs, assigns, operands)
}
