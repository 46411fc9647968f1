//! `ReadMedia` on a PDF against `pdftoppm` (poppler, the renderer behind Claw-Eval's
//! pdf2image) at 100 dpi: the same pages, the same picture sizes, pixels close by PSNR.
//! Without `pdftoppm` (or FFmpeg, which measures PSNR) the test prints `SKIPPED:` and passes.

use std::process::Command;

use super::*;

/// PSNR (dB) above which two renderings of a text page are the same page: two rasterisers
/// differ in anti-aliasing at the glyphs' edges; a different page scores far lower.
const SAME_PAGE_DB: f64 = 20.0;

const REPORT: &[u8] = include_bytes!("../../../guest_tools/pdf/tests/fixtures/report.pdf");

#[test]
fn pdf_pages_equal_pdftoppm_s() {
    for tool in ["pdftoppm", "ffmpeg"] {
        if Command::new(tool).arg("-v").output().is_err() {
            println!("SKIPPED: {tool} is not installed (apt-get install poppler-utils ffmpeg)");
            return;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("report.pdf"), REPORT).unwrap();
    let native = Command::new("pdftoppm")
        .current_dir(dir.path())
        .args(["-r", "100", "-png", "report.pdf", "native"])
        .output()
        .unwrap();
    assert!(native.status.success(), "{}", text(&native.stderr));
    let mut natives: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("native")
        })
        .collect();
    natives.sort();

    let mut vfs = Vfs::new();
    vfs.create_dir_all(DIR).unwrap();
    vfs.write_file(&format!("{DIR}/report.pdf"), REPORT)
        .unwrap();
    let out = run(vfs, &["readmedia", r#"{"path": "report.pdf"}"#], b"");
    let answer: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&out.stdout), text(&out.stderr)));
    assert_eq!(answer["media_type"], "pdf");
    assert_eq!(answer["metadata"]["page_count"], natives.len());
    assert_eq!(answer["metadata"]["dpi"], 100);
    let frames = answer["frames"].as_array().unwrap();
    assert_eq!(frames.len(), natives.len());
    for (i, (frame, native)) in frames.iter().zip(&natives).enumerate() {
        let ours = dir.path().join(format!("ours-{i}.png"));
        std::fs::write(&ours, base64_decode(frame["image_b64"].as_str().unwrap())).unwrap();
        assert_eq!(size(&ours), size(native), "page {}", i + 1);
        let db = psnr(&ours, native);
        println!("page {}: {db:.1} dB against pdftoppm", i + 1);
        assert!(db >= SAME_PAGE_DB, "page {}: {db:.1} dB", i + 1);
        // A different page is far from it: the bound tells pages apart.
        if let Some(other) = natives.iter().find(|n| *n != native) {
            assert!(
                psnr(&ours, other) < db,
                "page {} is closer to another page",
                i + 1
            );
        }
    }
}
