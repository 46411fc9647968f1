//! The interpreter's command line: the caller's arguments run from the caller's working
//! directory.
//!
//! The CPython build runs isolated (cwd `/`, no `PYTHONPATH`, safe path), so a `-c` prelude
//! changes to the working directory and hands the caller's arguments to the interpreter's own
//! argument handling (the frozen `_reactor` module), whose exit status it returns. During the
//! Judge phase the prelude first installs the judge's import rule
//! ([`JudgeImports`](super::judge_imports::JudgeImports)).

use super::judge_imports::JudgeImports;
use super::runtime::ARGV0;

/// argv for running `args` (what followed `python3`) from `cwd`; with `judge`, the Judge
/// phase's import rule is installed first.
pub fn interpreter_argv(cwd: &str, args: &[String], judge: Option<&JudgeImports>) -> Vec<String> {
    let path0 = match path0(cwd, args) {
        Some(dir) => format!("__import__('sys').path.insert(0, {}) or ", py_str(&dir)),
        None => String::new(),
    };
    let guard = match judge {
        Some(rule) => format!("{} or ", rule.prelude()),
        None => String::new(),
    };
    let prelude = format!(
        "{guard}__import__('os').chdir({cwd}) or {path0}__import__('sys').exit(__import__('_reactor').run([{argv0}, *__import__('sys').argv[1:]], dict(__import__('os').environ)))",
        cwd = py_str(cwd),
        argv0 = py_str(ARGV0),
    );
    let mut argv = vec![ARGV0.to_string(), "-c".into(), prelude];
    argv.extend(args.iter().cloned());
    argv
}

/// What a non-isolated `python3` puts first on `sys.path` for `args`: the script's folder,
/// the working directory for `-m`, `''` for `-c`, stdin and no arguments; nothing with `-P`,
/// `-I` or `-E`-less isolation flags that drop it.
fn path0(cwd: &str, args: &[String]) -> Option<String> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        if arg == "-" || !arg.starts_with('-') {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            // `--check-hash-based-pycs MODE` takes a value; other long options do not.
            i += if long == "check-hash-based-pycs" {
                2
            } else {
                1
            };
            continue;
        }
        for (k, flag) in arg[1..].char_indices() {
            match flag {
                'P' | 'I' => return None,
                'c' => return Some(String::new()),
                'm' => return Some(cwd.to_string()),
                // Options whose value follows, in the same word or the next.
                'W' | 'X' => {
                    if k + 1 == arg.len() - 1 {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    match args.get(i) {
        None => Some(String::new()),
        Some(s) if s == "-" => Some(String::new()),
        Some(script) => {
            let joined = if script.starts_with('/') {
                script.clone()
            } else {
                format!("{}/{script}", cwd.trim_end_matches('/'))
            };
            let dir = match joined.rsplit_once('/') {
                Some(("", _)) => "/".to_string(),
                Some((dir, _)) => dir.to_string(),
                None => cwd.to_string(),
            };
            Some(dir)
        }
    }
}

/// A Python string literal of `s`.
pub(super) fn py_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn working_directory_is_quoted_as_a_python_literal() {
        assert_eq!(py_str("/work/it's\n"), "'/work/it\\'s\\x0a'");
        let argv = interpreter_argv("/workspace", &["x.py".into(), "a b".into()], None);
        assert_eq!(argv[0], ARGV0);
        assert_eq!(argv[1], "-c");
        assert!(argv[2].contains("chdir('/workspace')"));
        assert_eq!(&argv[3..], ["x.py", "a b"]);
    }

    fn p0(args: &[&str]) -> Option<String> {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        path0("/w", &args)
    }

    #[test]
    fn first_path_entry_follows_cpython() {
        assert_eq!(p0(&["pkg/main.py", "-c"]).as_deref(), Some("/w/pkg"));
        assert_eq!(p0(&["main.py"]).as_deref(), Some("/w"));
        assert_eq!(p0(&["/abs/x.py"]).as_deref(), Some("/abs"));
        assert_eq!(p0(&["-u", "-W", "ignore", "s.py"]).as_deref(), Some("/w"));
        assert_eq!(p0(&["-Wignore", "d/s.py"]).as_deref(), Some("/w/d"));
        assert_eq!(p0(&["-c", "print(1)", "x.py"]).as_deref(), Some(""));
        assert_eq!(p0(&["-uc", "print(1)"]).as_deref(), Some(""));
        assert_eq!(p0(&["-m", "json.tool"]).as_deref(), Some("/w"));
        assert_eq!(p0(&["-"]).as_deref(), Some(""));
        assert_eq!(p0(&[]).as_deref(), Some(""));
        assert_eq!(p0(&["-P", "x.py"]), None);
        assert_eq!(p0(&["-I", "x.py"]), None);
    }
}
