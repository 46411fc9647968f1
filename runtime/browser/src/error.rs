//! What can go wrong with the browser, typed so callers can tell the page's fault (a tool
//! error for the model) from the installation's (no Chromium, a browser that died).

use std::time::Duration;

/// An error of the browser or of the page it was asked to show.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    /// Chromium could not be started.
    #[error(
        "starting Chromium ({exe}): {source} (install Debian's `chromium` package, or set CLAWRUN_CHROMIUM to its path)"
    )]
    Launch {
        /// The executable tried.
        exe: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// No Chromium executable was found.
    #[error(
        "no Chromium found (tried {tried}): install Debian's `chromium` package, or set CLAWRUN_CHROMIUM to its path"
    )]
    NotFound {
        /// The paths tried.
        tried: String,
    },
    /// The browser process went away (crashed, was killed, closed its pipe).
    #[error("the browser process is gone ({0})")]
    Gone(String),
    /// The DevTools protocol answered a command with an error.
    #[error("DevTools {method} failed: {message}")]
    Protocol {
        /// The command.
        method: String,
        /// Chromium's message.
        message: String,
    },
    /// The page did not get through a step within the real-time limit: a script that never
    /// yields (an endless loop), or a machine far too busy. Not a page error: which of the two
    /// it was depends on the machine, so a caller must not show it as the page's result (a
    /// trial ends as an infrastructure error).
    #[error(
        "the page did not finish {step} within {} s of real time (a script that never yields, \
         such as an endless loop?)",
        limit.as_secs_f64()
    )]
    PageHung {
        /// What the page was doing.
        step: &'static str,
        /// The limit.
        limit: Duration,
    },
    /// The page's renderer crashed (for instance out of its memory limit).
    #[error(
        "the page crashed (its renderer died: out of its {heap_mib} MiB script memory, or a browser bug)"
    )]
    PageCrashed {
        /// The renderer's script heap limit.
        heap_mib: u64,
    },
    /// The page could not be loaded.
    #[error("cannot open {url}: {reason}")]
    Navigation {
        /// The URL asked for.
        url: String,
        /// Chromium's or clawrun's reason.
        reason: String,
    },
    /// The request was malformed (a URL the browser may not open, bad numbers).
    #[error("{0}")]
    Invalid(String),
    /// A message from the browser was not what the protocol promises.
    #[error("a DevTools message could not be read: {0}")]
    Malformed(String),
}

impl BrowserError {
    /// Whether the error is the page's or the request's (the model's to fix), not the browser's
    /// nor the machine's: the same page and request give it on every machine. A step that
    /// passed the real-time limit ([`BrowserError::PageHung`]) is not one.
    pub fn is_page_error(&self) -> bool {
        matches!(
            self,
            BrowserError::PageCrashed { .. }
                | BrowserError::Navigation { .. }
                | BrowserError::Invalid(_)
        )
    }
}
