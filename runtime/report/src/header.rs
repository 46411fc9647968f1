//! The run header of a report: what each run folder was asked (agent, seed, faults, judge,
//! model settings, trials, versions), read from its manifests (`run.json`, or the shards'
//! `run.shard-I-of-N.json`), one line per folder.

use serde_json::Value;

/// What one run folder's manifests say, ready to print.
#[derive(Clone, Debug, PartialEq)]
pub struct RunHeader {
    /// The run folder as given on the command line.
    pub folder: String,
    /// The header's text (without the folder), e.g. `agent oracle, seed 3, ...`.
    pub text: String,
    /// The judge model the run had, if any.
    pub judge: Option<String>,
}

impl RunHeader {
    /// The header of `folder` from its manifests (name, JSON), sorted by name: the first gives
    /// the settings (the shards of a run share them), every one its shard.
    pub fn from_manifests(folder: &str, manifests: &[(String, Value)]) -> RunHeader {
        let Some((_, m)) = manifests.first() else {
            return RunHeader {
                folder: folder.to_string(),
                text: "no run.json (settings unknown)".to_string(),
                judge: None,
            };
        };
        let text_of = |v: &Value| match v {
            Value::Null => "none".to_string(),
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut parts = vec![
            format!("agent {}", text_of(&m["agent"])),
            format!("seed {}", text_of(&m["seed"])),
            format!("faults {}", text_of(&m["faults"])),
            format!("judge {}", text_of(&m["judge"])),
        ];
        if !m["user_model"].is_null() {
            parts.push(format!("user model {}", text_of(&m["user_model"])));
        }
        for role in ["agent", "judge", "user_model"] {
            if let Some(settings) = model_settings(&m["models"][role]) {
                parts.push(format!("{} settings ({settings})", role.replace('_', " ")));
            }
        }
        parts.push(format!("trials {}", text_of(&m["trials"])));
        if let Some(mode) = m["web"]["mode"].as_str().filter(|m| *m != "off") {
            match m["web"]["cassette_hash"].as_str() {
                Some(hash) => parts.push(format!(
                    "web {mode} (cassette {})",
                    crate::trace_file::short_hash(hash)
                )),
                None => parts.push(format!("web {mode}")),
            }
        }
        if let Some(n) = m["skipped"].as_array().map(Vec::len).filter(|n| *n > 0) {
            parts.push(format!(
                "{n} task(s) skipped (unsupported, or needing the web or fixtures)"
            ));
        }
        let shards: Vec<String> = manifests
            .iter()
            .filter_map(|(_, m)| m["shard"].as_str().map(str::to_string))
            .collect();
        if !shards.is_empty() {
            parts.push(format!("shards {}", shards.join(" ")));
        }
        parts.push(format!("clawrun {}", text_of(&m["clawrun_version"])));
        parts.push(format!("trace v{}", text_of(&m["trace_version"])));
        RunHeader {
            folder: folder.to_string(),
            text: parts.join(", "),
            judge: m["judge"].as_str().map(str::to_string),
        }
    }
}

/// A model's recorded settings as `temperature 0, timeout 60s, ...` (set fields only); `None`
/// when no model was used in that role.
fn model_settings(settings: &Value) -> Option<String> {
    if settings["model"].is_null() {
        return None;
    }
    let fields = [
        ("temperature", ""),
        ("max_tokens", ""),
        ("timeout", "s"),
        ("max_retries", ""),
        ("max_connections", ""),
        ("base_url", ""),
    ];
    let shown: Vec<String> = fields
        .iter()
        .filter_map(|(name, unit)| {
            let v = &settings[*name];
            let v = match v {
                Value::Null => return None,
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some(format!("{} {v}{unit}", name.replace('_', " ")))
        })
        .collect();
    Some(shown.join(", "))
}
