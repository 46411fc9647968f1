//! Process-wide control of model requests: cancelling every wait at once (Ctrl-C), endpoints
//! found unreachable (so other requests to them stop at once instead of retrying), and where
//! retry notices go.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::Notify;

/// Set by [`cancel_requests`].
static CANCELLED: AtomicBool = AtomicBool::new(false);
/// Wakes every cancellable wait.
static WAKE: Notify = Notify::const_new();
/// Endpoints (request URLs) found unreachable, with the reason.
static DOWN: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());
/// Where retry notices go (default: stderr).
static REPORTER: RwLock<Option<Reporter>> = RwLock::new(None);

/// A receiver of one-line retry notices: the model (`provider:model`) and the line.
pub type Reporter = Arc<dyn Fn(&str, &str) + Send + Sync>;

/// Cancels every model request and retry wait in the process, now and later (Ctrl-C): they
/// fail with an infrastructure error at once.
pub fn cancel_requests() {
    CANCELLED.store(true, Ordering::SeqCst);
    WAKE.notify_waiters();
}

/// Whether [`cancel_requests`] was called.
pub fn requests_cancelled() -> bool {
    CANCELLED.load(Ordering::SeqCst)
}

/// Runs `f` unless requests are cancelled first (`None` then).
pub(crate) async fn cancellable<F: Future>(f: F) -> Option<F::Output> {
    let woken = WAKE.notified();
    tokio::pin!(woken);
    woken.as_mut().enable();
    if requests_cancelled() {
        return None;
    }
    tokio::select! {
        out = f => Some(out),
        () = woken => None,
    }
}

/// Records that `url` cannot be reached (`reason` says why, naming it).
pub(crate) fn mark_unreachable(url: &str, reason: &str) {
    DOWN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(url.to_string())
        .or_insert_with(|| reason.to_string());
}

/// Why `url` was found unreachable, if it was.
pub(crate) fn unreachable(url: &str) -> Option<String> {
    DOWN.lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(url)
        .cloned()
}

/// Forgets that `url` was unreachable (a run starting after a successful probe).
pub(crate) fn clear_unreachable(url: &str) {
    DOWN.lock().unwrap_or_else(|e| e.into_inner()).remove(url);
}

/// Sends retry notices to `reporter` (`None`: back to stderr).
pub fn set_retry_reporter(reporter: Option<Reporter>) {
    *REPORTER.write().unwrap_or_else(|e| e.into_inner()) = reporter;
}

/// Reports one retry notice of `model`.
pub(crate) fn report_retry(model: &str, line: &str) {
    let reporter = REPORTER.read().unwrap_or_else(|e| e.into_inner()).clone();
    match reporter {
        Some(r) => r(model, line),
        None => eprintln!("{line}"),
    }
}
