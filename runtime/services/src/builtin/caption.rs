//! caption (default port 9118): returns a task's fixed caption, whatever the image path; logged
//! without a response body.

use std::sync::Arc;

use super::ocr::{Text, read_text};
use super::prelude::*;
use crate::load::{LoadCtx, LoadError, Loaded};

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "caption",
    prefix: None,
    port: 9118,
    fixture: Fixture::Custom(load),
    prepare: None,
    collection: None,
    derive: None,
    lists: &[],
    endpoints: &[Endpoint {
        path: "/caption/describe",
        body: REQUIRED,
        fields: &[Field::def("image_path", Ty::Str, Lit::Str(""))],
        op: Op::Custom(describe),
    }],
    health: Some(&[("status", "ok"), ("service", "caption")]),
};

fn load(cx: &LoadCtx<'_>) -> Result<Loaded, LoadError> {
    let mut text = String::new();
    if let Some(dir) = cx.env("CAPTION_FIXTURES").filter(|d| !d.is_empty()) {
        let path = cx.resolve(dir).join("caption.txt");
        if cx.is_file(&path) {
            text = read_text(cx, &path, "CAPTION_FIXTURES")?;
        }
    }
    Ok(Loaded {
        records: Vec::new(),
        extra: Some(Arc::new(Text(text.into()))),
    })
}

fn describe(cx: &mut Ctx<'_>, _req: &Obj) -> Handled {
    let text = cx
        .extra::<Text>()
        .map_or_else(|| Arc::from(""), |t| t.0.clone());
    Handled::ok_without_response_body(obj! { "caption" => text, "confidence" => 0.92 })
}
