//! Text extraction from page content streams: fonts (ToUnicode CMaps, simple encodings with
//! `/Differences`), text-positioning operators, line breaks where the baseline moves and spaces
//! where text jumps forward — an approximation of pypdf's `extract_text()` — and, in the same
//! pass, the placed runs (position, end, size, text) that the layout view is built from.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::limits::{Exceeded, Meter};
use crate::metrics;
use crate::object::{Dict, Document, Lexer, Obj};

/// The most operands a content stream or font map may pile up before an operator (each value,
/// array item and dictionary entry counts one); real files use a handful.
const MAX_OPERANDS: usize = 1 << 16;
/// What one font-map entry is charged as, besides its text: its key and bookkeeping.
const ENTRY_BYTES: usize = 64;

/// The fonts of a file loaded so far, by object number, so each is loaded (and its map
/// decoded) once however many pages and forms use it.
#[derive(Default)]
pub struct Fonts(RefCell<BTreeMap<u32, Rc<Font>>>);

/// How a font's string bytes map to text, and how wide its glyphs are.
pub struct Font {
    cmap: Option<CMap>,
    /// Byte-to-character table for simple fonts.
    simple: [Option<char>; 256],
    composite: bool,
    space_width: f64,
    widths: Widths,
    /// The work of showing one byte (code-space and width table lookups).
    cost: u64,
}

/// Glyph widths in thousandths of the font size.
enum Widths {
    /// A simple font: `/Widths` from `/FirstChar`, else the standard-14 metrics of `/BaseFont`.
    Simple {
        first: u32,
        widths: Vec<f64>,
        standard: Option<&'static [u16; 95]>,
        missing: f64,
    },
    /// A composite font: the descendant's `/W` ranges and `/DW`.
    Composite {
        default: f64,
        ranges: Vec<(u32, u32, f64)>,
        /// Whether the ranges are in order and apart (then looked up by bisection).
        sorted: bool,
    },
}

/// What showing a string did: the summed glyph widths, how many codes, how many of them were
/// the single-byte space (word spacing applies to those).
#[derive(Clone, Copy, Default)]
struct Measure {
    width: f64,
    codes: usize,
    spaces: usize,
}

/// A ToUnicode CMap.
#[derive(Default)]
struct CMap {
    /// Code byte lengths declared by `begincodespacerange`, with their ranges.
    spaces: Vec<(usize, u32, u32)>,
    map: BTreeMap<(usize, u32), String>,
}

const WIN_ANSI_80: [u16; 32] = [
    0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039,
    0x0152, 0, 0x017d, 0, 0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc,
    0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];

fn win_ansi() -> [Option<char>; 256] {
    let mut t = [None; 256];
    for (b, slot) in t.iter_mut().enumerate() {
        *slot = match b {
            0x20..=0x7e | 0xa0..=0xff => char::from_u32(b as u32),
            0x80..=0x9f => char::from_u32(u32::from(WIN_ANSI_80[b - 0x80])).filter(|&c| c != '\0'),
            0x09 | 0x0a | 0x0d => Some(char::from(b as u8)),
            _ => None,
        };
    }
    t
}

/// Unicode for common glyph names (Adobe Glyph List subset).
fn glyph(name: &[u8]) -> Option<String> {
    let name = std::str::from_utf8(name).ok()?;
    let base = name.split('.').next().unwrap_or(name);
    if base.len() == 1 && base.is_ascii() {
        return Some(base.to_string());
    }
    if let Some(hex) = base
        .strip_prefix("uni")
        .filter(|h| h.len() >= 4 && h.len() % 4 == 0)
    {
        let units: Option<Vec<u16>> = hex
            .as_bytes()
            .chunks(4)
            .map(|c| u16::from_str_radix(std::str::from_utf8(c).ok()?, 16).ok())
            .collect();
        return String::from_utf16(&units?).ok();
    }
    if let Some(hex) = base
        .strip_prefix('u')
        .filter(|h| (4..=6).contains(&h.len()))
    {
        return u32::from_str_radix(hex, 16)
            .ok()
            .and_then(char::from_u32)
            .map(String::from);
    }
    if let Some(i) = LATIN1.iter().position(|n| *n == base) {
        return char::from_u32(0xc0 + i as u32).map(String::from);
    }
    const DIGITS: [&str; 10] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    if let Some(d) = DIGITS.iter().position(|d| *d == base) {
        return Some(d.to_string());
    }
    let s = match base {
        "space" | "nbspace" => " ",
        "exclam" => "!",
        "quotedbl" => "\"",
        "numbersign" => "#",
        "dollar" => "$",
        "percent" => "%",
        "ampersand" => "&",
        "quotesingle" => "'",
        "parenleft" => "(",
        "parenright" => ")",
        "asterisk" => "*",
        "plus" => "+",
        "comma" => ",",
        "hyphen" | "minus" => "-",
        "period" => ".",
        "slash" => "/",
        "colon" => ":",
        "semicolon" => ";",
        "less" => "<",
        "equal" => "=",
        "greater" => ">",
        "question" => "?",
        "at" => "@",
        "bracketleft" => "[",
        "backslash" => "\\",
        "bracketright" => "]",
        "asciicircum" => "^",
        "underscore" => "_",
        "grave" => "`",
        "braceleft" => "{",
        "bar" => "|",
        "braceright" => "}",
        "asciitilde" => "~",
        "quoteleft" => "\u{2018}",
        "quoteright" => "\u{2019}",
        "quotedblleft" => "\u{201c}",
        "quotedblright" => "\u{201d}",
        "endash" => "\u{2013}",
        "emdash" => "\u{2014}",
        "bullet" => "\u{2022}",
        "ellipsis" => "\u{2026}",
        "ff" => "\u{fb00}",
        "fi" => "\u{fb01}",
        "fl" => "\u{fb02}",
        "ffi" => "\u{fb03}",
        "ffl" => "\u{fb04}",
        "degree" => "\u{b0}",
        "copyright" => "\u{a9}",
        "registered" => "\u{ae}",
        "trademark" => "\u{2122}",
        "section" => "\u{a7}",
        "paragraph" => "\u{b6}",
        "dagger" => "\u{2020}",
        "daggerdbl" => "\u{2021}",
        "Euro" => "\u{20ac}",
        _ => return None,
    };
    Some(s.to_string())
}

/// Glyph names of U+00C0..U+00FF.
const LATIN1: [&str; 64] = [
    "Agrave",
    "Aacute",
    "Acircumflex",
    "Atilde",
    "Adieresis",
    "Aring",
    "AE",
    "Ccedilla",
    "Egrave",
    "Eacute",
    "Ecircumflex",
    "Edieresis",
    "Igrave",
    "Iacute",
    "Icircumflex",
    "Idieresis",
    "Eth",
    "Ntilde",
    "Ograve",
    "Oacute",
    "Ocircumflex",
    "Otilde",
    "Odieresis",
    "multiply",
    "Oslash",
    "Ugrave",
    "Uacute",
    "Ucircumflex",
    "Udieresis",
    "Yacute",
    "Thorn",
    "germandbls",
    "agrave",
    "aacute",
    "acircumflex",
    "atilde",
    "adieresis",
    "aring",
    "ae",
    "ccedilla",
    "egrave",
    "eacute",
    "ecircumflex",
    "edieresis",
    "igrave",
    "iacute",
    "icircumflex",
    "idieresis",
    "eth",
    "ntilde",
    "ograve",
    "oacute",
    "ocircumflex",
    "otilde",
    "odieresis",
    "divide",
    "oslash",
    "ugrave",
    "uacute",
    "ucircumflex",
    "udieresis",
    "yacute",
    "thorn",
    "ydieresis",
];

fn code_of(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(0u32, |a, &b| a.wrapping_shl(8) | u32::from(b))
}

fn utf16(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|c| {
            if c.len() == 2 {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from(c[0])
            }
        })
        .collect();
    String::from_utf16_lossy(&units)
}

impl CMap {
    /// Maps `code` (of `n` bytes) to `text`, charged to `meter`; `false` once past a limit.
    fn add(&mut self, meter: &Meter, n: usize, code: u32, text: String) -> bool {
        if !meter.work(text.len() as u64 + 1) || !meter.bytes(ENTRY_BYTES + text.len()) {
            return false;
        }
        self.map.insert((n, code), text);
        true
    }

    fn parse(meter: &Meter, data: &[u8]) -> CMap {
        let mut cm = CMap::default();
        let mut lx = Lexer::new(data, 0, MAX_OPERANDS);
        let mut ops: Vec<Obj> = Vec::new();
        'parse: loop {
            let start = lx.pos;
            let o = lx.object();
            if lx.overflow || !meter.work((lx.pos - start) as u64 + 1) {
                break;
            }
            let Some(o) = o else { break };
            match o {
                Obj::Op(op) => {
                    match op.as_slice() {
                        b"endcodespacerange" => {
                            for pair in ops.chunks(2) {
                                if let [Obj::Str(lo), Obj::Str(hi)] = pair {
                                    cm.spaces.push((lo.len(), code_of(lo), code_of(hi)));
                                }
                            }
                        }
                        b"endbfchar" => {
                            for pair in ops.chunks(2) {
                                if let [Obj::Str(src), Obj::Str(dst)] = pair
                                    && !cm.add(meter, src.len(), code_of(src), utf16(dst))
                                {
                                    break 'parse;
                                }
                            }
                        }
                        b"endbfrange" => {
                            for triple in ops.chunks(3) {
                                let [Obj::Str(lo), Obj::Str(hi), dst] = triple else {
                                    continue;
                                };
                                let (n, lo_c, hi_c) = (lo.len(), code_of(lo), code_of(hi));
                                for (k, code) in
                                    (lo_c..=hi_c.min(lo_c.saturating_add(0xffff))).enumerate()
                                {
                                    let s = match dst {
                                        Obj::Str(d) if !d.is_empty() => {
                                            let mut d = d.clone();
                                            let last = d.len() - 1;
                                            let v = u32::from(d[last]) + k as u32;
                                            d[last] = v as u8;
                                            if v > 0xff && last > 0 {
                                                d[last - 1] =
                                                    d[last - 1].wrapping_add((v >> 8) as u8);
                                            }
                                            utf16(&d)
                                        }
                                        Obj::Array(a) => match a.get(k) {
                                            Some(Obj::Str(d)) => utf16(d),
                                            _ => continue,
                                        },
                                        _ => continue,
                                    };
                                    if !cm.add(meter, n, code, s) {
                                        break 'parse;
                                    }
                                }
                            }
                        }
                        _ => {}
                    }
                    ops.clear();
                    lx.nodes = 0;
                }
                other => ops.push(other),
            }
        }
        if lx.overflow {
            meter.trip(Exceeded::Operands(MAX_OPERANDS));
        }
        cm.spaces.sort_by_key(|s| s.0);
        cm
    }
}

impl Font {
    fn load(doc: &Document, d: &Dict) -> Font {
        let composite = doc.get(d, "Subtype").name() == Some(b"Type0");
        let cmap = match doc.get(d, "ToUnicode") {
            Obj::Stream(sd, raw) => doc
                .decode(sd, raw)
                .map(|data| CMap::parse(&doc.meter, &data)),
            _ => None,
        };
        let mut simple = win_ansi();
        if let Obj::Dict(enc) = doc.get(d, "Encoding") {
            let mut code = 0usize;
            if let Obj::Array(diffs) = doc.get(enc, "Differences") {
                doc.meter.work(diffs.len() as u64);
                for item in diffs {
                    match doc.resolve(item) {
                        Obj::Num(n) => code = *n as usize,
                        Obj::Name(name) => {
                            if code < 256 {
                                simple[code] = glyph(name).and_then(|s| {
                                    (s.chars().count() == 1).then(|| s.chars().next()).flatten()
                                });
                            }
                            code += 1;
                        }
                        _ => {}
                    }
                }
            }
        }
        let first = doc.get(d, "FirstChar").num().unwrap_or(0.0);
        let space_width = match doc.get(d, "Widths") {
            Obj::Array(w) if first <= 32.0 => w
                .get((32.0 - first) as usize)
                .and_then(|o| doc.resolve(o).num())
                .unwrap_or(250.0),
            _ => 250.0,
        };
        let widths = Widths::load(doc, d, composite);
        let cost = 1
            + cmap.as_ref().map_or(0, |c| c.spaces.len() as u64)
            + match &widths {
                Widths::Composite {
                    ranges,
                    sorted: false,
                    ..
                } => ranges.len() as u64,
                Widths::Composite { ranges, .. } => {
                    u64::from(usize::BITS - ranges.len().leading_zeros())
                }
                Widths::Simple { .. } => 0,
            };
        Font {
            cmap,
            simple,
            composite,
            space_width: if space_width > 0.0 {
                space_width
            } else {
                250.0
            },
            widths,
            cost,
        }
    }

    /// Charges showing `bytes` to `meter`, and the `text` they made; `false` once past a limit.
    fn charge(&self, meter: &Meter, bytes: &[u8], text: &str) -> bool {
        meter.work((bytes.len() as u64 + 1).saturating_mul(self.cost)) && meter.bytes(text.len())
    }

    /// Appends the text of `bytes` to `out` and measures it.
    fn decode(&self, bytes: &[u8], out: &mut String) -> Measure {
        let mut m = Measure::default();
        let Some(cm) = &self.cmap else {
            if self.composite {
                for chunk in bytes.chunks(2) {
                    m.add(self.widths.of(code_of(chunk), None), false);
                }
                return m;
            }
            for &b in bytes {
                let c = self.simple[usize::from(b)];
                out.extend(c);
                m.add(self.widths.of(u32::from(b), c), b == b' ');
            }
            return m;
        };
        let mut i = 0;
        while i < bytes.len() {
            let mut n = if self.composite { 2 } else { 1 };
            for &(len, lo, hi) in &cm.spaces {
                if let Some(chunk) = bytes.get(i..i + len)
                    && (lo..=hi).contains(&code_of(chunk))
                {
                    n = len;
                    break;
                }
            }
            let chunk = &bytes[i..(i + n).min(bytes.len())];
            let code = code_of(chunk);
            let mut shown = None;
            match cm.map.get(&(chunk.len(), code)) {
                Some(s) => {
                    out.push_str(s);
                    shown = s.chars().next();
                }
                None if !self.composite && chunk.len() == 1 => {
                    shown = self.simple[usize::from(chunk[0])];
                    out.extend(shown);
                }
                None => {}
            }
            m.add(self.widths.of(code, shown), chunk == b" ");
            i += n;
        }
        m
    }
}

impl Measure {
    fn add(&mut self, width: f64, space: bool) {
        self.width += width;
        self.codes += 1;
        self.spaces += usize::from(space);
    }
}

impl Widths {
    fn load(doc: &Document, d: &Dict, composite: bool) -> Widths {
        if composite {
            let desc = match doc.get(d, "DescendantFonts") {
                Obj::Array(a) => a.first().map(|o| doc.resolve(o)),
                _ => None,
            };
            let Some(Obj::Dict(desc)) = desc else {
                return Widths::Composite {
                    default: 1000.0,
                    ranges: Vec::new(),
                    sorted: true,
                };
            };
            let default = doc.get(desc, "DW").num().unwrap_or(1000.0);
            let mut ranges = Vec::new();
            if let Obj::Array(w) = doc.get(desc, "W") {
                doc.meter.work(w.len() as u64);
                let items: Vec<&Obj> = w.iter().map(|o| doc.resolve(o)).collect();
                let mut i = 0;
                while i < items.len() {
                    match (items[i].num(), items.get(i + 1), items.get(i + 2)) {
                        (Some(c), Some(Obj::Array(ws)), _) => {
                            doc.meter.work(ws.len() as u64);
                            for (k, w) in ws.iter().enumerate() {
                                if let Some(w) = doc.resolve(w).num() {
                                    let code = c as u32 + k as u32;
                                    ranges.push((code, code, w));
                                }
                            }
                            i += 2;
                        }
                        (Some(lo), Some(Obj::Num(hi)), Some(Obj::Num(w))) => {
                            ranges.push((lo as u32, *hi as u32, *w));
                            i += 3;
                        }
                        _ => i += 1,
                    }
                }
            }
            let sorted =
                ranges.iter().all(|r| r.0 <= r.1) && ranges.windows(2).all(|p| p[0].1 < p[1].0);
            return Widths::Composite {
                default,
                ranges,
                sorted,
            };
        }
        let first = doc.get(d, "FirstChar").num().unwrap_or(0.0).max(0.0) as u32;
        let widths = match doc.get(d, "Widths") {
            Obj::Array(w) if doc.meter.work(w.len() as u64) => w
                .iter()
                .map(|o| doc.resolve(o).num().unwrap_or(0.0))
                .collect(),
            _ => Vec::new(),
        };
        let missing = match doc.get(d, "FontDescriptor") {
            Obj::Dict(fd) => doc.get(fd, "MissingWidth").num(),
            _ => None,
        };
        let base = doc.get(d, "BaseFont").name().unwrap_or_default();
        let standard = metrics::standard(base);
        Widths::Simple {
            first,
            widths,
            standard,
            missing: missing.filter(|w| *w > 0.0).unwrap_or(match standard {
                Some(m) => f64::from(m[0]) * 2.0,
                None => 500.0,
            }),
        }
    }

    /// The width of `code` (shown as `shown`), in thousandths of the font size.
    fn of(&self, code: u32, shown: Option<char>) -> f64 {
        match self {
            Widths::Simple {
                first,
                widths,
                standard,
                missing,
            } => {
                if let Some(w) = code
                    .checked_sub(*first)
                    .and_then(|i| widths.get(i as usize))
                    .filter(|w| **w > 0.0)
                {
                    return *w;
                }
                match (standard, shown) {
                    (Some(m), Some(c @ ' '..='~')) => f64::from(m[c as usize - 32]),
                    _ => *missing,
                }
            }
            Widths::Composite {
                default,
                ranges,
                sorted: true,
            } => {
                let i = ranges.partition_point(|r| r.1 < code);
                ranges
                    .get(i)
                    .filter(|r| r.0 <= code)
                    .map_or(*default, |r| r.2)
            }
            Widths::Composite {
                default, ranges, ..
            } => ranges
                .iter()
                .find(|(lo, hi, _)| (*lo..=*hi).contains(&code))
                .map_or(*default, |r| r.2),
        }
    }
}

type Matrix = [f64; 6];

fn mul(m: &Matrix, n: &Matrix) -> Matrix {
    [
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    ]
}

const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// The text stream order output (pypdf-like) of one page.
struct Writer {
    out: String,
    last: Option<(f64, f64)>,
}

impl Writer {
    /// The text position moved: a new baseline ends the line at once (as pypdf does).
    fn moved(&mut self, pos: (f64, f64)) {
        if let Some((_, ly)) = self.last
            && !self.out.is_empty()
            && (pos.1 - ly).abs() > 0.5
        {
            if !self.out.ends_with('\n') {
                self.out.push('\n');
            }
            self.last = Some(pos);
        }
    }

    fn show(&mut self, pos: (f64, f64), text: &str) {
        if text.is_empty() {
            return;
        }
        self.moved(pos);
        if let Some((lx, ly)) = self.last
            && !self.out.is_empty()
            && (pos.1 - ly).abs() <= 0.5
            && pos.0 > lx + 0.5
            && !self.out.ends_with([' ', '\n'])
            && !text.starts_with(' ')
        {
            self.out.push(' ');
        }
        self.out.push_str(text);
        self.last = Some(pos);
    }

    fn space(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
    }
}

/// A piece of text placed on the page, in default user space (points, y up).
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Where its first glyph starts.
    pub x: f64,
    /// Its baseline.
    pub y: f64,
    /// Where its last glyph ends.
    pub end_x: f64,
    /// The font size as drawn (text and page scaling applied).
    pub size: f64,
    /// The text.
    pub text: String,
}

/// The text state that positions runs (the pypdf-like writer keeps its own, simpler one).
#[derive(Clone, Copy)]
struct TextState {
    ctm: Matrix,
    size: f64,
    char_spacing: f64,
    word_spacing: f64,
    scale: f64,
    leading: f64,
}

/// Form XObjects nested deeper than this are not entered.
const MAX_FORM_DEPTH: usize = 8;
/// At most this many form XObjects are entered per page.
const MAX_FORMS: usize = 1000;

/// Extracts one page's content: the pypdf-like text (`resources` is the page's resource
/// dictionary) and the placed runs, which include the text of form XObjects.
/// Fonts come from `fonts` (and are loaded into it); all work is charged to `doc.meter`, and
/// interpretation stops when a limit is passed.
pub fn page_content(
    doc: &Document,
    fonts: &Fonts,
    content: &[u8],
    resources: &Dict,
) -> (String, Vec<Run>) {
    let mut w = Writer {
        out: String::new(),
        last: None,
    };
    let mut interp = Interp {
        doc,
        fonts,
        runs: Vec::new(),
        forms: 0,
    };
    interp.run(content, resources, IDENTITY, 0, &mut w);
    (w.out, interp.runs)
}

/// Graphics states saved (`q`) deeper than this are not kept (real files nest a few dozen).
const MAX_SAVED_STATES: usize = 1024;
/// What a placed run is charged as, besides its text.
const RUN_BYTES: usize = 64;

struct Interp<'d> {
    doc: &'d Document,
    fonts: &'d Fonts,
    runs: Vec<Run>,
    forms: usize,
}

impl Fonts {
    /// The font of dictionary `f` (a reference, loaded once, or a direct dictionary).
    fn get(&self, doc: &Document, f: &Obj) -> Option<Rc<Font>> {
        let Obj::Dict(d) = doc.resolve(f) else {
            return None;
        };
        let Obj::Ref(n) = f else {
            return Some(Rc::new(Font::load(doc, d)));
        };
        if let Some(font) = self.0.borrow().get(n) {
            return Some(font.clone());
        }
        let font = Rc::new(Font::load(doc, d));
        self.0.borrow_mut().insert(*n, font.clone());
        Some(font)
    }
}

impl Interp<'_> {
    /// Interprets `content` with `resources` from the graphics matrix `ctm0`; the pypdf-like
    /// text goes to `w`, placed runs to `self.runs`.
    fn run(
        &mut self,
        content: &[u8],
        resources: &Dict,
        ctm0: Matrix,
        depth: usize,
        w: &mut Writer,
    ) {
        let doc = self.doc;
        let meter = &doc.meter;
        let fonts: BTreeMap<Vec<u8>, Rc<Font>> = match doc.get(resources, "Font") {
            Obj::Dict(fd) if meter.work(fd.0.len() as u64) => {
                fd.0.iter()
                    .filter_map(|(name, f)| Some((name.clone(), self.fonts.get(doc, f)?)))
                    .collect()
            }
            _ => BTreeMap::new(),
        };
        // The pypdf-like writer's state.
        let mut ctm = ctm0;
        let mut stack: Vec<Matrix> = Vec::new();
        let (mut tm, mut tlm) = (IDENTITY, IDENTITY);
        let mut leading = 0.0;
        let mut font: Option<&Font> = None;
        // The placed runs' state: the text matrix advanced by every glyph shown.
        let mut ts = TextState {
            ctm: ctm0,
            size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            scale: 1.0,
            leading: 0.0,
        };
        let mut tfont: Option<&Font> = None;
        let mut gstack: Vec<(TextState, Option<&Font>)> = Vec::new();
        let mut ttm = IDENTITY;

        let mut operands: Vec<Obj> = Vec::new();
        let mut lx = Lexer::new(content, 0, MAX_OPERANDS);
        let num = |o: &[Obj], i: usize| o.get(i).and_then(Obj::num).unwrap_or(0.0);
        let mut charged = 0;
        while lx.pos < content.len() {
            // Everything since the last charge: the object lexed, and what the last operator
            // skipped (inline images).
            if !meter.work((lx.pos - charged) as u64 + 1) {
                return;
            }
            charged = lx.pos;
            let o = lx.object();
            if lx.overflow {
                meter.trip(Exceeded::Operands(MAX_OPERANDS));
                return;
            }
            let Some(o) = o else {
                lx.pos += 1;
                continue;
            };
            let Obj::Op(op) = o else {
                operands.push(o);
                continue;
            };
            lx.nodes = 0;
            let device = |tm: &Matrix, ctm: &Matrix| {
                let m = mul(tm, ctm);
                (m[4], m[5])
            };
            let next_line = |tm: &mut Matrix, tlm: &mut Matrix, tx: f64, ty: f64| {
                *tlm = mul(&[1.0, 0.0, 0.0, 1.0, tx, ty], tlm);
                *tm = *tlm;
            };
            match op.as_slice() {
                b"q" if stack.len() < MAX_SAVED_STATES => {
                    stack.push(ctm);
                    gstack.push((ts, tfont));
                }
                b"Q" => {
                    ctm = stack.pop().unwrap_or(IDENTITY);
                    if let Some((saved, f)) = gstack.pop() {
                        ts = saved;
                        tfont = f;
                    }
                }
                b"cm" if operands.len() >= 6 => {
                    let m = [
                        num(&operands, 0),
                        num(&operands, 1),
                        num(&operands, 2),
                        num(&operands, 3),
                        num(&operands, 4),
                        num(&operands, 5),
                    ];
                    ctm = mul(&m, &ctm);
                    ts.ctm = mul(&m, &ts.ctm);
                }
                b"BT" => {
                    tm = IDENTITY;
                    tlm = IDENTITY;
                    ttm = IDENTITY;
                }
                b"Tf" => {
                    font = operands
                        .first()
                        .and_then(Obj::name)
                        .and_then(|n| fonts.get(n))
                        .map(|f| &**f);
                    tfont = font;
                    ts.size = num(&operands, 1);
                }
                b"TL" => {
                    leading = num(&operands, 0);
                    ts.leading = leading;
                }
                b"Tc" => ts.char_spacing = num(&operands, 0),
                b"Tw" => ts.word_spacing = num(&operands, 0),
                b"Tz" => ts.scale = num(&operands, 0) / 100.0,
                b"Td" => {
                    next_line(&mut tm, &mut tlm, num(&operands, 0), num(&operands, 1));
                    ttm = tm;
                    w.moved(device(&tm, &ctm));
                }
                b"TD" => {
                    leading = -num(&operands, 1);
                    ts.leading = leading;
                    next_line(&mut tm, &mut tlm, num(&operands, 0), num(&operands, 1));
                    ttm = tm;
                    w.moved(device(&tm, &ctm));
                }
                b"Tm" if operands.len() >= 6 => {
                    tlm = [
                        num(&operands, 0),
                        num(&operands, 1),
                        num(&operands, 2),
                        num(&operands, 3),
                        num(&operands, 4),
                        num(&operands, 5),
                    ];
                    tm = tlm;
                    ttm = tm;
                    w.moved(device(&tm, &ctm));
                }
                b"T*" => {
                    next_line(&mut tm, &mut tlm, 0.0, -leading);
                    ttm = tm;
                    w.moved(device(&tm, &ctm));
                }
                b"Tj" | b"'" | b"\"" => {
                    if op != b"Tj" {
                        next_line(&mut tm, &mut tlm, 0.0, -leading);
                        ttm = tm;
                    }
                    if op == b"\"" {
                        ts.word_spacing = num(&operands, 0);
                        ts.char_spacing = num(&operands, 1);
                    }
                    if let Some(Obj::Str(s)) = operands.last() {
                        if let Some(f) = font {
                            let mut t = String::new();
                            f.decode(s, &mut t);
                            if !f.charge(meter, s, &t) {
                                return;
                            }
                            w.show(device(&tm, &ctm), &t);
                        }
                        if let Some(f) = tfont {
                            self.place(f, s, &ts, &mut ttm);
                        }
                    }
                }
                b"TJ" => {
                    if let (Some(f), Some(Obj::Array(items))) = (font, operands.last()) {
                        let pos = device(&tm, &ctm);
                        let mut first = true;
                        for item in items {
                            match item {
                                Obj::Str(s) => {
                                    let mut t = String::new();
                                    f.decode(s, &mut t);
                                    if !f.charge(meter, s, &t) {
                                        return;
                                    }
                                    if first {
                                        w.show(pos, &t);
                                        first = t.is_empty();
                                    } else {
                                        w.out.push_str(&t);
                                    }
                                }
                                Obj::Num(n) if -n > f.space_width * 0.5 && !first => w.space(),
                                _ => {}
                            }
                        }
                    }
                    if let (Some(f), Some(Obj::Array(items))) = (tfont, operands.last()) {
                        for item in items {
                            match item {
                                Obj::Str(s) => self.place(f, s, &ts, &mut ttm),
                                Obj::Num(n) => {
                                    let tx = -n / 1000.0 * ts.size * ts.scale;
                                    ttm = mul(&[1.0, 0.0, 0.0, 1.0, tx, 0.0], &ttm);
                                }
                                _ => {}
                            }
                        }
                    }
                }
                b"Do" if depth < MAX_FORM_DEPTH && self.forms < MAX_FORMS => {
                    if let Some(name) = operands.first().and_then(Obj::name) {
                        self.form(name, resources, &ts.ctm, depth);
                    }
                }
                b"BI" => {
                    // Inline image: skip to `EI`.
                    while let Some(p) = content
                        .get(lx.pos..)
                        .and_then(|r| r.windows(2).position(|x| x == b"EI"))
                    {
                        let at = lx.pos + p;
                        lx.pos = at + 2;
                        let before =
                            at == 0 || matches!(content[at - 1], b' ' | b'\n' | b'\r' | b'\t');
                        let after = content
                            .get(at + 2)
                            .is_none_or(|&c| matches!(c, b' ' | b'\n' | b'\r' | b'\t'));
                        if before && after {
                            break;
                        }
                    }
                }
                _ => {}
            }
            operands.clear();
        }
    }

    /// Shows string `s` in font `f` at the text matrix `ttm` as a run, and advances `ttm`.
    fn place(&mut self, f: &Font, s: &[u8], ts: &TextState, ttm: &mut Matrix) {
        let mut text = String::new();
        let m = f.decode(s, &mut text);
        if !f.charge(&self.doc.meter, s, &text) || !self.doc.meter.bytes(RUN_BYTES) {
            return;
        }
        let start = mul(ttm, &ts.ctm);
        let tx = (m.width / 1000.0 * ts.size
            + ts.char_spacing * m.codes as f64
            + ts.word_spacing * m.spaces as f64)
            * ts.scale;
        *ttm = mul(&[1.0, 0.0, 0.0, 1.0, tx, 0.0], ttm);
        let end = mul(ttm, &ts.ctm);
        let size = ts.size.abs() * start[2].hypot(start[3]);
        if text.is_empty() || !(start[4].is_finite() && start[5].is_finite() && end[4].is_finite())
        {
            return;
        }
        self.runs.push(Run {
            x: start[4],
            y: start[5],
            end_x: end[4],
            size: if size.is_finite() { size } else { 0.0 },
            text,
        });
    }

    /// Enters the form XObject `name` of `resources`, drawn with the graphics matrix `ctm`.
    fn form(&mut self, name: &[u8], resources: &Dict, ctm: &Matrix, depth: usize) {
        let doc = self.doc;
        let Obj::Dict(xobjects) = doc.get(resources, "XObject") else {
            return;
        };
        // The lookup below is linear, and `Do` can repeat without end.
        if !doc.meter.work(xobjects.0.len() as u64) {
            return;
        }
        let Some(Obj::Stream(d, raw)) = xobjects
            .0
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, o)| doc.resolve(o))
        else {
            return;
        };
        if doc.get(d, "Subtype").name() != Some(b"Form") {
            return;
        }
        let Some(data) = doc.decode(d, raw) else {
            return;
        };
        self.forms += 1;
        let matrix = match doc.get(d, "Matrix") {
            Obj::Array(a) if a.len() == 6 => {
                let v: Vec<f64> = a
                    .iter()
                    .map(|o| doc.resolve(o).num().unwrap_or(0.0))
                    .collect();
                [v[0], v[1], v[2], v[3], v[4], v[5]]
            }
            _ => IDENTITY,
        };
        let own = match doc.get(d, "Resources") {
            Obj::Dict(r) => r,
            _ => resources,
        };
        let mut scratch = Writer {
            out: String::new(),
            last: None,
        };
        self.run(&data, own, mul(&matrix, ctm), depth + 1, &mut scratch);
    }
}
