//! `sed`: a GNU-compatible stream editor (addresses, ranges, `s///` with flags, `p d q n N
//! a i c y = h H g G x b t T D P l`, `-n -e -f -E -i -s`).

use regex::Regex;

use crate::io::Io;
use crate::shell::{Shell, io_err_msg};

#[derive(Debug, Clone)]
enum Addr {
    Line(usize),
    Last,
    Re(Option<Regex>),
    Step(usize, usize),
}

#[derive(Debug, Clone)]
enum Addr2 {
    None,
    Addr(Addr),
    Plus(usize),
    Multiple(usize),
}

#[derive(Debug, Clone)]
enum Cmd {
    Subst {
        re: Option<Regex>,
        rep: Vec<RepPart>,
        global: bool,
        nth: usize,
        print: bool,
        write: Option<String>,
    },
    Print,
    PrintFirst,
    Delete,
    DeleteFirst,
    Quit(i32),
    QuitSilent(i32),
    Next,
    NextAppend,
    Append(String),
    Insert(String),
    Change(String),
    LineNo,
    Translate(Vec<char>, Vec<char>),
    Hold,
    HoldAppend,
    Get,
    GetAppend,
    Exchange,
    Branch(String),
    BranchIf(String),
    BranchIfNot(String),
    Label(String),
    Block(usize),
    EndBlock,
    ReadFile(String),
    WriteFile(String),
    List,
    Zap,
}

#[derive(Debug, Clone)]
enum RepPart {
    Lit(String),
    Group(usize),
    Newline,
    Case(char),
}

#[derive(Debug, Clone)]
struct Command {
    a1: Option<Addr>,
    a2: Addr2,
    negate: bool,
    cmd: Cmd,
}

struct Parser<'a> {
    s: Vec<char>,
    pos: usize,
    extended: bool,
    icase_default: bool,
    _p: std::marker::PhantomData<&'a ()>,
}

fn compile(pat: &str, extended: bool, icase: bool) -> Result<Option<Regex>, String> {
    if pat.is_empty() {
        return Ok(None);
    }
    let t = crate::regex_posix::translate(pat, extended);
    regex::RegexBuilder::new(&t)
        .case_insensitive(icase)
        .multi_line(false)
        .build()
        .map(Some)
        .map_err(|_| format!("sed: -e expression #1, char 0: invalid regex '{pat}'"))
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
    }

    fn err(&self, msg: &str) -> String {
        format!("sed: -e expression #1, char {}: {msg}", self.pos)
    }

    /// Reads text up to an unescaped `delim`, handling `\delim` and `\n`.
    fn delimited(&mut self, delim: char, regex: bool) -> Result<String, String> {
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("unterminated `s' command"));
            };
            self.pos += 1;
            if c == delim {
                return Ok(out);
            }
            if c == '\\' {
                let Some(n) = self.peek() else {
                    return Err(self.err("unterminated `s' command"));
                };
                self.pos += 1;
                if n == delim {
                    out.push(n);
                } else if n == 'n' && regex {
                    out.push('\n');
                } else {
                    out.push('\\');
                    out.push(n);
                }
                continue;
            }
            if c == '[' && regex {
                // Copy a bracket expression verbatim (the delimiter is literal inside it).
                out.push(c);
                let mut first = true;
                if self.peek() == Some('^') {
                    out.push('^');
                    self.pos += 1;
                }
                while let Some(b) = self.peek() {
                    self.pos += 1;
                    out.push(b);
                    if b == ']' && !first {
                        break;
                    }
                    first = false;
                }
                continue;
            }
            out.push(c);
        }
    }

    fn number(&mut self) -> Option<usize> {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        if start == self.pos {
            return None;
        }
        self.s[start..self.pos]
            .iter()
            .collect::<String>()
            .parse()
            .ok()
    }

    fn address(&mut self) -> Result<Option<Addr>, String> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                let n = self.number().unwrap_or(0);
                if self.peek() == Some('~') {
                    self.pos += 1;
                    let step = self.number().unwrap_or(0);
                    return Ok(Some(Addr::Step(n, step)));
                }
                Ok(Some(Addr::Line(n)))
            }
            Some('$') => {
                self.pos += 1;
                Ok(Some(Addr::Last))
            }
            Some('/') | Some('\\') => {
                let delim = if self.peek() == Some('\\') {
                    self.pos += 1;
                    self.peek().ok_or_else(|| self.err("unexpected `,'"))?
                } else {
                    '/'
                };
                self.pos += 1;
                let pat = self.delimited(delim, true)?;
                let mut icase = self.icase_default;
                while matches!(self.peek(), Some('I' | 'M')) {
                    icase |= self.peek() == Some('I');
                    self.pos += 1;
                }
                Ok(Some(Addr::Re(compile(&pat, self.extended, icase)?)))
            }
            _ => Ok(None),
        }
    }

    fn label(&mut self) -> String {
        self.skip_ws();
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c != ';' && c != '\n' && c != '}')
        {
            self.pos += 1;
        }
        self.s[start..self.pos]
            .iter()
            .collect::<String>()
            .trim()
            .to_owned()
    }

    /// Text argument of `a`, `i`, `c`: `a\` newline text, or `a text` (GNU one-liner).
    fn text_arg(&mut self) -> String {
        self.skip_ws();
        if self.peek() == Some('\\') {
            self.pos += 1;
            if self.peek() == Some('\n') {
                self.pos += 1;
            }
        }
        let mut out = String::new();
        while let Some(c) = self.peek() {
            if c == '\n' {
                break;
            }
            self.pos += 1;
            if c == '\\' {
                match self.peek() {
                    Some('\n') => {
                        out.push('\n');
                        self.pos += 1;
                    }
                    Some('t') => {
                        out.push('\t');
                        self.pos += 1;
                    }
                    Some(n) => {
                        out.push(n);
                        self.pos += 1;
                    }
                    None => {}
                }
                continue;
            }
            out.push(c);
        }
        out
    }

    fn filename(&mut self) -> String {
        self.skip_ws();
        let start = self.pos;
        while self.peek().is_some_and(|c| c != '\n') {
            self.pos += 1;
        }
        self.s[start..self.pos].iter().collect()
    }

    fn replacement(&mut self, delim: char) -> Result<Vec<RepPart>, String> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("unterminated `s' command"));
            };
            self.pos += 1;
            if c == delim {
                break;
            }
            match c {
                '\\' => {
                    let Some(n) = self.peek() else {
                        return Err(self.err("unterminated `s' command"));
                    };
                    self.pos += 1;
                    match n {
                        '0'..='9' => {
                            if !lit.is_empty() {
                                parts.push(RepPart::Lit(std::mem::take(&mut lit)));
                            }
                            parts.push(RepPart::Group(n as usize - '0' as usize));
                        }
                        'n' => {
                            if !lit.is_empty() {
                                parts.push(RepPart::Lit(std::mem::take(&mut lit)));
                            }
                            parts.push(RepPart::Newline);
                        }
                        't' => lit.push('\t'),
                        'L' | 'U' | 'E' | 'l' | 'u' => {
                            if !lit.is_empty() {
                                parts.push(RepPart::Lit(std::mem::take(&mut lit)));
                            }
                            parts.push(RepPart::Case(n));
                        }
                        '\n' => lit.push('\n'),
                        other => lit.push(other),
                    }
                }
                '&' => {
                    if !lit.is_empty() {
                        parts.push(RepPart::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(RepPart::Group(0));
                }
                c => lit.push(c),
            }
        }
        if !lit.is_empty() {
            parts.push(RepPart::Lit(lit));
        }
        Ok(parts)
    }

    fn parse(&mut self, out: &mut Vec<Command>) -> Result<(), String> {
        let mut blocks: Vec<usize> = Vec::new();
        loop {
            while matches!(self.peek(), Some(' ' | '\t' | '\n' | ';')) {
                self.pos += 1;
            }
            let Some(_) = self.peek() else { break };
            if self.peek() == Some('#') {
                while self.peek().is_some_and(|c| c != '\n') {
                    self.pos += 1;
                }
                continue;
            }
            let a1 = self.address()?;
            let mut a2 = Addr2::None;
            if a1.is_some() && self.peek() == Some(',') {
                self.pos += 1;
                self.skip_ws();
                if self.peek() == Some('+') {
                    self.pos += 1;
                    a2 = Addr2::Plus(self.number().unwrap_or(0));
                } else if self.peek() == Some('~') {
                    self.pos += 1;
                    a2 = Addr2::Multiple(self.number().unwrap_or(0));
                } else {
                    match self.address()? {
                        Some(a) => a2 = Addr2::Addr(a),
                        None => return Err(self.err("unexpected `,'")),
                    }
                }
            }
            self.skip_ws();
            let mut negate = false;
            while self.peek() == Some('!') {
                negate = true;
                self.pos += 1;
                self.skip_ws();
            }
            let Some(c) = self.peek() else {
                return Err(self.err("missing command"));
            };
            self.pos += 1;
            let cmd = match c {
                '{' => {
                    blocks.push(out.len());
                    Cmd::Block(0)
                }
                '}' => {
                    let Some(start) = blocks.pop() else {
                        return Err(self.err("unexpected `}'"));
                    };
                    let end = out.len();
                    if let Cmd::Block(e) = &mut out[start].cmd {
                        *e = end;
                    }
                    Cmd::EndBlock
                }
                's' => {
                    let delim = self
                        .peek()
                        .ok_or_else(|| self.err("unterminated `s' command"))?;
                    self.pos += 1;
                    let pat = self.delimited(delim, true)?;
                    let rep = self.replacement(delim)?;
                    let mut global = false;
                    let mut nth = 1;
                    let mut print = false;
                    let mut icase = false;
                    let mut write = None;
                    loop {
                        match self.peek() {
                            Some('g') => global = true,
                            Some('p') => print = true,
                            Some('i' | 'I') => icase = true,
                            Some('m' | 'M' | 'e') => {}
                            Some('w') => {
                                self.pos += 1;
                                write = Some(self.filename());
                                break;
                            }
                            Some(d) if d.is_ascii_digit() => {
                                nth = self.number().unwrap_or(1);
                                continue;
                            }
                            _ => break,
                        }
                        self.pos += 1;
                    }
                    Cmd::Subst {
                        re: compile(&pat, self.extended, icase)?,
                        rep,
                        global,
                        nth,
                        print,
                        write,
                    }
                }
                'y' => {
                    let delim = self
                        .peek()
                        .ok_or_else(|| self.err("unterminated `y' command"))?;
                    self.pos += 1;
                    let a: Vec<char> = unescape_y(&self.delimited(delim, false)?);
                    let b: Vec<char> = unescape_y(&self.delimited(delim, false)?);
                    if a.len() != b.len() {
                        return Err(self.err("strings for `y' command are different lengths"));
                    }
                    Cmd::Translate(a, b)
                }
                'p' => Cmd::Print,
                'P' => Cmd::PrintFirst,
                'd' => Cmd::Delete,
                'D' => Cmd::DeleteFirst,
                'q' | 'Q' => {
                    self.skip_ws();
                    let code = self.number().unwrap_or(0) as i32;
                    if c == 'q' {
                        Cmd::Quit(code)
                    } else {
                        Cmd::QuitSilent(code)
                    }
                }
                'n' => Cmd::Next,
                'N' => Cmd::NextAppend,
                'a' => Cmd::Append(self.text_arg()),
                'i' => Cmd::Insert(self.text_arg()),
                'c' => Cmd::Change(self.text_arg()),
                '=' => Cmd::LineNo,
                'h' => Cmd::Hold,
                'H' => Cmd::HoldAppend,
                'g' => Cmd::Get,
                'G' => Cmd::GetAppend,
                'x' => Cmd::Exchange,
                'l' => Cmd::List,
                'z' => Cmd::Zap,
                'b' => Cmd::Branch(self.label()),
                't' => Cmd::BranchIf(self.label()),
                'T' => Cmd::BranchIfNot(self.label()),
                ':' => {
                    let l = self.label();
                    if l.is_empty() {
                        return Err(self.err("\":\" lacks a label"));
                    }
                    Cmd::Label(l)
                }
                'r' | 'R' => Cmd::ReadFile(self.filename()),
                'w' | 'W' => Cmd::WriteFile(self.filename()),
                other => return Err(self.err(&format!("unknown command: `{other}'"))),
            };
            let is_block_start = matches!(cmd, Cmd::Block(_));
            out.push(Command {
                a1,
                a2,
                negate,
                cmd,
            });
            if is_block_start {
                continue;
            }
            self.skip_ws();
            match self.peek() {
                None | Some(';' | '\n' | '}') => {}
                Some('#') => {}
                Some(_) => return Err(self.err("extra characters after command")),
            }
        }
        if !blocks.is_empty() {
            return Err(self.err("unmatched `{'"));
        }
        Ok(())
    }
}

fn unescape_y(s: &str) -> Vec<char> {
    let mut out = Vec::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

struct State {
    line_no: usize,
    hold: String,
    last_re: Option<Regex>,
    ranges: Vec<Option<usize>>,
    quit: Option<i32>,
    wfiles: Vec<(String, String)>,
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
fn run(
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
    let mut p = Parser {
        s: script.chars().collect(),
        pos: 0,
        extended,
        icase_default: false,
        _p: std::marker::PhantomData,
    };
    let mut cmds = Vec::new();
    if let Err(msg) = p.parse(&mut cmds) {
        io.errln(msg);
        return 1;
    }
    let mut st = State {
        line_no: 0,
        hold: String::new(),
        last_re: None,
        ranges: vec![None; cmds.len()],
        quit: None,
        wfiles: Vec::new(),
    };
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
