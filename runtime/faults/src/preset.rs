//! The `claw-eval` preset: Claw-Eval's error-injection middleware (`mock_services/_base.py`),
//! reproduced exactly except that its randomness is seeded and its sleep is virtual.
//!
//! Per request to a mock service: pass through if the path ends with `/audit`, `/reset`,
//! `/health`, `/docs` or `/openapi.json`, or the request carries `X-Health-Check: 1`, or the
//! method is not `POST`; otherwise inject with probability `ERROR_RATE`, choosing 429
//! (weight 0.35, body [`RATE_LIMIT_BODY`](super::response::RATE_LIMIT_BODY) and
//! `Retry-After: 2`), 500 (0.35, [`SERVER_ERROR_BODY`](super::response::SERVER_ERROR_BODY)) or a
//! 2-4 s delay after which the request is served normally (0.30). Only `service:` points are
//! eligible: sandbox tools are never injected, as in Claw-Eval.
//!
//! The rate: `claw-eval:RATE` sets it; plain `claw-eval` reads the `ERROR_RATE` environment
//! variable as Claw-Eval does, and like Claw-Eval defaults to 0 (no injection) when it is unset.

use super::kind::{DEFAULT_LATENCY_MILLIS, DEFAULT_RETRY_AFTER_SECS, FaultKind, KindSpec};
use super::plan::FaultPlan;
use super::rule::{Rule, Trigger};

/// The preset's name (`--faults claw-eval`, `preset: claw-eval`).
pub const CLAW_EVAL: &str = "claw-eval";

/// The environment variable Claw-Eval's services read their rate from.
pub const ERROR_RATE_ENV: &str = "ERROR_RATE";

/// The rate when neither `claw-eval:RATE` nor `ERROR_RATE` gives one (Claw-Eval's code default).
pub const CLAW_EVAL_DEFAULT_RATE: f64 = 0.0;

/// Path suffixes the middleware never injects on.
pub const CLAW_EVAL_EXEMPT_SUFFIXES: [&str; 5] =
    ["/audit", "/reset", "/health", "/docs", "/openapi.json"];

/// The only method the middleware injects on.
pub const CLAW_EVAL_METHOD: &str = "POST";

/// The middleware's outcomes and their weights: 429, 500, slow.
pub fn claw_eval_kinds() -> Vec<(KindSpec, f64)> {
    vec![
        (
            KindSpec::Fixed(FaultKind::Status429 {
                retry_after_secs: DEFAULT_RETRY_AFTER_SECS,
            }),
            0.35,
        ),
        (KindSpec::Fixed(FaultKind::Status500), 0.35),
        (
            KindSpec::LatencyRange {
                min_millis: DEFAULT_LATENCY_MILLIS.0,
                max_millis: DEFAULT_LATENCY_MILLIS.1,
            },
            0.30,
        ),
    ]
}

/// The preset as one rule (named `claw-eval`) at `rate`.
pub fn claw_eval_rule(rate: f64) -> Rule {
    Rule {
        name: Some(CLAW_EVAL.to_string()),
        points: vec!["service:*".to_string()],
        kinds: claw_eval_kinds(),
        trigger: Trigger::Probability(rate),
        max_count: None,
        methods: vec![CLAW_EVAL_METHOD.to_string()],
        exclude_suffixes: CLAW_EVAL_EXEMPT_SUFFIXES.map(str::to_string).to_vec(),
        skip_health_checks: true,
    }
}

/// The preset as a plan under `seed` at `rate` (0..=1).
pub fn claw_eval(seed: u64, rate: f64) -> Result<FaultPlan, RateError> {
    check_rate(rate)?;
    Ok(FaultPlan::new(seed, vec![claw_eval_rule(rate)]).expect("the claw-eval rule is valid"))
}

/// An invalid rate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RateError(pub String);

/// Checks that `rate` is a probability.
pub fn check_rate(rate: f64) -> Result<f64, RateError> {
    if (0.0..=1.0).contains(&rate) {
        Ok(rate)
    } else {
        Err(RateError(format!(
            "the rate must be a number within 0..=1, not {rate}"
        )))
    }
}

/// Parses a rate written as text (`0.3`, `1`, `.25`, `1e-1`).
pub fn parse_rate(text: &str) -> Result<f64, RateError> {
    let rate: f64 = text.trim().parse().map_err(|_| {
        RateError(format!(
            "`{text}` is not a rate: write a number within 0..=1, e.g. 0.3"
        ))
    })?;
    check_rate(rate)
}

/// The preset's rate when none is written: `ERROR_RATE` (its value as passed in, e.g.
/// `std::env::var("ERROR_RATE").ok()`), else [`CLAW_EVAL_DEFAULT_RATE`].
pub fn default_rate(error_rate_env: Option<&str>) -> Result<f64, RateError> {
    match error_rate_env {
        None => Ok(CLAW_EVAL_DEFAULT_RATE),
        Some(text) => parse_rate(text)
            .map_err(|e| RateError(format!("environment variable {ERROR_RATE_ENV}: {}", e.0))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates() {
        assert_eq!(parse_rate("0.3"), Ok(0.3));
        assert_eq!(parse_rate(" 1 "), Ok(1.0));
        assert_eq!(parse_rate(".25"), Ok(0.25));
        for bad in ["1.5", "-0.1", "NaN", "inf", "lots", ""] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
        assert_eq!(default_rate(None), Ok(0.0));
        assert_eq!(default_rate(Some("0.5")), Ok(0.5));
        assert!(
            default_rate(Some("x"))
                .unwrap_err()
                .0
                .starts_with("environment variable ERROR_RATE: ")
        );
        assert!(claw_eval(1, 2.0).is_err());
    }
}
