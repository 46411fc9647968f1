//! ocr (default port 9116): returns the pre-extracted text of a task's document, whatever the
//! image path; logged without a response body.

use std::path::Path;
use std::sync::Arc;

use super::prelude::*;
use crate::load::{FixtureSource, LoadCtx, LoadError, Loaded};

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "ocr",
    prefix: None,
    port: 9116,
    fixture: Fixture::Custom(load),
    prepare: None,
    collection: None,
    derive: None,
    lists: &[],
    endpoints: &[Endpoint {
        path: "/ocr/extract",
        body: REQUIRED,
        fields: &[Field::def("image_path", Ty::Str, Lit::Str(""))],
        op: Op::Custom(extract),
    }],
    health: Some(&[("status", "ok"), ("service", "ocr")]),
};

/// The loaded text.
pub(super) struct Text(pub Arc<str>);

/// Reads a UTF-8 text file with universal newlines.
pub(super) fn read_text(cx: &LoadCtx<'_>, path: &Path, origin: &str) -> Result<String, LoadError> {
    let src = FixtureSource {
        path: path.to_path_buf(),
        origin: origin.to_string(),
    };
    let bytes = cx.read(&src)?;
    let text = String::from_utf8(bytes).map_err(|e| cx.bad(&src, format!("not UTF-8: {e}")))?;
    Ok(if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text
    })
}

fn load(cx: &LoadCtx<'_>) -> Result<Loaded, LoadError> {
    let mut text = None;
    if let Some(dir) = cx.env("OCR_FIXTURES").filter(|d| !d.is_empty()) {
        let ocr_dir = cx.resolve(dir).join("ocr");
        if let Some(list) = cx.env("OCR_FILENAMES").filter(|l| !l.is_empty()) {
            let mut parts = Vec::new();
            for (i, name) in list.split(',').enumerate() {
                let name = name.trim_matches(crate::py::is_space);
                let path = ocr_dir.join(name);
                if !name.is_empty() && cx.is_file(&path) {
                    let body = read_text(cx, &path, "OCR_FILENAMES")?;
                    parts.push(format!("--- Document {}: {name} ---\n{body}", i + 1));
                }
            }
            if !parts.is_empty() {
                text = Some(parts.join("\n\n"));
            }
        }
        if text.is_none() {
            let path = ocr_dir.join(cx.env("OCR_FILENAME").unwrap_or("menu_ocr.txt"));
            if cx.is_file(&path) {
                text = Some(read_text(cx, &path, "OCR_FILENAME")?);
            }
        }
    }
    if text.is_none() {
        let path = cx.resolve("tasks/T072_restaurant_menu_contact/fixtures/ocr/menu_ocr.txt");
        if cx.is_file(&path) {
            text = Some(read_text(cx, &path, "default OCR text")?);
        }
    }
    let text: Arc<str> = text.unwrap_or_default().into();
    Ok(Loaded {
        records: Vec::new(),
        extra: Some(Arc::new(Text(text))),
    })
}

fn extract(cx: &mut Ctx<'_>, _req: &Obj) -> Handled {
    let text = cx
        .extra::<Text>()
        .map_or_else(|| Arc::from(""), |t| t.0.clone());
    Handled::ok_without_response_body(
        obj! { "text" => text, "confidence" => 0.95, "language" => "mixed" },
    )
}
