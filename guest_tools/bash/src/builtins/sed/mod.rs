//! `sed`: a GNU-compatible stream editor (addresses, ranges, `s///` with flags, `p d q n N
//! a i c y = h H g G x b t T D P l`, `-n -e -f -E -i -s`).

mod exec;
mod parse;

use exec::{State, run};
use parse::Parser;

use crate::io::Io;
use crate::shell::{Shell, io_err_msg};

/// `sed [-n] [-E|-r] [-s] [-i[SUFFIX]] [-e SCRIPT]... [-f FILE] [SCRIPT] [FILE...]`.
pub fn sed(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut quiet = false;
    let mut extended = false;
    let mut in_place: Option<String> = None;
    let mut separate = false;
    let mut scripts: Vec<String> = Vec::new();
    let mut files: Vec<String> = Vec::new();
    let mut i = 1;
    let mut only_files = false;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        if only_files || !a.starts_with('-') || a == "-" {
            files.push(a.clone());
            continue;
        }
        match a.as_str() {
            "--" => only_files = true,
            "-n" | "--quiet" | "--silent" => quiet = true,
            "-E" | "-r" | "--regexp-extended" => extended = true,
            "-s" | "--separate" => separate = true,
            "-z" | "-u" | "--posix" | "--debug" => {}
            "-e" | "--expression" => {
                scripts.push(argv.get(i).cloned().unwrap_or_default());
                i += 1;
            }
            "-f" | "--file" => {
                let f = argv.get(i).cloned().unwrap_or_default();
                i += 1;
                match std::fs::read_to_string(sh.resolve(&f)) {
                    Ok(t) => scripts.push(t),
                    Err(e) => {
                        io.errln(format!("sed: couldn't open file {f}: {}", io_err_msg(&e)));
                        return 1;
                    }
                }
            }
            _ if a.starts_with("-i") || a.starts_with("--in-place") => {
                let suffix = a
                    .strip_prefix("--in-place=")
                    .or_else(|| a.strip_prefix("-i"))
                    .unwrap_or("");
                in_place = Some(suffix.to_owned());
            }
            _ if a.starts_with("-e") => scripts.push(a[2..].to_owned()),
            _ => {
                // Combined short flags like -ne, -nE.
                let flags = &a[1..];
                let mut ok = true;
                let mut chars = flags.chars().peekable();
                while let Some(c) = chars.next() {
                    match c {
                        'n' => quiet = true,
                        'E' | 'r' => extended = true,
                        's' => separate = true,
                        'i' => {
                            in_place = Some(chars.by_ref().collect());
                            break;
                        }
                        'e' => {
                            scripts.push(argv.get(i).cloned().unwrap_or_default());
                            i += 1;
                        }
                        _ => {
                            ok = false;
                            io.errln(format!(
                                "sed: invalid option -- '{c}'\nUsage: sed [OPTION]... {{script-only-if-no-other-script}} [input-file]..."
                            ));
                            break;
                        }
                    }
                }
                if !ok {
                    return 1;
                }
            }
        }
    }
    if scripts.is_empty() {
        if files.is_empty() {
            io.errln("Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...");
            return 1;
        }
        scripts.push(files.remove(0));
    }
    let script = scripts.join("\n");
    let mut p = Parser::new(&script, extended);
    let mut cmds = Vec::new();
    if let Err(msg) = p.parse(&mut cmds) {
        io.errln(msg);
        return 1;
    }
    let mut st = State::new(cmds.len());
    let mut status = 0;
    if files.is_empty() {
        if in_place.is_some() {
            io.errln("sed: no input files");
            return 1;
        }
        files.push("-".to_owned());
    }
    let read = |name: &str| -> Result<String, String> {
        super::read_input(sh, io, name)
            .map(|d| String::from_utf8_lossy(&d).into_owned())
            .map_err(|m| {
                if m.ends_with("Is a directory") {
                    format!("sed: couldn't edit {name}: not a regular file")
                } else {
                    format!("sed: can't read {m}")
                }
            })
    };
    if in_place.is_some() || separate {
        for f in &files {
            let text = match read(f) {
                Ok(t) => t,
                Err(m) => {
                    io.errln(m);
                    status = 2;
                    continue;
                }
            };
            let lines: Vec<String> = text.lines().map(str::to_owned).collect();
            let trailing = text.ends_with('\n') || text.is_empty();
            st.ranges = vec![None; cmds.len()];
            if in_place.is_some() {
                st.line_no = 0;
            }
            let out = run(sh, &cmds, &lines, trailing, quiet, &mut st);
            match &in_place {
                Some(suffix) => {
                    let path = sh.resolve(f);
                    if !suffix.is_empty() {
                        let backup = if suffix.contains('*') {
                            suffix.replace('*', f)
                        } else {
                            format!("{f}{suffix}")
                        };
                        let _ = std::fs::write(sh.resolve(&backup), text.as_bytes());
                    }
                    if let Err(e) = std::fs::write(&path, out.as_bytes()) {
                        io.errln(format!("sed: couldn't open file {f}: {}", io_err_msg(&e)));
                        status = 4;
                    }
                }
                None => io.out(out),
            }
            if st.quit.is_some() {
                break;
            }
        }
    } else {
        let mut all = String::new();
        for f in &files {
            match read(f) {
                Ok(t) => {
                    if !all.is_empty() && !all.ends_with('\n') {
                        all.push('\n');
                    }
                    all.push_str(&t);
                }
                Err(m) => {
                    io.errln(m);
                    status = 2;
                }
            }
        }
        let lines: Vec<String> = all.lines().map(str::to_owned).collect();
        let trailing = all.ends_with('\n') || all.is_empty();
        let out = run(sh, &cmds, &lines, trailing, quiet, &mut st);
        io.out(out);
    }
    for (name, text) in &st.wfiles {
        if name == "/dev/stdout" {
            io.out(text);
        } else if name == "/dev/stderr" {
            io.err(text);
        } else {
            let _ = std::fs::write(sh.resolve(name), text);
        }
    }
    if let Some(code) = st.quit
        && code != 0
    {
        return code;
    }
    status
}
