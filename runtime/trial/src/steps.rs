//! The steps of Execution over its running state (conversation, trace, counters): the limits
//! checked before a turn, the agent's turn, a simulated user's round, the tool calls served.
//! Each step either continues or breaks with the [`Outcome`] that ends Execution.

use std::ops::ControlFlow;

use anyhow::Result;
use clawrun_agents::trace::{EventKind, Outcome};
use clawrun_agents::{Agent, AgentError, Block, Conversation, Message, Role, Usage};
use clawrun_judge::CallRecord;
use serde_json::Value;

use super::dispatch::call_tool;
use super::execution::Limits;
use super::prompt::prompt_message;
use super::recorder::{self, Recorder};
use super::setup::{Harness, TaskEnv, TrialEnv};
use super::user::SimulatedUser;
use clawrun_faults::FaultPlan;
use clawrun_sandbox::tools::{InstallationError, ToolState};

/// One tool call the agent asked for: its id, the tool's name, the input.
pub(super) type ToolUse = (String, String, Value);

/// Execution's running state: what the steps read and append to.
pub(super) struct Execution<'a> {
    /// The agent's and the simulated user's futures run here.
    pub rt: &'a tokio::runtime::Runtime,
    /// Engine and tools.
    pub harness: &'a Harness,
    /// The task played.
    pub task: &'a TaskEnv,
    /// The trial's fork of the task.
    pub env: TrialEnv,
    /// The trace so far.
    pub rec: Recorder,
    /// The conversation so far.
    pub conv: Conversation,
    /// The system tools' state across calls.
    pub state: ToolState,
    /// Tokens the agent spent.
    pub usage: Usage,
    /// The tool calls served, for the judge.
    pub calls: Vec<CallRecord>,
    /// Assistant turns taken.
    pub turns: u32,
    /// Assistant turns served from the response cache.
    pub cached_turns: u32,
    /// Simulated-user rounds.
    pub rounds: u32,
    /// Faults injected so far.
    pub faults_seen: u32,
    /// Why Execution ended on an error, if it did.
    pub error: Option<String>,
}

impl<'a> Execution<'a> {
    /// Execution of trial `trial` of `task` about to begin: the task forked (under `plan`
    /// with a census of the points called, when given: [`TaskEnv::fork_with`]), the trace
    /// opened (`agent` names the agent), the prompt the conversation's first message.
    pub fn start(
        rt: &'a tokio::runtime::Runtime,
        harness: &'a Harness,
        task: &'a TaskEnv,
        (run_seed, trial): (u64, u32),
        plan: Option<&FaultPlan>,
        agent: String,
    ) -> Self {
        let mut env = match plan {
            Some(plan) => task.fork_with(run_seed, trial, plan, true),
            None => task.fork(run_seed, trial),
        };
        let mut rec = Recorder::start(task, &mut env, trial, agent);
        let prompt = prompt_message(task);
        rec.push(
            &env,
            EventKind::Message {
                role: Role::User,
                content: prompt.content.clone(),
                usage: None,
                cached: false,
            },
        );
        Execution {
            rt,
            harness,
            task,
            env,
            rec,
            conv: Conversation {
                system: task.system.clone(),
                tools: task.tools.clone(),
                messages: vec![prompt],
            },
            state: ToolState::default(),
            usage: Usage::default(),
            calls: Vec::new(),
            turns: 0,
            cached_turns: 0,
            rounds: 0,
            faults_seen: 0,
            error: None,
        }
    }

    /// The limit that stops Execution before the next turn, if one is reached. Every one is
    /// counted, never timed (turns, the virtual clock, tokens): how long the host took (a
    /// busy machine, a first compile, a slow model) never decides where a trial ends
    /// (README "Time limits"). An agent outside clawrun keeps its own wall-clock deadline
    /// (`clawrun_external`), by design.
    pub fn limit_reached(&self, limits: &Limits) -> Option<Outcome> {
        let timeout_ns = u64::try_from(limits.timeout.as_nanos()).unwrap_or(u64::MAX);
        if self.turns >= limits.max_turns {
            Some(Outcome::MaxTurns)
        } else if self.env.clock.elapsed_ns() >= timeout_ns {
            Some(Outcome::Timeout)
        } else if limits
            .max_tokens
            .is_some_and(|max| self.usage.total() >= max)
        {
            Some(Outcome::TokenLimit)
        } else {
            None
        }
    }

    /// The agent's turn: its message recorded and appended; the tool calls it asks for.
    pub fn agent_turn(&mut self, agent: &mut dyn Agent) -> ControlFlow<Outcome, Vec<ToolUse>> {
        let stepped = self.rt.block_on(agent.step(&self.conv));
        // An agent program's model calls (and the faults injected into them) come first.
        for event in agent.take_events() {
            self.faults_seen += u32::from(matches!(event, EventKind::Fault { .. }));
            self.rec.push(&self.env, event);
        }
        self.faults_seen += self.rec.drain_faults(&self.env);
        let reply = match stepped {
            Ok(r) => r,
            Err(e) => return ControlFlow::Break(self.model_failed(e.to_string(), &e)),
        };
        self.turns += 1;
        self.cached_turns += u32::from(reply.cached);
        self.usage.add(reply.usage);
        self.env.clock.advance(reply.wait_ns);
        let message = Message {
            role: Role::Assistant,
            ..reply.message
        };
        self.rec.push(
            &self.env,
            EventKind::Message {
                role: Role::Assistant,
                content: message.content.clone(),
                usage: Some(reply.usage),
                cached: reply.cached,
            },
        );
        let uses = message
            .tool_calls()
            .map(|(id, name, input)| (id.to_string(), name.to_string(), input.clone()))
            .collect();
        self.conv.messages.push(message);
        ControlFlow::Continue(uses)
    }

    /// After a turn without tool calls: the simulated user's round, if it has rounds left of
    /// `max_rounds`; else the agent's answer is final.
    pub fn user_round(
        &mut self,
        user: &mut Option<Box<dyn SimulatedUser>>,
        max_rounds: u32,
    ) -> ControlFlow<Outcome> {
        let Some(user) = user.as_deref_mut().filter(|_| self.rounds < max_rounds) else {
            return ControlFlow::Break(Outcome::FinalAnswer);
        };
        let answer = match self.rt.block_on(user.reply(&self.conv)) {
            Ok(a) => a,
            Err(e) => {
                return ControlFlow::Break(self.model_failed(format!("simulated user: {e}"), &e));
            }
        };
        self.rounds += 1;
        self.rec.push(
            &self.env,
            EventKind::UserTurn {
                round: self.rounds,
                text: answer.text.clone(),
                done: answer.done,
            },
        );
        if answer.done {
            return ControlFlow::Break(Outcome::FinalAnswer);
        }
        self.conv.messages.push(Message::user(answer.text));
        ControlFlow::Continue(())
    }

    /// Serves the turn's tool calls in order and appends their results as one user message;
    /// a call the host cannot serve ends Execution as a task error (its results not appended).
    pub fn serve_tools(
        &mut self,
        uses: Vec<ToolUse>,
    ) -> Result<ControlFlow<Outcome>, InstallationError> {
        let mut results = Vec::with_capacity(uses.len());
        for (id, name, input) in uses {
            match self.serve_tool(id, name, input)? {
                ControlFlow::Continue(result) => results.push(result),
                ControlFlow::Break(outcome) => return Ok(ControlFlow::Break(outcome)),
            }
        }
        self.conv.messages.push(Message {
            role: Role::User,
            content: results,
        });
        Ok(ControlFlow::Continue(()))
    }

    /// Serves one tool call: recorded with the faults it met, kept for the judge, returned as
    /// the model's `tool_result` block. `Err` only for a broken installation.
    fn serve_tool(
        &mut self,
        id: String,
        name: String,
        input: Value,
    ) -> Result<ControlFlow<Outcome, Block>, InstallationError> {
        self.rec.push(
            &self.env,
            EventKind::ToolCall {
                id: id.clone(),
                name: name.clone(),
                input: input.clone(),
            },
        );
        let served = call_tool(
            self.harness,
            self.task,
            &mut self.env,
            &mut self.state,
            &name,
            &input,
        );
        let result = match served {
            Ok(result) => result,
            Err(e) if InstallationError::is(&e) => return Err(InstallationError(format!("{e:#}"))),
            Err(e) if super::execution::host_failure(&e) => {
                self.error = Some(format!("the {name} call: {e:#}"));
                return Ok(ControlFlow::Break(Outcome::InfraError));
            }
            Err(e) => {
                self.error = Some(format!("the {name} call could not be served: {e:#}"));
                return Ok(ControlFlow::Break(Outcome::TaskError));
            }
        };
        let faulted = self.rec.drain_faults(&self.env);
        self.faults_seen += faulted;
        self.rec
            .push(&self.env, recorder::tool_result(&id, &name, &result));
        self.calls.push(CallRecord {
            name,
            input,
            output: result.output.clone(),
            is_error: result.is_error,
            status: result.status,
            faulted: faulted > 0,
        });
        // The text, then the images the tool returned.
        let mut content = vec![Block::text(result.output)];
        content.extend(result.images.iter().map(|i| Block::Image {
            media_type: i.media_type.clone(),
            data: i.base64(),
        }));
        Ok(ControlFlow::Continue(Block::ToolResult {
            tool_use_id: id,
            content,
            is_error: result.is_error,
        }))
    }

    /// Records a model's failure (the agent's or the simulated user's) as Execution's `error`
    /// and says how it ends Execution: an infrastructure error (the model API failed; kept out
    /// of scores and retried) or the agent's.
    fn model_failed(&mut self, error: String, e: &AgentError) -> Outcome {
        self.error = Some(error);
        match e {
            AgentError::Infra(_) => Outcome::InfraError,
            AgentError::TimedOut(_) => Outcome::Timeout,
            AgentError::TokenLimit(_) => Outcome::TokenLimit,
            _ => Outcome::AgentError,
        }
    }
}
