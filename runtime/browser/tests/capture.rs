//! Captures in a real headless Chromium: pages from the VFS only, fixed viewport, frames
//! fixed by virtual time.

mod support;

use std::time::Duration;

use clawrun_browser::{BrowserError, Capture};
use support::{EPOCH, browser, pixels, same_pixels, workspace};

#[test]
fn a_page_of_the_workspace_is_shown_at_1080x720_with_its_title_and_text() {
    let Some(browser) = browser() else { return };
    let vfs = workspace(&[
        ("page.html", b"<html><head><title>Hello</title><link rel=stylesheet href=s.css></head><body><h1>Big news</h1><p>Second line</p></body></html>"),
        ("s.css", b"body { background: rgb(0, 128, 255); margin: 0 } h1 { color: white }"),
    ]);
    let got = browser
        .capture(
            &vfs,
            &Capture::screenshot("file:///workspace/page.html", EPOCH, 2.0, 4),
        )
        .unwrap();
    assert_eq!(got.title, "Hello");
    assert_eq!(got.body_text, "Big news\n\nSecond line");
    assert_eq!(got.frames.len(), 4);
    assert_eq!(
        got.frames.iter().map(|f| f.at).collect::<Vec<_>>(),
        [0, 500, 1000, 1500].map(Duration::from_millis)
    );
    let (w, h, px) = pixels(&got.frames[0].png);
    assert_eq!((w, h), (1080, 720));
    // The stylesheet was served from the VFS: the corner is its blue.
    let last = px.len() - 4;
    assert_eq!(&px[last..], &[0, 128, 255, 255]);
    assert!(got.refused.is_empty(), "{:?}", got.refused);
}

/// A page whose script and CSS animation both move with time: a JS clock printing
/// `Date.now()` and the frame count of `requestAnimationFrame`, and a bar sliding by CSS.
const ANIMATED: &[u8] = br#"<html><head><style>
  body { margin: 0; background: #fff; }
  #bar { position: absolute; top: 100px; left: 0; width: 100px; height: 100px; background: red;
         animation: slide 2s linear infinite; }
  @keyframes slide { from { left: 0 } to { left: 900px } }
  canvas { position: absolute; top: 300px; left: 0; }
</style></head><body>
<div id="clock">?</div><div id="bar"></div><canvas id="c" width="400" height="200"></canvas>
<script>
  const start = Date.now();
  let frames = 0;
  function tick() {
    frames++;
    const now = Date.now();
    document.getElementById('clock').textContent = new Date(now).toISOString() + ' ' + (now - start);
    const g = document.getElementById('c').getContext('2d');
    g.fillStyle = '#fff'; g.fillRect(0, 0, 400, 200);
    g.fillStyle = '#00f'; g.fillRect((now - start) / 10 % 400, 0, 20, 200);
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
</script></body></html>"#;

#[test]
fn an_animated_page_gives_the_same_frames_on_every_run_as_the_virtual_clock_dictates() {
    let Some(browser) = browser() else { return };
    let vfs = workspace(&[("clock.html", ANIMATED)]);
    let capture = Capture::screenshot("file:///workspace/clock.html", EPOCH, 2.0, 4);
    let a = browser.capture(&vfs, &capture).unwrap();
    let b = browser.capture(&vfs, &capture).unwrap();
    assert_eq!(a.frames.len(), 4);
    if let Ok(dir) = std::env::var("CLAWRUN_BROWSER_TEST_FRAMES") {
        for (i, f) in a.frames.iter().chain(&b.frames).enumerate() {
            std::fs::write(format!("{dir}/frame-{i}.png"), &f.png).unwrap();
        }
    }
    for (x, y) in a.frames.iter().zip(&b.frames) {
        if let Err(diff) = same_pixels(&x.png, &y.png) {
            panic!("the frame at {:?} differs between runs: {diff}", x.at);
        }
    }
    // The frames differ from each other: the page moved with virtual time.
    for pair in a.frames.windows(2) {
        assert!(
            same_pixels(&pair[0].png, &pair[1].png).is_err(),
            "the page did not move"
        );
    }
    // The page's clock is the caller's: the epoch plus the 500 ms settle, when the text is read.
    assert_eq!(a.body_text, "2026-01-01T00:00:00.500Z 500");
    // The CSS bar slides 900 px in 2 s of page time: 225 px between frames 500 ms apart.
    let left: Vec<i64> = a
        .frames
        .iter()
        .map(|f| red_left_edge(&f.png, 150))
        .collect();
    for pair in left.windows(2) {
        assert!(
            (224..=226).contains(&(pair[1] - pair[0])),
            "bar edges {left:?}"
        );
    }
}

#[test]
fn requests_for_host_files_loopback_and_the_web_are_refused() {
    let Some(browser) = browser() else { return };
    let page = br#"<html><body>
      <img src="file:///etc/hostname">
      <img src="file:///workspace/../etc/passwd">
      <script src="http://127.0.0.1:8080/x.js"></script>
      <script src="https://example.com/y.js"></script>
      <iframe src="http://localhost:9/"></iframe>
      <script>fetch('http://[::1]:80/z').catch(() => {}); </script>
      <p>done</p></body></html>"#;
    let vfs = workspace(&[("evil.html", page)]);
    let got = browser
        .capture(
            &vfs,
            &Capture::screenshot("file:///workspace/evil.html", EPOCH, 0.0, 1),
        )
        .unwrap();
    let refused = got.refused.join("\n");
    for url in [
        "file:///etc/hostname",
        "127.0.0.1:8080",
        "https://example.com/y.js",
        "localhost:9",
        "[::1]",
    ] {
        assert!(refused.contains(url), "{url} not refused: {refused}");
    }
    // The page itself cannot be a host file, nor anything but the sandbox's files.
    for url in [
        "file:///etc/hostname",
        "http://127.0.0.1:9/",
        "https://example.com/",
    ] {
        let err = browser
            .capture(&vfs, &Capture::screenshot(url, EPOCH, 0.0, 1))
            .unwrap_err();
        assert!(
            matches!(err, BrowserError::Navigation { .. }),
            "{url}: {err}"
        );
        assert!(err.is_page_error());
    }
}

#[test]
fn a_page_that_never_yields_is_an_error_and_the_browser_recovers() {
    let Some(browser) = browser() else { return };
    let vfs = workspace(&[
        (
            "loop.html",
            b"<html><body><script>while (true) {}</script></body></html>",
        ),
        (
            "ok.html",
            b"<html><head><title>fine</title></head><body>ok</body></html>",
        ),
    ]);
    let err = clawrun_browser::Browser::new(clawrun_browser::BrowserConfig {
        step_limit: Duration::from_secs(3),
        ..Default::default()
    })
    .capture(
        &vfs,
        &Capture::screenshot("file:///workspace/loop.html", EPOCH, 0.0, 1),
    )
    .unwrap_err();
    assert!(matches!(err, BrowserError::PageHung { .. }), "{err}");
    // A real-time limit: whether a page hangs or a machine is busy cannot be told apart, so
    // it is never shown as the page's result.
    assert!(!err.is_page_error());
    let got = browser
        .capture(
            &vfs,
            &Capture::screenshot("file:///workspace/ok.html", EPOCH, 0.0, 1),
        )
        .unwrap();
    assert_eq!(got.title, "fine");
}

/// The x of the first pure red pixel on row `y`.
fn red_left_edge(png: &[u8], y: u32) -> i64 {
    let (w, _, px) = pixels(png);
    let row = &px[(y * w * 4) as usize..((y + 1) * w * 4) as usize];
    row.chunks(4)
        .position(|p| p == [255, 0, 0, 255])
        .expect("a red bar on the row") as i64
}
