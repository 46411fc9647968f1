//! Model configuration: provider, endpoint, sampling, limits, retries and the response cache.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::agent::AgentError;

/// Which wire protocol a model speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI-compatible Chat Completions (OpenAI, OpenRouter, vLLM, Ollama, llama.cpp).
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
}

impl Provider {
    /// The provider's short name (`openai`, `anthropic`), as used in agent descriptions.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a provider, cache mode or model spec did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// A provider other than `openai`, `anthropic` or `openrouter`.
    #[error(
        "unknown provider `{0}`: expected openai, anthropic or openrouter{hint}",
        hint = crate::spelling::did_you_mean(.0, PROVIDERS)
    )]
    Provider(String),
    /// A cache mode other than `auto`, `on` or `off`.
    #[error("unknown cache mode `{0}` (expected auto, on or off)")]
    CacheMode(String),
    /// A model spec without `provider:`.
    #[error(
        "model spec `{0}` should look like openai:MODEL, anthropic:MODEL or openrouter:MODEL \
         (or Inspect's openai/MODEL)"
    )]
    Shape(String),
    /// A model spec with an empty model part.
    #[error("model spec `{0}` names no model")]
    NoModel(String),
}

/// The providers a model spec may name (`openrouter`: the OpenAI protocol at OpenRouter).
pub const PROVIDERS: [&str; 3] = ["openai", "anthropic", "openrouter"];

impl FromStr for Provider {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        match s {
            "openai" => Ok(Provider::OpenAi),
            "anthropic" => Ok(Provider::Anthropic),
            other => Err(SpecError::Provider(other.to_string())),
        }
    }
}

/// Whether model responses are cached on disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CacheMode {
    /// On exactly when the temperature is 0.
    Auto,
    /// Always on.
    On,
    /// Always off (the default: every request reaches the model).
    #[default]
    Off,
}

impl FromStr for CacheMode {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        match s {
            "auto" => Ok(CacheMode::Auto),
            "on" => Ok(CacheMode::On),
            "off" => Ok(CacheMode::Off),
            other => Err(SpecError::CacheMode(other.to_string())),
        }
    }
}

/// OpenAI's public endpoint, used when neither the config nor `OPENAI_BASE_URL` names one.
pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// OpenRouter's OpenAI-compatible endpoint (selected by the `openrouter:MODEL` spec).
pub const OPENROUTER_BASE_URL: &str = "https://openrouter.ai/api/v1";
/// Anthropic's public endpoint (the Messages API lives at `{base}/v1/messages`).
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// How to reach and drive one model.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelConfig {
    /// The wire protocol.
    pub provider: Provider,
    /// The model name sent to the API.
    pub model: String,
    /// The API base URL; `None` = from the environment, else the provider's public endpoint.
    /// OpenAI-style bases include the version (`http://host:8000/v1`); Anthropic's do not.
    pub base_url: Option<String>,
    /// The API key; `None` = from the environment (may stay unset for local servers).
    pub api_key: Option<String>,
    /// Sampling temperature; `None` = not sent (the server's default). Default `Some(0.0)`.
    pub temperature: Option<f64>,
    /// Output token cap; OpenAI: sent only when set; Anthropic: default 4096.
    pub max_tokens: Option<u32>,
    /// Time limit for one HTTP request (connect to last byte). Default 300 s.
    pub timeout: Duration,
    /// Retries after the first attempt on 408/409/429/5xx, connection errors and timeouts.
    pub max_retries: u32,
    /// The first backoff delay; doubles per retry (with deterministic jitter). Default 1 s.
    pub backoff_base: Duration,
    /// The longest computed backoff delay. Default 60 s.
    pub backoff_max: Duration,
    /// The longest wait a server's `Retry-After` may impose. Default 120 s.
    pub retry_after_cap: Duration,
    /// Requests in flight at once per (provider, base URL), shared by every client in the
    /// process; the first client to name an endpoint sets its limit. Default 4.
    pub concurrency: usize,
    /// Whether images are sent to the model (else replaced by a text placeholder).
    /// Default: false for OpenAI-compatible models, true for Anthropic.
    pub accepts_images: bool,
    /// Response caching (default off; `clawrun run --cache` turns it on).
    pub cache: CacheMode,
    /// The cache folder; `None` = `$CLAWRUN_CACHE_DIR/llm`, else
    /// `$XDG_CACHE_HOME/clawrun/llm`, else `~/.cache/clawrun/llm`.
    pub cache_dir: Option<PathBuf>,
    /// Extra top-level fields merged into every request body (e.g. OpenRouter's `reasoning`).
    pub extra_body: Map<String, Value>,
}

impl ModelConfig {
    /// A config with the defaults for `provider` and `model`.
    pub fn new(provider: Provider, model: impl Into<String>) -> Self {
        ModelConfig {
            provider,
            model: model.into(),
            base_url: None,
            api_key: None,
            temperature: Some(0.0),
            max_tokens: None,
            timeout: Duration::from_secs(300),
            max_retries: 8,
            backoff_base: Duration::from_secs(1),
            backoff_max: Duration::from_secs(60),
            retry_after_cap: Duration::from_secs(120),
            concurrency: 4,
            accepts_images: provider == Provider::Anthropic,
            cache: CacheMode::Off,
            cache_dir: None,
            extra_body: Map::new(),
        }
    }

    /// Parses `openai:MODEL`, `anthropic:MODEL` or `openrouter:MODEL` (OpenAI protocol at
    /// OpenRouter's endpoint), or Inspect's spelling of the same, `openai/MODEL`. The model
    /// part may itself contain colons and slashes.
    pub fn from_spec(spec: &str) -> Result<Self, SpecError> {
        let (provider, model) = match spec.split_once(':') {
            Some((provider, model)) if !provider.contains('/') => (provider, model),
            // `openai/gpt-4o`, `openrouter/google/gemini:free` (Inspect AI's form).
            _ => match spec.split_once('/') {
                Some((provider, model)) if PROVIDERS.contains(&provider) => (provider, model),
                Some((provider, _)) if !provider.is_empty() => {
                    return Err(SpecError::Provider(provider.to_string()));
                }
                _ => return Err(SpecError::Shape(spec.to_string())),
            },
        };
        if model.is_empty() {
            return Err(SpecError::NoModel(spec.to_string()));
        }
        if provider == "openrouter" {
            let mut config = ModelConfig::new(Provider::OpenAi, model);
            config.base_url = Some(OPENROUTER_BASE_URL.to_string());
            return Ok(config);
        }
        Ok(ModelConfig::new(provider.parse()?, model))
    }

    /// `provider:model`, the agent description used in traces.
    pub fn describe(&self) -> String {
        format!("{}:{}", self.provider, self.model)
    }

    /// Whether responses are cached under this config.
    pub fn cache_enabled(&self) -> bool {
        match self.cache {
            CacheMode::On => true,
            CacheMode::Off => false,
            CacheMode::Auto => self.temperature == Some(0.0),
        }
    }

    /// Fills in the base URL, key and cache folder from the process environment.
    pub fn resolve(&self) -> Result<ResolvedEndpoint, AgentError> {
        self.resolve_with(&|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
    }

    /// Like [`ModelConfig::resolve`], reading variables through `env` (for tests).
    pub fn resolve_with(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ResolvedEndpoint, AgentError> {
        let (base_var, key_var, default_base) = match self.provider {
            Provider::OpenAi => ("OPENAI_BASE_URL", "OPENAI_API_KEY", OPENAI_DEFAULT_BASE_URL),
            Provider::Anthropic => (
                "ANTHROPIC_BASE_URL",
                "ANTHROPIC_API_KEY",
                ANTHROPIC_DEFAULT_BASE_URL,
            ),
        };
        let base_url = self
            .base_url
            .clone()
            .or_else(|| env(base_var))
            .unwrap_or_else(|| default_base.to_string());
        let base_url = base_url.trim_end_matches('/').to_string();
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(AgentError::Setup(format!(
                "base URL `{base_url}` must start with http:// or https://"
            )));
        }
        let openrouter = base_url.contains("openrouter.ai");
        let api_key = self.api_key.clone().or_else(|| {
            if openrouter {
                env("OPENROUTER_API_KEY").or_else(|| env(key_var))
            } else {
                env(key_var)
            }
        });
        let public = base_url == default_base || openrouter;
        if api_key.is_none() && public {
            let var = if openrouter {
                "OPENROUTER_API_KEY"
            } else {
                key_var
            };
            return Err(AgentError::Setup(format!(
                "no API key for {base_url}: set {var} (or name another variable with \
                 `api_key_env` in --model-config)"
            )));
        }
        let cache_dir = self.cache_dir.clone().or_else(|| default_cache_dir(env));
        Ok(ResolvedEndpoint {
            base_url,
            api_key,
            cache_dir,
        })
    }
}

/// Where a config's requests go, after the environment was consulted.
#[derive(Clone, PartialEq, Eq)]
pub struct ResolvedEndpoint {
    /// The base URL, without a trailing slash.
    pub base_url: String,
    /// The API key, if any.
    pub api_key: Option<String>,
    /// The response cache folder, if one could be determined.
    pub cache_dir: Option<PathBuf>,
}

impl fmt::Debug for ResolvedEndpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResolvedEndpoint")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("cache_dir", &self.cache_dir)
            .finish()
    }
}

/// The default LLM cache folder (see [`ModelConfig::cache_dir`]).
fn default_cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(dir) = env("CLAWRUN_CACHE_DIR") {
        return Some(PathBuf::from(dir).join("llm"));
    }
    if let Some(dir) = env("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("clawrun").join("llm"));
    }
    env("HOME").map(|h| PathBuf::from(h).join(".cache").join("clawrun").join("llm"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn spec_parsing() {
        let c = ModelConfig::from_spec("openai:gpt-4o").unwrap();
        assert_eq!((c.provider, c.model.as_str()), (Provider::OpenAi, "gpt-4o"));
        assert!(!c.accepts_images);
        let c = ModelConfig::from_spec("anthropic:claude-x").unwrap();
        assert_eq!(c.provider, Provider::Anthropic);
        assert!(c.accepts_images);
        let c = ModelConfig::from_spec("openrouter:google/gemini:free").unwrap();
        assert_eq!(c.model, "google/gemini:free");
        assert_eq!(c.base_url.as_deref(), Some(OPENROUTER_BASE_URL));
        assert!(ModelConfig::from_spec("gpt-4o").is_err());
        assert!(ModelConfig::from_spec("bard:x").is_err());
        assert_eq!(c.describe(), "openai:google/gemini:free");
        // Inspect AI's provider/model spelling means the same.
        for (inspect, ours) in [
            ("openai/gpt-4o", "openai:gpt-4o"),
            ("anthropic/claude-x", "anthropic:claude-x"),
            (
                "openrouter/google/gemini:free",
                "openrouter:google/gemini:free",
            ),
            ("openai/llama3:8b", "openai:llama3:8b"),
        ] {
            assert_eq!(
                ModelConfig::from_spec(inspect).unwrap(),
                ModelConfig::from_spec(ours).unwrap(),
                "{inspect}"
            );
        }
        // A slip in the provider is named with the provider meant.
        let e = ModelConfig::from_spec("opnai:gpt-4o")
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("(did you mean openai?)"), "{e}");
        let e = ModelConfig::from_spec("antropic/claude")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`antropic`") && e.ends_with("(did you mean anthropic?)"),
            "{e}"
        );
        let e = ModelConfig::from_spec("google/gemini")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("expected openai, anthropic or openrouter"),
            "{e}"
        );
        assert!(!e.contains("did you mean"), "{e}");
    }

    #[test]
    fn env_resolution() {
        let c = ModelConfig::new(Provider::OpenAi, "m");
        let r = c
            .resolve_with(&env_of(&[
                ("OPENAI_BASE_URL", "http://localhost:8000/v1/"),
                ("CLAWRUN_CACHE_DIR", "/c"),
            ]))
            .unwrap();
        assert_eq!(r.base_url, "http://localhost:8000/v1");
        assert_eq!(r.api_key, None);
        assert_eq!(r.cache_dir, Some(PathBuf::from("/c/llm")));

        // The public endpoint needs a key.
        let err = c.resolve_with(&env_of(&[])).unwrap_err();
        assert!(
            matches!(err, AgentError::Setup(_)),
            "a setting to fix: {err:?}"
        );
        assert!(err.to_string().contains("OPENAI_API_KEY"), "{err}");

        let r = ModelConfig::from_spec("openrouter:x")
            .unwrap()
            .resolve_with(&env_of(&[
                ("OPENROUTER_API_KEY", "or"),
                ("OPENAI_API_KEY", "oa"),
                ("XDG_CACHE_HOME", "/x"),
            ]))
            .unwrap();
        assert_eq!(r.api_key.as_deref(), Some("or"));
        assert_eq!(r.cache_dir, Some(PathBuf::from("/x/clawrun/llm")));

        let mut c = ModelConfig::new(Provider::Anthropic, "m");
        let r = c
            .resolve_with(&env_of(&[("ANTHROPIC_API_KEY", "k"), ("HOME", "/h")]))
            .unwrap();
        assert_eq!(r.base_url, ANTHROPIC_DEFAULT_BASE_URL);
        assert_eq!(r.cache_dir, Some(PathBuf::from("/h/.cache/clawrun/llm")));
        assert!(!format!("{r:?}").contains("\"k\""));
        c.api_key = Some("explicit".into());
        c.base_url = Some("ftp://x".into());
        assert!(c.resolve_with(&env_of(&[])).is_err());
    }

    #[test]
    fn cache_mode_follows_temperature() {
        let mut c = ModelConfig::new(Provider::OpenAi, "m");
        assert!(!c.cache_enabled(), "off by default");
        c.cache = CacheMode::Auto;
        assert!(c.cache_enabled());
        c.temperature = Some(0.7);
        assert!(!c.cache_enabled());
        c.cache = CacheMode::On;
        assert!(c.cache_enabled());
        c.temperature = Some(0.0);
        c.cache = CacheMode::Off;
        assert!(!c.cache_enabled());
        assert_eq!("auto".parse::<CacheMode>(), Ok(CacheMode::Auto));
    }
}
