//! Captures in a real headless Chromium: pages from the VFS only, fixed viewport, frames
//! fixed by virtual time.

mod support;

use std::time::Duration;

use clawrun_browser::{BrowserError, Capture};
use support::{EPOCH, browser, pixels, workspace};

#[test]
fn a_page_of_the_workspace_is_shown_at_1080x720_with_its_title_and_text() {
    let Some(browser) = browser() else { return };
    let vfs = workspace(&[
        ("page.html", b"<html><head><title>Hello</title><link rel=stylesheet href=s.css></head><body><h1>Big news</h1><p>Second line</p></body></html>"),
        ("s.css", b"body { background: rgb(0, 128, 255); margin: 0 } h1 { color: white }"),
    ]);
    let got = browser
        .capture(&vfs, &Capture::screenshot("file:///workspace/page.html", EPOCH, 2.0, 4))
        .unwrap();
    assert_eq!(got.title, "Hello");
    assert_eq!(got.body_text, "Big news\n\nSecond line");
    assert_eq!(got.frames.len(), 4);
    assert_eq!(got.frames.iter().map(|f| f.at).collect::<Vec<_>>(),
        [0, 500, 1000, 1500].map(Duration::from_millis));
    let (w, h, px) = pixels(&got.frames[0].png);
    assert_eq!((w, h), (1080, 720));
    // The stylesheet was served from the VFS: the corner is its blue.
    let last = px.len() - 4;
    assert_eq!(&px[last..], &[0, 128, 255, 255]);
    assert!(got.refused.is_empty(), "{:?}", got.refused);
}
