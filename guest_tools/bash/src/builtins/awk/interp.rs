//! The awk interpreter.

use std::collections::HashMap;

use regex::Regex;

use super::parser::{Expr, LValue, Pattern, Program, Redirect, Stmt};
use crate::io::{Input, Io, Stream};
use crate::shell::Shell;

#[derive(Debug, Clone)]
enum Val {
    Num(f64),
    Str(String),
    /// A string from input that looks numeric (compares numerically).
    StrNum(String),
    Uninit,
}

enum Ctl {
    Next,
    NextFile,
    Exit(i32),
    Return(Val),
    Break,
    Continue,
    Error(String),
}

type R<T> = Result<T, Ctl>;

fn looks_numeric(s: &str) -> bool {
    let t = s.trim();
    !t.is_empty() && t.parse::<f64>().is_ok() && !t.contains(['x', 'X', 'i', 'I', 'n', 'N'])
}

/// awk's string-to-number: the longest numeric prefix, else 0.
fn str_to_num(s: &str) -> f64 {
    let t = s.trim_start();
    let b = t.as_bytes();
    let mut end = 0;
    if end < b.len() && (b[end] == b'+' || b[end] == b'-') {
        end += 1;
    }
    let digits_start = end;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    if end < b.len() && b[end] == b'.' {
        end += 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
    }
    if end == digits_start || (end == digits_start + 1 && b[digits_start] == b'.') {
        return 0.0;
    }
    if end < b.len() && (b[end] == b'e' || b[end] == b'E') {
        let mut e = end + 1;
        if e < b.len() && (b[e] == b'+' || b[e] == b'-') {
            e += 1;
        }
        if e < b.len() && b[e].is_ascii_digit() {
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
            end = e;
        }
    }
    t[..end].parse().unwrap_or(0.0)
}

fn num_to_str(v: f64, fmt: &str) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.to_owned();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.to_owned();
    }
    if v == v.trunc() && v.abs() < 1e16 {
        return format!("{}", v as i64);
    }
    sprintf(fmt, &[Val::Num(v)], "%.6g")
}

impl Val {
    fn num(&self) -> f64 {
        match self {
            Val::Num(n) => *n,
            Val::Str(s) | Val::StrNum(s) => str_to_num(s),
            Val::Uninit => 0.0,
        }
    }

    fn str_with(&self, convfmt: &str) -> String {
        match self {
            Val::Num(n) => num_to_str(*n, convfmt),
            Val::Str(s) | Val::StrNum(s) => s.clone(),
            Val::Uninit => String::new(),
        }
    }

    fn truthy(&self) -> bool {
        match self {
            Val::Num(n) => *n != 0.0,
            Val::Str(s) => !s.is_empty(),
            Val::StrNum(s) => str_to_num(s) != 0.0,
            Val::Uninit => false,
        }
    }

    fn is_numeric(&self) -> bool {
        matches!(self, Val::Num(_) | Val::StrNum(_) | Val::Uninit)
    }
}

fn input_val(s: String) -> Val {
    if looks_numeric(&s) {
        Val::StrNum(s)
    } else {
        Val::Str(s)
    }
}

#[derive(Default)]
struct Array {
    map: HashMap<String, (u64, Val)>,
    counter: u64,
}

impl Array {
    fn get(&mut self, k: &str) -> Val {
        if let Some((_, v)) = self.map.get(k) {
            return v.clone();
        }
        self.counter += 1;
        self.map.insert(k.to_owned(), (self.counter, Val::Uninit));
        Val::Uninit
    }
    fn set(&mut self, k: String, v: Val) {
        if let Some(e) = self.map.get_mut(&k) {
            e.1 = v;
        } else {
            self.counter += 1;
            self.map.insert(k, (self.counter, v));
        }
    }
    fn keys(&self) -> Vec<String> {
        let mut k: Vec<(&u64, &String)> = self.map.iter().map(|(k, (c, _))| (c, k)).collect();
        k.sort();
        k.into_iter().map(|(_, k)| k.clone()).collect()
    }
}

struct Frame {
    scalars: HashMap<String, Val>,
    arrays: HashMap<String, String>,
}

/// A source of records (the main input or a `getline < file`).
struct Reader {
    data: Vec<u8>,
    pos: usize,
}

impl Reader {
    fn next_record(
        &mut self,
        rs: &str,
        regex_cache: &mut HashMap<String, Regex>,
    ) -> Option<String> {
        if self.pos >= self.data.len() {
            return None;
        }
        let rest = &self.data[self.pos..];
        if rs.is_empty() {
            // Paragraph mode: records separated by blank lines.
            let mut start = 0;
            while start < rest.len() && rest[start] == b'\n' {
                start += 1;
            }
            if start >= rest.len() {
                self.pos = self.data.len();
                return None;
            }
            let body = &rest[start..];
            let mut i = 0;
            while i < body.len() {
                if body[i] == b'\n' && body.get(i + 1) == Some(&b'\n') {
                    let rec = String::from_utf8_lossy(&body[..i]).into_owned();
                    let mut j = i;
                    while j < body.len() && body[j] == b'\n' {
                        j += 1;
                    }
                    self.pos += start + j;
                    return Some(rec);
                }
                i += 1;
            }
            self.pos = self.data.len();
            let rec = String::from_utf8_lossy(body).into_owned();
            return Some(rec.trim_end_matches('\n').to_owned());
        }
        if rs.chars().count() == 1 {
            let d = rs.as_bytes()[0];
            let end = rest.iter().position(|&b| b == d);
            let (rec, adv) = match end {
                Some(e) => (&rest[..e], e + 1),
                None => (rest, rest.len()),
            };
            self.pos += adv;
            return Some(String::from_utf8_lossy(rec).into_owned());
        }
        let text = String::from_utf8_lossy(rest).into_owned();
        let re = regex_cache
            .entry(rs.to_owned())
            .or_insert_with(|| {
                Regex::new(&crate::regex_posix::translate(&control_escapes(rs), true))
                    .unwrap_or_else(|_| Regex::new("\n").expect("valid"))
            })
            .clone();
        match re.find(&text) {
            Some(m) => {
                self.pos += m.end();
                Some(text[..m.start()].to_owned())
            }
            None => {
                self.pos = self.data.len();
                Some(text)
            }
        }
    }
}

enum Out {
    File(Stream),
    Pipe(String, Vec<u8>),
}

struct Interp<'a> {
    sh: &'a mut Shell,
    io: &'a Io,
    prog: &'a Program,
    globals: HashMap<String, Val>,
    arrays: HashMap<String, Array>,
    frames: Vec<Frame>,
    fields: Vec<String>,
    nf: usize,
    record_stale: bool,
    regexes: HashMap<String, Regex>,
    outputs: HashMap<String, Out>,
    readers: HashMap<String, Reader>,
    main: Option<Reader>,
    operands: Vec<String>,
    operand_idx: usize,
    range_active: Vec<bool>,
    rand_state: u64,
    local_counter: u64,
    exit_code: Option<i32>,
}

fn fmt_pad(body: String, width: Option<usize>, left: bool, zero: bool) -> String {
    let w = width.unwrap_or(0);
    let len = body.chars().count();
    if len >= w {
        return body;
    }
    if left {
        format!("{body}{}", " ".repeat(w - len))
    } else if zero {
        let (sign, digits) = if body.starts_with(['-', '+', ' ']) {
            (body[..1].to_owned(), body[1..].to_owned())
        } else {
            (String::new(), body)
        };
        format!("{sign}{}{digits}", "0".repeat(w - len))
    } else {
        format!("{}{body}", " ".repeat(w - len))
    }
}

/// awk's `sprintf`.
fn sprintf(fmt: &str, args: &[Val], convfmt: &str) -> String {
    let chars: Vec<char> = fmt.chars().collect();
    let mut out = String::new();
    let mut ai = 0;
    let next = |ai: &mut usize| -> Val {
        let v = args.get(*ai).cloned().unwrap_or(Val::Uninit);
        *ai += 1;
        v
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        if i >= chars.len() {
            out.push('%');
            break;
        }
        if chars[i] == '%' {
            out.push('%');
            i += 1;
            continue;
        }
        let (mut left, mut zero, mut plus, mut space, mut alt) =
            (false, false, false, false, false);
        while i < chars.len() && "-0+ #".contains(chars[i]) {
            match chars[i] {
                '-' => left = true,
                '0' => zero = true,
                '+' => plus = true,
                ' ' => space = true,
                _ => alt = true,
            }
            i += 1;
        }
        let mut width = None;
        if i < chars.len() && chars[i] == '*' {
            let w = next(&mut ai).num() as i64;
            if w < 0 {
                left = true;
            }
            width = Some(w.unsigned_abs() as usize);
            i += 1;
        } else {
            let s = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i > s {
                width = chars[s..i].iter().collect::<String>().parse().ok();
            }
        }
        let mut prec = None;
        if i < chars.len() && chars[i] == '.' {
            i += 1;
            if i < chars.len() && chars[i] == '*' {
                prec = Some(next(&mut ai).num().max(0.0) as usize);
                i += 1;
            } else {
                let s = i;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                prec = Some(chars[s..i].iter().collect::<String>().parse().unwrap_or(0));
            }
        }
        while i < chars.len() && "hlLqjzt".contains(chars[i]) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else {
            break;
        };
        i += 1;
        let sign = |neg: bool| {
            if neg {
                "-"
            } else if plus {
                "+"
            } else if space {
                " "
            } else {
                ""
            }
        };
        let body = match conv {
            'd' | 'i' => {
                let v = next(&mut ai).num();
                let n = if v.is_finite() { v.trunc() } else { 0.0 };
                let mut digits = format!("{}", n.abs() as u64);
                if let Some(p) = prec {
                    while digits.len() < p {
                        digits.insert(0, '0');
                    }
                }
                fmt_pad(
                    format!("{}{digits}", sign(n < 0.0)),
                    width,
                    left,
                    zero && prec.is_none(),
                )
            }
            'o' | 'x' | 'X' | 'u' => {
                let v = next(&mut ai).num();
                let n = v.trunc() as i64 as u64;
                let mut digits = match conv {
                    'o' => format!("{n:o}"),
                    'x' => format!("{n:x}"),
                    'X' => format!("{n:X}"),
                    _ => n.to_string(),
                };
                if let Some(p) = prec {
                    while digits.len() < p {
                        digits.insert(0, '0');
                    }
                }
                if alt && n != 0 {
                    match conv {
                        'x' => digits.insert_str(0, "0x"),
                        'X' => digits.insert_str(0, "0X"),
                        'o' => digits.insert(0, '0'),
                        _ => {}
                    }
                }
                fmt_pad(digits, width, left, zero && prec.is_none())
            }
            'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let v = next(&mut ai).num();
                let s = crate::builtins::echo::format_float(v, conv, prec.unwrap_or(6), alt);
                let s = if v >= 0.0 && !s.starts_with('-') {
                    format!("{}{s}", sign(false))
                } else {
                    s
                };
                fmt_pad(s, width, left, zero)
            }
            'c' => {
                let v = next(&mut ai);
                let s = match v {
                    Val::Num(n) => char::from_u32(n as u32)
                        .map(String::from)
                        .unwrap_or_default(),
                    other => other.str_with(convfmt).chars().take(1).collect(),
                };
                fmt_pad(s, width, left, false)
            }
            's' => {
                let mut s = next(&mut ai).str_with(convfmt);
                if let Some(p) = prec {
                    s = s.chars().take(p).collect();
                }
                fmt_pad(s, width, left, false)
            }
            other => {
                let mut s = String::from('%');
                s.push(other);
                s
            }
        };
        out.push_str(&body);
    }
    out
}

impl Interp<'_> {
    fn var(&self, name: &str) -> Val {
        if let Some(f) = self.frames.last()
            && let Some(v) = f.scalars.get(name)
        {
            return v.clone();
        }
        match name {
            "NF" => Val::Num(self.nf as f64),
            _ => self.globals.get(name).cloned().unwrap_or(Val::Uninit),
        }
    }

    fn gstr(&self, name: &str) -> String {
        self.globals
            .get(name)
            .map(|v| v.str_with("%.6g"))
            .unwrap_or_default()
    }

    fn convfmt(&self) -> String {
        self.gstr("CONVFMT")
    }

    fn to_str(&self, v: &Val) -> String {
        v.str_with(&self.convfmt())
    }

    fn set_var(&mut self, name: &str, v: Val) {
        if let Some(f) = self.frames.last_mut()
            && let Some(slot) = f.scalars.get_mut(name)
        {
            *slot = v;
            return;
        }
        if name == "NF" {
            let n = v.num().max(0.0) as usize;
            self.ensure_fields();
            self.fields.resize(n + 1, String::new());
            self.nf = n;
            self.rebuild_record();
            return;
        }
        self.globals.insert(name.to_owned(), v);
    }

    fn array_name(&mut self, name: &str) -> String {
        if let Some(f) = self.frames.last_mut() {
            if let Some(a) = f.arrays.get(name) {
                return a.clone();
            }
            if f.scalars.contains_key(name) {
                // A local used as an array: give it private storage.
                self.local_counter += 1;
                let alias = format!("\u{0}local{}:{name}", self.local_counter);
                f.scalars.remove(name);
                f.arrays.insert(name.to_owned(), alias.clone());
                return alias;
            }
        }
        name.to_owned()
    }

    fn array(&mut self, name: &str) -> &mut Array {
        let n = self.array_name(name);
        self.arrays.entry(n).or_default()
    }

    fn regex(&mut self, pat: &str) -> R<Regex> {
        if let Some(r) = self.regexes.get(pat) {
            return Ok(r.clone());
        }
        let t = crate::regex_posix::translate(&control_escapes(pat), true);
        let r = Regex::new(&t).map_err(|_| {
            Ctl::Error(format!(
                "awk: syntax error in regular expression {pat} at source line 1"
            ))
        })?;
        self.regexes.insert(pat.to_owned(), r.clone());
        Ok(r)
    }

    fn set_record(&mut self, rec: String) {
        self.fields = vec![rec];
        self.record_stale = true;
        self.split_record();
    }

    fn ensure_fields(&mut self) {
        if self.record_stale {
            self.split_record();
        }
    }

    fn split_record(&mut self) {
        self.record_stale = false;
        let rec = self.fields[0].clone();
        let fs = self.gstr("FS");
        let parts = self.split_with(&rec, &fs);
        self.nf = parts.len();
        self.fields.truncate(1);
        self.fields.extend(parts);
    }

    fn split_with(&mut self, s: &str, fs: &str) -> Vec<String> {
        if fs == " " {
            return s.split_whitespace().map(str::to_owned).collect();
        }
        if s.is_empty() {
            return Vec::new();
        }
        if fs.chars().count() == 1 && fs != "\\" {
            let c = fs.chars().next().unwrap_or(' ');
            if c == '\t' || !"^$.[]|()*+?{}".contains(c) {
                return s.split(c).map(str::to_owned).collect();
            }
        }
        match self.regex(fs) {
            Ok(re) => re.split(s).map(str::to_owned).collect(),
            Err(_) => vec![s.to_owned()],
        }
    }

    fn rebuild_record(&mut self) {
        let ofs = self.gstr("OFS");
        let rec = self.fields[1..=self.nf.min(self.fields.len() - 1)].join(&ofs);
        self.fields[0] = rec;
    }

    fn get_field(&mut self, i: usize) -> Val {
        if i == 0 {
            return input_val(self.fields[0].clone());
        }
        self.ensure_fields();
        match self.fields.get(i) {
            Some(f) if i <= self.nf => input_val(f.clone()),
            _ => Val::Uninit,
        }
    }

    fn set_field(&mut self, i: usize, v: String) {
        if i == 0 {
            self.set_record(v);
            return;
        }
        self.ensure_fields();
        if i >= self.fields.len() {
            self.fields.resize(i + 1, String::new());
        }
        self.fields[i] = v;
        if i > self.nf {
            self.nf = i;
        }
        self.rebuild_record();
    }

    fn subscript(&mut self, subs: &[Expr]) -> R<String> {
        let sep = self.gstr("SUBSEP");
        let mut parts = Vec::new();
        for s in subs {
            let v = self.eval(s)?;
            parts.push(self.to_str(&v));
        }
        Ok(parts.join(&sep))
    }

    fn get_lv(&mut self, lv: &LValue) -> R<Val> {
        Ok(match lv {
            LValue::Var(n) => self.var(n),
            LValue::Field(e) => {
                let i = self.eval(e)?.num();
                if i < 0.0 {
                    return Err(Ctl::Error(format!(
                        "awk: trying to access out of range field {}",
                        i as i64
                    )));
                }
                self.get_field(i as usize)
            }
            LValue::Index(n, subs) => {
                let k = self.subscript(subs)?;
                self.array(n).get(&k)
            }
        })
    }

    fn set_lv(&mut self, lv: &LValue, v: Val) -> R<()> {
        match lv {
            LValue::Var(n) => self.set_var(n, v),
            LValue::Field(e) => {
                let i = self.eval(e)?.num();
                if i < 0.0 {
                    return Err(Ctl::Error(format!(
                        "awk: trying to access out of range field {}",
                        i as i64
                    )));
                }
                let s = self.to_str(&v);
                self.set_field(i as usize, s);
            }
            LValue::Index(n, subs) => {
                let k = self.subscript(subs)?;
                self.array(n).set(k, v);
            }
        }
        Ok(())
    }

    fn compare(&self, a: &Val, b: &Val) -> std::cmp::Ordering {
        if a.is_numeric() && b.is_numeric() {
            a.num()
                .partial_cmp(&b.num())
                .unwrap_or(std::cmp::Ordering::Equal)
        } else {
            self.to_str(a).cmp(&self.to_str(b))
        }
    }

    fn match_re(&mut self, e: &Expr, text: &str) -> R<bool> {
        let pat = match e {
            Expr::Regex(r) => r.clone(),
            other => {
                let v = self.eval(other)?;
                self.to_str(&v)
            }
        };
        Ok(self.regex(&pat)?.is_match(text))
    }

    fn eval(&mut self, e: &Expr) -> R<Val> {
        Ok(match e {
            Expr::Num(n) => Val::Num(*n),
            Expr::Str(s) => Val::Str(s.clone()),
            Expr::Regex(r) => {
                let rec = self.fields[0].clone();
                Val::Num(f64::from(u8::from(self.regex(r)?.is_match(&rec))))
            }
            Expr::Group(g) => {
                // `(a, b)` outside `in`: concatenate with SUBSEP.
                Val::Str(self.subscript(g)?)
            }
            Expr::Lv(lv) => self.get_lv(lv)?,
            Expr::Assign(op, lv, rhs) => {
                let r = self.eval(rhs)?;
                let v = match op {
                    None => match r {
                        Val::Uninit => Val::Uninit,
                        other => other,
                    },
                    Some(op) => {
                        let cur = self.get_lv(lv)?.num();
                        Val::Num(arith(op, cur, r.num())?)
                    }
                };
                self.set_lv(lv, v.clone())?;
                v
            }
            Expr::Incr(lv, d, prefix) => {
                let cur = self.get_lv(lv)?.num();
                self.set_lv(lv, Val::Num(cur + d))?;
                Val::Num(if *prefix { cur + d } else { cur })
            }
            Expr::Bin(op, a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                match *op {
                    "<" | "<=" | ">" | ">=" | "==" | "!=" => {
                        let o = self.compare(&x, &y);
                        use std::cmp::Ordering::*;
                        let r = match *op {
                            "<" => o == Less,
                            "<=" => o != Greater,
                            ">" => o == Greater,
                            ">=" => o != Less,
                            "==" => o == Equal,
                            _ => o != Equal,
                        };
                        Val::Num(f64::from(u8::from(r)))
                    }
                    _ => Val::Num(arith(op, x.num(), y.num())?),
                }
            }
            Expr::Concat(a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                Val::Str(self.to_str(&x) + &self.to_str(&y))
            }
            Expr::Logic(or, a, b) => {
                let x = self.eval(a)?.truthy();
                let r = if *or {
                    x || self.eval(b)?.truthy()
                } else {
                    x && self.eval(b)?.truthy()
                };
                Val::Num(f64::from(u8::from(r)))
            }
            Expr::Not(a) => Val::Num(f64::from(u8::from(!self.eval(a)?.truthy()))),
            Expr::Neg(a) => Val::Num(-self.eval(a)?.num()),
            Expr::Plus(a) => Val::Num(self.eval(a)?.num()),
            Expr::Match(neg, a, re) => {
                let v = self.eval(a)?;
                let s = self.to_str(&v);
                let m = self.match_re(re, &s)?;
                Val::Num(f64::from(u8::from(m != *neg)))
            }
            Expr::Cond(c, a, b) => {
                if self.eval(c)?.truthy() {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            Expr::In(subs, arr) => {
                let k = self.subscript(subs)?;
                let has = self.array(arr).map.contains_key(&k);
                Val::Num(f64::from(u8::from(has)))
            }
            Expr::Call(name, args) => self.call(name, args)?,
            Expr::Getline { var, file, cmd } => {
                self.getline(var.as_ref(), file.as_deref(), cmd.as_deref())?
            }
        })
    }

    fn getline(&mut self, var: Option<&LValue>, file: Option<&Expr>, cmd: Option<&Expr>) -> R<Val> {
        let rs = self.gstr("RS");
        let rec = if let Some(f) = file {
            let v = self.eval(f)?;
            let name = self.to_str(&v);
            if !self.readers.contains_key(&name) {
                let data = if name == "-" || name == "/dev/stdin" {
                    self.io.stdin.read_all()
                } else {
                    match std::fs::read(self.sh.resolve(&name)) {
                        Ok(d) => d,
                        Err(_) => return Ok(Val::Num(-1.0)),
                    }
                };
                self.readers.insert(name.clone(), Reader { data, pos: 0 });
            }
            let mut cache = std::mem::take(&mut self.regexes);
            let r = self
                .readers
                .get_mut(&name)
                .and_then(|r| r.next_record(&rs, &mut cache));
            self.regexes = cache;
            r
        } else if let Some(c) = cmd {
            let v = self.eval(c)?;
            let command = self.to_str(&v);
            if !self.readers.contains_key(&command) {
                let buf = Stream::buffer();
                let io = Io {
                    stdin: Input::empty(),
                    stdout: buf.clone(),
                    stderr: self.io.stderr.clone(),
                };
                let _ = self.sh.subshell(|sh| sh.run_script(&command, &io));
                self.readers.insert(
                    command.clone(),
                    Reader {
                        data: buf.take(),
                        pos: 0,
                    },
                );
            }
            let mut cache = std::mem::take(&mut self.regexes);
            let r = self
                .readers
                .get_mut(&command)
                .and_then(|r| r.next_record(&rs, &mut cache));
            self.regexes = cache;
            if r.is_some() {
                let nr = self.var("NR").num();
                self.globals.insert("NR".into(), Val::Num(nr + 1.0));
            }
            r
        } else {
            let r = self.next_main_record();
            if r.is_some() {
                let nr = self.var("NR").num();
                self.globals.insert("NR".into(), Val::Num(nr + 1.0));
                let fnr = self.var("FNR").num();
                self.globals.insert("FNR".into(), Val::Num(fnr + 1.0));
            }
            r
        };
        match rec {
            Some(r) => {
                match var {
                    Some(lv) => self.set_lv(lv, input_val(r))?,
                    None => self.set_record(r),
                }
                Ok(Val::Num(1.0))
            }
            None => Ok(Val::Num(0.0)),
        }
    }

    fn call(&mut self, name: &str, args: &[Expr]) -> R<Val> {
        let arg = |me: &mut Self, i: usize| -> R<Val> {
            match args.get(i) {
                Some(e) => me.eval(e),
                None => Ok(Val::Uninit),
            }
        };
        let arg_str = |me: &mut Self, i: usize| -> R<String> {
            let v = arg(me, i)?;
            Ok(me.to_str(&v))
        };
        Ok(match name {
            "length" => {
                if let Some(Expr::Lv(LValue::Var(n))) = args.first() {
                    let an = self.array_name(n);
                    if let Some(a) = self.arrays.get(&an) {
                        return Ok(Val::Num(a.map.len() as f64));
                    }
                }
                let s = if args.is_empty() {
                    self.fields[0].clone()
                } else {
                    arg_str(self, 0)?
                };
                Val::Num(s.chars().count() as f64)
            }
            "substr" => {
                let s: Vec<char> = arg_str(self, 0)?.chars().collect();
                let m = arg(self, 1)?.num();
                let m = if m.is_nan() { 1.0 } else { (m + 0.5).floor() };
                let n = if args.len() > 2 {
                    let n = arg(self, 2)?.num();
                    if n.is_nan() { 0.0 } else { (n + 0.5).floor() }
                } else {
                    f64::INFINITY
                };
                let start = m.max(1.0);
                let end = (m + n).min(s.len() as f64 + 1.0);
                if end <= start {
                    Val::Str(String::new())
                } else {
                    Val::Str(s[(start as usize - 1)..(end as usize - 1)].iter().collect())
                }
            }
            "index" => {
                let s = arg_str(self, 0)?;
                let t = arg_str(self, 1)?;
                Val::Num(
                    s.find(&t)
                        .map_or(0.0, |p| s[..p].chars().count() as f64 + 1.0),
                )
            }
            "split" => {
                let s = arg_str(self, 0)?;
                let Some(Expr::Lv(LValue::Var(arr))) = args.get(1) else {
                    return Err(Ctl::Error(
                        "awk: split: second argument is not an array".into(),
                    ));
                };
                let parts = match args.get(2) {
                    Some(Expr::Regex(r)) => {
                        let re = self.regex(r)?;
                        if s.is_empty() {
                            Vec::new()
                        } else {
                            re.split(&s).map(str::to_owned).collect()
                        }
                    }
                    Some(e) => {
                        let v = self.eval(e)?;
                        let fs = self.to_str(&v);
                        self.split_with(&s, &fs)
                    }
                    None => {
                        let fs = self.gstr("FS");
                        self.split_with(&s, &fs)
                    }
                };
                let a = self.array(arr);
                a.map.clear();
                for (i, p) in parts.iter().enumerate() {
                    a.set((i + 1).to_string(), input_val(p.clone()));
                }
                Val::Num(parts.len() as f64)
            }
            "sub" | "gsub" => {
                let global = name == "gsub";
                let re = match args.first() {
                    Some(Expr::Regex(r)) => self.regex(r)?,
                    Some(e) => {
                        let v = self.eval(e)?;
                        let p = self.to_str(&v);
                        self.regex(&p)?
                    }
                    None => return Err(Ctl::Error("awk: sub: missing arguments".into())),
                };
                let repl = arg_str(self, 1)?;
                let target = match args.get(2) {
                    Some(Expr::Lv(lv)) => lv.clone(),
                    Some(_) => {
                        return Err(Ctl::Error(
                            "awk: sub: third argument is not a variable".into(),
                        ));
                    }
                    None => LValue::Field(Box::new(Expr::Num(0.0))),
                };
                let cur = self.get_lv(&target)?;
                let text = self.to_str(&cur);
                let mut out = String::new();
                let mut last = 0;
                let mut count = 0;
                for m in re.find_iter(&text) {
                    if m.start() < last {
                        continue;
                    }
                    out.push_str(&text[last..m.start()]);
                    let mut chars = repl.chars().peekable();
                    while let Some(c) = chars.next() {
                        match c {
                            '\\' if chars.peek() == Some(&'&') => {
                                out.push('&');
                                chars.next();
                            }
                            '\\' if chars.peek() == Some(&'\\') => {
                                out.push('\\');
                                chars.next();
                            }
                            '&' => out.push_str(m.as_str()),
                            c => out.push(c),
                        }
                    }
                    last = m.end();
                    count += 1;
                    if m.start() == m.end() {
                        // Empty match: copy one char to make progress.
                        if let Some(ch) = text[last..].chars().next() {
                            out.push(ch);
                            last += ch.len_utf8();
                        }
                    }
                    if !global {
                        break;
                    }
                }
                if count > 0 {
                    if last <= text.len() {
                        out.push_str(&text[last.min(text.len())..]);
                    }
                    self.set_lv(&target, Val::Str(out))?;
                }
                Val::Num(f64::from(count))
            }
            "match" => {
                let s = arg_str(self, 0)?;
                let re = match args.get(1) {
                    Some(Expr::Regex(r)) => self.regex(r)?,
                    Some(e) => {
                        let v = self.eval(e)?;
                        let p = self.to_str(&v);
                        self.regex(&p)?
                    }
                    None => return Err(Ctl::Error("awk: match: missing argument".into())),
                };
                let (start, len) = match re.find(&s) {
                    Some(m) => (
                        s[..m.start()].chars().count() as f64 + 1.0,
                        m.as_str().chars().count() as f64,
                    ),
                    None => (0.0, -1.0),
                };
                if let Some(Expr::Lv(LValue::Var(arr))) = args.get(2)
                    && let Some(caps) = re.captures(&s)
                {
                    let groups: Vec<String> = caps
                        .iter()
                        .map(|m| m.map_or(String::new(), |m| m.as_str().to_owned()))
                        .collect();
                    let a = self.array(arr);
                    a.map.clear();
                    for (i, g) in groups.into_iter().enumerate() {
                        a.set(i.to_string(), input_val(g));
                    }
                }
                self.globals.insert("RSTART".into(), Val::Num(start));
                self.globals.insert("RLENGTH".into(), Val::Num(len));
                Val::Num(start)
            }
            "sprintf" => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.eval(a)?);
                }
                if vals.is_empty() {
                    return Ok(Val::Str(String::new()));
                }
                let fmt = self.to_str(&vals[0]);
                Val::Str(sprintf(&fmt, &vals[1..], &self.convfmt()))
            }
            "tolower" => Val::Str(arg_str(self, 0)?.to_lowercase()),
            "toupper" => Val::Str(arg_str(self, 0)?.to_uppercase()),
            "int" => Val::Num(arg(self, 0)?.num().trunc()),
            "sqrt" => Val::Num(arg(self, 0)?.num().sqrt()),
            "exp" => Val::Num(arg(self, 0)?.num().exp()),
            "log" => Val::Num(arg(self, 0)?.num().ln()),
            "sin" => Val::Num(arg(self, 0)?.num().sin()),
            "cos" => Val::Num(arg(self, 0)?.num().cos()),
            "atan2" => {
                let y = arg(self, 0)?.num();
                let x = arg(self, 1)?.num();
                Val::Num(y.atan2(x))
            }
            "rand" => {
                self.rand_state = self
                    .rand_state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                Val::Num((self.rand_state >> 11) as f64 / (1u64 << 53) as f64)
            }
            "srand" => {
                let prev = self.rand_state;
                self.rand_state = if args.is_empty() {
                    0
                } else {
                    arg(self, 0)?.num() as u64
                };
                Val::Num(prev as f64)
            }
            "systime" => Val::Num(crate::timefmt::epoch(std::time::SystemTime::now()).0 as f64),
            "strftime" => {
                let fmt = if args.is_empty() {
                    "%a %b %e %H:%M:%S %Z %Y".to_owned()
                } else {
                    arg_str(self, 0)?
                };
                let t = if args.len() > 1 {
                    arg(self, 1)?.num() as i64
                } else {
                    crate::timefmt::epoch(std::time::SystemTime::now()).0
                };
                Val::Str(crate::timefmt::strftime(
                    &fmt,
                    &crate::timefmt::gmtime(t),
                    t,
                    0,
                ))
            }
            "system" => {
                let cmd = arg_str(self, 0)?;
                self.flush_pipes();
                let io = self.io.clone();
                let status = match self.sh.subshell(|sh| sh.run_script(&cmd, &io)) {
                    Ok(s) => s,
                    Err(_) => return Err(Ctl::Exit(124)),
                };
                Val::Num(f64::from(status))
            }
            "close" => {
                let n = arg_str(self, 0)?;
                self.readers.remove(&n);
                if let Some(Out::Pipe(cmd, data)) = self.outputs.remove(&n) {
                    self.run_pipe(&cmd, data);
                }
                Val::Num(0.0)
            }
            "fflush" => Val::Num(0.0),
            _ => return self.call_user(name, args),
        })
    }

    fn call_user(&mut self, name: &str, args: &[Expr]) -> R<Val> {
        let prog = self.prog;
        let Some(f) = prog.funcs.get(name) else {
            return Err(Ctl::Error(format!(
                "awk: calling undefined function {name}"
            )));
        };
        if self.frames.len() > 500 {
            return Err(Ctl::Error("awk: function call nesting too deep".into()));
        }
        let mut frame = Frame {
            scalars: HashMap::new(),
            arrays: HashMap::new(),
        };
        for (i, p) in f.params.iter().enumerate() {
            match args.get(i) {
                Some(Expr::Lv(LValue::Var(v))) => {
                    // Arrays are passed by reference.
                    let an = self.array_name(v);
                    let is_array = self.arrays.contains_key(&an);
                    let scalar_set = self.frames.last().map_or_else(
                        || self.globals.contains_key(v),
                        |fr| fr.scalars.get(v).is_some_and(|x| !matches!(x, Val::Uninit)),
                    );
                    if is_array || !scalar_set && f_uses_as_array(&f.body, p) {
                        frame.arrays.insert(p.clone(), an);
                    } else {
                        frame.scalars.insert(p.clone(), self.var(v));
                    }
                }
                Some(e) => {
                    let v = self.eval(e)?;
                    frame.scalars.insert(p.clone(), v);
                }
                None => {
                    frame.scalars.insert(p.clone(), Val::Uninit);
                }
            }
        }
        self.frames.push(frame);
        let r = self.exec_block(&f.body);
        let frame = self.frames.pop();
        if let Some(fr) = frame {
            for (_, alias) in fr.arrays {
                if alias.starts_with('\u{0}') {
                    self.arrays.remove(&alias);
                }
            }
        }
        match r {
            Ok(()) => Ok(Val::Uninit),
            Err(Ctl::Return(v)) => Ok(v),
            Err(e) => Err(e),
        }
    }

    fn run_pipe(&mut self, cmd: &str, data: Vec<u8>) {
        let io = Io {
            stdin: Input::from_bytes(data),
            stdout: self.io.stdout.clone(),
            stderr: self.io.stderr.clone(),
        };
        let _ = self.sh.subshell(|sh| sh.run_script(cmd, &io));
    }

    fn flush_pipes(&mut self) {
        let names: Vec<String> = self
            .outputs
            .iter()
            .filter(|(_, o)| matches!(o, Out::Pipe(..)))
            .map(|(k, _)| k.clone())
            .collect();
        for n in names {
            if let Some(Out::Pipe(cmd, data)) = self.outputs.remove(&n) {
                self.run_pipe(&cmd, data);
            }
        }
    }

    fn write_out(&mut self, redirect: &Option<Redirect>, text: String) -> R<()> {
        let Some(r) = redirect else {
            self.io.out(text);
            return Ok(());
        };
        let (expr, append, pipe) = match r {
            Redirect::File(e) => (e, false, false),
            Redirect::Append(e) => (e, true, false),
            Redirect::Pipe(e) => (e, false, true),
        };
        let v = self.eval(expr)?;
        let name = self.to_str(&v);
        if !self.outputs.contains_key(&name) {
            let out = if pipe {
                Out::Pipe(name.clone(), Vec::new())
            } else if name == "/dev/stdout" || name == "-" {
                Out::File(self.io.stdout.clone())
            } else if name == "/dev/stderr" {
                Out::File(self.io.stderr.clone())
            } else {
                let path = self.sh.resolve(&name);
                let mut opts = std::fs::OpenOptions::new();
                opts.create(true);
                if append {
                    opts.append(true);
                } else {
                    opts.write(true).truncate(true);
                }
                match opts.open(&path) {
                    Ok(f) => Out::File(Stream::File(std::rc::Rc::new(std::cell::RefCell::new(f)))),
                    Err(e) => {
                        return Err(Ctl::Error(format!(
                            "awk: can't redirect to {name}: {}",
                            crate::shell::io_err_msg(&e)
                        )));
                    }
                }
            };
            self.outputs.insert(name.clone(), out);
        }
        match self.outputs.get_mut(&name) {
            Some(Out::File(s)) => s.write_str(&text),
            Some(Out::Pipe(_, buf)) => buf.extend_from_slice(text.as_bytes()),
            None => {}
        }
        Ok(())
    }

    fn exec_block(&mut self, stmts: &[Stmt]) -> R<()> {
        for s in stmts {
            self.exec(s)?;
        }
        Ok(())
    }

    fn exec(&mut self, s: &Stmt) -> R<()> {
        match s {
            Stmt::Expr(e) => {
                self.eval(e)?;
            }
            Stmt::Print(args, redirect) => {
                let text = if args.is_empty() {
                    self.fields[0].clone()
                } else {
                    let ofs = self.gstr("OFS");
                    let ofmt = self.gstr("OFMT");
                    let mut parts = Vec::new();
                    for a in args {
                        let v = self.eval(a)?;
                        parts.push(match v {
                            Val::Num(n) => num_to_str(n, &ofmt),
                            other => self.to_str(&other),
                        });
                    }
                    parts.join(&ofs)
                };
                let ors = self.gstr("ORS");
                self.write_out(redirect, text + &ors)?;
            }
            Stmt::Printf(args, redirect) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.eval(a)?);
                }
                if vals.is_empty() {
                    return Err(Ctl::Error("awk: printf: no format".into()));
                }
                let fmt = self.to_str(&vals[0]);
                let text = sprintf(&fmt, &vals[1..], &self.convfmt());
                self.write_out(redirect, text)?;
            }
            Stmt::If(c, t, e) => {
                if self.eval(c)?.truthy() {
                    self.exec(t)?;
                } else if let Some(e) = e {
                    self.exec(e)?;
                }
            }
            Stmt::While(c, body) => {
                let mut guard = 0u64;
                while self.eval(c)?.truthy() {
                    guard += 1;
                    if guard > 50_000_000 {
                        return Err(Ctl::Error("awk: loop iteration limit exceeded".into()));
                    }
                    match self.exec(body) {
                        Err(Ctl::Break) => break,
                        Err(Ctl::Continue) | Ok(()) => {}
                        Err(e) => return Err(e),
                    }
                }
            }
            Stmt::Do(body, c) => loop {
                match self.exec(body) {
                    Err(Ctl::Break) => break,
                    Err(Ctl::Continue) | Ok(()) => {}
                    Err(e) => return Err(e),
                }
                if !self.eval(c)?.truthy() {
                    break;
                }
            },
            Stmt::For(init, cond, step, body) => {
                if let Some(i) = init {
                    self.exec(i)?;
                }
                let mut guard = 0u64;
                loop {
                    if let Some(c) = cond
                        && !self.eval(c)?.truthy()
                    {
                        break;
                    }
                    guard += 1;
                    if guard > 50_000_000 {
                        return Err(Ctl::Error("awk: loop iteration limit exceeded".into()));
                    }
                    match self.exec(body) {
                        Err(Ctl::Break) => break,
                        Err(Ctl::Continue) | Ok(()) => {}
                        Err(e) => return Err(e),
                    }
                    if let Some(s) = step {
                        self.exec(s)?;
                    }
                }
            }
            Stmt::ForIn(k, arr, body) => {
                let keys = self.array(arr).keys();
                for key in keys {
                    if !self.array(arr).map.contains_key(&key) {
                        continue;
                    }
                    self.set_var(k, input_val(key));
                    match self.exec(body) {
                        Err(Ctl::Break) => break,
                        Err(Ctl::Continue) | Ok(()) => {}
                        Err(e) => return Err(e),
                    }
                }
            }
            Stmt::Block(b) => self.exec_block(b)?,
            Stmt::Next => return Err(Ctl::Next),
            Stmt::NextFile => return Err(Ctl::NextFile),
            Stmt::Exit(e) => {
                let code = match e {
                    Some(e) => self.eval(e)?.num() as i32,
                    None => self.exit_code.unwrap_or(0),
                };
                return Err(Ctl::Exit(code));
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Val::Uninit,
                };
                return Err(Ctl::Return(v));
            }
            Stmt::Break => return Err(Ctl::Break),
            Stmt::Continue => return Err(Ctl::Continue),
            Stmt::Delete(arr, subs) => match subs {
                Some(s) => {
                    let k = self.subscript(s)?;
                    self.array(arr).map.remove(&k);
                }
                None => self.array(arr).map.clear(),
            },
        }
        Ok(())
    }

    /// Reads the next record of the main input, advancing through the operands.
    fn next_main_record(&mut self) -> Option<String> {
        loop {
            if self.main.is_none() {
                // Open the next operand (or stdin if there are none).
                loop {
                    if self.operand_idx >= self.operands.len() {
                        if self.operands.is_empty() && self.operand_idx == 0 {
                            self.operand_idx = 1;
                            self.globals
                                .insert("FILENAME".into(), Val::Str(String::new()));
                            self.main = Some(Reader {
                                data: self.io.stdin.read_all(),
                                pos: 0,
                            });
                            break;
                        }
                        return None;
                    }
                    let op = self.operands[self.operand_idx].clone();
                    self.operand_idx += 1;
                    if let Some((k, v)) = op.split_once('=')
                        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        && k.chars().next().is_some_and(|c| !c.is_ascii_digit())
                    {
                        self.set_var(k, input_val(super::lexer::unescape(v)));
                        if self.operand_idx >= self.operands.len()
                            && !self.operands.iter().any(|o| !o.contains('='))
                        {
                            self.operands.clear();
                            self.operand_idx = 0;
                        }
                        continue;
                    }
                    let data = match crate::builtins::read_input(self.sh, self.io, &op) {
                        Ok(d) => d,
                        Err(msg) => {
                            let msg = msg.replace(
                                ": No such file or directory",
                                " (No such file or directory)",
                            );
                            self.io.errln(format!(
                                "awk: cannot open \"{}\"",
                                msg.split(' ').next().unwrap_or(&op).trim_end_matches(':')
                            ));
                            let _ = msg;
                            self.exit_code = Some(2);
                            continue;
                        }
                    };
                    self.globals.insert("FILENAME".into(), Val::Str(op));
                    self.globals.insert("FNR".into(), Val::Num(0.0));
                    self.main = Some(Reader { data, pos: 0 });
                    break;
                }
            }
            let rs = self.gstr("RS");
            let mut cache = std::mem::take(&mut self.regexes);
            let rec = self
                .main
                .as_mut()
                .and_then(|r| r.next_record(&rs, &mut cache));
            self.regexes = cache;
            match rec {
                Some(r) => return Some(r),
                None => self.main = None,
            }
        }
    }

    fn pattern_matches(&mut self, idx: usize) -> R<bool> {
        let prog = self.prog;
        Ok(match &prog.rules[idx].pattern {
            Pattern::All => true,
            Pattern::Begin | Pattern::End => false,
            Pattern::Expr(e) => self.eval(e)?.truthy(),
            Pattern::Range(a, b, ri) => {
                if self.range_active[*ri] {
                    if self.eval(b)?.truthy() {
                        self.range_active[*ri] = false;
                    }
                    true
                } else if self.eval(a)?.truthy() {
                    if !self.eval(b)?.truthy() {
                        self.range_active[*ri] = true;
                    }
                    true
                } else {
                    false
                }
            }
        })
    }

    fn run_action(&mut self, idx: usize) -> R<()> {
        let prog = self.prog;
        match &prog.rules[idx].action {
            Some(stmts) => self.exec_block(stmts),
            None => {
                let ors = self.gstr("ORS");
                let rec = self.fields[0].clone();
                self.io.out(rec + &ors);
                Ok(())
            }
        }
    }
}

fn f_uses_as_array(body: &[Stmt], name: &str) -> bool {
    // Conservative textual check: the parameter is indexed or deleted somewhere.
    let dbg = format!("{body:?}");
    dbg.contains(&format!("Index(\"{name}\""))
        || dbg.contains(&format!("Delete(\"{name}\""))
        || dbg.contains(&"In([".to_string()) && dbg.contains(&format!("], \"{name}\")"))
        || dbg.contains(&"ForIn(\"".to_string()) && dbg.contains(&format!("\", \"{name}\","))
        || dbg.contains(&"Call(\"split\", [".to_string())
            && dbg.contains(&format!("Var(\"{name}\")"))
}

fn arith(op: &str, a: f64, b: f64) -> R<f64> {
    Ok(match op {
        "+" => a + b,
        "-" => a - b,
        "*" => a * b,
        "/" => {
            if b == 0.0 {
                return Err(Ctl::Error("awk: division by zero".into()));
            }
            a / b
        }
        "%" => {
            if b == 0.0 {
                return Err(Ctl::Error("awk: division by zero in %".into()));
            }
            a % b
        }
        _ => a.powf(b),
    })
}

/// Runs a parsed program over the operands. Returns the exit status.
pub fn run(
    sh: &mut Shell,
    io: &Io,
    prog: Program,
    fs: Option<String>,
    assigns: Vec<(String, String)>,
    operands: Vec<String>,
) -> i32 {
    let mut globals = HashMap::new();
    for (k, v) in [
        ("FS", " "),
        ("OFS", " "),
        ("ORS", "\n"),
        ("RS", "\n"),
        ("SUBSEP", "\u{1c}"),
        ("CONVFMT", "%.6g"),
        ("OFMT", "%.6g"),
        ("FILENAME", ""),
    ] {
        globals.insert(k.to_owned(), Val::Str(v.to_owned()));
    }
    for k in ["NR", "FNR", "RSTART", "RLENGTH"] {
        globals.insert(k.to_owned(), Val::Num(0.0));
    }
    if let Some(fs) = fs {
        globals.insert("FS".to_owned(), Val::Str(fs));
    }
    let mut arrays: HashMap<String, Array> = HashMap::new();
    let mut environ = Array::default();
    for (k, v) in sh.exported_env() {
        environ.set(k, Val::Str(v));
    }
    arrays.insert("ENVIRON".to_owned(), environ);
    let mut argv_arr = Array::default();
    argv_arr.set("0".into(), Val::Str("awk".into()));
    for (i, o) in operands.iter().enumerate() {
        argv_arr.set((i + 1).to_string(), input_val(o.clone()));
    }
    arrays.insert("ARGV".to_owned(), argv_arr);
    globals.insert("ARGC".to_owned(), Val::Num(operands.len() as f64 + 1.0));
    let ranges = prog.ranges;
    let mut it = Interp {
        sh,
        io,
        prog: &prog,
        globals,
        arrays,
        frames: Vec::new(),
        fields: vec![String::new()],
        nf: 0,
        record_stale: false,
        regexes: HashMap::new(),
        outputs: HashMap::new(),
        readers: HashMap::new(),
        main: None,
        operands,
        operand_idx: 0,
        range_active: vec![false; ranges],
        rand_state: 0,
        local_counter: 0,
        exit_code: None,
    };
    for (k, v) in assigns {
        it.set_var(&k, input_val(v));
    }
    let begins: Vec<usize> = (0..prog.rules.len())
        .filter(|i| matches!(prog.rules[*i].pattern, Pattern::Begin))
        .collect();
    let ends: Vec<usize> = (0..prog.rules.len())
        .filter(|i| matches!(prog.rules[*i].pattern, Pattern::End))
        .collect();
    let mains: Vec<usize> = (0..prog.rules.len())
        .filter(|i| !matches!(prog.rules[*i].pattern, Pattern::Begin | Pattern::End))
        .collect();
    let mut exit: Option<i32> = None;
    let report = |it: &mut Interp, msg: String| {
        it.io.errln(msg);
        2
    };
    for &b in &begins {
        match it.run_action(b) {
            Ok(()) => {}
            Err(Ctl::Exit(c)) => {
                exit = Some(c);
                break;
            }
            Err(Ctl::Error(m)) => {
                let c = report(&mut it, m);
                it.flush_pipes();
                return c;
            }
            Err(_) => {}
        }
    }
    if exit.is_none() && (!mains.is_empty() || !ends.is_empty()) {
        'records: while let Some(rec) = it.next_main_record() {
            let nr = it.var("NR").num();
            it.globals.insert("NR".into(), Val::Num(nr + 1.0));
            let fnr = it.var("FNR").num();
            it.globals.insert("FNR".into(), Val::Num(fnr + 1.0));
            it.set_record(rec);
            for &m in &mains {
                let r = match it.pattern_matches(m) {
                    Ok(true) => it.run_action(m),
                    Ok(false) => Ok(()),
                    Err(e) => Err(e),
                };
                match r {
                    Ok(()) => {}
                    Err(Ctl::Next) => continue 'records,
                    Err(Ctl::NextFile) => {
                        it.main = None;
                        continue 'records;
                    }
                    Err(Ctl::Exit(c)) => {
                        exit = Some(c);
                        break 'records;
                    }
                    Err(Ctl::Error(msg)) => {
                        let c = report(&mut it, msg);
                        it.flush_pipes();
                        return c;
                    }
                    Err(_) => {}
                }
            }
        }
    }
    // END rules run even after `exit` in a main rule (but not after exit in END).
    let mut ran_end_exit = None;
    if exit.is_none() || !begins.is_empty() || !mains.is_empty() {
        for &e in &ends {
            match it.run_action(e) {
                Ok(()) => {}
                Err(Ctl::Exit(c)) => {
                    ran_end_exit = Some(c);
                    break;
                }
                Err(Ctl::Error(m)) => {
                    let c = report(&mut it, m);
                    it.flush_pipes();
                    return c;
                }
                Err(_) => {}
            }
        }
    }
    it.flush_pipes();
    ran_end_exit.or(exit).or(it.exit_code).unwrap_or(0)
}

/// awk reads `\t`, `\n`, `\r`, `\f`, `\v`, `\a` and `\b` in a regular expression as the
/// control characters themselves, inside bracket expressions too (`/[ \t]+/` matches tabs);
/// other escapes (`\\`, `\.`, `\/`, ...) are left for the regex translator.
fn control_escapes(pat: &str) -> std::borrow::Cow<'_, str> {
    if !pat.contains('\\') {
        return std::borrow::Cow::Borrowed(pat);
    }
    let mut out = String::with_capacity(pat.len());
    let mut chars = pat.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    std::borrow::Cow::Owned(out)
}
