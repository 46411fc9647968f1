//! The simulated user of multi-turn tasks (Claw-Eval's `user_agent`): when the agent answers
//! without tool calls and rounds remain, the user replies. Two modes: scripted rules (offline)
//! and an LLM playing the persona.

use async_trait::async_trait;
use clawrun_agents::{AgentError, Complete, Conversation, Message, Role, Usage};

/// The marker a user reply carries when the user is satisfied.
pub const DONE: &str = "[DONE]";

/// One reply of the simulated user.
#[derive(Clone, Debug, PartialEq)]
pub struct UserReply {
    /// What the user says (`[DONE]` removed).
    pub text: String,
    /// Whether the user ended the dialogue.
    pub done: bool,
    /// Tokens the reply cost (LLM mode).
    pub usage: Usage,
}

impl UserReply {
    /// Reads a raw reply: `[DONE]` anywhere ends the dialogue and is removed from the text.
    pub fn parse(raw: &str, usage: Usage) -> Self {
        let done = raw.contains(DONE);
        UserReply {
            text: raw.replace(DONE, "").trim().to_string(),
            done,
            usage,
        }
    }
}

/// A simulated user.
#[async_trait]
pub trait SimulatedUser: Send {
    /// The user's answer to the conversation so far (its last message is the agent's).
    async fn reply(&mut self, conversation: &Conversation) -> Result<UserReply, AgentError>;
}

/// The scripted user (`user_agent.script`): the first rule whose pattern matches the agent's
/// latest message answers; otherwise the default reply.
#[async_trait]
impl SimulatedUser for clawrun_task::ScriptedUser {
    async fn reply(&mut self, conversation: &Conversation) -> Result<UserReply, AgentError> {
        let said = conversation.last().map(Message::text).unwrap_or_default();
        let r = clawrun_task::ScriptedUser::reply(self, &said);
        let mut reply = UserReply::parse(&r.text, Usage::default());
        reply.done |= r.done;
        Ok(reply)
    }
}

/// The system prompt of the LLM-played user (Claw-Eval's rules, in English).
pub fn persona_prompt(persona: &str) -> String {
    format!(
        "You are role-playing a user who is consulting an AI assistant. Stay in character as \
         the persona below for the whole conversation; never say you are an AI or a simulation.\n\
         Rules:\n\
         - Answer only from the persona. If the assistant asks for something the persona does \
         not specify, say you are not sure of the exact figure or detail.\n\
         - Reveal your specific details only when the assistant asks for them; do not volunteer \
         everything at once.\n\
         - Reply in 1-3 short sentences, like a real person, without Markdown.\n\
         - When the assistant has given you a complete, satisfactory answer, reply with {DONE} \
         (you may add a short thank-you before it).\n\n\
         ## Persona\n{persona}"
    )
}

/// The transcript the LLM user reads: every text turn, labelled from the user's side.
pub fn transcript(conversation: &Conversation) -> String {
    let mut out = String::new();
    for m in &conversation.messages {
        let text = m.text();
        if text.trim().is_empty() {
            continue;
        }
        let who = match m.role {
            Role::User => "You (the user)",
            Role::Assistant => "Assistant",
        };
        out.push_str(&format!("{who}: {}\n\n", text.trim()));
    }
    out.push_str("Reply to the assistant's last message as the user.");
    out
}

/// The LLM-played user: the persona as system prompt, the transcript as the user message.
pub struct LlmUser<C: Complete> {
    /// The model.
    client: C,
    /// The system prompt built from the persona.
    system: String,
}

impl<C: Complete> LlmUser<C> {
    /// A user played by `client` from `persona`.
    pub fn new(client: C, persona: &str) -> Self {
        LlmUser {
            client,
            system: persona_prompt(persona),
        }
    }
}

#[async_trait]
impl<C: Complete> SimulatedUser for LlmUser<C> {
    async fn reply(&mut self, conversation: &Conversation) -> Result<UserReply, AgentError> {
        let ask = Conversation {
            system: self.system.as_str().into(),
            tools: Default::default(),
            messages: vec![Message::user(transcript(conversation))],
        };
        let (text, usage) = self.client.complete(&ask).await?;
        Ok(UserReply::parse(&text, usage))
    }
}

/// Replays the simulated user's recorded turns, in order.
pub struct ReplayUser {
    /// (text, done) of each recorded `user_turn`.
    turns: std::collections::VecDeque<(String, bool)>,
}

impl ReplayUser {
    /// The user turns of a recorded trace.
    pub fn new(events: &[clawrun_agents::trace::Event]) -> Self {
        let turns = events
            .iter()
            .filter_map(|e| match &e.kind {
                clawrun_agents::trace::EventKind::UserTurn { text, done, .. } => {
                    Some((text.clone(), *done))
                }
                _ => None,
            })
            .collect();
        ReplayUser { turns }
    }
}

#[async_trait]
impl SimulatedUser for ReplayUser {
    async fn reply(&mut self, _conversation: &Conversation) -> Result<UserReply, AgentError> {
        let (text, done) = self.turns.pop_front().ok_or_else(|| AgentError::Diverged {
            step: 0,
            detail: "the recording has no further simulated-user turn".into(),
        })?;
        Ok(UserReply {
            text,
            done,
            usage: Usage::default(),
        })
    }
}
