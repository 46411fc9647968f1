//! Time per `BrowserScreenshot` (4 frames over 2 s of page time) and per judge-time recording
//! (`take_recording.py`'s M-task line: 10 frames 0.5 s apart after a 2 s wait) of an animated
//! page, in a browser already started (as a worker's is after its first capture). Without
//! Chromium it prints `SKIPPED:` and measures nothing.

use std::time::Duration;

use clawrun_browser::{Browser, BrowserConfig, Capture, find_chromium};
use clawrun_vfs::Vfs;
use criterion::{Criterion, criterion_group, criterion_main};

const PAGE: &[u8] = br#"<html><head><title>Clock</title><style>
#bar { width: 80px; height: 80px; background: #c33; animation: s 2s linear infinite; position: relative }
@keyframes s { to { left: 900px } }</style></head><body><div id="t"></div><div id="bar"></div>
<script>setInterval(() => { document.getElementById('t').textContent = new Date().toISOString() }, 100)</script>
</body></html>"#;

fn captures(c: &mut Criterion) {
    if let Err(e) = find_chromium() {
        println!("SKIPPED: {e}");
        return;
    }
    let mut vfs = Vfs::new();
    vfs.create_dir_all("/workspace").unwrap();
    vfs.write_file("/workspace/output.html", PAGE).unwrap();
    let browser = Browser::new(BrowserConfig::default());
    browser.start().unwrap();
    let start = Duration::from_secs(1_767_225_600);
    let url = "file:///workspace/output.html";
    let mut g = c.benchmark_group("browser");
    g.sample_size(10);
    let shot = Capture::screenshot(url, start, 2.0, 4);
    g.bench_function("screenshot_4_frames", |b| {
        b.iter(|| browser.capture(&vfs, &shot).unwrap())
    });
    let recording = Capture {
        url: url.into(),
        start,
        settle: Duration::from_millis(500),
        click: None,
        wait_before: Duration::from_secs(2),
        frames: 10,
        interval: Duration::from_millis(500),
    };
    g.bench_function("recording_10_frames", |b| {
        b.iter(|| browser.capture(&vfs, &recording).unwrap())
    });
    g.bench_function("cold_start_and_screenshot", |b| {
        b.iter(|| {
            Browser::new(BrowserConfig::default())
                .capture(&vfs, &shot)
                .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, captures);
criterion_main!(benches);
