//! Process-wide request limits: one semaphore per (provider, base URL), shared by every
//! client, so an agent, the judge and the simulated user on one endpoint respect one limit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use tokio::sync::Semaphore;

use super::config::Provider;

/// Endpoint semaphores by (provider, base URL).
type Registry = HashMap<(Provider, String), Arc<Semaphore>>;

/// The registry of endpoint semaphores.
static LIMITS: OnceLock<Mutex<Registry>> = OnceLock::new();

/// The semaphore for (`provider`, `base_url`); created with `permits` (at least 1) when new.
pub(crate) fn semaphore(provider: Provider, base_url: &str, permits: usize) -> Arc<Semaphore> {
    let mut map = LIMITS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    map.entry((provider, base_url.to_string()))
        .or_insert_with(|| Arc::new(Semaphore::new(permits.max(1))))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_per_endpoint() {
        let a = semaphore(Provider::OpenAi, "http://limits-test-a", 2);
        let b = semaphore(Provider::OpenAi, "http://limits-test-a", 9);
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(b.available_permits(), 2);
        let c = semaphore(Provider::Anthropic, "http://limits-test-a", 0);
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(c.available_permits(), 1);
    }
}
