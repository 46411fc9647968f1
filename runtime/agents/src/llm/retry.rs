//! When and how long to wait before retrying a model request.

use std::time::Duration;

use reqwest::header::HeaderMap;

use super::config::ModelConfig;

/// Retries after a connection could not be made at all (refused, DNS failure) before the
/// endpoint is given up as unreachable: a few seconds, not the full backoff budget.
pub(crate) const UNREACHABLE_RETRIES: u32 = 3;

/// The wait before probe attempt `attempt` (from 1): 0.5 s, 1 s, 2 s.
/// How long one probe request may wait for an answer (never the model's `--timeout`: a
/// `GET /models` answers at once from any live server).
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Probe requests that got no answer in [`PROBE_TIMEOUT`] before the endpoint is called
/// silent (a server that accepts connections but never answers does not start answering).
pub(crate) const PROBE_SILENT_TRIES: u32 = 2;

/// How long a probe waits before saying on stderr what it is waiting for.
pub(crate) const PROBE_NOTICE_AFTER: Duration = Duration::from_secs(3);

pub(crate) fn probe_delay(attempt: u32) -> Duration {
    Duration::from_millis(250 << attempt.min(4))
}

/// Whether an HTTP status is worth retrying: 408, 409, 429 and every 5xx.
pub(crate) fn is_retryable(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || (500..600).contains(&status)
}

/// The wait a response asks for: `retry-after-ms` (OpenAI), else `Retry-After` in seconds
/// (fractions accepted). HTTP-date values are ignored (the computed backoff applies).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return seconds(ms / 1000.0);
    }
    get("retry-after")
        .and_then(|v| v.parse::<f64>().ok())
        .and_then(seconds)
}

/// A non-negative, finite number of seconds as a duration.
fn seconds(s: f64) -> Option<Duration> {
    (s.is_finite() && s >= 0.0).then(|| Duration::from_secs_f64(s.min(1e9)))
}

/// The wait before retry number `attempt + 1`: the server's `Retry-After` (capped by
/// `retry_after_cap`), else `backoff_base * 2^attempt` capped by `backoff_max`, scaled by a
/// jitter factor in [0.5, 1) drawn from blake3(`key`, `attempt`), so a rerun waits alike.
pub(crate) fn delay(
    config: &ModelConfig,
    attempt: u32,
    key: &[u8],
    retry_after: Option<Duration>,
) -> Duration {
    if let Some(wait) = retry_after {
        return wait.min(config.retry_after_cap);
    }
    let exp = config
        .backoff_base
        .saturating_mul(1u32 << attempt.min(20))
        .min(config.backoff_max);
    let mut hasher = blake3::Hasher::new();
    hasher.update(key);
    hasher.update(&attempt.to_le_bytes());
    let bytes = hasher.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&bytes.as_bytes()[..8]);
    let unit = (u64::from_le_bytes(first) >> 11) as f64 / (1u64 << 53) as f64;
    exp.mul_f64(0.5 + 0.5 * unit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Provider;
    use reqwest::header::HeaderValue;

    #[test]
    fn statuses() {
        for s in [408, 409, 429, 500, 502, 503, 529] {
            assert!(is_retryable(s), "{s}");
        }
        for s in [200, 400, 401, 403, 404, 422] {
            assert!(!is_retryable(s), "{s}");
        }
    }

    #[test]
    fn retry_after_headers() {
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(3)));
        h.insert("retry-after", HeaderValue::from_static("0.5"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(500)));
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("-1"));
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
    }

    #[test]
    fn delays() {
        let mut c = ModelConfig::new(Provider::OpenAi, "m");
        c.backoff_base = Duration::from_secs(1);
        c.backoff_max = Duration::from_secs(10);
        c.retry_after_cap = Duration::from_secs(30);
        // Retry-After wins, capped.
        assert_eq!(
            delay(&c, 0, b"k", Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
        assert_eq!(
            delay(&c, 0, b"k", Some(Duration::from_secs(99))),
            Duration::from_secs(30)
        );
        // Exponential, jittered into [half, full), deterministic.
        for attempt in 0..8 {
            let full = Duration::from_secs(1 << attempt).min(Duration::from_secs(10));
            let d = delay(&c, attempt, b"k", None);
            assert!(d >= full / 2 && d < full, "attempt {attempt}: {d:?}");
            assert_eq!(d, delay(&c, attempt, b"k", None));
        }
        assert_ne!(delay(&c, 3, b"k", None), delay(&c, 3, b"other", None));
        // Huge attempt numbers do not overflow.
        assert!(delay(&c, 1000, b"k", None) < Duration::from_secs(10));
    }
}
