//! The bridge between an agent outside clawrun (an MCP client, an agent program) and the trial
//! loop: each tool call that arrives from outside becomes one assistant turn with one tool use,
//! served by the same Execution steps as a built-in agent's (sandbox, faults, audit, trace);
//! its result goes back to the caller when the loop asks for the next turn. A `finish` call,
//! the end of the session or the program's exit is the final answer.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use async_trait::async_trait;
use clawrun_agents::{Agent, AgentError, Block, Conversation, Message, Reply, Role, Usage};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// What a tool call answered, as the caller sees it: the result's blocks (text, then images)
/// and whether it is an error.
#[derive(Clone, Debug, PartialEq)]
pub struct CallAnswer {
    /// Text and image blocks.
    pub content: Vec<Block>,
    /// Whether the tool reported an error.
    pub is_error: bool,
}

impl CallAnswer {
    /// A text answer.
    pub fn text(text: impl Into<String>, is_error: bool) -> Self {
        CallAnswer {
            content: vec![Block::text(text.into())],
            is_error,
        }
    }
}

/// A request from the outside to the trial.
#[derive(Debug)]
pub enum AgentRequest {
    /// Call tool `name` with `input`; the answer goes to `reply`.
    Call {
        /// The tool.
        name: String,
        /// Its arguments.
        input: Value,
        /// Where the result goes.
        reply: oneshot::Sender<CallAnswer>,
    },
    /// The agent's final answer (the `finish` tool); in a multi-turn task the simulated user's
    /// reply goes to `reply` and the dialogue goes on.
    Finish {
        /// The answer.
        answer: String,
        /// Where the user's reply (or the end of the trial) goes.
        reply: oneshot::Sender<CallAnswer>,
    },
    /// No agent ever connected (an MCP session that never initialised): Execution ends
    /// unmeasured, as an infrastructure error saying why.
    Unmeasured {
        /// Why, in one line.
        reason: String,
    },
    /// The session closed or the agent program exited: Execution ends. `error` when the
    /// program failed.
    Ended {
        /// Why, when it is the agent's failure (e.g. a non-zero exit status).
        error: Option<String>,
    },
}

/// What the model proxy learnt of the agent's model since the last turn: tokens spent, the
/// last assistant text (the final answer when the agent ends without `finish`).
#[derive(Debug, Default)]
pub struct ModelLedger {
    /// Tokens not yet counted into a turn.
    pub usage: Usage,
    /// The text of the model's last answer.
    pub last_text: String,
    /// The proxy refused a request past the trial's token limit (the message it sent).
    pub over_budget: Option<String>,
}

/// The sending side, held by the MCP server and the program's watcher.
#[derive(Clone, Debug)]
pub struct BridgeHandle {
    tx: mpsc::Sender<AgentRequest>,
    /// Set once a client's session is established (see [`BridgeHandle::connected`]).
    connected: Arc<AtomicBool>,
}

impl BridgeHandle {
    /// Calls `name` with `input` in the trial; `None` when the trial has ended.
    pub async fn call(&self, name: String, input: Value) -> Option<CallAnswer> {
        let (reply, answer) = oneshot::channel();
        self.tx
            .send(AgentRequest::Call { name, input, reply })
            .await
            .ok()?;
        answer.await.ok()
    }

    /// Gives the final answer; `Some` with the simulated user's reply when the dialogue goes
    /// on, `None` when the trial has ended.
    pub async fn finish(&self, answer: String) -> Option<CallAnswer> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(AgentRequest::Finish { answer, reply })
            .await
            .ok()?;
        rx.await.ok()
    }

    /// Ends Execution (the session closed, the program exited).
    pub async fn end(&self, error: Option<String>) {
        let _ = self.tx.send(AgentRequest::Ended { error }).await;
    }

    /// Records that a client's session is established (an MCP `initialize` answered): from
    /// now on the trial measures that client, even if it never calls a tool.
    pub fn connected(&self) {
        self.connected.store(true, Ordering::SeqCst);
    }

    /// Ends Execution before any agent connected: the trial is not measured.
    pub async fn end_unmeasured(&self, reason: String) {
        let _ = self.tx.send(AgentRequest::Unmeasured { reason }).await;
    }

    /// Ends Execution from outside an async context.
    pub fn end_blocking(&self, error: Option<String>) {
        let _ = self.tx.try_send(AgentRequest::Ended { error });
    }

    /// Whether the trial has stopped listening.
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

/// An agent acting from outside clawrun, as the trial loop sees it.
pub struct ExternalAgent {
    name: String,
    rx: mpsc::Receiver<AgentRequest>,
    pending: Option<oneshot::Sender<CallAnswer>>,
    calls: u64,
    deadline: Option<Instant>,
    ledger: Arc<Mutex<ModelLedger>>,
    /// Whether a client's session was established ([`BridgeHandle::connected`]).
    connected: Arc<AtomicBool>,
    /// Whether time running out before any client connected leaves the trial unmeasured (an
    /// MCP server waiting for a client) rather than timed out (an agent program that ran).
    needs_client: bool,
    /// Trace events from the agent's side (the model proxy's calls), drained each step.
    events: Option<Arc<Mutex<Vec<clawrun_agents::trace::EventKind>>>>,
    /// What must live as long as the trial (the server, the program).
    _keep: Vec<Box<dyn Send>>,
}

impl ExternalAgent {
    /// An agent named `name` and the handle its requests come through; `deadline`: when the
    /// agent's time is up (real time); `ledger`: the model proxy's account, if any.
    pub fn new(
        name: String,
        deadline: Option<Instant>,
        ledger: Arc<Mutex<ModelLedger>>,
    ) -> (Self, BridgeHandle) {
        let (tx, rx) = mpsc::channel(16);
        let connected = Arc::new(AtomicBool::new(false));
        (
            ExternalAgent {
                name,
                rx,
                pending: None,
                calls: 0,
                deadline,
                ledger,
                connected: Arc::clone(&connected),
                needs_client: false,
                events: None,
                _keep: Vec::new(),
            },
            BridgeHandle { tx, connected },
        )
    }

    /// Time running out before a client's session was established ends the trial
    /// unmeasured (an infrastructure error: no client came), not as the agent's timeout.
    pub fn needs_client(&mut self) {
        self.needs_client = true;
    }

    /// Records the events `events` collects (the model proxy's) into the trace.
    pub fn set_events(&mut self, events: Arc<Mutex<Vec<clawrun_agents::trace::EventKind>>>) {
        self.events = Some(events);
    }

    /// Keeps `value` alive until the trial's agent is dropped.
    pub fn keep(&mut self, value: impl Send + 'static) {
        self._keep.push(Box::new(value));
    }

    /// The tokens the model proxy counted since the last turn.
    fn take_usage(&self) -> Usage {
        let mut ledger = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut ledger.usage)
    }

    /// The model's last answer text, the final answer of an agent that did not call `finish`.
    fn last_text(&self) -> String {
        let ledger = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
        ledger.last_text.clone()
    }

    /// A reply of `message` with the tokens spent since the last turn.
    fn reply(&self, content: Vec<Block>) -> Reply {
        Reply {
            message: Message {
                role: Role::Assistant,
                content,
            },
            usage: self.take_usage(),
            wait_ns: 0,
            cached: false,
        }
    }
}

/// What the last message (the tool's result, or the simulated user's words) tells the caller.
fn answer_of(last: Option<&Message>) -> CallAnswer {
    let Some(message) = last.filter(|m| m.role == Role::User) else {
        return CallAnswer::text("", false);
    };
    if let Some(Block::ToolResult {
        content, is_error, ..
    }) = message.content.first()
    {
        return CallAnswer {
            content: content.clone(),
            is_error: *is_error,
        };
    }
    CallAnswer::text(message.text(), false)
}

#[async_trait]
impl Agent for ExternalAgent {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn take_events(&mut self) -> Vec<clawrun_agents::trace::EventKind> {
        self.events.as_ref().map_or_else(Vec::new, |events| {
            std::mem::take(&mut *events.lock().unwrap_or_else(|e| e.into_inner()))
        })
    }

    async fn step(&mut self, conversation: &Conversation) -> Result<Reply, AgentError> {
        if let Some(reply) = self.pending.take() {
            let _ = reply.send(answer_of(conversation.last()));
        }
        let next = match self.deadline {
            Some(deadline) => {
                // Past the deadline, a request already waiting is not taken either: a client
                // that never pauses between calls still meets the task's time (tokio's
                // timeout takes a ready future before it looks at the clock).
                let waited = if Instant::now() >= deadline {
                    Err(())
                } else {
                    tokio::time::timeout_at(deadline.into(), self.rx.recv())
                        .await
                        .map_err(|_| ())
                };
                match waited {
                    Ok(next) => next,
                    Err(()) if self.needs_client && !self.connected.load(Ordering::SeqCst) => {
                        return Err(AgentError::Infra(
                            "no MCP client connected within the task's time \
                             (environment.timeout_seconds): nothing was measured"
                                .into(),
                        ));
                    }
                    Err(()) => {
                        return Err(AgentError::TimedOut(format!(
                            "{} did not finish within the task's time",
                            self.name
                        )));
                    }
                }
            }
            None => self.rx.recv().await,
        };
        let over_budget = self
            .ledger
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .over_budget
            .clone();
        if let Some(message) = over_budget {
            return Err(AgentError::TokenLimit(message));
        }
        match next {
            Some(AgentRequest::Call { name, input, reply }) => {
                self.calls += 1;
                self.pending = Some(reply);
                Ok(self.reply(vec![Block::ToolUse {
                    id: format!("call_{}", self.calls),
                    name,
                    input,
                }]))
            }
            Some(AgentRequest::Finish { answer, reply }) => {
                self.pending = Some(reply);
                Ok(self.reply(vec![Block::text(answer)]))
            }
            Some(AgentRequest::Unmeasured { reason }) => Err(AgentError::Infra(reason)),
            Some(AgentRequest::Ended { error: Some(error) }) => Err(AgentError::Failed(error)),
            Some(AgentRequest::Ended { error: None }) | None => {
                let text = self.last_text();
                Ok(self.reply(if text.is_empty() {
                    Vec::new()
                } else {
                    vec![Block::text(text)]
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conversation(messages: Vec<Message>) -> Conversation {
        Conversation {
            system: Arc::from(""),
            tools: Arc::from(Vec::new()),
            messages,
        }
    }

    #[test]
    fn a_call_is_a_turn_and_its_result_goes_back() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let ledger = Arc::new(Mutex::new(ModelLedger::default()));
        let (mut agent, handle) = ExternalAgent::new("mcp".into(), None, ledger.clone());
        rt.block_on(async {
            let caller = tokio::spawn(async move {
                let a = handle
                    .call("Read".into(), serde_json::json!({"p": 1}))
                    .await;
                ledger.lock().unwrap().last_text = "done".into();
                handle.end(None).await;
                a
            });
            let first = agent.step(&conversation(Vec::new())).await.unwrap();
            let (id, name, input) = first.message.tool_calls().next().unwrap();
            assert_eq!((id, name), ("call_1", "Read"));
            assert_eq!(input["p"], 1);
            let result = Message {
                role: Role::User,
                content: vec![Block::ToolResult {
                    tool_use_id: "call_1".into(),
                    content: vec![Block::text("contents")],
                    is_error: false,
                }],
            };
            let last = agent.step(&conversation(vec![result])).await.unwrap();
            assert_eq!(last.message.text(), "done");
            assert_eq!(last.message.tool_calls().count(), 0);
            let answer = caller.await.unwrap().unwrap();
            assert_eq!(answer, CallAnswer::text("contents", false));
        });
    }

    #[test]
    fn waiting_past_the_deadline_is_a_timeout() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let ledger = Arc::new(Mutex::new(ModelLedger::default()));
        let deadline = Instant::now() + std::time::Duration::from_millis(20);
        let (mut agent, _handle) = ExternalAgent::new("mcp".into(), Some(deadline), ledger);
        let e = rt
            .block_on(agent.step(&conversation(Vec::new())))
            .unwrap_err();
        assert!(matches!(e, AgentError::TimedOut(_)), "{e}");
    }

    #[test]
    fn a_call_waiting_when_the_deadline_has_passed_is_not_taken() {
        // The task's time is an external agent's wall-clock limit: a client that sends its
        // calls back to back, so that one is always waiting, meets it too.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let ledger = Arc::new(Mutex::new(ModelLedger::default()));
        let deadline = Instant::now();
        let (mut agent, handle) = ExternalAgent::new("mcp".into(), Some(deadline), ledger);
        rt.block_on(async {
            let caller = tokio::spawn(async move {
                handle
                    .call("Read".into(), serde_json::json!({"p": 1}))
                    .await
            });
            // The call is queued before the agent's turn asks for it.
            while agent.rx.is_empty() {
                tokio::task::yield_now().await;
            }
            let e = agent.step(&conversation(Vec::new())).await.unwrap_err();
            assert!(matches!(e, AgentError::TimedOut(_)), "{e}");
            drop(agent);
            assert_eq!(caller.await.unwrap(), None, "the call is never served");
        });
    }
}
