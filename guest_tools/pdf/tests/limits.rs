//! Hostile PDFs stop at a limit with "PDF too large to extract: ..." instead of taking
//! unbounded memory or time; ordinary ones are untouched.

mod bomb;

use bomb::{flate_bomb, pdf, shared_content, stream};
use clawrun_pdf::{Exceeded, Limits, Pdf, PdfError, page_texts, page_texts_with};

const MIB: usize = 1 << 20;

/// Small limits, so the tests build small files.
fn small() -> Limits {
    Limits {
        max_file_bytes: 4 * MIB,
        max_stream_bytes: MIB,
        max_total_bytes: 4 * MIB,
        max_objects: 10_000,
        max_work: 20_000_000,
    }
}

fn too_large(r: Result<Vec<String>, PdfError>) -> Exceeded {
    match r {
        Err(PdfError::TooLarge(e)) => e,
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

#[test]
fn the_bomb_builder_makes_readable_pdfs() {
    // The same generator below the limits: the text comes out.
    assert_eq!(page_texts(&flate_bomb(1000)).unwrap(), vec!["Hello"]);
    assert_eq!(
        page_texts_with(&shared_content(3, 100_000), small()).unwrap(),
        vec!["Hello"; 3]
    );
}

#[test]
fn a_flate_bomb_stops_at_the_stream_limit() {
    // 40 MiB of zeros from a ~250 KB file, under the default limits (32 MiB a stream).
    let data = flate_bomb(40 * MIB);
    assert!(data.len() < 300_000, "{}", data.len());
    let err = page_texts(&data).unwrap_err();
    assert_eq!(err, PdfError::TooLarge(Exceeded::Stream(32 * MIB)));
    assert_eq!(
        err.to_string(),
        "PDF too large to extract: a stream decompresses to more than 32 MiB"
    );
    // With smaller limits, a smaller bomb.
    assert_eq!(
        too_large(page_texts_with(&flate_bomb(2 * MIB), small())),
        Exceeded::Stream(MIB)
    );
    // `Pdf` says which limit stopped a page.
    let pdf = Pdf::parse_with(&flate_bomb(2 * MIB), small()).unwrap();
    assert_eq!(pdf.page_text(0).as_deref(), Some(""));
    assert_eq!(
        pdf.limit_hit(),
        Some(PdfError::TooLarge(Exceeded::Stream(MIB)))
    );
}

#[test]
fn streams_decoded_again_and_again_stop_at_the_total_limit() {
    // One 768 KiB stream (under the stream limit) drawn by 8 pages: 6 MiB decoded in all.
    let data = shared_content(8, 768 << 10);
    assert_eq!(
        too_large(page_texts_with(&data, small())),
        Exceeded::Total(4 * MIB)
    );
    // Nested filters multiply: each stage is held to the stream limit.
    let inner = bomb::zlib_with_zeros(b"", 4 * MIB);
    let outer = bomb::zlib_with_zeros(&inner, 0);
    let doc = pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>".to_vec(),
        stream("/Filter [/FlateDecode /FlateDecode]", &outer),
    ]);
    assert_eq!(
        too_large(page_texts_with(&doc, small())),
        Exceeded::Stream(MIB)
    );
}

#[test]
fn a_font_map_range_bomb_stops_at_the_total_limit() {
    // Each `bfrange` line maps 65,536 four-byte codes: 64 lines, 4 million map entries.
    let mut cmap = String::from("begincmap\n64 beginbfrange\n");
    for hi in 0..64 {
        cmap.push_str(&format!("<{hi:04x}0000> <{hi:04x}ffff> <0041>\n"));
    }
    cmap.push_str("endbfrange\nendcmap\n");
    let doc = pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_vec(),
        stream("", b"BT /F1 12 Tf (A) Tj ET"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>".to_vec(),
        stream("", cmap.as_bytes()),
    ]);
    assert_eq!(
        too_large(page_texts_with(&doc, small())),
        Exceeded::Total(4 * MIB)
    );
}

#[test]
fn rescanning_unterminated_objects_stops_at_the_work_limit() {
    // Every `obj` starts an array that runs to the end of the file: scanning them all is
    // quadratic (about 3 * 10^9 bytes for this 180 KB file).
    let mut data = b"%PDF-1.4\n".to_vec();
    for _ in 0..20_000 {
        data.extend_from_slice(b"1 0 obj [");
    }
    let limits = Limits {
        max_objects: usize::MAX,
        ..small()
    };
    assert_eq!(
        Pdf::parse_with(&data, limits).err(),
        Some(PdfError::TooLarge(Exceeded::Work(20_000_000)))
    );
}

#[test]
fn objects_and_operands_are_counted() {
    // A single array of 20,000 numbers passes the object limit.
    let mut big = b"[".to_vec();
    big.extend(std::iter::repeat_n(&b"0 "[..], 20_000).flatten());
    big.push(b']');
    let doc = pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [] /Count 0 >>".to_vec(),
        big,
    ]);
    assert_eq!(
        Pdf::parse_with(&doc, small()).err(),
        Some(PdfError::TooLarge(Exceeded::Objects(10_000)))
    );
    // A content stream of 70,000 numbers and no operator piles up too many operands.
    let content: Vec<u8> = std::iter::repeat_n(&b"1 "[..], 70_000)
        .flatten()
        .copied()
        .collect();
    let doc = pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>".to_vec(),
        stream("", &content),
    ]);
    assert_eq!(too_large(page_texts(&doc)), Exceeded::Operands(1 << 16));
}

#[test]
fn a_file_over_the_size_limit_is_refused_before_parsing() {
    let mut data = flate_bomb(10);
    data.resize(4 * MIB + 1, b' ');
    let err = Pdf::parse_with(&data, small()).err().unwrap();
    assert_eq!(
        err,
        PdfError::TooLarge(Exceeded::File {
            bytes: 4 * MIB + 1,
            limit: 4 * MIB
        })
    );
    assert_eq!(
        err.to_string(),
        "PDF too large to extract: the file is 4194305 bytes, more than the 4 MiB limit"
    );
}

#[test]
fn a_far_off_run_does_not_pad_the_layout_without_end() {
    let doc = pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_vec(),
        stream(
            "",
            b"BT /F1 12 Tf 72 700 Td (Near) Tj ET BT /F1 12 Tf 1000000000000 700 Td (Far) Tj ET",
        ),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec(),
    ]);
    let layout = Pdf::parse(&doc).unwrap().page_layout(0).unwrap();
    assert!(layout.starts_with("Near "), "{layout:?}");
    assert!(layout.ends_with(" Far"), "{layout:?}");
    assert!(layout.len() < 1100, "{} bytes", layout.len());
}

#[test]
fn repeated_lookups_in_a_big_resource_dictionary_are_charged() {
    // 100,000 `Do`s of a name that is not a form, each searching 1,000 entries.
    let entries: String = (0..1000).map(|i| format!("/X{i} 9 0 R ")).collect();
    let content: Vec<u8> = std::iter::repeat_n(&b"/Y Do "[..], 100_000)
        .flatten()
        .copied()
        .collect();
    let doc = pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!("<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /XObject << {entries}>> >> >>")
            .into_bytes(),
        stream("", &content),
    ]);
    assert_eq!(
        too_large(page_texts_with(&doc, small())),
        Exceeded::Work(20_000_000)
    );
}
