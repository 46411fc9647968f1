//! The model flags of `clawrun run`/`fuzz` (the agent's model) and `clawrun judge` (the judge's):
//! one set of settings (`clawrun_run::model_settings::ModelFlags`), two help texts.

use clawrun_run::model_settings::{ModelFlags, parse_http_url, parse_temperature, parse_timeout};

/// The agent's model flags (they override the file's `agent:` section).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct AgentModelFlags {
    /// The agent model's sampling temperature (default 0).
    #[arg(long, value_name = "T", value_parser = parse_temperature)]
    pub temperature: Option<f64>,
    /// Seconds one request to the agent model may take (default 300).
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    pub timeout: Option<f64>,
    /// Retries of a failed agent model request (default 8).
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,
    /// Agent model requests in flight at once (default 4).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: Option<u64>,
    /// The agent model's API base URL (e.g. http://localhost:8000/v1).
    #[arg(long, value_name = "URL", value_parser = parse_http_url)]
    pub base_url: Option<String>,
    /// A YAML file of model settings (`agent:`, `judge:` and `user_model:` sections).
    ///
    /// Each section (all optional) may set model, base_url, api_key_env, temperature,
    /// max_tokens, timeout, max_retries and max_connections.
    #[arg(long, value_name = "FILE")]
    pub model_config: Option<std::path::PathBuf>,
}

/// The judge model's flags of `clawrun judge` (they override the file's `judge:` section).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct JudgeModelFlags {
    /// The judge model's sampling temperature (default 0).
    #[arg(long, value_name = "T", value_parser = parse_temperature)]
    pub temperature: Option<f64>,
    /// Seconds one request to the judge model may take (default 300).
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    pub timeout: Option<f64>,
    /// Retries of a failed judge model request (default 8).
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,
    /// Judge model requests in flight at once (default 4).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_connections: Option<u64>,
    /// The judge model's API base URL (e.g. http://localhost:8000/v1).
    #[arg(long, value_name = "URL", value_parser = parse_http_url)]
    pub base_url: Option<String>,
    /// A YAML file of model settings (the format of `clawrun run --model-config`); its
    /// `judge:` section applies (other sections are checked and ignored).
    #[arg(long, value_name = "FILE")]
    pub model_config: Option<std::path::PathBuf>,
}

impl From<&AgentModelFlags> for ModelFlags {
    fn from(f: &AgentModelFlags) -> Self {
        ModelFlags {
            temperature: f.temperature,
            timeout: f.timeout,
            max_retries: f.max_retries,
            max_connections: f.max_connections,
            base_url: f.base_url.clone(),
            model_config: f.model_config.clone(),
        }
    }
}

impl From<&JudgeModelFlags> for ModelFlags {
    fn from(f: &JudgeModelFlags) -> Self {
        ModelFlags {
            temperature: f.temperature,
            timeout: f.timeout,
            max_retries: f.max_retries,
            max_connections: f.max_connections,
            base_url: f.base_url.clone(),
            model_config: f.model_config.clone(),
        }
    }
}
