//! A capture of a page is the screenshot Chromium itself takes of the same page at 1080x720
//! (`chromium --headless --screenshot`, the same files on the host, the same pixel flags and
//! fonts).

mod support;

use std::process::Command;

use clawrun_browser::{Capture, FLAGS, find_chromium, fontconfig};
use support::{EPOCH, browser, pixels, same_pixels, workspace};

const PAGE: &[u8] = br##"<!doctype html><html><head><title>Report</title>
<link rel="stylesheet" href="style.css"></head><body>
<h1>Quarterly report</h1><p>Revenue grew 12% to <b>4.2 million</b>; margins held at 28%.</p>
<ul><li>North: 1.9 M</li><li>South: 1.3 M</li><li>West: 1.0 M</li></ul>
<div class="bars"><div style="width:190px"></div><div style="width:130px"></div><div style="width:100px"></div></div>
<svg width="200" height="120"><circle cx="60" cy="60" r="50" fill="#2a7"/><text x="130" y="65" font-family="DejaVu Sans">42</text></svg>
</body></html>"##;

const STYLE: &[u8] =
    b"body { font-family: 'DejaVu Sans', sans-serif; margin: 24px; background: #fafaf5 }
h1 { color: #224; font-size: 32px } .bars div { height: 18px; margin: 4px 0; background: #c44 }";

#[test]
fn a_capture_equals_chromiums_own_screenshot_of_the_same_page() {
    let Some(browser) = browser() else { return };
    let exe = find_chromium().unwrap();
    let vfs = workspace(&[("report.html", PAGE), ("style.css", STYLE)]);
    let got = browser
        .capture(
            &vfs,
            &Capture::screenshot("file:///workspace/report.html", EPOCH, 0.0, 1),
        )
        .unwrap();
    assert_eq!(got.title, "Report");

    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("report.html"), PAGE).unwrap();
    std::fs::write(tmp.path().join("style.css"), STYLE).unwrap();
    std::fs::create_dir_all(tmp.path().join("fontcache")).unwrap();
    std::fs::write(
        tmp.path().join("fonts.conf"),
        fontconfig(&tmp.path().join("fontcache")),
    )
    .unwrap();
    let shot = tmp.path().join("direct.png");
    let status = Command::new(&exe)
        .args(FLAGS.iter().filter(|f| **f != "--remote-debugging-pipe"))
        .arg(format!(
            "--user-data-dir={}",
            tmp.path().join("profile").display()
        ))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1080,720")
        .arg(format!(
            "file://{}",
            tmp.path().join("report.html").display()
        ))
        .env("FONTCONFIG_FILE", tmp.path().join("fonts.conf"))
        .env("TZ", "UTC")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "chromium --screenshot failed");
    let direct = std::fs::read(&shot).unwrap();
    let (w, h, px) = pixels(&direct);
    assert_eq!((w, h), (1080, 720));
    // Not a blank page: the stylesheet's bars are there.
    assert!(
        px.chunks(4).any(|p| p == [204, 68, 68, 255]),
        "no bars in Chromium's screenshot"
    );
    if let Err(diff) = same_pixels(&got.frames[0].png, &direct) {
        let keep = std::env::temp_dir().join("clawrun-browser-direct");
        let _ = std::fs::create_dir_all(&keep);
        let _ = std::fs::write(keep.join("capture.png"), &got.frames[0].png);
        let _ = std::fs::write(keep.join("direct.png"), &direct);
        panic!(
            "the capture differs from Chromium's own screenshot ({diff}); both in {}",
            keep.display()
        );
    }
}
