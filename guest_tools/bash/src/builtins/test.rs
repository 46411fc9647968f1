//! `test` / `[`, and the predicates shared with `[[ ]]`.

use crate::io::Io;
use crate::shell::Shell;

/// Evaluates a unary file or string predicate such as `-f`, `-z`.
pub fn unary(sh: &Shell, op: &str, arg: &str) -> bool {
    let path = sh.resolve(arg);
    match op {
        "-z" => arg.is_empty(),
        "-n" => !arg.is_empty(),
        "-e" | "-a" => !arg.is_empty() && path.exists(),
        "-f" => !arg.is_empty() && path.is_file(),
        "-d" => !arg.is_empty() && path.is_dir(),
        "-h" | "-L" => !arg.is_empty() && path.is_symlink(),
        "-s" => std::fs::metadata(&path).is_ok_and(|m| m.len() > 0),
        "-r" | "-w" => !arg.is_empty() && path.exists(),
        "-x" => std::fs::metadata(&path).is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                m.permissions().mode() & 0o111 != 0
            }
            #[cfg(not(unix))]
            {
                m.is_dir()
            }
        }),
        "-v" => sh.get_var(arg).is_some(),
        "-t" => false,
        _ => false,
    }
}

fn int_arg(s: &str) -> Result<i64, String> {
    s.trim()
        .parse::<i64>()
        .map_err(|_| format!("{s}: integer expression expected"))
}

/// Evaluates a binary predicate such as `=`, `-lt`, `-nt`.
pub fn binary(sh: &Shell, op: &str, a: &str, b: &str) -> Result<bool, String> {
    Ok(match op {
        "=" | "==" => a == b,
        "!=" => a != b,
        "<" => a < b,
        ">" => a > b,
        "-eq" => int_arg(a)? == int_arg(b)?,
        "-ne" => int_arg(a)? != int_arg(b)?,
        "-lt" => int_arg(a)? < int_arg(b)?,
        "-le" => int_arg(a)? <= int_arg(b)?,
        "-gt" => int_arg(a)? > int_arg(b)?,
        "-ge" => int_arg(a)? >= int_arg(b)?,
        "-nt" | "-ot" => {
            let ma = std::fs::metadata(sh.resolve(a))
                .and_then(|m| m.modified())
                .ok();
            let mb = std::fs::metadata(sh.resolve(b))
                .and_then(|m| m.modified())
                .ok();
            match (ma, mb) {
                (Some(x), Some(y)) => {
                    if op == "-nt" {
                        x > y
                    } else {
                        x < y
                    }
                }
                (Some(_), None) => op == "-nt",
                (None, Some(_)) => op == "-ot",
                _ => false,
            }
        }
        "-ef" => {
            let ca = std::fs::canonicalize(sh.resolve(a)).ok();
            ca.is_some() && ca == std::fs::canonicalize(sh.resolve(b)).ok()
        }
        _ => return Err(format!("{op}: binary operator expected")),
    })
}

const UNARY: &[&str] = &[
    "-z", "-n", "-e", "-a", "-f", "-d", "-h", "-L", "-s", "-r", "-w", "-x", "-v", "-t",
];
const BINARY: &[&str] = &[
    "=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef",
];

struct Parser<'a> {
    sh: &'a Shell,
    args: &'a [String],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.args.get(self.pos).map(|s| s.as_str())
    }

    fn or(&mut self) -> Result<bool, String> {
        let mut v = self.and()?;
        while self.peek() == Some("-o") {
            self.pos += 1;
            let r = self.and()?;
            v = v || r;
        }
        Ok(v)
    }

    fn and(&mut self) -> Result<bool, String> {
        let mut v = self.not()?;
        while self.peek() == Some("-a") {
            self.pos += 1;
            let r = self.not()?;
            v = v && r;
        }
        Ok(v)
    }

    fn not(&mut self) -> Result<bool, String> {
        if self.peek() == Some("!") && self.args.len() - self.pos > 1 {
            self.pos += 1;
            return Ok(!self.not()?);
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<bool, String> {
        let remaining = self.args.len() - self.pos;
        let Some(a) = self.peek() else {
            return Err("argument expected".into());
        };
        if a == "(" && remaining >= 3 {
            self.pos += 1;
            let v = self.or()?;
            if self.peek() != Some(")") {
                return Err("`)' expected".into());
            }
            self.pos += 1;
            return Ok(v);
        }
        if remaining >= 3 {
            let op = self.args[self.pos + 1].as_str();
            if BINARY.contains(&op) {
                let (l, r) = (&self.args[self.pos], &self.args[self.pos + 2]);
                self.pos += 3;
                return binary(self.sh, op, l, r);
            }
        }
        if remaining >= 2 && UNARY.contains(&a) {
            let arg = &self.args[self.pos + 1];
            self.pos += 2;
            return Ok(unary(self.sh, a, arg));
        }
        if remaining >= 2 && a.starts_with('-') && a.len() == 2 && remaining == 2 {
            return Err(format!("{a}: unary operator expected"));
        }
        self.pos += 1;
        Ok(!a.is_empty())
    }
}

/// `test EXPR` / `[ EXPR ]`.
pub fn test(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let name = argv[0].as_str();
    let mut args = &argv[1..];
    if name == "[" {
        if args.last().map(|s| s.as_str()) != Some("]") {
            io.errln("bash: [: missing `]'");
            return 2;
        }
        args = &args[..args.len() - 1];
    }
    if args.is_empty() {
        return 1;
    }
    let mut p = Parser { sh, args, pos: 0 };
    match p.or() {
        Ok(v) if p.pos == args.len() => i32::from(!v),
        Ok(_) => {
            io.errln(format!("bash: {name}: too many arguments"));
            2
        }
        Err(msg) => {
            io.errln(format!("bash: {name}: {msg}"));
            2
        }
    }
}
