//! Tokens, wall time and cost, summed per trial, task, aggregate and run.

use serde::{Deserialize, Serialize};

use crate::error::ReportError;
use crate::prices::Prices;
use crate::record::TrialRecord;
use crate::stats::ExactSum;
use crate::timing::Timings;

/// What something spent: the agent model's tokens, wall time and (with a price table) dollars.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Prompt tokens (cached ones included).
    pub input_tokens: u64,
    /// Completion tokens.
    pub output_tokens: u64,
    /// The part of `input_tokens` served from the provider's prompt cache.
    pub cached_input_tokens: u64,
    /// Wall-clock milliseconds: `wall_us` rounded (`None` when the run recorded no timings).
    pub wall_ms: Option<u64>,
    /// Wall-clock microseconds, summed (`None` when the run recorded no timings). Sums are
    /// taken over microseconds, so a run of sub-millisecond trials does not total 0 ms.
    #[serde(default)]
    pub wall_us: Option<u64>,
    /// US dollars (`None` without a price table).
    pub cost_usd: Option<f64>,
}

impl Totals {
    /// One record's totals: its tokens, its wall time from `timings`, its cost from `prices`.
    pub fn of_record(
        r: &TrialRecord,
        timings: &Timings,
        prices: Option<&Prices>,
    ) -> Result<Totals, ReportError> {
        let cost_usd = match prices {
            None => None,
            Some(_) if !r.calls_a_model() => Some(0.0),
            Some(p) => Some(p.cost(
                &r.agent,
                r.input_tokens,
                r.output_tokens,
                r.cached_input_tokens,
            )?),
        };
        Ok(Totals {
            input_tokens: r.input_tokens,
            output_tokens: r.output_tokens,
            cached_input_tokens: r.cached_input_tokens,
            wall_ms: timings.trial_ms(&r.task_id, r.trial),
            wall_us: timings.trial_us(&r.task_id, r.trial),
            cost_usd,
        })
    }

    /// The sum of `items` (its cost independent of their order: [`TotalsSum`]).
    pub fn sum<'a>(items: impl IntoIterator<Item = &'a Totals>) -> Totals {
        let mut out = TotalsSum::default();
        for t in items {
            out.add(t);
        }
        out.value()
    }
}

/// A running sum of [`Totals`] whose cost does not depend on the order of the additions
/// ([`ExactSum`]); the counts are integers.
#[derive(Clone, Copy, Debug, Default)]
pub struct TotalsSum {
    totals: Totals,
    cost_usd: Option<ExactSum>,
}

impl TotalsSum {
    /// Adds `other` (an absent wall time or cost stays absent only when all are).
    pub fn add(&mut self, other: &Totals) {
        let t = &mut self.totals;
        // A journal's counts may say anything: sums stop at the largest count.
        t.input_tokens = t.input_tokens.saturating_add(other.input_tokens);
        t.output_tokens = t.output_tokens.saturating_add(other.output_tokens);
        t.cached_input_tokens = t
            .cached_input_tokens
            .saturating_add(other.cached_input_tokens);
        t.wall_us = sum_opt(t.wall_us, other.wall_us);
        if let Some(cost) = other.cost_usd {
            self.cost_usd.get_or_insert_default().add(cost);
        }
    }

    /// The totals.
    pub fn value(&self) -> Totals {
        Totals {
            wall_ms: self.totals.wall_us.map(round_to_ms),
            cost_usd: self.cost_usd.map(ExactSum::value),
            ..self.totals
        }
    }
}

/// Microseconds rounded to the nearest millisecond.
pub fn round_to_ms(us: u64) -> u64 {
    us.saturating_add(500) / 1000
}

/// `a + b`, `None` only when both are.
fn sum_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    }
}
