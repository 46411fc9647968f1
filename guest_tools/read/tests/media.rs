//! `Read` on PDFs (text page by page) and images (returned to the model) through the envelope.

use std::fs;
use std::path::Path;

use clawrun_tool_protocol::{Response, handle};
use clawrun_tool_read::image::MAX_IMAGE_BYTES;
use clawrun_tool_read::read;
use serde_json::{Value, json};

fn call(root: &Path, args: Value) -> Response {
    let root = root.to_str().unwrap();
    let input = json!({"args": args, "state": {"cwd": root, "env": {}}}).to_string();
    let mut response = handle("Read", &input, read);
    response.output = response.output.replace(root, "/ws");
    response
}

fn fixture(path: &str) -> Vec<u8> {
    fs::read(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A folder holding the generated PDFs and images.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(
        root.join("report.pdf"),
        fixture("../pdf/tests/fixtures/report.pdf"),
    )
    .unwrap();
    fs::write(
        root.join("renamed.bin"),
        fixture("../pdf/tests/fixtures/report.pdf"),
    )
    .unwrap();
    for name in [
        "chart.png",
        "photo.jpg",
        "anim.gif",
        "icon.webp",
        "lossy.webp",
    ] {
        fs::write(root.join(name), fixture(&format!("tests/fixtures/{name}"))).unwrap();
    }
    dir
}

/// A PDF of `pages`, each a list of lines, in Helvetica 10 (uncompressed, no xref table).
fn simple_pdf(pages: &[Vec<String>]) -> Vec<u8> {
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        String::new(),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut kids = Vec::new();
    for lines in pages {
        let mut content = String::from("BT /F1 10 Tf 72 760 Td 12 TL\n");
        for line in lines {
            content.push_str(&format!("({line}) Tj T*\n"));
        }
        content.push_str("ET");
        objects.push(format!(
            "<< /Length {} >>\nstream\n{content}\nendstream",
            content.len()
        ));
        let contents = objects.len();
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {contents} 0 R \
             /Resources << /Font << /F1 3 0 R >> >> >>"
        ));
        kids.push(format!("{} 0 R", objects.len()));
    }
    objects[1] = format!(
        "<< /Type /Pages /Kids [{}] /Count {} >>",
        kids.join(" "),
        pages.len()
    );
    let mut out = String::from("%PDF-1.4\n");
    for (i, o) in objects.iter().enumerate() {
        out.push_str(&format!("{} 0 obj\n{o}\nendobj\n", i + 1));
    }
    out.push_str("trailer\n<< /Root 1 0 R >>\n%%EOF\n");
    out.into_bytes()
}

#[test]
fn pdf_pages_come_out_as_sections_with_tables_as_lines() {
    let dir = workspace();
    let r = call(dir.path(), json!({"file_path": "report.pdf"}));
    assert!(!r.is_error, "{}", r.output);
    assert!(r.images.is_empty());
    let out = &r.output;
    assert!(out.starts_with("--- page 1 ---\n"), "{out}");
    assert!(
        out.contains("\n\n--- page 2 ---\nQuarterly figures\n"),
        "{out}"
    );
    assert!(out.contains("\n\n--- page 3 ---\nOutlook\n"), "{out}");
    let q3 = out.lines().find(|l| l.contains("Q3 2025")).unwrap();
    let cells: Vec<&str> = q3
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(cells, ["Q3 2025", "1,408,200.00", "1,050,900.00", "25.4%"]);
    assert!(out.ends_with("target margin of 28%."), "{out}");
}

#[test]
fn pages_selects_and_says_what_it_left_out() {
    let dir = workspace();
    let r = call(
        dir.path(),
        json!({"file_path": "report.pdf", "pages": "2-3"}),
    );
    assert!(!r.is_error);
    assert!(
        r.output.starts_with("--- page 2 ---\nQuarterly figures\n"),
        "{}",
        r.output
    );
    assert!(!r.output.contains("--- page 1 ---"));
    assert!(
        r.output.ends_with("\n\n(Showing pages 2-3 of 3.)"),
        "{}",
        r.output
    );
    // A bare number works too; offset and limit do not apply to PDFs.
    let r = call(
        dir.path(),
        json!({"file_path": "report.pdf", "pages": 3, "offset": 50, "limit": 1}),
    );
    assert_eq!(
        r.output,
        "--- page 3 ---\nOutlook\nGuidance: revenue of 6.1 million USD for 2026, with a target \
         margin of 28%.\n\n(Showing page 3 of 3.)"
    );
    let r = call(dir.path(), json!({"file_path": "report.pdf", "pages": "7"}));
    assert!(r.is_error);
    assert_eq!(
        r.output,
        "Read: page 7 is out of range: the PDF has 3 pages"
    );
    let r = call(
        dir.path(),
        json!({"file_path": "report.pdf", "pages": "two"}),
    );
    assert!(r.is_error);
    assert!(
        r.output
            .starts_with("Read: invalid \"pages\" value \"two\""),
        "{}",
        r.output
    );
}

#[test]
fn pdfs_are_recognised_by_their_signature() {
    let dir = workspace();
    let r = call(
        dir.path(),
        json!({"file_path": "renamed.bin", "pages": "1"}),
    );
    assert!(!r.is_error);
    assert!(r.output.contains("Northwind Traders"), "{}", r.output);
}

#[test]
fn pages_on_a_text_file_and_broken_pdfs_are_errors() {
    let dir = workspace();
    fs::write(dir.path().join("notes.txt"), "hello\n").unwrap();
    let r = call(dir.path(), json!({"file_path": "notes.txt", "pages": "1"}));
    assert!(r.is_error);
    assert_eq!(
        r.output,
        "Read: \"pages\" applies only to PDF files, and /ws/notes.txt is not a PDF"
    );
    // A blank `pages` is ignored.
    let r = call(dir.path(), json!({"file_path": "notes.txt", "pages": ""}));
    assert_eq!(r.output, "     1\thello");
    fs::write(dir.path().join("broken.pdf"), "not really").unwrap();
    let r = call(dir.path(), json!({"file_path": "broken.pdf"}));
    assert!(r.is_error);
    assert_eq!(
        r.output,
        "Cannot read /ws/broken.pdf as a PDF: not a readable PDF"
    );
}

#[path = "../../pdf/tests/bomb/mod.rs"]
mod bomb;

#[test]
fn a_flate_bomb_is_an_error_naming_the_limit() {
    let dir = workspace();
    fs::write(dir.path().join("bomb.pdf"), bomb::flate_bomb(40 << 20)).unwrap();
    let r = call(dir.path(), json!({"file_path": "bomb.pdf"}));
    assert!(r.is_error);
    assert_eq!(
        r.output,
        "Cannot read /ws/bomb.pdf as a PDF: PDF too large to extract: a stream decompresses to \
         more than 32 MiB"
    );
}

#[test]
fn empty_pages_say_so() {
    let dir = workspace();
    fs::write(
        dir.path().join("scan.pdf"),
        simple_pdf(&[vec![], vec!["Signed: J. Ortega".into()]]),
    )
    .unwrap();
    let r = call(dir.path(), json!({"file_path": "scan.pdf"}));
    assert_eq!(
        r.output,
        "--- page 1 ---\n(no extractable text on this page; it may be a scanned image)\n\n\
         --- page 2 ---\nSigned: J. Ortega"
    );
}

#[test]
fn long_pdfs_stop_at_a_page_with_a_paging_note() {
    let dir = workspace();
    let page: Vec<String> = (0..50)
        .map(|i| format!("Line {i:02} of a long contract clause"))
        .collect();
    fs::write(dir.path().join("long.pdf"), simple_pdf(&vec![page; 30])).unwrap();
    let r = call(dir.path(), json!({"file_path": "long.pdf"}));
    assert!(!r.is_error);
    assert!(r.output.chars().count() <= clawrun_tool_protocol::MAX_OUTPUT_CHARS);
    assert!(!r.output.contains("[output truncated"));
    let shown = r.output.matches("--- page ").count();
    assert!((10..30).contains(&shown), "{shown}");
    assert!(
        r.output.ends_with(&format!(
            "\n\n(Output size limit reached: showing {shown} of the 30 requested pages. \
             Use pages=\"{}-30\" to read more.)",
            shown + 1
        )),
        "{}",
        &r.output[r.output.len() - 200..]
    );
    let r = call(dir.path(), json!({"file_path": "long.pdf", "pages": "30"}));
    assert!(
        r.output
            .starts_with("--- page 30 ---\nLine 00 of a long contract clause\n")
    );
}

#[test]
fn images_come_back_as_images() {
    let dir = workspace();
    for (name, media_type, kind, size) in [
        ("chart.png", "image/png", "PNG", "40x30 pixels, 122 bytes"),
        ("photo.jpg", "image/jpeg", "JPEG", "40x30 pixels, 960 bytes"),
        ("anim.gif", "image/gif", "GIF", "40x30 pixels, 248 bytes"),
        ("icon.webp", "image/webp", "WebP", "40x30 pixels, 60 bytes"),
        (
            "lossy.webp",
            "image/webp",
            "WebP",
            "40x30 pixels, 184 bytes",
        ),
    ] {
        let r = call(dir.path(), json!({"file_path": name}));
        assert!(!r.is_error, "{name}: {}", r.output);
        assert_eq!(
            r.output,
            format!("Image /ws/{name} ({kind} image, {size}) is attached below.")
        );
        assert_eq!(r.images.len(), 1);
        assert_eq!(r.images[0].media_type, media_type);
        assert_eq!(
            r.images[0].data,
            clawrun_tool_protocol::image::base64(&fixture(&format!("tests/fixtures/{name}")))
        );
    }
}

#[test]
fn image_type_comes_from_the_bytes_not_the_name() {
    let dir = workspace();
    fs::write(
        dir.path().join("really_png.jpg"),
        fixture("tests/fixtures/chart.png"),
    )
    .unwrap();
    let r = call(dir.path(), json!({"file_path": "really_png.jpg"}));
    assert_eq!(r.images[0].media_type, "image/png");
    fs::write(dir.path().join("fake.png"), "<svg/>").unwrap();
    let r = call(dir.path(), json!({"file_path": "fake.png"}));
    assert!(r.is_error);
    assert_eq!(
        r.output,
        "/ws/fake.png is named like an image but is not a PNG, JPEG, GIF or WebP file"
    );
    assert!(r.images.is_empty());
}

#[test]
fn oversized_images_are_a_clear_error() {
    let dir = workspace();
    let mut big = fixture("tests/fixtures/chart.png");
    big.resize(MAX_IMAGE_BYTES + 1, 0);
    fs::write(dir.path().join("huge.png"), big).unwrap();
    let r = call(dir.path(), json!({"file_path": "huge.png"}));
    assert!(r.is_error);
    assert!(r.images.is_empty());
    assert_eq!(
        r.output,
        "Image /ws/huge.png is too large to show: 3,932,161 bytes; Read returns images up to \
         3,932,160 bytes (5 MiB once base64-encoded)"
    );
}
