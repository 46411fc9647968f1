//! Headless Chromium for clawrun, driven over the DevTools protocol through a pipe
//! (`--remote-debugging-pipe`: no port, no WebSocket). A page sees only the files of the VFS
//! snapshot it is handed (`file:///workspace/...`); every other request is refused. Each page
//! gets a fresh browser context, the 1080x720 viewport at scale 1, and virtual time starting
//! at the caller's clock, so frames depend only on the page and the request
//! (README.md, ARCHITECTURE.md §1).

#![deny(missing_docs)]

mod animations;
mod capture;
mod error;
mod launch;
mod page;
mod pool;
pub mod serve;
mod transport;
mod web;

use std::path::PathBuf;
use std::process::Child;
use std::sync::Mutex;
use std::time::Duration;

pub use capture::{Capture, Captured, Frame, MAX_FRAMES, MAX_VIRTUAL_WAIT};
pub use error::BrowserError;
pub use launch::{FLAGS, FONT_DIRS, find_chromium, fontconfig};
pub use page::VIEWPORT;
pub use pool::BrowserPool;
pub use web::{PageWeb, WebAnswer};

/// How a browser is started and what one page may use.
#[derive(Clone, Debug)]
pub struct BrowserConfig {
    /// The executable; `None`: [`find_chromium`].
    pub exe: Option<PathBuf>,
    /// The script heap of one page, MiB (V8's `--max-old-space-size`): past it the page
    /// crashes and the capture is a [`BrowserError::PageCrashed`].
    pub heap_mib: u64,
    /// Real time one step of a page (loading, each stretch of virtual time, a frame) may take
    /// before the capture is a [`BrowserError::PageHung`].
    pub step_limit: Duration,
}

impl Default for BrowserConfig {
    /// Found Chromium, 512 MiB of script heap, 20 s per step.
    fn default() -> Self {
        BrowserConfig {
            exe: None,
            heap_mib: 512,
            step_limit: Duration::from_secs(20),
        }
    }
}

/// A running browser (started on first use, started again after it died), one page at a
/// time. Dropping it kills the browser and removes its profile folder.
pub struct Browser {
    config: BrowserConfig,
    running: Mutex<Option<Running>>,
}

/// The browser process and its pipe.
struct Running {
    child: Child,
    transport: transport::Transport,
    dir: PathBuf,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Browser {
    /// A browser started on the first capture.
    pub fn new(config: BrowserConfig) -> Self {
        Browser {
            config,
            running: Mutex::new(None),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &BrowserConfig {
        &self.config
    }

    /// Starts the browser now if it is not running (a capture does it anyway).
    pub fn start(&self) -> Result<(), BrowserError> {
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        self.ensure(&mut running).map(|_| ())
    }

    /// The running browser, started if need be.
    fn ensure<'a>(
        &self,
        running: &'a mut Option<Running>,
    ) -> Result<&'a mut Running, BrowserError> {
        if running.is_none() {
            *running = Some(self.launch()?);
        }
        Ok(running.as_mut().expect("just started"))
    }

    /// Starts a browser with a fresh profile folder.
    fn launch(&self) -> Result<Running, BrowserError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let exe = match &self.config.exe {
            Some(p) => p.clone(),
            None => find_chromium()?,
        };
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        sweep_stale_profiles(&std::env::temp_dir());
        let dir = std::env::temp_dir().join(format!("clawrun-browser-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let launched = launch::launch(&exe, &dir, self.config.heap_mib)?;
        let mut running = Running {
            child: launched.child,
            transport: transport::Transport::new(launched.to_browser, launched.from_browser),
            dir,
        };
        // The first answer proves the pipe works.
        page::browser_call(
            &mut running.transport,
            "Browser.getVersion",
            serde_json::json!({}),
            self.config.step_limit.max(Duration::from_secs(30)),
        )?;
        Ok(running)
    }

    /// Opens `request.url` in a fresh context over `files` and takes its frames. A page's own
    /// failure (refused, crashed) is an `Err` for which [`BrowserError::is_page_error`] holds;
    /// a step past the real-time limit is [`BrowserError::PageHung`]; the browser stays
    /// usable after either (restarted when a page hung or crashed).
    pub fn capture(&self, files: &Vfs, request: &Capture) -> Result<Captured, BrowserError> {
        self.capture_with_web(files, None, request)
    }

    /// [`Browser::capture`], the page's `http(s)` `GET`s asked of `web` (refused without one).
    pub fn capture_with_web(
        &self,
        files: &Vfs,
        web: Option<&dyn PageWeb>,
        request: &Capture,
    ) -> Result<Captured, BrowserError> {
        request.check()?;
        let mut guard = self.running.lock().unwrap_or_else(|p| p.into_inner());
        let running = self.ensure(&mut guard)?;
        let result = capture::run(&mut running.transport, files, web, request, &self.config);
        let healthy = match &result {
            Err(BrowserError::Gone(_) | BrowserError::Malformed(_)) => false,
            Err(BrowserError::PageHung { .. } | BrowserError::PageCrashed { .. }) => {
                // A renderer stuck in a loop may keep the browser busy: start afresh.
                false
            }
            _ => true,
        };
        if !healthy {
            *guard = None;
        }
        result
    }
}

use clawrun_vfs::Vfs;

/// Removes the profile folders (`clawrun-browser-PID-N` in `tmp`) of processes that are gone:
/// a run that was killed, or a browser kept in a static that is never dropped.
fn sweep_stale_profiles(tmp: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name
            .to_str()
            .and_then(|n| n.strip_prefix("clawrun-browser-"))
        else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
