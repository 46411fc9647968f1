//! What a run tells whoever watches it as it goes: the CLI draws a progress bar and prints
//! notices from it; a library caller, a test or the fuzzer's reproducer runs watch nothing
//! ([`Silent`]). The run itself never draws or prints.

use std::sync::Arc;

/// This session's trials so far: what a progress display shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Trials judged and scored (the pass rate's denominator).
    pub scored: usize,
    /// Of those, trials that passed.
    pub passed: usize,
    /// Trials played without a judge to score them (neither a pass nor a failure).
    pub unjudged: usize,
    /// Trials that ended on a task or infrastructure error.
    pub errors: usize,
}

impl Tally {
    /// Trials that count towards the display's position: scored or unjudged.
    pub fn finished(&self) -> usize {
        self.scored + self.unjudged
    }
}

/// Watches a run (or a re-judging) as it goes. Every method has a default that does nothing.
pub trait Progress: Send + Sync {
    /// `total` trials are about to be played (or judged).
    fn start(&self, total: usize) {
        let _ = total;
    }
    /// A trial finished; `tally` counts this session's trials so far.
    fn advance(&self, tally: &Tally) {
        let _ = tally;
    }
    /// A line for the user (a task skipped, a key missing): `clawrun: ...`.
    fn notice(&self, line: &str) {
        let _ = line;
    }
    /// The run ended: the display goes away.
    fn finish(&self) {}
}

/// Watches nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Progress for Silent {}

/// The display of a run that has none.
pub fn silent() -> Arc<dyn Progress> {
    Arc::new(Silent)
}

/// Calls [`Progress::finish`] when dropped, so that the display goes away on every exit.
pub(crate) struct Finished<'a>(pub(crate) &'a dyn Progress);

impl Drop for Finished<'_> {
    fn drop(&mut self) {
        self.0.finish();
    }
}
