//! documents (default port 9119): text of PDF files under a base directory, with upstream's
//! path checks (404 missing, 400 escaping or not a PDF) and a summarised audit entry.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::prelude::*;
use crate::http::ServiceResponse;
use crate::load::{FixtureRoot, LoadCtx, LoadError, Loaded};
use crate::{pdf, py};

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "documents",
    prefix: None,
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

/// The base directory PDFs are read from.
enum Base {
    /// An absolute, canonical host folder read with ambient authority (`clawrun services`,
    /// tests), with upstream's path semantics.
    Host(PathBuf, cap_std::AmbientAuthority),
    /// A capability on the folder (trials): paths are relative to it and cannot leave it.
    Dir(Arc<cap_std::fs::Dir>),
    /// No base folder (the configured one cannot be opened): every path is missing.
    Nothing,
}

/// `Path.resolve()` (non-strict) of an absolute path: the canonical form of the longest
/// existing prefix, then the remaining components with `.` and `..` applied.
fn resolve(abs: &Path) -> PathBuf {
    debug_assert!(
        abs.is_absolute(),
        "documents: resolve({abs:?}) needs an absolute path"
    );
    if let Ok(c) = std::fs::canonicalize(abs) {
        return c;
    }
    let mut existing = abs;
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
    let base = match cx.root {
        FixtureRoot::Host(_, authority) => {
            // Absolute: the root is, and a relative variable is joined to it.
            let dir = match cx.env("DOCUMENTS_BASE_DIR") {
                Some(d) => cx.resolve(d),
                None => cx.root_path(),
            };
            Base::Host(resolve(&dir), authority)
        }
        FixtureRoot::Dir(root) => {
            let dir = match cx.env("DOCUMENTS_BASE_DIR").filter(|d| !d.is_empty()) {
                Some(d) => root.open_dir(d),
                None => root.try_clone(),
            };
            match dir {
                Ok(dir) => Base::Dir(Arc::new(dir)),
                Err(_) => Base::Nothing,
            }
        }
    };
    Ok(Loaded {
        records: Vec::new(),
        extra: Some(Arc::new(base)),
    })
}

/// A request refused before reading: its response.
fn refuse(status: u16, message: String) -> Handled {
    Handled::unlogged(ServiceResponse::detail(status, message))
}

/// Whether `name` ends in `.pdf` (any case).
fn is_pdf(name: &Path) -> bool {
    name.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
}

/// Finds and reads `given` under `base` with upstream's checks, in its order: 404 when missing,
/// 400 when outside the base, 400 when not a PDF. Returns the bytes and the path relative to
/// the base.
fn read_pdf(base: &Base, given: &str) -> Result<(Vec<u8>, String), Handled> {
    let shown = excerpt(given);
    let missing = || refuse(404, format!("File not found: {shown}"));
    let escapes = || refuse(400, format!("Path escapes base directory: {shown}"));
    let not_pdf = || refuse(400, "Only PDF files are supported".to_string());
    match base {
        Base::Nothing => Err(missing()),
        Base::Host(base, _) => {
            let p = Path::new(given);
            let full = resolve(&if p.is_absolute() {
                p.to_path_buf()
            } else {
                base.join(p)
            });
            if !full.exists() {
                return Err(missing());
            }
            let rel = full.strip_prefix(base).map_err(|_| escapes())?;
            let rel = rel.to_string_lossy().into_owned();
            if !is_pdf(&full) {
                return Err(not_pdf());
            }
            let size = std::fs::metadata(&full).map_or(0, |m| m.len());
            check_size(size)?;
            let bytes = std::fs::read(&full).map_err(|_| Handled::crash())?;
            Ok((bytes, rel))
        }
        Base::Dir(dir) => {
            // Lexically: `..` above the base or an absolute path leaves it.
            let mut parts: Vec<&str> = Vec::new();
            for c in Path::new(given).components() {
                match c {
                    Component::Normal(n) => parts.push(n.to_str().unwrap_or("")),
                    Component::CurDir => {}
                    Component::ParentDir => {
                        if parts.pop().is_none() {
                            return Err(escapes());
                        }
                    }
                    Component::RootDir | Component::Prefix(_) => return Err(escapes()),
                }
            }
            let rel = parts.join("/");
            let target = if rel.is_empty() { "." } else { rel.as_str() };
            let size = match dir.metadata(target) {
                Ok(m) => m.len(),
                // A symlink leading out of the base is refused by the capability.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(missing()),
                Err(_) => return Err(escapes()),
            };
            if !is_pdf(Path::new(target)) {
                return Err(not_pdf());
            }
            check_size(size)?;
            let bytes = dir.read(target).map_err(|_| Handled::crash())?;
            Ok((bytes, rel))
        }
    }
}

/// Refuses a file larger than the PDF reader accepts, before reading it.
fn check_size(size: u64) -> Result<(), Handled> {
    let limit = pdf::Limits::DEFAULT.max_file_bytes;
    match usize::try_from(size) {
        Ok(bytes) if bytes <= limit => Ok(()),
        _ => Err(refuse(
            400,
            pdf::PdfError::TooLarge(pdf::Exceeded::File {
                bytes: usize::try_from(size).unwrap_or(usize::MAX),
                limit,
            })
            .to_string(),
        )),
    }
}

fn extract(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let given = str_field(req, "path");
    if given.contains('\0') {
        return Handled::crash();
    }
    let Some(base) = cx.extra::<Base>() else {
        return Handled::crash();
    };
    let (bytes, rel) = match read_pdf(base, given) {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    let pages = match pdf::page_texts(&bytes) {
        Ok(pages) => pages,
        // Reading stopped at a limit: say so instead of using unbounded memory or time.
        Err(e @ pdf::PdfError::TooLarge(_)) => return refuse(400, e.to_string()),
        Err(_) => return Handled::crash(),
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
    let rel = if rel.is_empty() { ".".to_string() } else { rel };
    let summary = obj! {
        "path" => &*rel, "page_count" => n, "pages_returned" => returned.clone(), "text_length" => text.chars().count(),
    };
    Handled::ok_with_summary(
        obj! { "path" => &*rel, "page_count" => n, "pages_returned" => returned, "text" => text },
        Json::Object(summary),
    )
}
