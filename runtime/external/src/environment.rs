//! The environment of an agent program (`--agent cmd:`): built from an allow-list, never
//! inherited. clawrun's own environment holds secrets (the model's and the judge's API keys,
//! `SERP_DEV_KEY`, whatever else the user exported); the program gets none of them, only:
//!
//! - from the host: [`HOST_VARS`] (`PATH`, the locale and the time zone);
//! - from clawrun: `HOME` (its scratch home), the endpoints and the trial's names
//!   ([`Endpoints`]), the proxy's dummy key, and `NO_PROXY` for loopback;
//! - what the recipe asks for: the host variables its `pass_env:` names (never one holding a
//!   key clawrun uses: refused by name, [`HELD`], and by value), and its `env:` (with its
//!   placeholders filled in).

use std::collections::BTreeMap;
use std::ffi::OsString;

/// The host variables an agent program inherits: the command search path, the locale and the
/// time zone. Nothing else of clawrun's environment reaches it.
pub const HOST_VARS: [&str; 4] = ["PATH", "LANG", "LANGUAGE", "TZ"];

/// The variables clawrun reads keys from: a recipe's `pass_env:` may not name them.
pub const HELD: [&str; 4] = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENROUTER_API_KEY",
    "SERP_DEV_KEY",
];

/// Why a recipe's `pass_env:` may not name `name`, if it may not.
pub fn check_pass_env(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err("not a variable name (letters, digits and _)".into());
    }
    if HELD.contains(&name) {
        return Err(format!(
            "clawrun holds the key in it: an agent program never gets it (it talks to the model through the proxy, with the dummy key {})",
            super::command::DUMMY_KEY
        ));
    }
    Ok(())
}

/// Keys clawrun holds, by value: none may reach an agent program. Shown as `Withheld(N)`.
#[derive(Clone, Default)]
pub struct Withheld(Vec<String>);

impl Withheld {
    /// The keys `keys` (empty ones left out).
    pub fn new(keys: impl IntoIterator<Item = String>) -> Withheld {
        let mut keys: Vec<String> = keys.into_iter().filter(|k| !k.is_empty()).collect();
        keys.sort();
        keys.dedup();
        Withheld(keys)
    }

    /// These keys, those in the variables [`HELD`] names (when set) and `more`.
    pub fn with_env(&self, more: impl IntoIterator<Item = String>) -> Withheld {
        let from_env = HELD.iter().filter_map(|name| std::env::var(name).ok());
        Withheld::new(self.0.iter().cloned().chain(from_env).chain(more))
    }

    /// Whether `value` holds one of the keys: is one, or contains one of at least 8 bytes
    /// (a placeholder key such as `EMPTY` for a local server would match too much text).
    fn holds(&self, value: &std::ffi::OsStr) -> bool {
        let value = value.to_string_lossy();
        self.0
            .iter()
            .any(|k| *value == **k || (k.len() >= 8 && value.contains(k.as_str())))
    }
}

impl std::fmt::Debug for Withheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Withheld({})", self.0.len())
    }
}

/// Whether the host variable `name` passes to an agent program: one of [`HOST_VARS`] or a
/// locale category (`LC_ALL`, `LC_CTYPE`, ...).
pub fn inherited(name: &str) -> bool {
    HOST_VARS.contains(&name)
        || name.strip_prefix("LC_").is_some_and(|c| {
            !c.is_empty() && c.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        })
}

/// What clawrun tells an agent program through its environment.
#[derive(Clone, Debug)]
pub struct Endpoints {
    /// The scratch home (`HOME`).
    pub home: OsString,
    /// The task prompt (`CLAWRUN_PROMPT`).
    pub prompt: String,
    /// The trial's MCP endpoint, with its secret (`CLAWRUN_MCP_URL`).
    pub mcp_url: String,
    /// The task (`CLAWRUN_TASK_ID`).
    pub task_id: String,
    /// The trial (`CLAWRUN_TRIAL_ID`).
    pub trial_id: String,
    /// The model's name as the program is told it (`CLAWRUN_MODEL`).
    pub model: String,
    /// The proxy's OpenAI-style base URL (`OPENAI_BASE_URL`).
    pub openai_base_url: String,
    /// The proxy's Anthropic-style base URL (`ANTHROPIC_BASE_URL`).
    pub anthropic_base_url: String,
    /// The key the program gives the proxy (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`).
    pub api_key: String,
}

/// The whole environment of an agent program: the allowed variables of `host` (clawrun's own
/// environment) and those `pass_env` names, clawrun's variables, then the recipe's
/// `recipe_env` (already filled in; it may override the others). An error names a passed
/// variable that holds one of the `withheld` keys.
pub fn program_env(
    host: impl IntoIterator<Item = (OsString, OsString)>,
    pass_env: &[String],
    withheld: &Withheld,
    endpoints: &Endpoints,
    recipe_env: &BTreeMap<String, String>,
) -> Result<BTreeMap<OsString, OsString>, String> {
    let mut env = BTreeMap::new();
    for (name, value) in host {
        let Some(text) = name.to_str() else { continue };
        let asked = pass_env.iter().any(|p| p == text);
        if !(inherited(text) || asked) {
            continue;
        }
        if withheld.holds(&value) {
            if asked {
                return Err(format!(
                    "pass_env: {text} holds a key clawrun uses itself: an agent program never gets it"
                ));
            }
            continue;
        }
        env.insert(name, value);
    }
    let ours = [
        ("HOME", endpoints.home.clone()),
        ("CLAWRUN_PROMPT", endpoints.prompt.clone().into()),
        ("CLAWRUN_MCP_URL", endpoints.mcp_url.clone().into()),
        ("CLAWRUN_TASK_ID", endpoints.task_id.clone().into()),
        ("CLAWRUN_TRIAL_ID", endpoints.trial_id.clone().into()),
        ("CLAWRUN_MODEL", endpoints.model.clone().into()),
        ("OPENAI_BASE_URL", endpoints.openai_base_url.clone().into()),
        ("OPENAI_API_KEY", endpoints.api_key.clone().into()),
        (
            "ANTHROPIC_BASE_URL",
            endpoints.anthropic_base_url.clone().into(),
        ),
        ("ANTHROPIC_API_KEY", endpoints.api_key.clone().into()),
        ("NO_PROXY", "127.0.0.1,localhost".into()),
    ];
    env.extend(ours.into_iter().map(|(k, v)| (OsString::from(k), v)));
    env.extend(
        recipe_env
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v))),
    );
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_allowed_host_variables_pass() {
        let host = [
            ("PATH", "/usr/bin"),
            ("LANG", "C.UTF-8"),
            ("LC_CTYPE", "C.UTF-8"),
            ("TZ", "UTC"),
            ("OPENROUTER_API_KEY", "real"),
            ("OPENAI_API_KEY", "real"),
            ("SERP_DEV_KEY", "real"),
            ("MY_JUDGE_KEY", "real"),
            ("HTTP_PROXY", "http://proxy"),
            ("LC_", "x"),
            ("HOME", "/root"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let endpoints = Endpoints {
            home: "/run/t/0/agent/home".into(),
            prompt: "p".into(),
            mcp_url: "http://127.0.0.1:1/mcp/s".into(),
            task_id: "t".into(),
            trial_id: "t/0".into(),
            model: "m".into(),
            openai_base_url: "http://127.0.0.1:1/v1".into(),
            anthropic_base_url: "http://127.0.0.1:1".into(),
            api_key: "clawrun-proxy".into(),
        };
        let recipe = BTreeMap::from([("CODEX_HOME".to_string(), "/h/.codex".to_string())]);
        let env =
            program_env(host.clone(), &[], &Withheld::default(), &endpoints, &recipe).unwrap();
        let get = |k: &str| env.get(&OsString::from(k)).and_then(|v| v.to_str());
        assert_eq!(get("PATH"), Some("/usr/bin"));
        assert_eq!(get("LC_CTYPE"), Some("C.UTF-8"));
        assert_eq!(get("HOME"), Some("/run/t/0/agent/home"));
        assert_eq!(get("OPENAI_API_KEY"), Some("clawrun-proxy"));
        assert_eq!(get("CODEX_HOME"), Some("/h/.codex"));
        for secret in [
            "OPENROUTER_API_KEY",
            "SERP_DEV_KEY",
            "MY_JUDGE_KEY",
            "HTTP_PROXY",
            "LC_",
        ] {
            assert_eq!(get(secret), None, "{secret}");
        }
        assert!(
            env.values().all(|v| v != "real"),
            "no host secret reaches the program: {env:?}"
        );

        // Asked for by name: passed, unless it holds a key clawrun uses.
        let asked = ["MY_JUDGE_KEY".to_string()];
        let none = Withheld::default();
        let env = program_env(host.clone(), &asked, &none, &endpoints, &recipe).unwrap();
        assert_eq!(env.get(&OsString::from("MY_JUDGE_KEY")).unwrap(), "real");
        let held = Withheld(vec!["real".into()]);
        let e = program_env(host.clone(), &asked, &held, &endpoints, &recipe).unwrap_err();
        assert!(e.contains("MY_JUDGE_KEY holds a key clawrun uses"), "{e}");
        // An allowed variable holding a key is dropped, not passed.
        let host = [("LANG", "real")].map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = program_env(host, &[], &held, &endpoints, &recipe).unwrap();
        assert!(!env.contains_key(&OsString::from("LANG")));
        assert_eq!(format!("{held:?}"), "Withheld(1)");
        let short = Withheld::new(["EMPTY".to_string(), "sk-0123456789".to_string()]);
        assert!(!short.holds("/usr/EMPTY/bin".as_ref()));
        assert!(short.holds("EMPTY".as_ref()));
        assert!(short.holds("Bearer sk-0123456789".as_ref()));
        assert!(check_pass_env("OPENROUTER_API_KEY").is_err());
        assert!(check_pass_env("1X").is_err());
        assert!(check_pass_env("PYTHONPATH").is_ok());
    }
}
