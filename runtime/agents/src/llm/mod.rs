//! LLM clients (DESIGN §7): OpenAI-compatible Chat Completions and Anthropic Messages over
//! HTTP(S), with bounded retries, process-wide concurrency limits, token accounting and an
//! on-disk response cache. The same [`LlmClient`] serves the agent under test
//! ([`LlmAgent`]), the LLM judge and the simulated user.

mod anthropic;
mod arguments;
mod cache;
mod client;
mod config;
mod limits;
mod openai;
mod retry;

pub use self::arguments::{INVALID_ARGUMENTS_KEY, invalid_arguments};
pub use self::client::{ClientStats, LlmAgent, LlmClient, install_crypto_provider};
pub use self::config::{
    ANTHROPIC_DEFAULT_BASE_URL, CacheMode, ModelConfig, OPENAI_DEFAULT_BASE_URL,
    OPENROUTER_BASE_URL, Provider, ResolvedEndpoint,
};

/// The text sent instead of an image to a model that does not accept images.
pub fn image_placeholder(media_type: &str) -> String {
    format!("[image omitted: {media_type}; this model does not accept images]")
}
