//! A small PDF reader: the page tree, stream filters (Flate, ASCIIHex,
//! ASCII85), fonts (ToUnicode CMaps, simple encodings with `/Differences`, glyph widths) and
//! text extraction in two forms:
//!
//! - [`Pdf::page_text`] / [`page_texts`]: the text in content-stream order, following pypdf's
//!   plain `extract_text()` in spirit (the documents service answers with this);
//! - [`Pdf::page_layout`]: the text laid out as on the page — lines top to bottom, text left to
//!   right, columns kept apart by runs of spaces, so tables come out as aligned text lines (the
//!   `Read` tool shows this).
//!
//! Encrypted files are not supported. The crate builds for the host and for `wasm32-wasip2`
//! (the `Read` tool runs it inside the sandbox).
//!
//! Reading is bounded ([`Limits`]): file size, bytes per decoded stream and in all (a
//! decompression bomb stops at the limit), objects, and steps of work. A file past a limit is
//! [`PdfError::TooLarge`] ("PDF too large to extract: ..."), never unbounded memory or time.

#![warn(missing_docs)]

mod inflate;
mod layout;
mod limits;
mod metrics;
mod object;
mod text;

use std::fmt;

pub use limits::{Exceeded, Limits};
use object::{Dict, Document, Obj};
use text::Fonts;
pub use text::Run;

/// Why a PDF could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PdfError {
    /// Not a PDF or no page tree.
    Unreadable,
    /// The file is encrypted.
    Encrypted,
    /// Reading the file would pass one of its [`Limits`].
    TooLarge(Exceeded),
}

impl fmt::Display for PdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PdfError::Unreadable => f.write_str("not a readable PDF"),
            PdfError::Encrypted => f.write_str("encrypted PDF"),
            PdfError::TooLarge(limit) => write!(f, "PDF too large to extract: {limit}"),
        }
    }
}

impl std::error::Error for PdfError {}

/// Whether `data` starts like a PDF file (`%PDF-` within the first 1024 bytes).
pub fn is_pdf(data: &[u8]) -> bool {
    data.windows(5).take(1025).any(|w| w == b"%PDF-")
}

/// The text of each page, in order, in content-stream order (pypdf-like), within the default
/// [`Limits`].
pub fn page_texts(data: &[u8]) -> Result<Vec<String>, PdfError> {
    page_texts_with(data, Limits::DEFAULT)
}

/// [`page_texts`] within `limits`.
pub fn page_texts_with(data: &[u8], limits: Limits) -> Result<Vec<String>, PdfError> {
    let pdf = Pdf::parse_with(data, limits)?;
    let mut texts = Vec::with_capacity(pdf.page_count());
    for i in 0..pdf.page_count() {
        texts.push(pdf.page_text(i).unwrap_or_default());
        if let Some(e) = pdf.limit_hit() {
            return Err(e);
        }
    }
    Ok(texts)
}

/// A parsed PDF file: its objects and its pages in order.
pub struct Pdf {
    doc: Document,
    pages: Vec<Page>,
    fonts: Fonts,
}

/// A page node and the resources it uses (its own or inherited).
struct Page {
    node: Dict,
    resources: Dict,
}

impl Pdf {
    /// Parses `data` and walks its page tree, within the default [`Limits`].
    pub fn parse(data: &[u8]) -> Result<Pdf, PdfError> {
        Self::parse_with(data, Limits::DEFAULT)
    }

    /// Parses `data` and walks its page tree; reading it (pages included) stays within
    /// `limits`.
    pub fn parse_with(data: &[u8], limits: Limits) -> Result<Pdf, PdfError> {
        let doc = Document::parse(data, limits)?;
        if doc.trailer.get("Encrypt").is_some() {
            return Err(PdfError::Encrypted);
        }
        let root = match doc.get(&doc.trailer, "Root") {
            Obj::Dict(d) => d.clone(),
            _ => return Err(PdfError::Unreadable),
        };
        let Obj::Dict(tree) = doc.get(&root, "Pages") else {
            return Err(PdfError::Unreadable);
        };
        let mut pages = Vec::new();
        let mut visited = 0usize;
        collect(&doc, tree, None, &mut pages, 0, &mut visited);
        let pdf = Pdf {
            doc,
            pages,
            fonts: Fonts::default(),
        };
        match pdf.limit_hit() {
            Some(e) => Err(e),
            None => Ok(pdf),
        }
    }

    /// The limit reading this file has passed, if any. Once one is passed, pages read
    /// afterwards (and the one being read) come out incomplete or empty.
    pub fn limit_hit(&self) -> Option<PdfError> {
        self.doc.meter.hit().map(PdfError::TooLarge)
    }

    /// How many pages the file has.
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// The text of page `index` (from 0) in content-stream order, pypdf-like.
    pub fn page_text(&self, index: usize) -> Option<String> {
        Some(self.content(index)?.0)
    }

    /// The text of page `index` (from 0) laid out as on the page: lines top to bottom, columns
    /// apart; lines carry no trailing spaces, one blank line marks a wide vertical gap.
    pub fn page_layout(&self, index: usize) -> Option<String> {
        Some(layout::render(&self.page_runs(index)?))
    }

    /// The placed text runs of page `index` (from 0), form XObjects included.
    pub fn page_runs(&self, index: usize) -> Option<Vec<Run>> {
        Some(self.content(index)?.1)
    }

    fn content(&self, index: usize) -> Option<(String, Vec<Run>)> {
        let page = self.pages.get(index)?;
        let doc = &self.doc;
        if !doc.meter.ok() {
            return Some((String::new(), Vec::new()));
        }
        let mut content = Vec::new();
        let streams: Vec<&Obj> = match doc.get(&page.node, "Contents") {
            Obj::Array(a) => a.iter().map(|o| doc.resolve(o)).collect(),
            other => vec![other],
        };
        for s in streams {
            if let Obj::Stream(d, raw) = s
                && let Some(data) = doc.decode(d, raw)
            {
                content.extend_from_slice(&data);
                content.push(b'\n');
            }
        }
        Some(text::page_content(
            doc,
            &self.fonts,
            &content,
            &page.resources,
        ))
    }
}

fn collect(
    doc: &Document,
    node: &Dict,
    inherited: Option<&Dict>,
    out: &mut Vec<Page>,
    depth: usize,
    visited: &mut usize,
) {
    *visited += 1;
    if depth > 64 || *visited > 100_000 || !doc.meter.work(1) {
        return;
    }
    let resources = match doc.get(node, "Resources") {
        Obj::Dict(d) => Some(d),
        _ => inherited,
    };
    if let Obj::Array(kids) = doc.get(node, "Kids")
        && doc.get(node, "Type").name() != Some(b"Page")
    {
        for k in kids {
            if let Obj::Dict(kid) = doc.resolve(k) {
                collect(doc, kid, resources, out, depth + 1, visited);
            }
        }
        return;
    }
    // Each page keeps its own copy of its dictionaries: charged as objects held.
    let copied = object::dict_size(node) + resources.map_or(0, object::dict_size);
    if !doc.meter.objects(copied) || !doc.meter.work(copied as u64) {
        return;
    }
    out.push(Page {
        node: node.clone(),
        resources: resources.cloned().unwrap_or_default(),
    });
}
