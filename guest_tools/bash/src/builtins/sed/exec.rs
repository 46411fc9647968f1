//! Running a parsed `sed` script over input lines.

use regex::Regex;

use super::parse::{Addr, Addr2, Cmd, Command, RepPart};
use crate::shell::Shell;

pub(super) struct State {
    /// The input line number, counted across files (restarted for each file with `-i`).
    pub(super) line_no: usize,
    hold: String,
    last_re: Option<Regex>,
    /// Per command: the last line of its open range (`usize::MAX` when a regex or `$` ends it).
    pub(super) ranges: Vec<Option<usize>>,
    /// Set by `q`/`Q`: the exit status.
    pub(super) quit: Option<i32>,
    /// Files written by `w` and `s///w`: (name, text).
    pub(super) wfiles: Vec<(String, String)>,
}

impl State {
    /// The state before the first line, for a script of `commands` commands.
    pub(super) fn new(commands: usize) -> State {
        State {
            line_no: 0,
            hold: String::new(),
            last_re: None,
            ranges: vec![None; commands],
            quit: None,
            wfiles: Vec::new(),
        }
    }
}

fn apply_case(s: &str, mode: Option<char>, one: &mut Option<char>) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let c2: String = match one.take() {
            Some('u') => c.to_uppercase().collect(),
            Some('l') => c.to_lowercase().collect(),
            _ => match mode {
                Some('U') => c.to_uppercase().collect(),
                Some('L') => c.to_lowercase().collect(),
                _ => c.to_string(),
            },
        };
        out.push_str(&c2);
    }
    out
}

fn expand_rep(rep: &[RepPart], caps: &regex::Captures) -> String {
    let mut out = String::new();
    let mut mode: Option<char> = None;
    let mut one: Option<char> = None;
    for p in rep {
        match p {
            RepPart::Lit(s) => out.push_str(&apply_case(s, mode, &mut one)),
            RepPart::Group(n) => {
                let s = caps.get(*n).map_or("", |m| m.as_str());
                out.push_str(&apply_case(s, mode, &mut one));
            }
            RepPart::Newline => out.push('\n'),
            RepPart::Case(c) => match c {
                'U' | 'L' => mode = Some(*c),
                'E' => mode = None,
                _ => one = Some(*c),
            },
        }
    }
    out
}

fn addr_matches(a: &Addr, line: &str, n: usize, last: bool, st: &mut State) -> bool {
    match a {
        Addr::Line(l) => *l == n,
        Addr::Last => last,
        Addr::Step(first, step) => {
            if *step == 0 {
                n == *first
            } else {
                n >= *first && (n - first).is_multiple_of(*step)
            }
        }
        Addr::Re(re) => {
            let re = match re {
                Some(r) => {
                    st.last_re = Some(r.clone());
                    r.clone()
                }
                None => match &st.last_re {
                    Some(r) => r.clone(),
                    None => return false,
                },
            };
            re.is_match(line)
        }
    }
}

fn selected(c: &Command, idx: usize, line: &str, n: usize, last: bool, st: &mut State) -> bool {
    let m = match (&c.a1, &c.a2) {
        (None, _) => true,
        (Some(a), Addr2::None) => addr_matches(a, line, n, last, st),
        (Some(a1), a2) => {
            if let Some(end) = st.ranges[idx] {
                // Inside a range: check whether this line closes it.
                let close = match a2 {
                    Addr2::Addr(Addr::Line(l)) => n >= *l,
                    Addr2::Addr(a) => addr_matches(a, line, n, last, st),
                    Addr2::Plus(_) | Addr2::Multiple(_) => n >= end,
                    Addr2::None => true,
                };
                if close {
                    st.ranges[idx] = None;
                }
                true
            } else if addr_matches(a1, line, n, last, st) {
                let end = match a2 {
                    Addr2::Addr(Addr::Line(l)) => {
                        if *l > n {
                            Some(*l)
                        } else {
                            None
                        }
                    }
                    Addr2::Addr(Addr::Last) => (!last).then_some(usize::MAX),
                    Addr2::Addr(_) => Some(usize::MAX),
                    Addr2::Plus(k) => (*k > 0).then_some(n + k),
                    Addr2::Multiple(k) => {
                        if *k == 0 || n.is_multiple_of(*k) {
                            None
                        } else {
                            Some(n.div_ceil(*k) * k)
                        }
                    }
                    Addr2::None => None,
                };
                st.ranges[idx] = end;
                true
            } else {
                false
            }
        }
    };
    m != c.negate
}

fn escape_l(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            7 => out.push_str("\\a"),
            8 => out.push_str("\\b"),
            12 => out.push_str("\\f"),
            13 => out.push_str("\\r"),
            11 => out.push_str("\\v"),
            32..=126 => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('$');
    out
}

/// Runs the script over `lines` (each without its newline); `trailing_nl` says whether the
/// input's last line ended with a newline. Returns output bytes.
pub(super) fn run(
    sh: &Shell,
    cmds: &[Command],
    lines: &[String],
    trailing_nl: bool,
    quiet: bool,
    st: &mut State,
) -> String {
    let mut out = String::new();
    let labels: Vec<(String, usize)> = cmds
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match &c.cmd {
            Cmd::Label(l) => Some((l.clone(), i)),
            _ => None,
        })
        .collect();
    let find_label = |l: &str| -> usize {
        if l.is_empty() {
            cmds.len()
        } else {
            labels
                .iter()
                .find(|(n, _)| n == l)
                .map_or(cmds.len(), |(_, i)| *i)
        }
    };
    let mut li = 0;
    let emit = |out: &mut String, text: &str, is_last_line: bool| {
        out.push_str(text);
        if !is_last_line || trailing_nl {
            out.push('\n');
        }
    };
    let mut pending_ps: Option<String> = None;
    while li < lines.len() || pending_ps.is_some() {
        let mut ps = match pending_ps.take() {
            Some(p) => p,
            None => {
                let l = lines[li].clone();
                li += 1;
                st.line_no += 1;
                l
            }
        };
        let mut append: Vec<String> = Vec::new();
        let mut deleted = false;
        let mut restart_no_read = false;
        let mut subst_flag = false;
        let mut pc = 0;
        let mut autoprint = !quiet;
        while pc < cmds.len() {
            let c = &cmds[pc];
            let last = li >= lines.len();
            if matches!(c.cmd, Cmd::EndBlock | Cmd::Label(_)) {
                pc += 1;
                continue;
            }
            if !selected(c, pc, &ps, st.line_no, last, st) {
                if let Cmd::Block(end) = c.cmd {
                    pc = end + 1;
                    continue;
                }
                pc += 1;
                continue;
            }
            match &c.cmd {
                Cmd::Block(_) | Cmd::EndBlock | Cmd::Label(_) => {}
                Cmd::Subst {
                    re,
                    rep,
                    global,
                    nth,
                    print,
                    write,
                } => {
                    let re = match re {
                        Some(r) => {
                            st.last_re = Some(r.clone());
                            r.clone()
                        }
                        None => match &st.last_re {
                            Some(r) => r.clone(),
                            None => {
                                pc += 1;
                                continue;
                            }
                        },
                    };
                    let mut result = String::new();
                    let mut last_end = 0;
                    let mut count = 0;
                    let mut did = false;
                    for caps in re.captures_iter(&ps) {
                        let m = caps.get(0).expect("group 0");
                        count += 1;
                        if count < *nth {
                            continue;
                        }
                        result.push_str(&ps[last_end..m.start()]);
                        result.push_str(&expand_rep(rep, &caps));
                        last_end = m.end();
                        did = true;
                        if !*global {
                            break;
                        }
                    }
                    if did {
                        result.push_str(&ps[last_end..]);
                        ps = result;
                        subst_flag = true;
                        if *print {
                            out.push_str(&ps);
                            out.push('\n');
                        }
                        if let Some(w) = write {
                            push_wfile(st, w, &ps);
                        }
                    }
                }
                Cmd::Print => {
                    out.push_str(&ps);
                    out.push('\n');
                }
                Cmd::PrintFirst => {
                    out.push_str(ps.split('\n').next().unwrap_or(""));
                    out.push('\n');
                }
                Cmd::Delete => {
                    deleted = true;
                    break;
                }
                Cmd::DeleteFirst => {
                    if let Some(p) = ps.find('\n') {
                        ps = ps[p + 1..].to_owned();
                        restart_no_read = true;
                    }
                    deleted = true;
                    break;
                }
                Cmd::Quit(code) => {
                    st.quit = Some(*code);
                    break;
                }
                Cmd::QuitSilent(code) => {
                    st.quit = Some(*code);
                    autoprint = false;
                    break;
                }
                Cmd::Next => {
                    if li >= lines.len() {
                        // GNU prints the pattern space and exits when there is no next line.
                        break;
                    }
                    if autoprint {
                        emit(&mut out, &ps, false);
                    }
                    for a in append.drain(..) {
                        out.push_str(&a);
                    }
                    ps = lines[li].clone();
                    li += 1;
                    st.line_no += 1;
                }
                Cmd::NextAppend => {
                    if li >= lines.len() {
                        break;
                    }
                    ps.push('\n');
                    ps.push_str(&lines[li]);
                    li += 1;
                    st.line_no += 1;
                }
                Cmd::Append(t) => append.push(format!("{t}\n")),
                Cmd::Insert(t) => {
                    out.push_str(t);
                    out.push('\n');
                }
                Cmd::Change(t) => {
                    // With a range, print the text at the range end only.
                    let in_range = !matches!(c.a2, Addr2::None) && st.ranges[pc].is_some();
                    if !in_range || c.negate {
                        out.push_str(t);
                        out.push('\n');
                    }
                    deleted = true;
                    break;
                }
                Cmd::LineNo => out.push_str(&format!("{}\n", st.line_no)),
                Cmd::Translate(a, b) => {
                    ps = ps
                        .chars()
                        .map(|ch| a.iter().position(|x| *x == ch).map_or(ch, |i| b[i]))
                        .collect();
                }
                Cmd::Hold => st.hold = ps.clone(),
                Cmd::HoldAppend => {
                    st.hold.push('\n');
                    st.hold.push_str(&ps);
                }
                Cmd::Get => ps = st.hold.clone(),
                Cmd::GetAppend => {
                    ps.push('\n');
                    ps.push_str(&st.hold);
                }
                Cmd::Exchange => std::mem::swap(&mut ps, &mut st.hold),
                Cmd::Branch(l) => {
                    pc = find_label(l);
                    continue;
                }
                Cmd::BranchIf(l) => {
                    if subst_flag {
                        subst_flag = false;
                        pc = find_label(l);
                        continue;
                    }
                }
                Cmd::BranchIfNot(l) => {
                    if !subst_flag {
                        pc = find_label(l);
                        continue;
                    }
                    subst_flag = false;
                }
                Cmd::ReadFile(f) => {
                    if let Ok(t) = std::fs::read_to_string(sh.resolve(f)) {
                        let mut t = t;
                        if !t.ends_with('\n') && !t.is_empty() {
                            t.push('\n');
                        }
                        append.push(t);
                    }
                }
                Cmd::WriteFile(f) => push_wfile(st, f, &ps),
                Cmd::List => {
                    out.push_str(&escape_l(&ps));
                    out.push('\n');
                }
                Cmd::Zap => ps.clear(),
            }
            pc += 1;
        }
        let is_last = li >= lines.len();
        if !deleted && autoprint {
            emit(&mut out, &ps, is_last);
        }
        for a in append {
            out.push_str(&a);
        }
        if restart_no_read && !ps.is_empty() {
            pending_ps = Some(ps);
        }
        if st.quit.is_some() {
            break;
        }
    }
    out
}

fn push_wfile(st: &mut State, name: &str, text: &str) {
    match st.wfiles.iter_mut().find(|(n, _)| n == name) {
        Some((_, buf)) => {
            buf.push_str(text);
            buf.push('\n');
        }
        None => st.wfiles.push((name.to_owned(), format!("{text}\n"))),
    }
}
