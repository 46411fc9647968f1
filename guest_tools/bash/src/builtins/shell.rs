//! Shell built-ins that act on the interpreter itself: `cd`, `export`, `read`, `exit`, ...

use crate::io::Io;
use crate::shell::{ExecResult, Flow, Shell};

fn num_arg(argv: &[String], default: i32) -> Result<i32, String> {
    match argv.get(1) {
        None => Ok(default),
        Some(a) => a
            .parse::<i64>()
            .map(|n| (n & 0xff) as i32)
            .map_err(|_| format!("bash: {}: {a}: numeric argument required", argv[0])),
    }
}

/// `exit [N]`.
pub fn exit(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    match num_arg(argv, sh.last_status) {
        Ok(n) => Err(Flow::Exit(n)),
        Err(msg) => {
            io.errln(msg);
            Err(Flow::Exit(2))
        }
    }
}

/// `return [N]`.
pub fn return_(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    if sh.locals.is_empty() {
        io.errln("bash: return: can only `return' from a function or sourced script");
        return Ok(1);
    }
    match num_arg(argv, sh.last_status) {
        Ok(n) => Err(Flow::Return(n)),
        Err(msg) => {
            io.errln(msg);
            Err(Flow::Return(2))
        }
    }
}

fn loop_count(argv: &[String]) -> u32 {
    argv.get(1)
        .and_then(|a| a.parse::<u32>().ok())
        .unwrap_or(1)
        .max(1)
}

/// `break [N]`.
pub fn break_(sh: &mut Shell, argv: &[String], _io: &Io) -> ExecResult {
    if sh.loop_depth == 0 {
        return Ok(0);
    }
    Err(Flow::Break(loop_count(argv)))
}

/// `continue [N]`.
pub fn continue_(sh: &mut Shell, argv: &[String], _io: &Io) -> ExecResult {
    if sh.loop_depth == 0 {
        return Ok(0);
    }
    Err(Flow::Continue(loop_count(argv)))
}

/// `cd [DIR]`: changes the working directory (persisted in the tool state).
pub fn cd(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let args: Vec<&String> = argv[1..]
        .iter()
        .filter(|a| !matches!(a.as_str(), "-L" | "-P"))
        .collect();
    if args.len() > 1 {
        io.errln("bash: cd: too many arguments");
        return 1;
    }
    let target = match args.first().map(|s| s.as_str()) {
        None | Some("~") => match sh.get_var("HOME") {
            Some(h) => h,
            None => {
                io.errln("bash: cd: HOME not set");
                return 1;
            }
        },
        Some("-") => match sh.get_var("OLDPWD") {
            Some(o) => {
                io.out(format!("{o}\n"));
                o
            }
            None => {
                io.errln("bash: cd: OLDPWD not set");
                return 1;
            }
        },
        Some(d) => d.to_owned(),
    };
    let path = sh.resolve(&target);
    match std::fs::metadata(&path) {
        Ok(m) if m.is_dir() => {
            let old = sh.cwd.clone();
            sh.cwd = path.to_string_lossy().into_owned();
            sh.set_exported("OLDPWD", &old);
            sh.set_exported("PWD", &sh.cwd.clone());
            0
        }
        Ok(_) => {
            io.errln(format!("bash: cd: {target}: Not a directory"));
            1
        }
        Err(_) => {
            io.errln(format!("bash: cd: {target}: No such file or directory"));
            1
        }
    }
}

/// `pwd`.
pub fn pwd(sh: &mut Shell, _argv: &[String], io: &Io) -> i32 {
    io.out(format!("{}\n", sh.cwd));
    0
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// `export [-n] NAME[=VALUE]...`.
pub fn export(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut status = 0;
    let mut unexport = false;
    let args: Vec<&String> = argv[1..].iter().collect();
    if args.is_empty() || args.iter().all(|a| a.as_str() == "-p") {
        let mut names: Vec<(&String, &crate::shell::Var)> =
            sh.vars.iter().filter(|(_, v)| v.exported).collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        for (k, v) in names {
            io.out(format!(
                "declare -x {k}=\"{}\"\n",
                v.value.replace('"', "\\\"")
            ));
        }
        return 0;
    }
    for a in args {
        if a == "-n" {
            unexport = true;
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        let (name, value) = match a.split_once('=') {
            Some((n, v)) => (n.trim_end_matches('+'), Some(v)),
            None => (a.as_str(), None),
        };
        if !valid_name(name) {
            io.errln(format!("bash: export: `{a}': not a valid identifier"));
            status = 1;
            continue;
        }
        if let Some(v) = value {
            if a.contains("+=") {
                let old = sh.get_var(name).unwrap_or_default();
                sh.set_var(name, &(old + v));
            } else {
                sh.set_var(name, v);
            }
        }
        let var = sh.vars.entry(name.to_owned()).or_default();
        var.exported = !unexport;
    }
    status
}

/// `unset [-v|-f] NAME...`.
pub fn unset(sh: &mut Shell, argv: &[String], _io: &Io) -> i32 {
    let mut functions = false;
    for a in &argv[1..] {
        match a.as_str() {
            "-f" => functions = true,
            "-v" => functions = false,
            name if functions => {
                sh.functions.remove(name);
            }
            name => {
                sh.unset_var(name);
                if !sh.vars.contains_key(name) {
                    sh.functions.remove(name);
                }
            }
        }
    }
    0
}

/// `set [-euxo pipefail] [-- args]`.
pub fn set(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    if argv.len() == 1 {
        let mut names: Vec<(&String, &crate::shell::Var)> = sh.vars.iter().collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        for (k, v) in names {
            io.out(format!("{k}={}\n", v.value));
        }
        return 0;
    }
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        if a == "--" {
            sh.positional = argv[i + 1..].to_vec();
            return 0;
        }
        let (on, flags) = if let Some(f) = a.strip_prefix('-') {
            (true, f)
        } else if let Some(f) = a.strip_prefix('+') {
            (false, f)
        } else {
            sh.positional = argv[i..].to_vec();
            return 0;
        };
        for c in flags.chars() {
            match c {
                'e' => sh.errexit = on,
                'u' => sh.nounset = on,
                'x' => sh.xtrace = on,
                'o' => {
                    i += 1;
                    match argv.get(i).map(|s| s.as_str()) {
                        Some("pipefail") => sh.pipefail = on,
                        Some("errexit") => sh.errexit = on,
                        Some("nounset") => sh.nounset = on,
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    0
}

/// `shift [N]`.
pub fn shift(sh: &mut Shell, argv: &[String], _io: &Io) -> i32 {
    let n = argv
        .get(1)
        .and_then(|a| a.parse::<usize>().ok())
        .unwrap_or(1);
    if n > sh.positional.len() {
        return 1;
    }
    sh.positional.drain(..n);
    0
}

/// `local`/`declare NAME[=VALUE]...` (attributes are accepted and ignored, except `-x`).
pub fn local(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut export = false;
    for a in &argv[1..] {
        if a.starts_with('-') || a.starts_with('+') {
            export |= a.starts_with('-') && a.contains('x');
            continue;
        }
        let (name, value) = match a.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (a.as_str(), None),
        };
        if !valid_name(name) {
            io.errln(format!("bash: {}: `{a}': not a valid identifier", argv[0]));
            return 1;
        }
        if argv[0] == "local" {
            let old = sh.vars.get(name).cloned();
            if let Some(frame) = sh.locals.last_mut() {
                frame.push((name.to_owned(), old));
            }
        }
        match value {
            Some(v) => sh.set_var(name, v),
            None => {
                sh.vars.entry(name.to_owned()).or_default();
            }
        }
        if export && let Some(v) = sh.vars.get_mut(name) {
            v.exported = true;
        }
    }
    0
}

/// `read [-r] [-p PROMPT] [-a ARR] [-d DELIM] NAME...`.
pub fn read(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut raw = false;
    let mut names = Vec::new();
    let mut array: Option<String> = None;
    let mut delim = b'\n';
    let mut i = 1;
    while i < argv.len() {
        match argv[i].as_str() {
            "-r" => raw = true,
            "-p" | "-t" | "-n" | "-u" => i += 1,
            "-s" | "-e" => {}
            "-a" => {
                i += 1;
                array = argv.get(i).cloned();
            }
            "-d" => {
                i += 1;
                delim = argv.get(i).and_then(|d| d.bytes().next()).unwrap_or(0);
            }
            "-ra" => {
                raw = true;
                i += 1;
                array = argv.get(i).cloned();
            }
            n => names.push(n.to_owned()),
        }
        i += 1;
    }
    // Read up to the delimiter, honouring backslash-newline continuation without -r.
    let mut line: Vec<u8> = Vec::new();
    let mut got_any = false;
    let mut terminated = false;
    loop {
        let chunk = if delim == b'\n' {
            io.stdin.read_line()
        } else {
            read_until(io, delim)
        };
        let Some(mut chunk) = chunk else { break };
        got_any = true;
        if chunk.last() == Some(&delim) {
            chunk.pop();
            terminated = true;
        } else {
            terminated = false;
        }
        if !raw && chunk.last() == Some(&b'\\') && terminated {
            chunk.pop();
            line.extend_from_slice(&chunk);
            continue;
        }
        line.extend_from_slice(&chunk);
        break;
    }
    let text = String::from_utf8_lossy(&line).into_owned();
    let text = if raw { text } else { unbackslash(&text) };
    let ifs = sh.get_var("IFS").unwrap_or_else(|| " \t\n".to_owned());
    if let Some(arr) = array {
        let fields: Vec<String> = split_ifs(&text, &ifs, usize::MAX);
        sh.set_var(&arr, fields.first().map_or("", |s| s));
        if let Some(v) = sh.vars.get_mut(&arr) {
            v.array = Some(fields);
        }
    } else {
        if names.is_empty() {
            names.push("REPLY".to_owned());
            sh.set_var("REPLY", &text);
        } else {
            let fields = split_ifs(&text, &ifs, names.len());
            for (i, name) in names.iter().enumerate() {
                sh.set_var(name, fields.get(i).map_or("", |s| s));
            }
        }
    }
    if got_any && terminated {
        0
    } else {
        i32::from(!got_any || !terminated)
    }
}

fn read_until(io: &Io, delim: u8) -> Option<Vec<u8>> {
    // Fall back to reading everything, then push back the remainder.
    let all = io.stdin.read_all();
    if all.is_empty() {
        return None;
    }
    match all.iter().position(|&b| b == delim) {
        Some(p) => {
            let (head, rest) = all.split_at(p + 1);
            // Re-seat the remainder as the new stdin content.
            let rest = rest.to_vec();
            let head = head.to_vec();
            io.stdin.unread(rest);
            Some(head)
        }
        None => Some(all),
    }
}

fn unbackslash(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Splits `text` on IFS into at most `max` fields (the last takes the rest), like `read`.
pub fn split_ifs(text: &str, ifs: &str, max: usize) -> Vec<String> {
    let is_ws = |c: char| ifs.contains(c) && c.is_whitespace();
    let is_ifs = |c: char| ifs.contains(c);
    let mut rest = text.trim_matches(is_ws);
    let mut fields = Vec::new();
    while !rest.is_empty() {
        if fields.len() + 1 >= max {
            fields.push(rest.trim_end_matches(is_ws).to_owned());
            return fields;
        }
        let Some(p) = rest.find(is_ifs) else {
            fields.push(rest.to_owned());
            break;
        };
        fields.push(rest[..p].to_owned());
        let mut after = rest[p..].trim_start_matches(is_ws);
        if let Some(c) = after.chars().next()
            && is_ifs(c)
            && !is_ws(c)
        {
            after = after[c.len_utf8()..].trim_start_matches(is_ws);
        }
        rest = after;
    }
    fields
}

/// `eval ARGS...`.
pub fn eval(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    let script = argv[1..].join(" ");
    sh.run_script(&script, io)
}

/// `source FILE` / `. FILE`.
pub fn source(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    let Some(name) = argv.get(1) else {
        io.errln("bash: source: filename argument required");
        return Ok(2);
    };
    match std::fs::read_to_string(sh.resolve(name)) {
        Ok(text) => {
            sh.locals.push(Vec::new());
            let r = sh.run_script(&text, io);
            sh.locals.pop();
            match r {
                Err(Flow::Return(n)) => Ok(n),
                r => r,
            }
        }
        Err(_) => {
            io.errln(format!("bash: {name}: No such file or directory"));
            Ok(1)
        }
    }
}

/// `bash [-c SCRIPT [NAME ARGS...]] | bash FILE ARGS...` runs in a subshell.
pub fn bash(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    let mut i = 1;
    while i < argv.len() && argv[i].starts_with('-') && argv[i] != "-c" {
        i += 1;
    }
    if argv.get(i).map(|s| s.as_str()) == Some("-c") {
        let Some(script) = argv.get(i + 1).cloned() else {
            io.errln("bash: -c: option requires an argument");
            return Ok(2);
        };
        let args = argv.get(i + 3..).map(|a| a.to_vec()).unwrap_or_default();
        return sh.run_script_file(&script, args, io);
    }
    match argv.get(i) {
        Some(file) => match std::fs::read_to_string(sh.resolve(file)) {
            Ok(text) => sh.run_script_file(&text, argv[i + 1..].to_vec(), io),
            Err(_) => {
                io.errln(format!("bash: {file}: No such file or directory"));
                Ok(127)
            }
        },
        None => {
            let text = String::from_utf8_lossy(&io.stdin.read_all()).into_owned();
            sh.run_script_file(&text, Vec::new(), io)
        }
    }
}

/// `type`, `which` and `command [-v] NAME`.
pub fn command(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    let ty = argv[0] == "type";
    let args: Vec<&String> = argv[1..].iter().filter(|a| !a.starts_with('-')).collect();
    let verbose = argv[1..].iter().any(|a| a == "-v" || a == "-V");
    if argv[0] == "command" && !verbose {
        if args.is_empty() {
            return Ok(0);
        }
        let rest: Vec<String> = argv[1..]
            .iter()
            .skip_while(|a| a.starts_with('-'))
            .cloned()
            .collect();
        return sh.run_argv(&rest, io);
    }
    let mut status = 0;
    for name in args {
        if sh.functions.contains_key(name.as_str()) {
            if ty {
                io.out(format!("{name} is a function\n"));
            } else {
                io.out(format!("{name}\n"));
            }
        } else if super::is_builtin(name) {
            if ty {
                io.out(format!("{name} is /usr/bin/{name}\n"));
            } else {
                io.out(format!("/usr/bin/{name}\n"));
            }
        } else {
            if ty {
                io.errln(format!("bash: type: {name}: not found"));
            }
            status = 1;
        }
    }
    Ok(status)
}

/// `let EXPR...`.
pub fn let_(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let mut last = 0;
    for a in &argv[1..] {
        match crate::arith::eval_str(sh, a) {
            Ok(v) => last = v,
            Err(msg) => {
                io.errln(format!("bash: let: {msg}"));
                return 1;
            }
        }
    }
    i32::from(last == 0)
}

/// `env [NAME=VALUE...] [COMMAND...]` and `printenv [NAME]`.
pub fn env(sh: &mut Shell, argv: &[String], io: &Io) -> ExecResult {
    if argv[0] == "printenv"
        && let Some(name) = argv.get(1)
    {
        return Ok(match sh.vars.get(name.as_str()).filter(|v| v.exported) {
            Some(v) => {
                io.out(format!("{}\n", v.value));
                0
            }
            None => 1,
        });
    }
    let mut i = 1;
    let mut assigns = Vec::new();
    while i < argv.len() {
        if argv[i] == "-i" || argv[i] == "-" {
            i += 1;
            continue;
        }
        match argv[i].split_once('=') {
            Some((k, v)) if valid_name(k) => assigns.push((k.to_owned(), v.to_owned())),
            _ => break,
        }
        i += 1;
    }
    if i < argv.len() {
        let rest = argv[i..].to_vec();
        return sh.subshell(|sh| {
            for (k, v) in &assigns {
                sh.set_exported(k, v);
            }
            sh.run_argv(&rest, io)
        });
    }
    let mut env = sh.exported_env();
    env.insert("PWD".to_owned(), sh.cwd.clone());
    for (k, v) in assigns {
        env.insert(k, v);
    }
    for (k, v) in env {
        io.out(format!("{k}={v}\n"));
    }
    Ok(0)
}

/// `trap [-p] [CMD] [SIGNAL...]`: `EXIT` (or `0`) traps run when the shell exits; other
/// signals are accepted and never fire (no signal reaches the sandbox). `trap - EXIT` clears,
/// `trap` / `trap -p` print the EXIT trap as bash does.
pub fn trap(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
    let print = |sh: &Shell| {
        if let Some(cmd) = &sh.exit_trap {
            io.out(format!("trap -- '{}' EXIT\n", cmd.replace('\'', "'\\''")));
        }
    };
    match args.as_slice() {
        [] | ["-p"] => {
            print(sh);
            return 0;
        }
        ["-p", ..] => {
            print(sh);
            return 0;
        }
        _ => {}
    }
    let (action, signals) = match args.as_slice() {
        [single] => (None, std::slice::from_ref(single)),
        [action, signals @ ..] => (Some(*action), signals),
        [] => unreachable!("handled above"),
    };
    for signal in signals {
        let name = signal.trim_start_matches("SIG").to_ascii_uppercase();
        let known = matches!(
            name.as_str(),
            "EXIT"
                | "0"
                | "INT"
                | "2"
                | "TERM"
                | "15"
                | "HUP"
                | "1"
                | "QUIT"
                | "3"
                | "ERR"
                | "DEBUG"
                | "RETURN"
                | "USR1"
                | "USR2"
                | "PIPE"
                | "ALRM"
                | "CHLD"
        );
        if !known {
            io.errln(format!(
                "bash: trap: {signal}: invalid signal specification"
            ));
            return 1;
        }
        if name == "EXIT" || name == "0" {
            sh.exit_trap = match action {
                None | Some("-") => None,
                Some(cmd) => Some(cmd.to_string()),
            };
        }
    }
    0
}
