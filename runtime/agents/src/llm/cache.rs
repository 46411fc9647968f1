//! The on-disk response cache: one JSON file per request, keyed by blake3 of the request.
//!
//! Key = blake3 of the canonical JSON (sorted keys, no spaces) of
//! `{"base_url", "body", "model", "provider", "sample", "v"}`, where `base_url` has any user
//! credentials removed, the API key never takes part, and `sample` is the trial seed the
//! request belongs to (`null` outside trials): the same request in another trial is another
//! sample and never shares an entry. The file
//! `<dir>/<first 2 hex>/<hex>.json` holds `{"provider", "model", "response"}` with the
//! provider's raw response body; writes go to a temporary file renamed into place, not synced:
//! the cache is an optimisation, and an entry a power loss cut short reads as a miss (the
//! request is sent again and the entry rewritten), so no model call waits for the disk.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use super::config::Provider;

/// Bumped when the key derivation or file layout changes.
const CACHE_VERSION: u32 = 2;

/// A response cache rooted at one folder.
#[derive(Clone, Debug)]
pub(crate) struct ResponseCache {
    /// The root folder.
    dir: PathBuf,
}

impl ResponseCache {
    /// A cache under `dir` (created lazily on the first write).
    pub(crate) fn new(dir: PathBuf) -> Self {
        ResponseCache { dir }
    }

    /// The key of a request made for `sample` (the trial seed, if any).
    pub(crate) fn key(
        provider: Provider,
        base_url: &str,
        model: &str,
        body: &Value,
        sample: Option<u64>,
    ) -> String {
        let request = json!({
            "v": CACHE_VERSION,
            "sample": sample,
            "provider": provider.name(),
            "base_url": strip_credentials(base_url),
            "model": model,
            "body": body,
        });
        let mut text = String::new();
        canonical_json(&request, &mut text);
        blake3::hash(text.as_bytes()).to_hex().to_string()
    }

    /// The file for `key`.
    pub(crate) fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// The cached response body for `key`; unreadable or corrupt entries count as misses.
    pub(crate) fn get(&self, key: &str) -> Option<Value> {
        let bytes = fs::read(self.path(key)).ok()?;
        let mut entry: Value = serde_json::from_slice(&bytes).ok()?;
        entry.get_mut("response").map(Value::take)
    }

    /// Stores `response` under `key`, atomically (but unsynced: see the module notes).
    pub(crate) fn put(
        &self,
        key: &str,
        provider: Provider,
        model: &str,
        response: &Value,
    ) -> io::Result<()> {
        let path = self.path(key);
        let dir = path.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(dir)?;
        let entry = json!({"provider": provider.name(), "model": model, "response": response});
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let tmp = dir.join(format!(
            ".{key}.{}.{}.tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let result = (|| {
            let mut file = fs::File::create(&tmp)?;
            file.write_all(&serde_json::to_vec_pretty(&entry)?)?;
            fs::rename(&tmp, &path)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }
}

/// `url` without a `user:password@` part.
fn strip_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => url.to_string(),
    }
}

/// Appends `value` as JSON with object keys sorted and no whitespace.
pub(crate) fn canonical_json(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical_json(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_json(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form_sorts_keys() {
        let mut a = String::new();
        canonical_json(&json!({"b": [1, {"z": 1, "a": "x"}], "a": null}), &mut a);
        assert_eq!(a, r#"{"a":null,"b":[1,{"a":"x","z":1}]}"#);
    }

    #[test]
    fn keys_ignore_credentials_but_not_content() {
        let body = json!({"messages": []});
        let k = ResponseCache::key(Provider::OpenAi, "http://h/v1", "m", &body, Some(1));
        assert_eq!(
            k,
            ResponseCache::key(
                Provider::OpenAi,
                "http://u:secret@h/v1",
                "m",
                &body,
                Some(1)
            )
        );
        assert_ne!(
            k,
            ResponseCache::key(Provider::Anthropic, "http://h/v1", "m", &body, Some(1))
        );
        assert_ne!(
            k,
            ResponseCache::key(Provider::OpenAi, "http://h/v1", "n", &body, Some(1))
        );
        assert_ne!(
            k,
            ResponseCache::key(
                Provider::OpenAi,
                "http://h/v1",
                "m",
                &json!({"messages": [1]}),
                Some(1)
            )
        );
        // Another trial (sample) is another entry.
        assert_ne!(
            k,
            ResponseCache::key(Provider::OpenAi, "http://h/v1", "m", &body, Some(2))
        );
        assert_ne!(
            k,
            ResponseCache::key(Provider::OpenAi, "http://h/v1", "m", &body, None)
        );
        assert_eq!(strip_credentials("https://a@b/c@d"), "https://b/c@d");
    }

    #[test]
    fn round_trip_and_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResponseCache::new(dir.path().join("llm"));
        let key = ResponseCache::key(Provider::OpenAi, "http://h", "m", &json!({}), None);
        assert_eq!(cache.get(&key), None);
        cache
            .put(&key, Provider::OpenAi, "m", &json!({"ok": 1}))
            .unwrap();
        assert_eq!(cache.get(&key), Some(json!({"ok": 1})));
        let path = cache.path(&key);
        assert!(path.starts_with(dir.path().join("llm").join(&key[..2])));
        let leftovers = fs::read_dir(path.parent().unwrap()).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary files remain");
        fs::write(&path, b"{truncated").unwrap();
        assert_eq!(cache.get(&key), None);
    }

    #[test]
    fn an_entry_cut_at_any_byte_or_zeroed_by_a_power_loss_is_a_miss_and_is_written_again() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ResponseCache::new(dir.path().join("llm"));
        let key = ResponseCache::key(Provider::OpenAi, "http://h", "m", &json!({}), Some(7));
        let response = json!({"choices": [{"message": {"content": "hello"}}], "usage": {"n": 3}});
        cache.put(&key, Provider::OpenAi, "m", &response).unwrap();
        let path = cache.path(&key);
        let whole = fs::read(&path).unwrap();
        for cut in 0..whole.len() {
            fs::write(&path, &whole[..cut]).unwrap();
            assert_eq!(cache.get(&key), None, "cut at byte {cut}");
        }
        let mut zeroed = whole.clone();
        zeroed[whole.len() / 3..].fill(0);
        fs::write(&path, &zeroed).unwrap();
        assert_eq!(cache.get(&key), None, "zeroed");
        // Asked again, the answer replaces it.
        cache.put(&key, Provider::OpenAi, "m", &response).unwrap();
        assert_eq!(cache.get(&key), Some(response));
    }
}
