//! Model settings of a run: `--model-config FILE` (YAML with optional `agent:`, `judge:` and
//! `user_model:` sections) and the agent's flags (`--temperature`, `--timeout`,
//! `--max-retries`, `--max-connections`, `--base-url`), which override the file; for
//! `clawrun judge` the same flags set the judge.

use std::path::Path;
use std::time::Duration;

use clawrun_agents::llm::ModelConfig;
use serde::Deserialize;
use serde_json::{Value, json};

use super::agent_spec::AgentSpec;
use super::preflight::SetupError;

/// One role's section of a model config file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSection {
    /// `openai:MODEL`, `anthropic:MODEL` or `openrouter:MODEL`.
    pub model: Option<String>,
    /// The API base URL.
    pub base_url: Option<String>,
    /// The environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Output token cap per request.
    pub max_tokens: Option<u32>,
    /// Seconds one HTTP request may take.
    pub timeout: Option<f64>,
    /// Retries after the first attempt.
    pub max_retries: Option<u32>,
    /// Requests in flight at once to the endpoint.
    pub max_connections: Option<usize>,
    /// Whether images (screenshots, `Read`'s pictures, a vision judge's frames) are sent to
    /// the model; default yes for Anthropic, no for OpenAI-compatible models (a placeholder
    /// text instead).
    pub images: Option<bool>,
}

/// A model config file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFile {
    /// The agent's model and settings.
    pub agent: Option<ModelSection>,
    /// The LLM judge's.
    pub judge: Option<ModelSection>,
    /// The simulated user's.
    pub user_model: Option<ModelSection>,
}

/// One model's settings given as flags (`--temperature`, `--timeout`, `--max-retries`,
/// `--max-connections`, `--base-url`), which override the config file's, and the config file
/// (`--model-config`). `clawrun run` sets the agent's model with them, `clawrun judge` the
/// judge's.
#[derive(Clone, Debug, Default)]
pub struct ModelFlags {
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Seconds one request may take.
    pub timeout: Option<f64>,
    /// Retries of a failed request.
    pub max_retries: Option<u32>,
    /// Requests in flight at once.
    pub max_connections: Option<u64>,
    /// The API base URL.
    pub base_url: Option<String>,
    /// The model config file.
    pub model_config: Option<std::path::PathBuf>,
}

/// The judge of `clawrun judge`: `--judge` with the file's `judge:` settings, else the file's
/// `judge:` model; then the judge flags.
pub fn resolve_judge(
    judge: Option<ModelConfig>,
    flags: &ModelFlags,
) -> Result<ModelConfig, SetupError> {
    let (file, origin) = flags.file()?;
    let mut config = role(judge, file.judge.as_ref(), &origin, "judge", "--judge")?.ok_or_else(
        || {
            SetupError::Usage(
                "no judge model: pass --judge MODEL (openai:MODEL, anthropic:MODEL or openrouter:MODEL), or give --model-config a `judge:` section with a model".into(),
            )
        },
    )?;
    flags.apply(&mut config);
    Ok(config)
}

impl ModelFlags {
    /// The config file's sections (empty without `--model-config`) and its name for messages.
    fn file(&self) -> Result<(ModelFile, String), SetupError> {
        match &self.model_config {
            Some(path) => Ok((read_model_file(path)?, path.display().to_string())),
            None => Ok((ModelFile::default(), String::new())),
        }
    }

    /// The flag names set (other than `--model-config`), for messages.
    fn set(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        for (on, name) in [
            (self.temperature.is_some(), "--temperature"),
            (self.timeout.is_some(), "--timeout"),
            (self.max_retries.is_some(), "--max-retries"),
            (self.max_connections.is_some(), "--max-connections"),
            (self.base_url.is_some(), "--base-url"),
        ] {
            if on {
                out.push(name);
            }
        }
        out
    }
}

/// The models of a run after the file and the flags.
pub struct ResolvedModels {
    /// The agent.
    pub agent: AgentSpec,
    /// The judge.
    pub judge: Option<ModelConfig>,
    /// The simulated user's model.
    pub user_model: Option<ModelConfig>,
}

/// Combines `--agent`, `--judge`, `--user-model`, the agent flags and the config file.
pub fn resolve(
    agent: Option<AgentSpec>,
    judge: Option<ModelConfig>,
    user_model: Option<ModelConfig>,
    flags: &ModelFlags,
) -> Result<ResolvedModels, SetupError> {
    let (file, origin) = flags.file()?;
    let agent = match agent {
        Some(AgentSpec::Model(mut config)) => {
            if let Some(s) = &file.agent {
                s.apply(&mut config, &origin, "agent")?;
            }
            AgentSpec::Model(config)
        }
        Some(other) => other,
        None => match &file.agent {
            Some(s) => AgentSpec::Model(s.config(&origin, "agent", "--agent")?),
            None => AgentSpec::Oracle,
        },
    };
    let agent = match agent {
        AgentSpec::Model(mut config) => {
            flags.apply(&mut config);
            AgentSpec::Model(config)
        }
        other => {
            let set = flags.set();
            if !set.is_empty() {
                return Err(SetupError::Usage(format!(
                    "{} set the agent model, but --agent {} is no model (give --agent openai:MODEL, anthropic:MODEL or openrouter:MODEL)",
                    set.join(", "),
                    other.describe()
                )));
            }
            other
        }
    };
    let judge = role(judge, file.judge.as_ref(), &origin, "judge", "--judge")?;
    let user_model = role(
        user_model,
        file.user_model.as_ref(),
        &origin,
        "user_model",
        "--user-model",
    )?;
    Ok(ResolvedModels {
        agent,
        judge,
        user_model,
    })
}

/// A judge or user model: the flag's model with the file's settings, else the file's model.
fn role(
    flag: Option<ModelConfig>,
    section: Option<&ModelSection>,
    origin: &str,
    name: &str,
    flag_name: &str,
) -> Result<Option<ModelConfig>, SetupError> {
    match (flag, section) {
        (Some(mut config), Some(s)) => {
            s.apply(&mut config, origin, name)?;
            Ok(Some(config))
        }
        (Some(config), None) => Ok(Some(config)),
        (None, Some(s)) => s.config(origin, name, flag_name).map(Some),
        (None, None) => Ok(None),
    }
}

impl ModelFlags {
    /// Sets the flags given on `config`.
    fn apply(&self, config: &mut ModelConfig) {
        if let Some(t) = self.temperature {
            config.temperature = Some(t);
        }
        if let Some(t) = self.timeout {
            // Checked by the flag's parser (`parse_timeout`); an unchecked bad value keeps
            // the default.
            config.timeout = timeout(t).unwrap_or(config.timeout);
        }
        if let Some(n) = self.max_retries {
            config.max_retries = n;
        }
        if let Some(n) = self.max_connections {
            config.concurrency = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(url) = &self.base_url {
            config.base_url = Some(url.clone());
        }
    }
}

/// Reads and parses a model config file.
pub fn read_model_file(path: &Path) -> Result<ModelFile, SetupError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        SetupError::Usage(format!(
            "--model-config {}: cannot read it ({e})",
            path.display()
        ))
    })?;
    serde_saphyr::from_str(&text).map_err(|e| {
        let message = e.without_snippet().to_string().replace('\n', " ");
        let hint = if message.contains("expected one of") {
            ""
        } else {
            " (expected optional sections agent, judge, user_model, each a mapping of model, base_url, api_key_env, temperature, max_tokens, timeout, max_retries, max_connections, images)"
        };
        SetupError::Usage(format!(
            "--model-config {}: {message}{hint}",
            path.display()
        ))
    })
}

impl ModelSection {
    /// The section's model (its `model` field is required here) with its settings.
    fn config(&self, origin: &str, role: &str, flag: &str) -> Result<ModelConfig, SetupError> {
        let spec = self.model.as_deref().ok_or_else(|| {
            bad(
                origin,
                role,
                "model",
                &format!("missing: name the model (e.g. openai:gpt-5-mini) or pass {flag}"),
            )
        })?;
        let mut config =
            ModelConfig::from_spec(spec).map_err(|e| bad(origin, role, "model", &e.to_string()))?;
        self.apply(&mut config, origin, role)?;
        Ok(config)
    }

    /// Sets the section's settings (not its model) on `config`, checking each.
    fn apply(&self, config: &mut ModelConfig, origin: &str, role: &str) -> Result<(), SetupError> {
        if let Some(url) = &self.base_url {
            parse_http_url(url).map_err(|e| bad(origin, role, "base_url", &e))?;
            config.base_url = Some(url.clone());
        }
        if let Some(var) = &self.api_key_env {
            let key = std::env::var(var).ok().filter(|v| !v.is_empty());
            config.api_key = Some(key.ok_or_else(|| {
                bad(
                    origin,
                    role,
                    "api_key_env",
                    &format!("the environment variable {var} is not set"),
                )
            })?);
        }
        if let Some(t) = self.temperature {
            check_non_negative(t).map_err(|e| bad(origin, role, "temperature", &e))?;
            config.temperature = Some(t);
        }
        if let Some(n) = self.max_tokens {
            if n == 0 {
                return Err(bad(origin, role, "max_tokens", "must be at least 1"));
            }
            config.max_tokens = Some(n);
        }
        if let Some(t) = self.timeout {
            config.timeout = timeout(t).map_err(|e| bad(origin, role, "timeout", &e))?;
        }
        if let Some(n) = self.max_retries {
            config.max_retries = n;
        }
        if let Some(n) = self.max_connections {
            if n == 0 {
                return Err(bad(origin, role, "max_connections", "must be at least 1"));
            }
            config.concurrency = n;
        }
        if let Some(images) = self.images {
            config.accepts_images = images;
        }
        Ok(())
    }
}

/// The one-line error for `role.field` of file `origin`.
fn bad(origin: &str, role: &str, field: &str, problem: &str) -> SetupError {
    SetupError::Usage(format!(
        "--model-config {origin}: {role}.{field}: {problem}"
    ))
}

/// What run.json records of a model's settings (all fields null without a model).
pub fn describe_settings(config: Option<&ModelConfig>) -> Value {
    let Some(c) = config else {
        return json!({"model": null, "base_url": null, "temperature": null, "max_tokens": null,
            "timeout": null, "max_retries": null, "max_connections": null, "images": null});
    };
    let base_url = c
        .resolve()
        .map(|r| r.base_url)
        .ok()
        .or_else(|| c.base_url.clone());
    json!({
        "model": c.describe(),
        "base_url": base_url,
        "temperature": c.temperature,
        "max_tokens": c.max_tokens,
        "timeout": c.timeout.as_secs_f64(),
        "max_retries": c.max_retries,
        "max_connections": c.concurrency,
        "images": c.accepts_images,
    })
}

/// A finite number at least 0.
fn check_non_negative(t: f64) -> Result<(), String> {
    if t.is_finite() && t >= 0.0 {
        Ok(())
    } else {
        Err(format!("{t}: must be a number of at least 0"))
    }
}

/// The longest timeout of one model request: a day.
const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// A request timeout of `t` seconds: above 0 (at least a millisecond) and at most
/// [`MAX_TIMEOUT_SECS`].
fn timeout(t: f64) -> Result<Duration, String> {
    match Duration::try_from_secs_f64(t) {
        Ok(d) if t <= MAX_TIMEOUT_SECS && d >= Duration::from_millis(1) => Ok(d),
        _ => Err(format!(
            "{t:?}: must be a number of seconds from 0.001 to {MAX_TIMEOUT_SECS}"
        )),
    }
}

/// Parses `--temperature`: a finite number at least 0.
pub fn parse_temperature(text: &str) -> Result<f64, String> {
    let t: f64 = text.parse().map_err(|e| format!("{e}"))?;
    check_non_negative(t).map(|()| t)
}

/// Parses `--timeout`: seconds from 0.001 to a day.
pub fn parse_timeout(text: &str) -> Result<f64, String> {
    let t: f64 = text.parse().map_err(|e| format!("{e}"))?;
    timeout(t).map(|_| t)
}

/// Parses `--base-url`: an `http://` or `https://` URL.
pub fn parse_http_url(text: &str) -> Result<String, String> {
    if text.starts_with("http://") || text.starts_with("https://") {
        Ok(text.to_string())
    } else {
        Err(format!("{text:?}: must start with http:// or https://"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_turns_image_input_on_for_an_openai_compatible_judge() {
        let dir = std::env::temp_dir().join(format!("clawrun-model-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("models.yaml");
        std::fs::write(&file, "judge: {model: openai:vision-judge, images: true}\n").unwrap();
        let flags = ModelFlags {
            model_config: Some(file.clone()),
            ..ModelFlags::default()
        };
        let judge = resolve_judge(None, &flags).unwrap();
        assert!(judge.accepts_images);
        std::fs::write(&file, "judge: {model: openai:text-judge}\n").unwrap();
        assert!(!resolve_judge(None, &flags).unwrap().accepts_images);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
