//! The terminal's view of a run ([`clawrun_run::progress::Progress`]): a progress bar with ETA
//! and the running pass rate, notices and model retry lines printed above it.

use std::sync::{Arc, Mutex};

use clawrun_run::progress::{Progress, Tally};
use indicatif::{ProgressBar, ProgressStyle};

/// A run drawn on stderr.
pub struct Terminal {
    /// Whether to draw the bar (not with `--json` or `-q`).
    show_bar: bool,
    /// Whether to print notices.
    notices: bool,
    /// The bar while a run lasts (hidden when not shown).
    bar: Mutex<Option<ProgressBar>>,
}

impl Terminal {
    /// A view drawing the bar when `show_bar`, printing notices when `notices`.
    pub fn new(show_bar: bool, notices: bool) -> Arc<Self> {
        Arc::new(Terminal {
            show_bar,
            notices,
            bar: Mutex::new(None),
        })
    }

    /// The bar of the run in progress, if one is.
    fn bar(&self) -> Option<ProgressBar> {
        self.bar.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Progress for Terminal {
    fn start(&self, total: usize) {
        let bar = if self.show_bar {
            let bar = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} trials, ETA {eta}  {msg}",
            ) {
                bar.set_style(style);
            }
            bar
        } else {
            ProgressBar::hidden()
        };
        // Model retry notices go above the bar (and into its message) while the run lasts.
        let shown = bar.clone();
        clawrun_agents::llm::set_retry_reporter(Some(Arc::new(move |line: &str| {
            shown.suspend(|| eprintln!("{line}"));
            shown.set_message(format!(
                "retrying: {}",
                line.trim_start_matches("clawrun: ")
            ));
        })));
        *self.bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
    }

    fn advance(&self, tally: &Tally) {
        let Some(bar) = self.bar() else { return };
        bar.set_position(tally.finished() as u64);
        bar.set_message(format!(
            "pass {:.1}% ({}/{}){}{}",
            100.0 * tally.passed as f64 / tally.scored.max(1) as f64,
            tally.passed,
            tally.scored,
            if tally.unjudged > 0 {
                format!(", {} unjudged", tally.unjudged)
            } else {
                String::new()
            },
            if tally.errors > 0 {
                format!(", {} errors", tally.errors)
            } else {
                String::new()
            }
        ));
    }

    fn notice(&self, line: &str) {
        if !self.notices {
            return;
        }
        match self.bar() {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish_and_clear();
            clawrun_agents::llm::set_retry_reporter(None);
        }
    }
}
