//! PDF syntax: a lexer for objects and content streams, and the table of a file's indirect
//! objects (found by scanning, so damaged cross-reference tables do not matter).

use std::collections::BTreeMap;

use crate::PdfError;
use crate::inflate::{self, Stop};
use crate::limits::{Exceeded, Limits, Meter};

/// A PDF object.
#[derive(Clone, Debug, PartialEq)]
pub enum Obj {
    /// `null` (also anything unresolvable).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number.
    Num(f64),
    /// A string (literal or hex), as bytes.
    Str(Vec<u8>),
    /// A name, without the slash.
    Name(Vec<u8>),
    /// An array.
    Array(Vec<Obj>),
    /// A dictionary.
    Dict(Dict),
    /// A reference `n g R`.
    Ref(u32),
    /// A stream: its dictionary and raw (still encoded) data.
    Stream(Dict, Vec<u8>),
    /// A content-stream operator (or an unknown keyword).
    Op(Vec<u8>),
}

/// A dictionary (keys without slashes, in order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dict(pub Vec<(Vec<u8>, Obj)>);

impl Dict {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Obj> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key.as_bytes())
            .map(|(_, v)| v)
    }
}

impl Obj {
    /// The number, if this is one.
    pub fn num(&self) -> Option<f64> {
        match self {
            Obj::Num(n) => Some(*n),
            _ => None,
        }
    }

    /// The name, if this is one.
    pub fn name(&self) -> Option<&[u8]> {
        match self {
            Obj::Name(n) => Some(n),
            _ => None,
        }
    }
}

fn is_ws(c: u8) -> bool {
    matches!(c, 0 | b'\t' | b'\n' | 0x0c | b'\r' | b' ')
}

fn is_delim(c: u8) -> bool {
    matches!(
        c,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// A lexer/parser over PDF bytes.
pub struct Lexer<'a> {
    /// The input.
    pub data: &'a [u8],
    /// The position.
    pub pos: usize,
    /// How many objects it has produced (array items, dictionary keys and values included).
    pub nodes: usize,
    /// The most objects it may produce; wanting more sets `overflow` and ends the input.
    pub max_nodes: usize,
    /// Whether it stopped at `max_nodes`.
    pub overflow: bool,
}

const MAX_DEPTH: usize = 256;

impl<'a> Lexer<'a> {
    /// A lexer at `pos` that may produce `max_nodes` objects.
    pub fn new(data: &'a [u8], pos: usize, max_nodes: usize) -> Self {
        Self {
            data,
            pos,
            nodes: 0,
            max_nodes,
            overflow: false,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Skips whitespace and comments.
    pub fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if is_ws(c) {
                self.pos += 1;
            } else if c == b'%' {
                while let Some(c) = self.peek() {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    fn regular(&mut self) -> &'a [u8] {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if is_ws(c) || is_delim(c) {
                break;
            }
            self.pos += 1;
        }
        &self.data[start..self.pos]
    }

    /// The next object (references `n g R` are folded), or `None` at the end or on `]`/`>>`.
    pub fn object(&mut self) -> Option<Obj> {
        self.object_at(0)
    }

    fn object_at(&mut self, depth: usize) -> Option<Obj> {
        if depth > MAX_DEPTH {
            return None;
        }
        if self.nodes >= self.max_nodes {
            self.overflow = true;
            self.pos = self.data.len();
            return None;
        }
        self.skip_ws();
        let c = self.peek()?;
        let obj = match c {
            b'(' => Obj::Str(self.literal()),
            b'<' if self.data.get(self.pos + 1) == Some(&b'<') => {
                self.pos += 2;
                Obj::Dict(self.dict(depth)?)
            }
            b'<' => Obj::Str(self.hex()),
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_ws();
                    match self.peek() {
                        None => break,
                        Some(b']') => {
                            self.pos += 1;
                            break;
                        }
                        Some(_) => match self.object_at(depth + 1) {
                            Some(o) => items.push(o),
                            None if self.overflow => break,
                            None => self.pos += 1,
                        },
                    }
                }
                Obj::Array(fold_refs(items))
            }
            b'/' => {
                self.pos += 1;
                Obj::Name(unescape_name(self.regular()))
            }
            b']' | b'>' | b')' | b'{' | b'}' => return None,
            _ => {
                let word = self.regular();
                if word.is_empty() {
                    self.pos += 1;
                    self.nodes += 1;
                    return Some(Obj::Op(vec![c]));
                }
                match word {
                    b"true" => Obj::Bool(true),
                    b"false" => Obj::Bool(false),
                    b"null" => Obj::Null,
                    _ => match std::str::from_utf8(word)
                        .ok()
                        .and_then(|s| s.parse::<f64>().ok())
                        .filter(|_| looks_numeric(word))
                    {
                        Some(n) => Obj::Num(n),
                        None => Obj::Op(word.to_vec()),
                    },
                }
            }
        };
        self.nodes += 1;
        Some(obj)
    }

    fn dict(&mut self, depth: usize) -> Option<Dict> {
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                None => break,
                Some(b'>') => {
                    self.pos += 1;
                    if self.peek() == Some(b'>') {
                        self.pos += 1;
                    }
                    break;
                }
                Some(_) => match self.object_at(depth + 1) {
                    Some(o) => items.push(o),
                    None if self.overflow => break,
                    None => self.pos += 1,
                },
            }
        }
        let items = fold_refs(items);
        let mut d = Dict::default();
        let mut it = items.into_iter();
        while let Some(k) = it.next() {
            if let Obj::Name(k) = k {
                d.0.push((k, it.next().unwrap_or(Obj::Null)));
            }
        }
        Some(d)
    }

    fn literal(&mut self) -> Vec<u8> {
        self.pos += 1;
        let mut out = Vec::new();
        let mut depth = 1;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'(' => {
                    depth += 1;
                    out.push(c);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    out.push(c);
                }
                b'\\' => {
                    let Some(e) = self.peek() else { break };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'0'..=b'7' => {
                            let mut v = u32::from(e - b'0');
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + u32::from(d - b'0');
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push(v as u8);
                        }
                        b'\r' => {
                            if self.peek() == Some(b'\n') {
                                self.pos += 1;
                            }
                        }
                        b'\n' => {}
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        out
    }

    fn hex(&mut self) -> Vec<u8> {
        self.pos += 1;
        let mut digits = Vec::new();
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == b'>' {
                break;
            }
            if let Some(d) = char::from(c).to_digit(16) {
                digits.push(d as u8);
            }
        }
        if digits.len() % 2 == 1 {
            digits.push(0);
        }
        digits.chunks(2).map(|p| p[0] << 4 | p[1]).collect()
    }
}

fn looks_numeric(w: &[u8]) -> bool {
    w.iter()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+'))
        && w.iter().any(u8::is_ascii_digit)
}

fn unescape_name(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'#'
            && let Some(v) = raw
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}

/// Folds `n g R` triples into references.
fn fold_refs(items: Vec<Obj>) -> Vec<Obj> {
    let mut out: Vec<Obj> = Vec::with_capacity(items.len());
    for o in items {
        if matches!(&o, Obj::Op(w) if w == b"R") && out.len() >= 2 {
            let g = &out[out.len() - 1];
            let n = &out[out.len() - 2];
            if let (Obj::Num(n), Obj::Num(_)) = (n, g)
                && *n >= 0.0
                && n.fract() == 0.0
            {
                let n = *n as u32;
                out.truncate(out.len() - 2);
                out.push(Obj::Ref(n));
                continue;
            }
        }
        out.push(o);
    }
    out
}

/// The indirect objects of a PDF file and its trailer.
pub struct Document {
    objects: BTreeMap<u32, Obj>,
    /// The trailer dictionary (or the last cross-reference stream's).
    pub trailer: Dict,
    /// The costs of reading the file so far.
    pub meter: Meter,
}

/// How many objects `o` is (itself and everything inside it), as [`Lexer::nodes`] counts.
pub fn size(o: &Obj) -> usize {
    match o {
        Obj::Array(items) => 1 + items.iter().map(size).sum::<usize>(),
        Obj::Dict(d) | Obj::Stream(d, _) => 1 + dict_size(d),
        _ => 1,
    }
}

/// How many objects the entries of `d` are (keys included).
pub fn dict_size(d: &Dict) -> usize {
    d.0.iter().map(|(_, v)| 1 + size(v)).sum()
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Reads the unsigned integer ending just before `end` (after skipping whitespace backwards).
fn int_before(data: &[u8], mut end: usize) -> Option<(u32, usize)> {
    while end > 0 && is_ws(data[end - 1]) {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && data[start - 1].is_ascii_digit() {
        start -= 1;
    }
    if start == end || end - start > 10 {
        return None;
    }
    Some((
        std::str::from_utf8(&data[start..end]).ok()?.parse().ok()?,
        start,
    ))
}

impl Document {
    /// Scans `data` for `n g obj ... endobj` definitions (later ones win), unpacks object
    /// streams, and finds the trailer, within `limits`.
    pub fn parse(data: &[u8], limits: Limits) -> Result<Document, PdfError> {
        if data.len() > limits.max_file_bytes {
            return Err(PdfError::TooLarge(Exceeded::File {
                bytes: data.len(),
                limit: limits.max_file_bytes,
            }));
        }
        if find(data, b"%PDF-", 0).is_none_or(|p| p > 1024) {
            return Err(PdfError::Unreadable);
        }
        let meter = Meter::new(limits);
        let mut objects = BTreeMap::new();
        let mut trailer = Dict::default();
        let mut pos = 0;
        while let Some(at) = find(data, b"obj", pos) {
            if !meter.work((at + 3 - pos) as u64) {
                break;
            }
            pos = at + 3;
            if data.get(at + 3).is_some_and(|&c| !is_ws(c) && !is_delim(c))
                || (at > 0 && !is_ws(data[at - 1]))
            {
                continue;
            }
            let Some((_gen, gstart)) = int_before(data, at) else {
                continue;
            };
            let Some((num, _)) = int_before(data, gstart) else {
                continue;
            };
            let mut lx = Lexer::new(data, at + 3, meter.objects_left());
            let obj = lx.object();
            if lx.overflow {
                meter.trip(Exceeded::Objects(limits.max_objects));
            }
            if !meter.work((lx.pos - (at + 3)) as u64) || !meter.objects(lx.nodes) {
                break;
            }
            let Some(mut obj) = obj else { continue };
            if let Obj::Dict(d) = &obj {
                lx.skip_ws();
                if data[lx.pos..].starts_with(b"stream") {
                    let mut start = lx.pos + 6;
                    if data.get(start) == Some(&b'\r') {
                        start += 1;
                    }
                    if data.get(start) == Some(&b'\n') {
                        start += 1;
                    }
                    let by_length = d
                        .get("Length")
                        .and_then(Obj::num)
                        .map(|l| start + l as usize)
                        .filter(|&end| {
                            let mut after = Lexer::new(data, end.min(data.len()), 0);
                            after.skip_ws();
                            end <= data.len() && data[after.pos..].starts_with(b"endstream")
                        });
                    let end = by_length.or_else(|| {
                        let mut e = find(data, b"endstream", start)?;
                        if e > start && data[e - 1] == b'\n' {
                            e -= 1;
                        }
                        if e > start && data[e - 1] == b'\r' {
                            e -= 1;
                        }
                        Some(e)
                    });
                    let Some(end) = end else { continue };
                    // The scan for `endstream` and the copy, whichever way the end was found.
                    if !meter.work(2 * (end - start) as u64) {
                        break;
                    }
                    obj = Obj::Stream(d.clone(), data[start..end].to_vec());
                    pos = end;
                }
            }
            if let Obj::Stream(d, _) = &obj
                && d.get("Type").and_then(Obj::name) == Some(b"XRef")
            {
                trailer = d.clone();
            }
            objects.insert(num, obj);
        }
        // The last classic trailer wins over cross-reference stream dictionaries.
        let mut tpos = 0;
        while meter.ok()
            && let Some(at) = find(data, b"trailer", tpos)
        {
            tpos = at + 7;
            let mut lx = Lexer::new(data, at + 7, meter.objects_left());
            let obj = lx.object();
            if lx.overflow {
                meter.trip(Exceeded::Objects(limits.max_objects));
            }
            if !meter.work((lx.pos - (at + 7)) as u64) || !meter.objects(lx.nodes) {
                break;
            }
            if let Some(Obj::Dict(d)) = obj {
                trailer = d;
            }
        }
        let mut doc = Document {
            objects,
            trailer,
            meter,
        };
        doc.unpack_object_streams();
        match doc.meter.hit() {
            Some(limit) => Err(PdfError::TooLarge(limit)),
            None => Ok(doc),
        }
    }

    fn unpack_object_streams(&mut self) {
        let streams: Vec<(Dict, Vec<u8>)> = self
            .objects
            .values()
            .filter_map(|o| match o {
                Obj::Stream(d, raw) if d.get("Type").and_then(Obj::name) == Some(b"ObjStm") => {
                    Some((d.clone(), raw.clone()))
                }
                _ => None,
            })
            .collect();
        let limits = self.meter.limits;
        for (d, raw) in streams {
            let Some(data) = self.decode(&d, &raw) else {
                continue;
            };
            let n = d.get("N").and_then(Obj::num).unwrap_or(0.0) as usize;
            let first = d.get("First").and_then(Obj::num).unwrap_or(0.0) as usize;
            // The header holds only pairs of numbers (anything bigger ends it).
            let mut header = Lexer::new(&data, 0, 2);
            for _ in 0..n {
                let start = header.pos;
                header.nodes = 0;
                let (Some(Obj::Num(num)), Some(Obj::Num(off))) = (header.object(), header.object())
                else {
                    break;
                };
                if !self.meter.work((header.pos - start) as u64) {
                    return;
                }
                // Objects defined directly in the file take precedence.
                if self.objects.contains_key(&(num as u32)) {
                    continue;
                }
                let at = first.saturating_add(off as usize);
                let mut lx = Lexer::new(&data, at, self.meter.objects_left());
                let obj = lx.object().unwrap_or(Obj::Null);
                if lx.overflow {
                    self.meter.trip(Exceeded::Objects(limits.max_objects));
                }
                if !self.meter.work(lx.pos.saturating_sub(at) as u64 + 1)
                    || !self.meter.objects(lx.nodes)
                {
                    return;
                }
                self.objects.insert(num as u32, obj);
            }
        }
    }

    /// Follows references.
    pub fn resolve<'d>(&'d self, mut o: &'d Obj) -> &'d Obj {
        for _ in 0..32 {
            match o {
                Obj::Ref(n) => o = self.objects.get(n).unwrap_or(&Obj::Null),
                _ => return o,
            }
        }
        &Obj::Null
    }

    /// `dict[key]`, resolved.
    pub fn get<'d>(&'d self, d: &'d Dict, key: &str) -> &'d Obj {
        d.get(key).map_or(&Obj::Null, |o| self.resolve(o))
    }

    /// The decoded data of a stream (`None` for unsupported filters, and once a limit of
    /// [`Document::meter`] is passed).
    pub fn decode(&self, d: &Dict, raw: &[u8]) -> Option<Vec<u8>> {
        if !self.meter.ok() {
            return None;
        }
        let filters: Vec<&[u8]> = match self.get(d, "Filter") {
            Obj::Name(n) => vec![n],
            Obj::Array(a) => a.iter().filter_map(|f| self.resolve(f).name()).collect(),
            _ => Vec::new(),
        };
        let limits = self.meter.limits;
        let mut data = raw.to_vec();
        if !self.meter.work(data.len() as u64 + filters.len() as u64) {
            return None;
        }
        for f in filters {
            // A stream may not decode to more than its own limit, nor past the total's.
            let max = limits.max_stream_bytes.min(self.meter.bytes_left());
            let too_large = || {
                self.meter.trip(if max < limits.max_stream_bytes {
                    Exceeded::Total(limits.max_total_bytes)
                } else {
                    Exceeded::Stream(limits.max_stream_bytes)
                })
            };
            let decoded = match f {
                b"FlateDecode" | b"Fl" => inflate::zlib(&data, max),
                b"ASCIIHexDecode" | b"AHx" => {
                    Ok(Lexer::new(&[b"<", data.as_slice(), b">"].concat(), 0, 0).hex())
                }
                b"ASCII85Decode" | b"A85" => ascii85(&data, max),
                _ => return None,
            };
            let decoded = match decoded {
                Ok(out) if out.len() <= max => out,
                Ok(_) | Err(Stop::TooLarge) => {
                    too_large();
                    return None;
                }
                Err(Stop::Corrupt) => return None,
            };
            if !self.meter.work((data.len() + decoded.len()) as u64) {
                return None;
            }
            data = decoded;
        }
        if !self.meter.bytes(data.len()) {
            return None;
        }
        Some(data)
    }
}

/// Decodes ASCII85 into at most `max` bytes.
fn ascii85(data: &[u8], max: usize) -> Result<Vec<u8>, Stop> {
    let mut out = Vec::new();
    let mut group = Vec::with_capacity(5);
    let body = data.strip_prefix(b"<~").unwrap_or(data);
    for &c in body {
        if out.len() > max {
            return Err(Stop::TooLarge);
        }
        match c {
            b'~' => break,
            b'z' if group.is_empty() => out.extend_from_slice(&[0; 4]),
            b'!'..=b'u' => {
                group.push(u32::from(c - b'!'));
                if group.len() == 5 {
                    let v = group
                        .iter()
                        .try_fold(0u32, |a, &d| a.checked_mul(85)?.checked_add(d))
                        .ok_or(Stop::Corrupt)?;
                    out.extend_from_slice(&v.to_be_bytes());
                    group.clear();
                }
            }
            _ if is_ws(c) => {}
            _ => return Err(Stop::Corrupt),
        }
    }
    if !group.is_empty() {
        let n = group.len();
        group.resize(5, 84);
        let v = group
            .iter()
            .try_fold(0u32, |a, &d| a.checked_mul(85)?.checked_add(d))
            .ok_or(Stop::Corrupt)?;
        out.extend_from_slice(&v.to_be_bytes()[..n - 1]);
    }
    Ok(out)
}
