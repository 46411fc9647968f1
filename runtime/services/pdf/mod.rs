//! The documents service's PDF reader: the `clawrun-pdf` crate (`guest_tools/pdf`), which the
//! `Read` tool also runs inside the sandbox. Text follows pypdf's plain `extract_text()` in
//! spirit (the spec allows whitespace and ordering differences); encrypted files are not
//! supported.

pub use clawrun_pdf::{PdfError, page_texts};
