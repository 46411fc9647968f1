//! A small PDF reader for the documents service: page tree, stream filters (Flate, ASCIIHex,
//! ASCII85) and text extraction. Text follows pypdf's plain `extract_text()` in spirit (the
//! spec allows whitespace and ordering differences); encrypted files are not supported.

mod inflate;
mod object;
mod text;

use object::{Dict, Document, Obj};

/// Why a PDF could not be read (the service answers a plain-text 500).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PdfError {
    /// Not a PDF or no page tree.
    #[error("not a readable PDF")]
    Unreadable,
    /// The file is encrypted.
    #[error("encrypted PDF")]
    Encrypted,
}

/// The text of each page, in order.
pub fn page_texts(data: &[u8]) -> Result<Vec<String>, PdfError> {
    let doc = Document::parse(data).ok_or(PdfError::Unreadable)?;
    if doc.trailer.get("Encrypt").is_some() {
        return Err(PdfError::Encrypted);
    }
    let root = match doc.get(&doc.trailer, "Root") {
        Obj::Dict(d) => d.clone(),
        _ => return Err(PdfError::Unreadable),
    };
    let Obj::Dict(pages) = doc.get(&root, "Pages") else {
        return Err(PdfError::Unreadable);
    };
    let mut out = Vec::new();
    let mut visited = 0usize;
    collect(&doc, pages, None, &mut out, 0, &mut visited);
    Ok(out)
}

fn collect(
    doc: &Document,
    node: &Dict,
    inherited: Option<&Dict>,
    out: &mut Vec<String>,
    depth: usize,
    visited: &mut usize,
) {
    *visited += 1;
    if depth > 64 || *visited > 100_000 {
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
    let mut content = Vec::new();
    let streams: Vec<&Obj> = match doc.get(node, "Contents") {
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
    let empty = Dict::default();
    out.push(text::page_text(doc, &content, resources.unwrap_or(&empty)));
}
