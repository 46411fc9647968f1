//! documents (default port 9119): text of PDF files under a base directory, with upstream's
//! path checks (404 missing, 400 escaping or not a PDF) and a summarised audit entry.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::prelude::*;
use crate::services::http::ServiceResponse;
use crate::services::load::{LoadCtx, LoadError, Loaded};
use crate::services::{pdf, py};

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "documents",
    port: 9119,
    fixture: Fixture::Custom(load),
    prepare: None,
    collection: None,
    derive: None,
    lists: &[],
    endpoints: &[Endpoint {
        path: "/documents/extract_text",
        body: REQUIRED,
        fields: &[
            Field::req("path", Ty::Str),
            Field::opt("max_pages", Ty::Int),
        ],
        op: Op::Custom(extract),
    }],
    health: Some(&[("status", "ok")]),
};

/// The canonical base directory.
struct Base(PathBuf);

/// `Path.resolve()` (non-strict): the canonical form of the longest existing prefix, then the
/// remaining components with `.` and `..` applied.
fn resolve(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    let mut base = loop {
        if let Ok(c) = std::fs::canonicalize(existing) {
            break c;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => break PathBuf::from("/"),
        }
    };
    // `file_name` never yields `.`/`..`; re-walk the tail lexically for those.
    let tail: PathBuf = rest.iter().rev().collect();
    for c in tail.components() {
        match c {
            Component::ParentDir => {
                base.pop();
            }
            Component::Normal(n) => base.push(n),
            _ => {}
        }
    }
    base
}

fn load(cx: &LoadCtx<'_>) -> Result<Loaded, LoadError> {
    let dir = match cx.env("DOCUMENTS_BASE_DIR") {
        Some(d) => cx.resolve(d),
        None => cx.root.to_path_buf(),
    };
    Ok(Loaded {
        records: Vec::new(),
        extra: Some(Arc::new(Base(resolve(&dir)))),
    })
}

fn extract(cx: &mut Ctx<'_>, req: &Obj) -> Outcome {
    let given = str_field(req, "path");
    if given.contains('\0') {
        return Outcome::crash();
    }
    let Some(Base(base)) = cx.extra::<Base>() else {
        return Outcome::crash();
    };
    let p = Path::new(given);
    let full = resolve(&if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    });
    if !full.exists() {
        return Outcome::unlogged(ServiceResponse::detail(
            404,
            format!("File not found: {given}"),
        ));
    }
    let Ok(rel) = full.strip_prefix(base) else {
        return Outcome::unlogged(ServiceResponse::detail(
            400,
            format!("Path escapes base directory: {given}"),
        ));
    };
    if !full
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
    {
        return Outcome::unlogged(ServiceResponse::detail(400, "Only PDF files are supported"));
    }
    let Ok(bytes) = std::fs::read(&full) else {
        return Outcome::crash();
    };
    let Ok(pages) = pdf::page_texts(&bytes) else {
        return Outcome::crash();
    };
    let n = pages.len();
    let returned = match req.get("max_pages") {
        Some(Json::Int(m)) if *m != 0 => Json::Int((*m).min(n as i64)),
        Some(Json::BigInt(b)) if b.starts_with('-') => Json::BigInt(b.clone()),
        _ => Json::from(n),
    };
    let keep = py::slice_len(n, &returned);
    let text = pages[..keep].join("\n\n");
    let text = text.trim_matches(py::is_space);
    let rel = rel.to_string_lossy();
    let rel = if rel.is_empty() { ".".into() } else { rel };
    let summary = obj! {
        "path" => &*rel, "page_count" => n, "pages_returned" => returned.clone(), "text_length" => text.chars().count(),
    };
    Outcome::ok_with_summary(
        obj! { "path" => &*rel, "page_count" => n, "pages_returned" => returned, "text" => text },
        Json::Object(summary),
    )
}
