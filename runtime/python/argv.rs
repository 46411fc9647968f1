//! The interpreter's command line: the caller's arguments run from the caller's working
//! directory.
//!
//! The CPython build runs isolated (cwd `/`, no `PYTHONPATH`, safe path), so a `-c` prelude
//! changes to the working directory and hands the caller's arguments to the interpreter's own
//! argument handling (the frozen `_reactor` module), whose exit status it returns.

use super::runtime::ARGV0;

/// argv for running `args` (what followed `python3`) from `cwd`.
pub fn interpreter_argv(cwd: &str, args: &[String]) -> Vec<String> {
    let prelude = format!(
        "__import__('os').chdir({cwd}) or __import__('sys').exit(__import__('_reactor').run([{argv0}, *__import__('sys').argv[1:]], dict(__import__('os').environ)))",
        cwd = py_str(cwd),
        argv0 = py_str(ARGV0),
    );
    let mut argv = vec![ARGV0.to_string(), "-c".into(), prelude];
    argv.extend(args.iter().cloned());
    argv
}

/// A Python string literal of `s`.
fn py_str(s: &str) -> String {
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
        let argv = interpreter_argv("/workspace", &["x.py".into(), "a b".into()]);
        assert_eq!(argv[0], ARGV0);
        assert_eq!(argv[1], "-c");
        assert!(argv[2].contains("chdir('/workspace')"));
        assert_eq!(&argv[3..], ["x.py", "a b"]);
    }
}
