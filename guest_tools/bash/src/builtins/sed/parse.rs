//! `sed` scripts: addresses, commands and replacements, parsed from the script text.

use regex::Regex;

/// An address: a line number, `$`, a regex (empty: the last one used) or `first~step`.
#[derive(Debug, Clone)]
pub(super) enum Addr {
    Line(usize),
    Last,
    Re(Option<Regex>),
    Step(usize, usize),
}

/// A range's second address: none, an address, `+N` or `~N`.
#[derive(Debug, Clone)]
pub(super) enum Addr2 {
    None,
    Addr(Addr),
    Plus(usize),
    Multiple(usize),
}

/// A command, with its arguments.
#[derive(Debug, Clone)]
pub(super) enum Cmd {
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

/// A piece of an `s` replacement: text, `\N`/`&`, a newline, or a `\U \L \u \l \E` case change.
#[derive(Debug, Clone)]
pub(super) enum RepPart {
    Lit(String),
    Group(usize),
    Newline,
    Case(char),
}

/// A command with its addresses (`!` negates them).
#[derive(Debug, Clone)]
pub(super) struct Command {
    pub(super) a1: Option<Addr>,
    pub(super) a2: Addr2,
    pub(super) negate: bool,
    pub(super) cmd: Cmd,
}

/// Parses a script into [`Command`]s (`{` `}` blocks become [`Cmd::Block`] / [`Cmd::EndBlock`]).
pub(super) struct Parser {
    s: Vec<char>,
    pos: usize,
    extended: bool,
    icase_default: bool,
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

impl Parser {
    /// A parser of `script`, with ERE syntax if `extended` (`-E`/`-r`).
    pub(super) fn new(script: &str, extended: bool) -> Parser {
        Parser {
            s: script.chars().collect(),
            pos: 0,
            extended,
            icase_default: false,
        }
    }

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

    pub(super) fn parse(&mut self, out: &mut Vec<Command>) -> Result<(), String> {
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
