//! Shared test helpers: tasks from YAML, hand-built evidence, a fake judge model.

#![allow(dead_code)]

use std::sync::Mutex;

use async_trait::async_trait;
use clawrun_agents::agent::{AgentError, Complete};
use clawrun_agents::{Block, Conversation, Message, Role, Usage};
use clawrun_judge::{CallRecord, Evidence, JudgeLog, ScoreConfig, Verdict, judge_with_log};
use clawrun_task::Task;
use clawrun_vfs::Vfs;
use serde_json::{Value, json};

/// A task parsed from YAML text (panics with the diagnostics when invalid).
pub fn task(yaml: &str) -> Task {
    Task::from_yaml(yaml, "test/task.yaml")
        .unwrap_or_else(|e| panic!("{e}"))
        .task
}

/// A task with only the given native `rubric:` items (YAML list text, indented by 2).
pub fn rubric_task(rubric: &str) -> Task {
    task(&format!(
        "task_id: X001\nprompt:\n  text: do the thing\nrubric:\n{rubric}"
    ))
}

/// A vendored Claw-Eval task.
pub fn vendored(id: &str) -> Task {
    let path = format!(
        "{}/../../third_party/claw-eval/tasks/{id}/task.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    task(&text)
}

/// A successful call.
pub fn ok(name: &str, input: Value) -> CallRecord {
    CallRecord {
        name: name.into(),
        input,
        output: "{\"ok\":true}".into(),
        is_error: false,
        status: Some(200),
        faulted: false,
    }
}

/// A failed call (HTTP 500).
pub fn err(name: &str) -> CallRecord {
    CallRecord {
        name: name.into(),
        input: json!({}),
        output: "{\"error\":\"internal_server_error\"}".into(),
        is_error: true,
        status: Some(500),
        faulted: true,
    }
}

/// Evidence with a prompt, the given calls (as tool-use turns) and a final answer.
pub fn evidence(final_text: &str, calls: Vec<CallRecord>) -> Evidence {
    let mut vfs = Vfs::new();
    vfs.create_dir_all("/workspace").unwrap();
    let mut messages = vec![Message::user("do the thing")];
    for (i, c) in calls.iter().enumerate() {
        messages.push(Message {
            role: Role::Assistant,
            content: vec![Block::ToolUse {
                id: format!("call_{i}"),
                name: c.name.clone(),
                input: c.input.clone(),
            }],
        });
        messages.push(Message {
            role: Role::User,
            content: vec![Block::ToolResult {
                tool_use_id: format!("call_{i}"),
                content: vec![Block::text(c.output.clone())],
                is_error: c.is_error,
            }],
        });
    }
    messages.push(Message::assistant(final_text));
    Evidence {
        prompt: "do the thing".into(),
        messages,
        final_text: final_text.into(),
        calls,
        ..Evidence::default()
    }
}

/// Evidence with only a final answer.
pub fn answer(final_text: &str) -> Evidence {
    evidence(final_text, Vec::new())
}

/// Writes a file (creating its directory) into the evidence's filesystem.
pub fn put(ev: &mut Evidence, path: &str, content: &str) {
    if let Some((dir, _)) = path.rsplit_once('/')
        && !dir.is_empty()
    {
        ev.vfs.create_dir_all(dir).unwrap();
    }
    ev.vfs.write_file(path, content.as_bytes()).unwrap();
}

/// A judge model answering from a script: the first rule whose needle occurs in the prompt
/// (system + user) wins, else the default answer. Records every prompt.
pub struct FakeJudge {
    /// (needle, answer) rules.
    pub rules: Vec<(String, Result<String, String>)>,
    /// The answer when no rule matches.
    pub default: Result<String, String>,
    /// Every prompt seen: system, then user text.
    pub prompts: Mutex<Vec<(String, String)>>,
}

impl FakeJudge {
    /// Always answers `text`.
    pub fn always(text: &str) -> Self {
        FakeJudge {
            rules: Vec::new(),
            default: Ok(text.to_string()),
            prompts: Mutex::new(Vec::new()),
        }
    }

    /// Answers `{"score": s, "reasoning": "..."}` always.
    pub fn score(s: f64) -> Self {
        Self::always(&format!(
            r#"{{"score": {s}, "reasoning": "fake judge says {s}"}}"#
        ))
    }

    /// Adds a rule: when `needle` occurs in the prompt, answer `text`.
    pub fn when(mut self, needle: &str, text: &str) -> Self {
        self.rules.push((needle.to_string(), Ok(text.to_string())));
        self
    }

    /// Always fails like an unreachable API.
    pub fn failing() -> Self {
        FakeJudge {
            rules: Vec::new(),
            default: Err("connection refused".into()),
            prompts: Mutex::new(Vec::new()),
        }
    }

    /// The prompts seen so far.
    pub fn seen(&self) -> Vec<(String, String)> {
        self.prompts.lock().unwrap().clone()
    }
}

#[async_trait]
impl Complete for FakeJudge {
    fn describe(&self) -> String {
        "fake:judge".into()
    }

    async fn complete(&self, conversation: &Conversation) -> Result<(String, Usage), AgentError> {
        let user: String = conversation
            .messages
            .iter()
            .map(Message::text)
            .collect::<Vec<_>>()
            .join("\n");
        self.prompts
            .lock()
            .unwrap()
            .push((conversation.system.to_string(), user.clone()));
        let all = format!("{}\n{user}", conversation.system);
        let answer = self
            .rules
            .iter()
            .find(|(needle, _)| all.contains(needle.as_str()))
            .map(|(_, a)| a.clone())
            .unwrap_or_else(|| self.default.clone());
        answer
            .map(|text| {
                (
                    text,
                    Usage {
                        input_tokens: 100,
                        output_tokens: 10,
                        cached_input_tokens: 0,
                    },
                )
            })
            .map_err(AgentError::Infra)
    }
}

/// Runs the judge to completion on a current-thread runtime.
pub fn run_with(task: &Task, ev: &Evidence, model: Option<&dyn Complete>) -> (Verdict, JudgeLog) {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(judge_with_log(task, ev, model, &ScoreConfig::default()))
}

/// Runs the judge without a model.
pub fn run(task: &Task, ev: &Evidence) -> Verdict {
    run_with(task, ev, None).0
}

/// The item named `name`.
pub fn item<'v>(v: &'v Verdict, name: &str) -> &'v clawrun_judge::ItemResult {
    v.items
        .iter()
        .find(|i| i.name == name)
        .unwrap_or_else(|| panic!("no item {name}: {:?}", v.items))
}

/// Asserts two floats are equal to 1e-9.
pub fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}
