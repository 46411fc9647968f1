//! `find` with the common tests (`-name`, `-type`, `-path`, `-size`, `-empty`, ...), the
//! operators `!`, `-a`, `-o` and parentheses, and the actions `-print`, `-print0`, `-exec`,
//! `-delete`, `-prune`. Directory entries are visited in sorted order for determinism.

use std::fs::Metadata;
use std::path::{Path, PathBuf};

use crate::io::Io;
use crate::pattern::Pattern;
use crate::shell::{ExecResult, Flow, Shell, io_err_msg};

#[derive(Debug, Clone)]
enum Expr {
    True,
    Name(Pattern, bool),
    Path(Pattern, bool),
    Type(char),
    Size(std::cmp::Ordering, u64, u64),
    Empty,
    Regex(regex::Regex),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Print(bool),
    Exec(Vec<String>, bool),
    Delete,
    Prune,
    Quit,
}

struct Parser<'a> {
    args: &'a [String],
    pos: usize,
    has_action: bool,
    maxdepth: Option<usize>,
    mindepth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.args.get(self.pos).map(|s| s.as_str())
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.and()?;
        while matches!(self.peek(), Some("-o" | "-or")) {
            self.pos += 1;
            let right = self.and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut left = self.not()?;
        loop {
            match self.peek() {
                Some("-a" | "-and") => {
                    self.pos += 1;
                }
                Some("-o" | "-or" | ")") | None => break,
                _ => {}
            }
            let right = self.not()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, String> {
        if matches!(self.peek(), Some("!" | "-not")) {
            self.pos += 1;
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.primary()
    }

    fn value(&mut self, opt: &str) -> Result<String, String> {
        let v = self
            .args
            .get(self.pos)
            .cloned()
            .ok_or_else(|| format!("find: missing argument to `{opt}'"))?;
        self.pos += 1;
        Ok(v)
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let Some(tok) = self.peek().map(str::to_owned) else {
            return Err("find: expected an expression".into());
        };
        self.pos += 1;
        Ok(match tok.as_str() {
            "(" => {
                let e = self.or()?;
                if self.peek() != Some(")") {
                    return Err("find: invalid expression; I was expecting to find a ')' somewhere but did not see one.".into());
                }
                self.pos += 1;
                e
            }
            "-name" => Expr::Name(Pattern::new(&self.value(&tok)?), false),
            "-iname" => Expr::Name(Pattern::new(&self.value(&tok)?), true),
            "-path" | "-wholename" => Expr::Path(Pattern::new(&self.value(&tok)?), false),
            "-ipath" | "-iwholename" => Expr::Path(Pattern::new(&self.value(&tok)?), true),
            "-regex" | "-iregex" => {
                let v = self.value(&tok)?;
                let re = regex::RegexBuilder::new(&format!(
                    "^(?:{})$",
                    crate::regex_posix::translate(&v, false)
                ))
                .case_insensitive(tok == "-iregex")
                .build()
                .map_err(|_| format!("find: invalid regular expression '{v}'"))?;
                Expr::Regex(re)
            }
            "-type" | "-xtype" => {
                let v = self.value(&tok)?;
                match v.as_str() {
                    "f" | "d" | "l" => Expr::Type(v.chars().next().unwrap_or('f')),
                    _ => return Err(format!("find: Unknown argument to -type: {v}")),
                }
            }
            "-size" => {
                let v = self.value(&tok)?;
                let (ord, rest) = match v.chars().next() {
                    Some('+') => (std::cmp::Ordering::Greater, &v[1..]),
                    Some('-') => (std::cmp::Ordering::Less, &v[1..]),
                    _ => (std::cmp::Ordering::Equal, v.as_str()),
                };
                let (num, unit) = match rest.chars().last() {
                    Some(c) if c.is_ascii_alphabetic() => (&rest[..rest.len() - 1], c),
                    _ => (rest, 'b'),
                };
                let unit = match unit {
                    'c' => 1,
                    'w' => 2,
                    'k' => 1024,
                    'M' => 1024 * 1024,
                    'G' => 1024 * 1024 * 1024,
                    _ => 512,
                };
                let n = num
                    .parse()
                    .map_err(|_| format!("find: invalid -size argument `{v}'"))?;
                Expr::Size(ord, n, unit)
            }
            "-empty" => Expr::Empty,
            "-maxdepth" => {
                let v = self.value(&tok)?;
                self.maxdepth = Some(v.parse().map_err(|_| {
                    format!("find: Expected a positive decimal integer argument to -maxdepth, but got `{v}'")
                })?);
                Expr::True
            }
            "-mindepth" => {
                let v = self.value(&tok)?;
                self.mindepth = v.parse().unwrap_or(0);
                Expr::True
            }
            "-mtime" | "-mmin" | "-newer" | "-user" | "-group" | "-perm" | "-atime" | "-ctime" => {
                self.value(&tok)?;
                Expr::True
            }
            "-print" => {
                self.has_action = true;
                Expr::Print(false)
            }
            "-print0" => {
                self.has_action = true;
                Expr::Print(true)
            }
            "-delete" => {
                self.has_action = true;
                Expr::Delete
            }
            "-prune" => Expr::Prune,
            "-quit" => Expr::Quit,
            "-depth" | "-follow" | "-xdev" | "-mount" | "-noleaf" | "-true" => Expr::True,
            "-false" => Expr::Not(Box::new(Expr::True)),
            "-exec" | "-execdir" | "-ok" => {
                self.has_action = true;
                let mut cmd = Vec::new();
                loop {
                    let Some(a) = self.args.get(self.pos) else {
                        return Err(format!("find: missing argument to `{tok}'"));
                    };
                    self.pos += 1;
                    if a == ";" {
                        return Ok(Expr::Exec(cmd, false));
                    }
                    if a == "+" && cmd.last().is_some_and(|l: &String| l == "{}") {
                        return Ok(Expr::Exec(cmd, true));
                    }
                    cmd.push(a.clone());
                }
            }
            other => {
                if other.starts_with('-') {
                    return Err(format!("find: unknown predicate `{other}'"));
                }
                return Err(format!("find: paths must precede expression: `{other}'"));
            }
        })
    }
}

struct Walk<'a> {
    io: &'a Io,
    batch: Vec<(Vec<String>, Vec<String>)>,
    quit: bool,
}

fn eval(
    sh: &mut Shell,
    w: &mut Walk,
    e: &Expr,
    shown: &str,
    path: &Path,
    meta: &Metadata,
    prune: &mut bool,
) -> Result<bool, Flow> {
    Ok(match e {
        Expr::True => true,
        Expr::Name(p, icase) => {
            let name = if shown == "/" {
                "/".to_owned()
            } else {
                let t = shown.trim_end_matches('/');
                t.rsplit('/').next().unwrap_or(t).to_owned()
            };
            if *icase {
                p.matches_nocase(&name)
            } else {
                p.matches(&name)
            }
        }
        Expr::Path(p, icase) => {
            if *icase {
                p.matches_nocase(shown)
            } else {
                p.matches(shown)
            }
        }
        Expr::Regex(re) => re.is_match(shown),
        Expr::Type(t) => match t {
            'f' => meta.is_file(),
            'd' => meta.is_dir(),
            _ => meta.is_symlink(),
        },
        Expr::Size(ord, n, unit) => {
            let size = meta.len().div_ceil(*unit);
            size.cmp(n) == *ord
        }
        Expr::Empty => {
            if meta.is_dir() {
                std::fs::read_dir(path).is_ok_and(|mut r| r.next().is_none())
            } else {
                meta.is_file() && meta.len() == 0
            }
        }
        Expr::Not(a) => !eval(sh, w, a, shown, path, meta, prune)?,
        Expr::And(a, b) => {
            eval(sh, w, a, shown, path, meta, prune)? && eval(sh, w, b, shown, path, meta, prune)?
        }
        Expr::Or(a, b) => {
            eval(sh, w, a, shown, path, meta, prune)? || eval(sh, w, b, shown, path, meta, prune)?
        }
        Expr::Print(nul) => {
            w.io.out(shown);
            w.io.out(if *nul { "\0" } else { "\n" });
            true
        }
        Expr::Delete => {
            let r = if meta.is_dir() {
                std::fs::remove_dir(path)
            } else {
                std::fs::remove_file(path)
            };
            if let Err(e) = r {
                w.io.errln(format!("find: cannot delete '{shown}': {}", io_err_msg(&e)));
            }
            true
        }
        Expr::Prune => {
            *prune = true;
            true
        }
        Expr::Quit => {
            w.quit = true;
            true
        }
        Expr::Exec(cmd, batch) => {
            if *batch {
                let key = cmd.clone();
                match w.batch.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, paths)) => paths.push(shown.to_owned()),
                    None => w.batch.push((key, vec![shown.to_owned()])),
                }
                true
            } else {
                let argv: Vec<String> = cmd.iter().map(|a| a.replace("{}", shown)).collect();
                sh.run_argv(&argv, w.io)? == 0
            }
        }
    })
}

#[allow(clippy::too_many_arguments)]
fn visit(
    sh: &mut Shell,
    w: &mut Walk,
    expr: &Expr,
    shown: &str,
    path: &PathBuf,
    depth: usize,
    maxdepth: Option<usize>,
    mindepth: usize,
    status: &mut i32,
) -> Result<(), Flow> {
    if w.quit {
        return Ok(());
    }
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) => {
            w.io.errln(format!("find: '{shown}': {}", io_err_msg(&e)));
            *status = 1;
            return Ok(());
        }
    };
    let mut prune = false;
    let is_delete = matches!(expr, Expr::And(_, b) if matches!(**b, Expr::Delete))
        || matches!(expr, Expr::Delete);
    let descend = meta.is_dir() && maxdepth.is_none_or(|m| depth < m);
    // `-delete` implies depth-first so directories are empty when reached.
    if !is_delete && depth >= mindepth {
        eval(sh, w, expr, shown, path, &meta, &mut prune)?;
    }
    if descend && !prune {
        match std::fs::read_dir(path) {
            Ok(rd) => {
                let mut names: Vec<String> = rd
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect();
                names.sort();
                for n in names {
                    let child_shown = if shown.ends_with('/') {
                        format!("{shown}{n}")
                    } else {
                        format!("{shown}/{n}")
                    };
                    visit(
                        sh,
                        w,
                        expr,
                        &child_shown,
                        &path.join(&n),
                        depth + 1,
                        maxdepth,
                        mindepth,
                        status,
                    )?;
                }
            }
            Err(e) => {
                w.io.errln(format!("find: '{shown}': {}", io_err_msg(&e)));
                *status = 1;
            }
        }
    }
    if is_delete && depth >= mindepth {
        eval(sh, w, expr, shown, path, &meta, &mut prune)?;
    }
    Ok(())
}

/// `find [PATH...] [EXPRESSION]`.
pub fn find(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    let args = &argv[1..];
    let split = args
        .iter()
        .position(|a| (a.starts_with('-') && a.len() > 1) || a == "(" || a == "!")
        .unwrap_or(args.len());
    let mut roots: Vec<String> = args[..split].to_vec();
    if roots.is_empty() {
        roots.push(".".to_owned());
    }
    let mut p = Parser {
        args: &args[split..],
        pos: 0,
        has_action: false,
        maxdepth: None,
        mindepth: 0,
    };
    let expr = if p.args.is_empty() {
        Expr::True
    } else {
        match p.or() {
            Ok(e) if p.pos == p.args.len() => e,
            Ok(_) => {
                io.errln(format!(
                    "find: paths must precede expression: `{}'",
                    p.args[p.pos]
                ));
                return Ok(1);
            }
            Err(msg) => {
                io.errln(msg);
                return Ok(1);
            }
        }
    };
    let expr = if p.has_action {
        expr
    } else {
        Expr::And(Box::new(expr), Box::new(Expr::Print(false)))
    };
    let mut w = Walk {
        io,
        batch: Vec::new(),
        quit: false,
    };
    let mut status = 0;
    for root in &roots {
        let path = sh.resolve(root);
        visit(
            sh,
            &mut w,
            &expr,
            root,
            &path,
            0,
            p.maxdepth,
            p.mindepth,
            &mut status,
        )?;
    }
    for (cmd, paths) in std::mem::take(&mut w.batch) {
        let mut argv: Vec<String> = cmd[..cmd.len() - 1].to_vec();
        argv.extend(paths);
        if sh.run_argv(&argv, io)? != 0 {
            status = 1;
        }
    }
    Ok(status)
}
