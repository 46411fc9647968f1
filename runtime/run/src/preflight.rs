//! The checks before a run folder is made: the agent's script or recorded run exists, every
//! model (agent, judge, user model) has what it needs (a base URL, an API key), and — unless
//! `--no-probe` — each model endpoint answers. A failure is one line naming the setting.

use std::path::Path;

use clawrun_agents::llm::{LlmClient, ModelConfig};

use super::agent_spec::{AgentSpec, read_script};

/// Why a run cannot start.
#[derive(Debug)]
pub enum SetupError {
    /// A flag, file or key is wrong (a usage error: exit status 2).
    Usage(String),
    /// A model endpoint does not answer or refuses the key.
    Unreachable(String),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::Usage(m) | SetupError::Unreachable(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SetupError {}

impl From<clawrun_trial::grading::GradingError> for SetupError {
    fn from(e: clawrun_trial::grading::GradingError) -> Self {
        SetupError::Usage(e.to_string())
    }
}

/// The models of a run by role, for messages.
pub struct Models<'a> {
    /// The agent's model, if the agent is one.
    pub agent: Option<&'a ModelConfig>,
    /// `--judge`.
    pub judge: Option<&'a ModelConfig>,
    /// `--user-model`.
    pub user_model: Option<&'a ModelConfig>,
}

/// Checks `agent` and `models`; with `probe`, asks each model endpoint once. Returns a client
/// per model, whose [`LlmClient::unreachable`] tells the run when to stop.
pub fn check(
    agent: &AgentSpec,
    models: &Models<'_>,
    probe: bool,
) -> Result<Vec<LlmClient>, SetupError> {
    match agent {
        AgentSpec::Scripted(path) => {
            read_script(path).map_err(|e| SetupError::Usage(format!("--agent: {e:#}")))?;
        }
        AgentSpec::Replay(run) => check_replay(run.dir())?,
        AgentSpec::Command(command) => {
            command
                .check_program()
                .map_err(|e| SetupError::Usage(format!("{e:#}")))?;
        }
        _ => {}
    }
    // An agent program's model is reached through clawrun's proxy: it needs its key too (the
    // program's own requests show whether the endpoint answers; it is not probed).
    if let AgentSpec::Command(command) = agent
        && let clawrun_external::command::ProxyModel::Model(config) = &command.model
    {
        config
            .resolve()
            .map_err(|e| SetupError::Usage(format!("--model {}: {e}", config.describe())))?;
    }
    let roles = [
        ("--agent", models.agent),
        ("--judge", models.judge),
        ("--user-model", models.user_model),
    ];
    let mut clients = Vec::new();
    for (flag, config) in roles {
        let Some(config) = config else { continue };
        let client = LlmClient::new(config.clone())
            .map_err(|e| SetupError::Usage(format!("{flag} {}: {e}", config.describe())))?;
        clients.push((flag, client));
    }
    for (_, client) in &clients {
        client.clear_unreachable();
    }
    if !probe || clients.is_empty() {
        return Ok(clients.into_iter().map(|(_, c)| c).collect());
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| SetupError::Unreachable(format!("starting the probe: {e}")))?;
    let mut probed: Vec<String> = Vec::new();
    for (flag, client) in &clients {
        let key = format!("{}|{}", client.describe(), client.endpoint().base_url);
        if probed.contains(&key) {
            continue;
        }
        probed.push(key);
        rt.block_on(client.probe())
            .map_err(|e| SetupError::Unreachable(format!("{flag}: {e}")))?;
    }
    Ok(clients.into_iter().map(|(_, c)| c).collect())
}

/// A recorded run to replay must be a run folder.
fn check_replay(run: &Path) -> Result<(), SetupError> {
    let is_run = std::fs::read_dir(run).is_ok_and(|entries| {
        entries.filter_map(Result::ok).any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("journal") && name.ends_with(".jsonl")
        })
    });
    if is_run {
        Ok(())
    } else {
        Err(SetupError::Usage(format!(
            "--agent replay:{}: not a run folder (no journal.jsonl there); give the --out folder of an earlier `clawrun run`",
            run.display()
        )))
    }
}
