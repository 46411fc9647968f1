//! Agent recipes (`agents/*.yaml`): how to start an agent program for one trial — its command,
//! the environment and the config files it reads its model endpoint and MCP servers from —
//! with placeholders that clawrun fills in per trial.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use serde::Deserialize;

/// The recipes shipped with clawrun (`agents/` in the repository), by name.
pub const BUNDLED: [(&str, &str); 2] = [
    ("codex", include_str!("../../../agents/codex.yaml")),
    (
        "claude-code",
        include_str!("../../../agents/claude-code.yaml"),
    ),
];

/// The placeholders recipes (and `cmd:` command lines) may use.
pub const PLACEHOLDERS: [&str; 10] = [
    "prompt",
    "mcp_url",
    "openai_base_url",
    "anthropic_base_url",
    "api_key",
    "model",
    "home",
    "workdir",
    "task_id",
    "trial_id",
];

/// How to start an agent program.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// What the agent is.
    #[serde(default)]
    pub description: String,
    /// How to install it (shown when the command is not found).
    #[serde(default)]
    pub install: Option<String>,
    /// The model API it speaks through the proxy: `chat`, `responses` or `messages`.
    #[serde(default)]
    pub wire: Option<String>,
    /// The program and its arguments.
    pub command: Vec<String>,
    /// Environment variables set for it (beside clawrun's own).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Variables of clawrun's own environment passed on to it by name (beside the
    /// allow-list, [`super::environment`]); never one holding a key clawrun uses.
    #[serde(default)]
    pub pass_env: Vec<String>,
    /// Files written before it starts: path (under `{home}` or `{workdir}`) -> content.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

impl Recipe {
    /// A recipe that runs `command` (a shell-quoted command line) as it is.
    pub fn from_command_line(command: &str) -> Result<Recipe> {
        let argv = shlex::split(command)
            .filter(|a| !a.is_empty())
            .ok_or_else(|| {
                anyhow!("--agent cmd:{command:?}: not a command line (unbalanced quotes?)")
            })?;
        Ok(Recipe {
            description: String::new(),
            install: None,
            wire: None,
            command: argv,
            env: BTreeMap::new(),
            pass_env: Vec::new(),
            files: BTreeMap::new(),
        })
    }

    /// Reads the recipe in `text`, from `file` (for errors); every placeholder must be known.
    pub fn parse(text: &str, file: &str) -> Result<Recipe> {
        let recipe: Recipe = serde_saphyr::from_str(text).map_err(|e| anyhow!("{file}: {e}"))?;
        if recipe.command.is_empty() {
            return Err(anyhow!("{file}: command: must name the program to run"));
        }
        if let Some(wire) = recipe.wire.as_deref()
            && !matches!(wire, "chat" | "responses" | "messages")
        {
            return Err(anyhow!(
                "{file}: wire: {wire:?} is not one of chat, responses, messages"
            ));
        }
        let texts = recipe
            .command
            .iter()
            .map(|c| ("command", c))
            .chain(recipe.env.values().map(|v| ("env", v)))
            .chain(
                recipe
                    .files
                    .iter()
                    .flat_map(|(k, v)| [("files", k), ("files", v)]),
            );
        for (field, text) in texts {
            if let Some(name) = unknown_placeholder(text) {
                return Err(anyhow!(
                    "{file}: {field}: unknown placeholder {{{name}}} (known: {})",
                    PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
                ));
            }
        }
        for name in &recipe.pass_env {
            super::environment::check_pass_env(name)
                .map_err(|why| anyhow!("{file}: pass_env: {name:?}: {why}"))?;
        }
        for path in recipe.files.keys() {
            check_file_path(path).map_err(|why| anyhow!("{file}: files: {path:?}: {why}"))?;
        }
        Ok(recipe)
    }

    /// The recipe named `name`: a file path (`*.yaml`), else a bundled recipe; `None` when
    /// `name` is neither.
    pub fn find(name: &str) -> Result<Option<Recipe>> {
        if name.ends_with(".yaml") || name.ends_with(".yml") {
            let path = Path::new(name);
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--agent cmd:{name}: reading the recipe"))?;
            return Recipe::parse(&text, name).map(Some);
        }
        BUNDLED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, text)| Recipe::parse(text, &format!("agents/{n}.yaml")))
            .transpose()
    }
}

/// Why a `files:` path of a recipe is refused, if it is: it must be `{home}/...` or
/// `{workdir}/...` and stay there (no `..`, no absolute or relative path of its own).
fn check_file_path(path: &str) -> Result<(), String> {
    let rest = ["{home}/", "{workdir}/"]
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix))
        .ok_or("must start with {home}/ or {workdir}/ (the agent's scratch folders)")?;
    let mut named = false;
    for component in Path::new(rest).components() {
        match component {
            Component::Normal(_) => named = true,
            Component::CurDir => {}
            _ => {
                return Err(
                    "must stay inside {home} or {workdir}: no `..` and no second root".into(),
                );
            }
        }
    }
    if !named {
        return Err("names no file inside {home} or {workdir}".into());
    }
    Ok(())
}

/// `path` (a filled-in `files:` path) when it lies inside one of `roots`, below it; an error
/// naming it otherwise. Checked again after filling: a placeholder's value could hold `..`.
pub fn inside(path: &str, roots: &[&Path]) -> Result<PathBuf> {
    let candidate = Path::new(path);
    for root in roots {
        if let Ok(rest) = candidate.strip_prefix(root)
            && rest.components().next().is_some()
            && rest.components().all(|c| matches!(c, Component::Normal(_)))
        {
            return Ok(candidate.to_path_buf());
        }
    }
    Err(anyhow!(
        "files: {path:?} is not inside the agent's scratch folders ({}); a recipe writes only under {{home}} and {{workdir}}",
        roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The first `{name}` in `text` (a lower-case word in braces) that is not a placeholder.
/// Other braces (JSON, TOML) are text.
fn unknown_placeholder(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        let end = after.find(['}', '{']).unwrap_or(after.len());
        let name = &after[..end];
        let is_name = after[end..].starts_with('}')
            && !name.is_empty()
            && name.chars().all(|c| c.is_ascii_lowercase() || c == '_');
        if is_name && !PLACEHOLDERS.contains(&name) {
            return Some(name.to_string());
        }
        rest = after;
    }
    None
}

/// `text` with each `{name}` of `values` replaced by its value; other braces stay as they are.
pub fn fill(text: &str, values: &BTreeMap<&str, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(end) = after.find('}')
            && let Some(value) = values.get(&after[..end])
        {
            out.push_str(value);
            rest = &after[end + 1..];
        } else {
            out.push('{');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bundled_recipe_parses() {
        for (name, text) in BUNDLED {
            let recipe = Recipe::parse(text, name).unwrap();
            assert!(!recipe.description.is_empty(), "{name}");
            assert!(recipe.install.is_some(), "{name}");
        }
    }

    #[test]
    fn placeholders_fill_and_unknown_ones_are_named() {
        let values = BTreeMap::from([("model", "m".to_string()), ("home", "/h".to_string())]);
        assert_eq!(
            fill(
                "{home}/x {model} {\"a\": {\"b\": \"{model}\"}} {other}",
                &values
            ),
            "/h/x m {\"a\": {\"b\": \"m\"}} {other}"
        );
        assert!(Recipe::parse("command: [a, '{\"x\": \"{model}\"}']", "r.yaml").is_ok());
        let e = Recipe::parse("command: [a, '{modle}']", "r.yaml").unwrap_err();
        assert!(e.to_string().contains("unknown placeholder {modle}"), "{e}");
        let e = Recipe::parse("command: []", "r.yaml").unwrap_err();
        assert!(e.to_string().contains("command: must name"), "{e}");
        assert!(Recipe::parse("command: [a]\nwhat: 1", "r.yaml").is_err());
    }

    #[test]
    fn files_stay_in_the_scratch_folders() {
        for bad in [
            "/etc/x",
            "x.toml",
            "{home}/../../x",
            "{workdir}/a/../../b",
            "{home}/",
            "{home}//etc/x",
            "{model}/x",
            "{home}x",
        ] {
            let text = format!("command: [a]\nfiles:\n  {bad:?}: hi\n");
            let e = Recipe::parse(&text, "r.yaml").unwrap_err().to_string();
            assert!(e.starts_with("r.yaml: files: "), "{bad}: {e}");
        }
        assert!(Recipe::parse("command: [a]\nfiles:\n  '{home}/.c/x.toml': hi\n", "r").is_ok());
        let (home, work) = (Path::new("/r/home"), Path::new("/r/work"));
        assert!(inside("/r/home/a/b", &[home, work]).is_ok());
        assert!(inside("/r/work/./a", &[home, work]).is_ok());
        for bad in [
            "/r/home/../x",
            "/r/home",
            "/r/homex/a",
            "/etc/passwd",
            "rel",
        ] {
            assert!(inside(bad, &[home, work]).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_command_line_splits_like_a_shell() {
        let r = Recipe::from_command_line("python3 'my agent.py' --fast").unwrap();
        assert_eq!(r.command, ["python3", "my agent.py", "--fast"]);
        assert!(Recipe::from_command_line("a 'b").is_err());
    }
}
