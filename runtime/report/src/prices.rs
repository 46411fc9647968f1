//! The price table given with `clawrun report --prices FILE`: model -> US dollars per million
//! input, output and cached input tokens, in YAML or JSON.
//!
//! ```yaml
//! gpt-5-mini: {input: 0.25, output: 2.0, cached_input: 0.025}
//! anthropic:claude-sonnet-4-5: {input: 3, output: 15, cached_input: 0.3}
//! ```
//!
//! A record's agent (`openai:gpt-5-mini`) is looked up as written, then without its provider
//! (`gpt-5-mini`). `cached_input` defaults to `input`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::ReportError;

/// One model's prices in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Per million input tokens (not served from a prompt cache).
    pub input: f64,
    /// Per million output tokens.
    pub output: f64,
    /// Per million input tokens served from the provider's prompt cache (default: `input`).
    #[serde(default)]
    pub cached_input: Option<f64>,
}

/// A price table.
#[derive(Clone, Debug, PartialEq)]
pub struct Prices {
    /// Where it came from, for messages.
    pub source: String,
    /// Model -> price, sorted.
    pub models: BTreeMap<String, Price>,
}

impl Prices {
    /// Parses a table: JSON when `name` ends in `.json`, else YAML.
    pub fn parse(text: &str, name: &str) -> Result<Prices, ReportError> {
        let err = |message: String| ReportError::Prices {
            source_name: name.to_string(),
            message,
        };
        let models: BTreeMap<String, Price> = if name.ends_with(".json") {
            serde_json::from_str(text).map_err(|e| err(e.to_string()))?
        } else {
            serde_saphyr::from_str(text).map_err(|e| err(e.to_string()))?
        };
        for (model, p) in &models {
            let fields = [
                ("input", Some(p.input)),
                ("output", Some(p.output)),
                ("cached_input", p.cached_input),
            ];
            for (field, v) in fields {
                if let Some(v) = v
                    && !(v.is_finite() && v >= 0.0)
                {
                    return Err(err(format!(
                        "{model}.{field}: {v} is not a price (dollars per million tokens, 0 or more)"
                    )));
                }
            }
        }
        Ok(Prices {
            source: name.to_string(),
            models,
        })
    }

    /// The price of `model` (as written, else without its `provider:` prefix).
    pub fn lookup(&self, model: &str) -> Option<&Price> {
        self.models.get(model).or_else(|| {
            let (_, bare) = model.split_once(':')?;
            self.models.get(bare)
        })
    }

    /// The cost in dollars of tokens spent by `model`: `(input − cached) × input price +
    /// cached × cached price + output × output price`, per million. An error names the model
    /// when the table has no price for it.
    pub fn cost(
        &self,
        model: &str,
        input: u64,
        output: u64,
        cached_input: u64,
    ) -> Result<f64, ReportError> {
        let p = self.lookup(model).ok_or_else(|| ReportError::Prices {
            source_name: self.source.clone(),
            message: format!(
                "no price for model `{model}` (looked up as `{model}`{}); add a line like `{}: {{input: 1.0, output: 4.0, cached_input: 0.1}}` (dollars per million tokens)",
                model
                    .split_once(':')
                    .map_or(String::new(), |(_, b)| format!(" and `{b}`")),
                model.split_once(':').map_or(model, |(_, b)| b)
            ),
        })?;
        let cached = cached_input.min(input);
        let fresh = input - cached;
        Ok((fresh as f64 * p.input
            + cached as f64 * p.cached_input.unwrap_or(p.input)
            + output as f64 * p.output)
            / 1e6)
    }
}
