//! Shared by the browser's tests: the browser (or a printed skip when Chromium is missing),
//! workspaces and PNG decoding.

#![allow(dead_code)]

use std::sync::LazyLock;
use std::time::Duration;

use clawrun_browser::{Browser, BrowserConfig, find_chromium};
use clawrun_vfs::Vfs;

/// 2026-01-01T00:00:00Z, the trials' default epoch.
pub const EPOCH: Duration = Duration::from_secs(1_767_225_600);

static BROWSER: LazyLock<Option<Browser>> = LazyLock::new(|| match find_chromium() {
    Ok(_) => Some(Browser::new(BrowserConfig::default())),
    Err(e) => {
        println!("SKIPPED: {e}");
        None
    }
});

/// The tests' shared browser; `None` (after printing `SKIPPED:`) without Chromium.
pub fn browser() -> Option<&'static Browser> {
    BROWSER.as_ref()
}

/// A VFS with `files` under /workspace.
pub fn workspace(files: &[(&str, &[u8])]) -> Vfs {
    let mut vfs = Vfs::new();
    vfs.create_dir_all("/workspace").unwrap();
    for (path, data) in files {
        vfs.write_file(&format!("/workspace/{path}"), data).unwrap();
    }
    vfs
}

/// A PNG's width, height and RGBA pixels.
pub fn pixels(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// `Ok` when two PNGs have the same size and pixels; else how they differ (pixel counts, the
/// first differing pixel), never the pixels themselves.
pub fn same_pixels(a: &[u8], b: &[u8]) -> Result<(), String> {
    let (aw, ah, ap) = pixels(a);
    let (bw, bh, bp) = pixels(b);
    if (aw, ah) != (bw, bh) {
        return Err(format!("sizes differ: {aw}x{ah} vs {bw}x{bh}"));
    }
    let diff: Vec<usize> = (0..ap.len() / 4)
        .filter(|i| ap[i * 4..i * 4 + 4] != bp[i * 4..i * 4 + 4])
        .collect();
    match diff.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{} of {} pixels differ; the first at ({}, {}): {:?} vs {:?}",
            diff.len(),
            ap.len() / 4,
            i as u32 % aw,
            i as u32 / aw,
            &ap[i * 4..i * 4 + 4],
            &bp[i * 4..i * 4 + 4]
        )),
    }
}
