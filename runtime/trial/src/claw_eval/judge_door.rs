//! The judge behind the grading sandbox's door: Claw-Eval's `LLMJudge` (through clawrun's
//! `openai` stand-in) writes each chat-completion request to the spool folder and rings; this
//! answers it with clawrun's judge model on the host and keeps every exchange for the trial's
//! grading record.

use std::sync::{Arc, Mutex};

use base64::Engine as _;
use clawrun_agents::{Block, Complete, Conversation, Message, Role};
use serde_json::{Value, json};

use clawrun_sandbox::door::{ANSWERED_IN_SPOOL, Answer, Door, NO_HOST};
use clawrun_sandbox::fs::SharedFs;

/// The spool folder, as `openai/__init__.py` names it.
pub const SPOOL: &str = "/run/clawrun/judge";

/// Answers judge calls with a model; `None`: every call answers "no judge configured".
pub struct JudgeDoor {
    model: Option<Arc<dyn Complete>>,
    runtime: tokio::runtime::Handle,
    exchanges: Mutex<Vec<Value>>,
}

impl JudgeDoor {
    /// A door answering with `model` (its futures run on `runtime`).
    pub fn new(model: Option<Arc<dyn Complete>>, runtime: tokio::runtime::Handle) -> Self {
        Self {
            model,
            runtime,
            exchanges: Mutex::new(Vec::new()),
        }
    }

    /// Every exchange so far: `{request, response}` in call order.
    pub fn exchanges(&self) -> Vec<Value> {
        self.exchanges
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The oldest request in the spool that has no response yet: (its stem, its JSON).
    fn next_request(fs: &SharedFs) -> Option<(String, Vec<u8>)> {
        let state = fs.lock();
        let dir = state.vfs.resolve(SPOOL).ok()?;
        let mut names: Vec<String> = state
            .vfs
            .read_dir(dir)
            .ok()?
            .into_iter()
            .map(|(name, _, _)| name)
            .collect();
        names.sort();
        names.iter().find_map(|name| {
            let stem = name.strip_suffix(".request.json")?;
            let answered = names.iter().any(|n| n == &format!("{stem}.response.json"));
            if answered {
                return None;
            }
            let bytes = state.vfs.read_file(&format!("{SPOOL}/{name}")).ok()?;
            Some((stem.to_string(), bytes))
        })
    }

    fn answer(&self, request: &[u8]) -> Value {
        let Some(model) = &self.model else {
            return json!({"unavailable": "no judge model is configured (pass --judge)"});
        };
        let request: Value = match serde_json::from_slice(request) {
            Ok(v) => v,
            Err(e) => return json!({"unavailable": format!("a malformed judge request: {e}")}),
        };
        let conversation = conversation(&request);
        match self.runtime.block_on(model.complete(&conversation)) {
            Ok((text, usage)) => json!({
                "content": text,
                "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
            }),
            Err(e) => json!({"unavailable": format!("the judge model failed: {e}")}),
        }
    }
}

impl Door for JudgeDoor {
    fn ring(&self, fs: &SharedFs) -> Answer {
        Answer::code(self.answer_spool(fs))
    }
}

impl JudgeDoor {
    /// Answers the oldest unanswered judge request in `fs`'s spool: [`ANSWERED_IN_SPOOL`], or
    /// [`NO_HOST`] when there is none (or the answer cannot be written).
    pub fn answer_spool(&self, fs: &SharedFs) -> i32 {
        let Some((stem, request)) = Self::next_request(fs) else {
            return NO_HOST;
        };
        let response = self.answer(&request);
        let bytes = serde_json::to_vec(&response).expect("JSON serialises");
        {
            let mut state = fs.lock();
            if state
                .vfs
                .write_file(&format!("{SPOOL}/{stem}.response.json"), &bytes)
                .is_err()
            {
                return NO_HOST;
            }
        }
        let request: Value = serde_json::from_slice(&request).unwrap_or(Value::Null);
        self.exchanges
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(json!({"request": request, "response": response}));
        ANSWERED_IN_SPOOL
    }
}

/// An OpenAI chat request's messages as clawrun's conversation: system messages become the
/// system prompt; text parts and `data:` image URLs become blocks.
fn conversation(request: &Value) -> Conversation {
    let mut system = Vec::new();
    let mut messages = Vec::new();
    for m in request["messages"].as_array().into_iter().flatten() {
        let blocks = content_blocks(&m["content"]);
        match m["role"].as_str() {
            Some("system") => system.extend(blocks.into_iter().filter_map(|b| match b {
                Block::Text { text } => Some(text),
                _ => None,
            })),
            Some("assistant") => messages.push(Message {
                role: Role::Assistant,
                content: blocks,
            }),
            _ => messages.push(Message {
                role: Role::User,
                content: blocks,
            }),
        }
    }
    Conversation {
        system: system.join("\n\n").into(),
        tools: Default::default(),
        messages,
    }
}

fn content_blocks(content: &Value) -> Vec<Block> {
    match content {
        Value::String(s) => vec![Block::text(s.clone())],
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p["type"].as_str() {
                Some("text") => Some(Block::text(p["text"].as_str().unwrap_or_default())),
                Some("image_url") => {
                    let url = p["image_url"]["url"].as_str()?;
                    let (head, data) = url.strip_prefix("data:")?.split_once(',')?;
                    let media_type = head.strip_suffix(";base64")?;
                    // Keep only well-formed base64; a broken image is dropped, not sent.
                    base64::engine::general_purpose::STANDARD
                        .decode(data)
                        .ok()
                        .map(|_| Block::Image {
                            media_type: media_type.to_string(),
                            data: data.to_string(),
                        })
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}
