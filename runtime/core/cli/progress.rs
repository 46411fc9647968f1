//! The terminal's view of a run ([`clawrun_run::progress::Progress`]): a progress bar with ETA
//! and the running pass rate, notices and model retry notices printed above it (the first of
//! each model, and a count per model at the end; every one with `-v`).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use clawrun_run::progress::{Progress, Tally};
use indicatif::{ProgressBar, ProgressStyle};

/// Whether every model retry is printed (`-v`), not only each model's first.
static EVERY_RETRY: AtomicBool = AtomicBool::new(false);

/// Prints every model retry notice (`-v`) instead of the first per model and a count.
pub fn print_every_retry(on: bool) {
    EVERY_RETRY.store(on, Ordering::Relaxed);
}

/// Model retries seen during a run, by model (`provider:model`).
type RetryCounts = Arc<Mutex<BTreeMap<String, u64>>>;

/// A run drawn on stderr.
pub struct Terminal {
    /// Whether to draw the bar (not with `--json` or `-q`).
    show_bar: bool,
    /// Whether to print notices.
    notices: bool,
    /// The bar while a run lasts (hidden when not shown).
    bar: Mutex<Option<ProgressBar>>,
    /// The model retries of the run so far.
    retries: RetryCounts,
}

impl Terminal {
    /// A view drawing the bar when `show_bar`, printing notices when `notices`.
    pub fn new(show_bar: bool, notices: bool) -> Arc<Self> {
        Arc::new(Terminal {
            show_bar,
            notices,
            bar: Mutex::new(None),
            retries: RetryCounts::default(),
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
        // Model retry notices go above the bar (and into its message) while the run lasts:
        // at default verbosity only each model's first (a run of many trials against a busy
        // endpoint would print hundreds), with a count per model when the run ends.
        let shown = bar.clone();
        let counts = Arc::clone(&self.retries);
        counts.lock().unwrap_or_else(|e| e.into_inner()).clear();
        clawrun_agents::llm::set_retry_reporter(Some(Arc::new(move |model: &str, line: &str| {
            let n = {
                let mut counts = counts.lock().unwrap_or_else(|e| e.into_inner());
                let n = counts.entry(model.to_string()).or_default();
                *n += 1;
                *n
            };
            if EVERY_RETRY.load(Ordering::Relaxed) {
                shown.suspend(|| eprintln!("{line}"));
            } else if n == 1 {
                shown.suspend(|| {
                    eprintln!(
                        "{line}\nclawrun: {model}: further retries are counted, not printed (-v prints each)"
                    );
                });
            }
            shown.set_message(format!("retrying {model} ({n} retries so far)"));
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
            if !EVERY_RETRY.load(Ordering::Relaxed) {
                let counts = self.retries.lock().unwrap_or_else(|e| e.into_inner());
                for (model, n) in counts.iter().filter(|(_, n)| **n > 1) {
                    eprintln!("clawrun: {model}: {n} failed requests were retried during the run");
                }
            }
        }
    }
}
