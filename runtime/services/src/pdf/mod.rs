//! The documents service's PDF reader: the `clawrun-pdf` crate (`guest_tools/pdf`), which the
//! `Read` tool also runs inside the sandbox. Text follows pypdf's plain `extract_text()` in
//! spirit (the spec allows whitespace and ordering differences); encrypted files are not
//! supported. Reading is bounded by [`Limits::DEFAULT`] (file size, decoded bytes per stream and
//! in all, objects, work): a file past a limit is [`PdfError::TooLarge`].

pub use clawrun_pdf::{Exceeded, Limits, PdfError, page_texts};
