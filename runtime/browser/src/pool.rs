//! Browsers shared by a process's workers: a capture takes an idle browser (or starts one) and
//! gives it back, so there are never more browsers than captures running at once (one per
//! worker), each reused across trials with a fresh context per page.

use std::sync::Mutex;

use clawrun_vfs::Vfs;

use crate::{Browser, BrowserConfig, BrowserError, Capture, Captured, PageWeb};

/// Idle browsers, started on demand.
pub struct BrowserPool {
    config: BrowserConfig,
    idle: Mutex<Vec<Browser>>,
}

impl BrowserPool {
    /// An empty pool whose browsers start with `config`.
    pub fn new(config: BrowserConfig) -> Self {
        BrowserPool {
            config,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Runs `request` over `files` in an idle browser, or a new one.
    pub fn capture(&self, files: &Vfs, request: &Capture) -> Result<Captured, BrowserError> {
        self.capture_with_web(files, None, request)
    }

    /// [`BrowserPool::capture`], the page's `http(s)` `GET`s asked of `web`.
    pub fn capture_with_web(
        &self,
        files: &Vfs,
        web: Option<&dyn PageWeb>,
        request: &Capture,
    ) -> Result<Captured, BrowserError> {
        let browser = self
            .idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .unwrap_or_else(|| Browser::new(self.config.clone()));
        let result = browser.capture_with_web(files, web, request);
        self.idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(browser);
        result
    }
}

impl Default for BrowserPool {
    /// A pool with [`BrowserConfig::default`].
    fn default() -> Self {
        BrowserPool::new(BrowserConfig::default())
    }
}
