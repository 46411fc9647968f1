//! Headless Chromium for the command-line tests of the HTML reports (`--dump-dom` prints the
//! DOM after the page's script ran). Needs Debian's `chromium`; `CLAWRUN_SKIP_BROWSER_TESTS=1`
//! skips with a loud note.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one Chromium run may take before it is killed (a hang guard, not an assertion).
const HANG_GUARD: Duration = Duration::from_secs(300);

/// `None` (after a loud note) when browser tests are skipped; otherwise Chromium's path, or a
/// failure saying how to install it.
pub fn chromium() -> Option<PathBuf> {
    if std::env::var("CLAWRUN_SKIP_BROWSER_TESTS").as_deref() == Ok("1") {
        let _ = std::io::stderr().write_all(
            b"\n!!! CLAWRUN_SKIP_BROWSER_TESTS=1: SKIPPING the headless-Chromium checks of the HTML report !!!\n",
        );
        return None;
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .flat_map(|dir| ["chromium", "chromium-browser"].map(|n| dir.join(n)))
            .find(|p| p.is_file())
    });
    match found {
        Some(p) => Some(p),
        None => panic!(
            "chromium not found on PATH: the HTML report's browser tests need it.\n\
             Install it with `sudo apt-get install -y chromium` (Debian's package),\n\
             or set CLAWRUN_SKIP_BROWSER_TESTS=1 to skip these tests."
        ),
    }
}

/// Runs headless Chromium with `args` then `url` (profile and output under `dir`); returns
/// (success, stdout).
pub fn run_chromium(exe: &Path, dir: &Path, args: &[&str], url: &str) -> (bool, String) {
    let out_path = dir.join("chromium.stdout");
    let err_path = dir.join("chromium.stderr");
    let mut child = Command::new(exe)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--disable-extensions",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(File::create(&out_path).unwrap())
        .stderr(File::create(&err_path).unwrap())
        .spawn()
        .expect("start chromium");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium hung; its stderr is in {}", err_path.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    (
        status.success(),
        std::fs::read_to_string(&out_path).unwrap(),
    )
}

/// The DOM of `file` (with `fragment`, e.g. `#trial=T/0`) after the page's script ran.
pub fn dump_dom(exe: &Path, dir: &Path, file: &Path, fragment: &str) -> String {
    let url = format!("file://{}{fragment}", file.display());
    let (ok, dom) = run_chromium(exe, dir, &["--dump-dom"], &url);
    assert!(
        ok && dom.contains("</html>"),
        "chromium --dump-dom failed; see {}/chromium.stderr\n{dom}",
        dir.display()
    );
    dom
}

/// Writes a screenshot of `file#fragment` to `png`, `size` being `WIDTH,HEIGHT` (for people;
/// not asserted). Headless Chromium paints nothing when the page scrolled (a fragment that
/// opens a trial scrolls to the viewer), so such shots need a window the page fits in.
pub fn screenshot(exe: &Path, dir: &Path, file: &Path, fragment: &str, png: &Path, size: &str) {
    if let Some(parent) = png.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let shot = format!("--screenshot={}", png.display());
    let url = format!("file://{}{fragment}", file.display());
    let size = format!("--window-size={size}");
    let (ok, _) = run_chromium(exe, dir, &[&shot, &size], &url);
    let _ = std::io::stderr()
        .write_all(format!("screenshot (ok={ok}): {}\n", png.display()).as_bytes());
}

/// The element with `id`, from its opening tag to the end of the DOM.
pub fn from_id<'a>(dom: &'a str, id: &str) -> &'a str {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in the DOM"));
    &dom[at..]
}
