//! Built-in commands and utilities. Each utility takes the shell, its argv (with the command
//! name at index 0) and its descriptors, and returns an exit status.

pub mod awk;
pub mod child;
pub mod diff;
pub mod echo;
pub mod fileops;
pub mod find;
pub mod grep;
pub mod jq;
pub mod ls;
pub mod media;
pub mod misc;
pub mod net;
pub mod pathinfo;
pub mod python;
pub mod sed;
pub mod shell;
pub mod sort;
pub mod test;
pub mod text;
pub mod xargs;

use crate::io::Io;
use crate::shell::{ExecResult, Shell, io_err_msg};

/// Signature of a built-in command.
pub type Builtin = fn(&mut Shell, &[String], &Io) -> ExecResult;

/// Wraps a utility that cannot change control flow.
macro_rules! util {
    ($f:path) => {
        |sh: &mut Shell, argv: &[String], io: &Io| -> ExecResult { Ok($f(sh, argv, io)) }
    };
}

/// Looks up a built-in by name.
pub fn lookup(name: &str) -> Option<Builtin> {
    let name = name.rsplit('/').next().unwrap_or(name);
    Some(match name {
        ":" | "true" => |_, _, _| Ok(0),
        "false" => |_, _, _| Ok(1),
        "exit" => shell::exit,
        "return" => shell::return_,
        "break" => shell::break_,
        "continue" => shell::continue_,
        "cd" => util!(shell::cd),
        "pwd" => util!(shell::pwd),
        "export" => util!(shell::export),
        "unset" => util!(shell::unset),
        "set" => util!(shell::set),
        "shift" => util!(shell::shift),
        "local" | "declare" | "typeset" | "readonly" => util!(shell::local),
        "read" => util!(shell::read),
        "eval" => shell::eval,
        "source" | "." => shell::source,
        "bash" | "sh" => shell::bash,
        "type" | "which" | "command" => shell::command,
        "let" => util!(shell::let_),
        "env" | "printenv" => shell::env,
        "trap" => util!(shell::trap),
        "shopt" | "wait" | "hash" | "ulimit" | "umask" | "alias" | "unalias" => |_, _, _| Ok(0),
        "echo" => util!(echo::echo),
        "printf" => util!(echo::printf),
        "test" | "[" => util!(test::test),
        "cat" => util!(text::cat),
        "head" => util!(text::head),
        "tail" => util!(text::tail),
        "wc" => util!(text::wc),
        "tee" => util!(text::tee),
        "tac" => util!(text::tac),
        "rev" => util!(text::rev),
        "nl" => util!(text::nl),
        "cut" => util!(text::cut),
        "tr" => util!(text::tr),
        "paste" => util!(text::paste),
        "seq" => util!(text::seq),
        "sort" => util!(sort::sort),
        "uniq" => util!(sort::uniq),
        "grep" | "egrep" | "fgrep" => util!(grep::grep),
        "sed" => util!(sed::sed),
        "awk" | "gawk" | "mawk" => util!(awk::awk),
        "jq" => util!(jq::jq),
        "python3" | "python" | "python3.15" => util!(python::python),
        "pip" | "pip3" => util!(python::pip),
        "ffprobe" | "ffmpeg" => util!(media::media),
        "curl" => util!(net::curl::curl),
        "wget" => util!(net::wget::wget),
        "ls" => util!(ls::ls),
        "find" => find::find,
        "xargs" => xargs::xargs,
        "mkdir" => util!(fileops::mkdir),
        "rmdir" => util!(fileops::rmdir),
        "rm" => util!(fileops::rm),
        "cp" => util!(fileops::cp),
        "mv" => util!(fileops::mv),
        "touch" => util!(fileops::touch),
        "ln" => util!(fileops::ln),
        "basename" => util!(pathinfo::basename),
        "dirname" => util!(pathinfo::dirname),
        "realpath" | "readlink" => util!(pathinfo::realpath),
        "stat" => util!(pathinfo::stat),
        "du" => util!(pathinfo::du),
        "diff" => util!(diff::diff),
        "base64" => util!(misc::base64),
        "sha256sum" => util!(misc::sha256sum),
        "date" => util!(misc::date),
        "sleep" => util!(misc::sleep),
        "timeout" => misc::timeout,
        "time" => misc::time,
        "whoami" => |_, _, io| {
            io.out("user\n");
            Ok(0)
        },
        "hostname" => |_, _, io| {
            io.out("sandbox\n");
            Ok(0)
        },
        "uname" => util!(misc::uname),
        _ => return None,
    })
}

/// Names of all built-ins (for `type`/`which`).
pub fn is_builtin(name: &str) -> bool {
    lookup(name).is_some()
}

/// One parsed command-line item.
#[derive(Debug, Clone, PartialEq)]
pub enum Opt {
    /// A short option, with its value if it takes one.
    Short(char, Option<String>),
    /// A long option `--name` or `--name=value`.
    Long(String, Option<String>),
}

/// Parses GNU-style options: `spec` lists short option letters, a letter followed by `:`
/// takes a value. Options and operands may be interleaved (GNU permutation); `--` ends
/// options. Returns the options and the operands, or an error message in GNU's wording.
pub fn parse_opts(
    cmd: &str,
    args: &[String],
    spec: &str,
) -> Result<(Vec<Opt>, Vec<String>), String> {
    let mut opts = Vec::new();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            match long.split_once('=') {
                Some((k, v)) => opts.push(Opt::Long(k.to_owned(), Some(v.to_owned()))),
                None => opts.push(Opt::Long(long.to_owned(), None)),
            }
            continue;
        }
        if a.len() < 2 || !a.starts_with('-') {
            operands.push(a.clone());
            continue;
        }
        let chars: Vec<char> = a[1..].chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            let Some(pos) = spec.find(c) else {
                return Err(format!(
                    "{cmd}: invalid option -- '{c}'\nTry '{cmd} --help' for more information."
                ));
            };
            if spec[pos + 1..].starts_with(':') {
                let rest: String = chars[j + 1..].iter().collect();
                if !rest.is_empty() {
                    opts.push(Opt::Short(c, Some(rest)));
                } else if i < args.len() {
                    opts.push(Opt::Short(c, Some(args[i].clone())));
                    i += 1;
                } else {
                    return Err(format!(
                        "{cmd}: option requires an argument -- '{c}'\nTry '{cmd} --help' for more information."
                    ));
                }
                break;
            }
            opts.push(Opt::Short(c, None));
            j += 1;
        }
    }
    Ok((opts, operands))
}

/// Reads a named input (`-` is stdin), with GNU-style error text `NAME: REASON`.
pub fn read_input(sh: &Shell, io: &Io, name: &str) -> Result<Vec<u8>, String> {
    if name == "-" || name == "/dev/stdin" {
        return Ok(io.stdin.read_all());
    }
    if name == "/dev/null" {
        return Ok(Vec::new());
    }
    let path = sh.resolve(name);
    if path.is_dir() {
        return Err(format!("{name}: Is a directory"));
    }
    std::fs::read(&path).map_err(|e| format!("{name}: {}", io_err_msg(&e)))
}

/// Splits bytes into lines without their terminators (a final unterminated line counts).
pub fn lines(data: &[u8]) -> Vec<&[u8]> {
    if data.is_empty() {
        return Vec::new();
    }
    let body = data.strip_suffix(b"\n").unwrap_or(data);
    body.split(|&b| b == b'\n').collect()
}

/// Parses a count like GNU does for `-n`: digits with an optional multiplier suffix.
pub fn parse_count(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, 'k' | 'K')) => (&s[..i], 1024),
        Some((i, 'M')) => (&s[..i], 1024 * 1024),
        Some((i, 'b')) => (&s[..i], 512),
        _ => (s, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mult)
}
