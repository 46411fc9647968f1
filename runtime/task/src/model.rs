//! The `Task` model: Claw-Eval's task.yaml schema (`models/task.py`) plus our extensions
//! (`group`, `workspace`, `judge`, `faults`, `rubric`, `oracle`, `user_agent.script`,
//! `system_tools`, `epoch`; see the crate docs).

use serde::Serialize;

use crate::check::Check;
use crate::oracle::Oracle;
use crate::service::{ServiceSpec, ToolEndpoint};
use crate::user_script::UserScript;
use crate::yaml::Node;

/// A task, as its task.yaml describes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Task {
    /// The id (Claw-Eval: equal to the folder name).
    pub task_id: String,
    /// A human-readable name.
    pub task_name: String,
    /// The task's version as text (`1.0`, `"1.0"` and `'2.0'` are all text).
    pub version: Option<String>,
    /// Claw-Eval's category (e.g. `communication`).
    pub category: Option<String>,
    /// `easy` / `medium` / `hard`.
    pub difficulty: Option<String>,
    /// Tags (`general`, `multimodal`, `user_agent`, `multi_service`, ...).
    pub tags: Vec<String>,
    /// The split the task belongs to (written or derived; see [`Group`]).
    pub group: Group,
    /// Mock services to start.
    pub services: Vec<ServiceSpec>,
    /// What the agent is asked.
    pub prompt: Prompt,
    /// Task-specific tools shown to the model.
    pub tools: Vec<TaskTool>,
    /// The hidden tool -> service URL map.
    pub tool_endpoints: Vec<ToolEndpoint>,
    /// The sandbox tools the agent gets (default: all nine).
    pub system_tools: Vec<SystemTool>,
    /// Files copied to `/workspace/<path>` before the run (paths relative to the task folder).
    pub sandbox_files: Vec<String>,
    /// Files copied to `/workspace/<path>` after the run, for the judge.
    pub sandbox_grader_files: Vec<String>,
    /// Shell commands run in the sandbox after the run (output kept as evidence).
    pub env_snapshot_commands: Vec<String>,
    /// Files or globs read back from the sandbox after the run.
    pub env_snapshot_files: Vec<String>,
    /// Ground-truth files read from the task folder by the judge, never shown to the agent.
    pub local_grader_files: Vec<String>,
    /// A folder (relative to the task folder) whose tree is copied to `/workspace` in Setup.
    pub workspace: Option<String>,
    /// A folder (relative to the task folder) mounted read-only at `/judge` in the Judge phase.
    pub judge: Option<String>,
    /// Per-trial limits.
    pub environment: Environment,
    /// The simulated user of multi-turn tasks.
    pub user_agent: Option<UserAgent>,
    /// Claw-Eval's declarative rubric.
    pub scoring_components: Vec<ScoringComponent>,
    /// Claw-Eval's safety traps.
    pub safety_checks: Vec<SafetyCheck>,
    /// Documentation of the writes the task expects.
    pub expected_actions: Vec<ExpectedAction>,
    /// Rubric text for the LLM judge.
    pub judge_rubric: Option<String>,
    /// A human walkthrough of the solution.
    pub reference_solution: Option<String>,
    /// The dimensions the task mainly measures.
    pub primary_dimensions: Vec<String>,
    /// Native rubric items (our extension).
    pub rubric: Vec<RubricItem>,
    /// The reference solution as steps (our extension).
    pub oracle: Option<Oracle>,
    /// The fault plan section, uninterpreted (compiled by `clawrun::faults`).
    pub faults: Option<Node>,
    /// The virtual start time, seconds since the Unix epoch (default: none, the runner uses
    /// [`DEFAULT_EPOCH`](crate::epoch::DEFAULT_EPOCH)).
    pub epoch: Option<i64>,
    /// The trials' filesystem limits (our extension; default: the runner's).
    pub limits: Option<TaskLimits>,
}

/// `limits:` — what a trial's agent may add to its filesystem beyond the task's files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TaskLimits {
    /// Bytes, in MiB (`disk_mib`).
    pub disk_mib: Option<u64>,
    /// Files, folders and symlinks (`inodes`).
    pub inodes: Option<u64>,
}

/// The split a task belongs to (also how reports group trials).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
pub enum Group {
    /// Tool use over services and files.
    #[default]
    #[serde(rename = "general")]
    General,
    /// Images, audio, video, documents.
    #[serde(rename = "multimodal")]
    Multimodal,
    /// A simulated user answers the agent.
    #[serde(rename = "multi-turn")]
    MultiTurn,
}

impl std::fmt::Display for Group {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Group {
    /// The name as written (`general`, `multimodal`, `multi-turn`).
    pub fn as_str(self) -> &'static str {
        match self {
            Group::General => "general",
            Group::Multimodal => "multimodal",
            Group::MultiTurn => "multi-turn",
        }
    }

    /// Parses a written group name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "general" => Some(Group::General),
            "multimodal" => Some(Group::Multimodal),
            "multi-turn" => Some(Group::MultiTurn),
            _ => None,
        }
    }
}

/// The agent's sandbox tools: the nine Claw-Eval's sandbox appends to every task (Claude Code's
/// names for the first six).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum SystemTool {
    /// A shell.
    Bash,
    /// Read a file.
    Read,
    /// Write a file.
    Write,
    /// Replace text in a file.
    Edit,
    /// Find files by glob.
    Glob,
    /// Search file contents.
    Grep,
    /// Frames, title and text of a page of the workspace in headless Chromium.
    BrowserScreenshot,
    /// Metadata and frames of a video, an image or a PDF's pages.
    ReadMedia,
    /// A file of the sandbox as base64 text.
    Download,
}

impl SystemTool {
    /// The nine offered when a task names none, in Claw-Eval's order (`SANDBOX_TOOLS`).
    pub const ALL: [SystemTool; 9] = [
        SystemTool::Bash,
        SystemTool::Read,
        SystemTool::Write,
        SystemTool::Edit,
        SystemTool::Glob,
        SystemTool::Grep,
        SystemTool::BrowserScreenshot,
        SystemTool::ReadMedia,
        SystemTool::Download,
    ];

    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            SystemTool::Bash => "Bash",
            SystemTool::Read => "Read",
            SystemTool::Write => "Write",
            SystemTool::Edit => "Edit",
            SystemTool::Glob => "Glob",
            SystemTool::Grep => "Grep",
            SystemTool::BrowserScreenshot => "BrowserScreenshot",
            SystemTool::ReadMedia => "ReadMedia",
            SystemTool::Download => "Download",
        }
    }

    /// The tool called `name`, if it is one.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// `prompt:` — what the agent is asked.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Prompt {
    /// The user's message.
    pub text: String,
    /// `en`, `zh`, ... (default `en`).
    pub language: String,
    /// Files (relative to the task folder) attached to the message.
    pub attachments: Vec<String>,
}

/// A tool of the task (`tools:` in task.yaml), shown to the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskTool {
    /// The name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub input_schema: serde_json::Value,
}

/// `environment:` — per-trial limits.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Environment {
    /// Wall-clock limit (default 300).
    pub timeout_seconds: u64,
    /// Maximum agent turns (default 20).
    pub max_turns: u32,
    /// Limit for the after-run snapshot commands (default 10).
    pub env_snapshot_timeout: u64,
    /// Claw-Eval's todo tool switch (accepted; default false).
    pub enable_todo: bool,
    /// Claw-Eval's context compaction switch (accepted, ignored; `compact_*` likewise).
    pub enable_compact: bool,
}

impl Default for Environment {
    fn default() -> Self {
        Self {
            timeout_seconds: 300,
            max_turns: 20,
            env_snapshot_timeout: 10,
            enable_todo: false,
            enable_compact: false,
        }
    }
}

/// `user_agent:` — the simulated user of a multi-turn task.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct UserAgent {
    /// Whether the simulated user takes part (default false).
    pub enabled: bool,
    /// Who the user is (for an LLM-played user).
    pub persona: String,
    /// Maximum user replies (default 5).
    pub max_rounds: u32,
    /// Appended to the agent's system prompt.
    pub system_prompt_suffix: String,
    /// A scripted user (our extension); without it an LLM plays the persona.
    pub script: Option<UserScript>,
}

/// One `scoring_components:` entry (Claw-Eval's declarative rubric).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoringComponent {
    /// The name.
    pub name: String,
    /// Its weight (the weights should sum to 1).
    pub weight: f64,
    /// What is checked.
    pub check: Check,
}

/// One native `rubric:` item.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RubricItem {
    /// The name.
    pub name: String,
    /// Its weight in completion (default 0).
    pub weight: f64,
    /// A safety gate: violated -> safety 0 (default false).
    pub gate: bool,
    /// What it means.
    pub description: Option<String>,
    /// What is checked.
    pub check: Check,
}

/// The kind of a Claw-Eval safety check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SafetyKind {
    /// A tool must not be called.
    ToolNotCalled,
    /// A wrong action.
    WrongAction,
    /// Wrong content.
    WrongContent,
    /// Wrong data.
    WrongData,
    /// Wrong order of actions.
    WrongOrder,
    /// Wrong recipients.
    WrongRecipients,
    /// Sending without the user's confirmation.
    SendWithoutConfirmation,
    /// Exposing credentials.
    CredentialExposure,
    /// Described in words.
    Custom,
    /// A type Claw-Eval does not use (kept, with a warning).
    Other(String),
}

impl SafetyKind {
    /// The known types, as written.
    pub const KNOWN: &[&str] = &[
        "tool_not_called",
        "wrong_action",
        "wrong_content",
        "wrong_data",
        "wrong_order",
        "wrong_recipients",
        "send_without_confirmation",
        "credential_exposure",
        "custom",
    ];

    /// Parses a written type (unknown ones give [`SafetyKind::Other`]).
    pub fn parse(s: &str) -> Self {
        match s {
            "tool_not_called" => SafetyKind::ToolNotCalled,
            "wrong_action" => SafetyKind::WrongAction,
            "wrong_content" => SafetyKind::WrongContent,
            "wrong_data" => SafetyKind::WrongData,
            "wrong_order" => SafetyKind::WrongOrder,
            "wrong_recipients" => SafetyKind::WrongRecipients,
            "send_without_confirmation" => SafetyKind::SendWithoutConfirmation,
            "credential_exposure" => SafetyKind::CredentialExposure,
            "custom" => SafetyKind::Custom,
            other => SafetyKind::Other(other.to_string()),
        }
    }
}

/// One `safety_checks:` entry.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SafetyCheck {
    /// The kind.
    #[serde(rename = "type")]
    pub kind: SafetyKind,
    /// The tool concerned.
    pub tool_name: Option<String>,
    /// What the trap is.
    pub description: Option<String>,
}

impl SafetyCheck {
    /// The check this safety check is, when it can be checked mechanically
    /// (`tool_not_called` with a tool).
    pub fn as_check(&self) -> Option<Check> {
        match (&self.kind, &self.tool_name) {
            (SafetyKind::ToolNotCalled, Some(t)) => Some(Check::ToolNotCalled {
                tool_name: t.clone(),
            }),
            _ => None,
        }
    }
}

/// One `expected_actions:` entry (documentation of expected writes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExpectedAction {
    /// The service.
    pub service: String,
    /// Its audit key.
    pub action_key: String,
    /// Whether the action is required.
    pub required: bool,
}

impl Task {
    /// The endpoint of `tool`, if it has one.
    pub fn endpoint(&self, tool: &str) -> Option<&ToolEndpoint> {
        self.tool_endpoints.iter().find(|e| e.tool_name == tool)
    }

    /// Whether the agent is offered a tool of this name (a task tool or a system tool).
    pub fn offers(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t.name == tool)
            || SystemTool::parse(tool).is_some_and(|t| self.system_tools.contains(&t))
    }

    /// Task tools backed by a service endpoint (system tools listed in `tools:` excluded).
    pub fn service_tools(&self) -> impl Iterator<Item = (&TaskTool, &ToolEndpoint)> {
        self.tools
            .iter()
            .filter_map(|t| self.endpoint(&t.name).map(|e| (t, e)))
    }

    /// Whether a simulated user takes part.
    pub fn is_multi_turn(&self) -> bool {
        self.user_agent.as_ref().is_some_and(|u| u.enabled)
    }

    /// The virtual start time (the task's `epoch`, else the default).
    pub fn start_time(&self) -> i64 {
        self.epoch.unwrap_or(crate::epoch::DEFAULT_EPOCH)
    }
}
