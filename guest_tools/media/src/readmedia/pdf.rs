//! `ReadMedia` on a PDF (`_read_pdf`): the pages rendered as images. Not rendered by this build
//! yet: the answer is the server's own for a PDF it could not render.

use super::{Answer, Args};
use crate::pyjson::Json;

/// The answer for the PDF at `path`.
pub fn answer(_args: &Args, _path: &str) -> Answer {
    let why = "rendering PDF pages is not available in this build";
    Answer {
        body: vec![
            ("media_type".into(), Json::Str("pdf".into())),
            (
                "metadata".into(),
                Json::Object(vec![("error".into(), Json::Str(why.into()))]),
            ),
            ("frames".into(), Json::List(Vec::new())),
            (
                "text_summary".into(),
                Json::Str(format!("PDF render failed: {why}")),
            ),
        ],
        images: Vec::new(),
    }
}
