//! The LLM judge: `llm_judge` rubric items and model-judged safety rules. Without a model the
//! items are unjudged (score `None`, evidence "no judge model configured"). Temperature,
//! retries and caching belong to the [`Complete`](clawrun_agents::Complete) implementation.
//!
//! - [`prompt`]: the prompts and their size-bounded sections.
//! - [`parse`]: reading `{"score": x, "reasoning": "..."}` from the answer.

pub mod parse;
pub mod prompt;

use clawrun_agents::{Conversation, Message};
use clawrun_task::check::EvidenceSource as Source;

pub use self::parse::{JudgeReply, parse_reply};
use crate::checks::Finding;
use crate::context::Cx;
use crate::log::JudgeCall;
use crate::text::truncate;

/// The evidence of items left unjudged for want of a model.
pub const NO_MODEL: &str = "no judge model configured";

/// Most characters of the judge's reasoning kept in an item's evidence.
const REASONING_MAX: usize = 800;

/// Asks the judge model (system prompt + one user message) and turns its answer into an
/// outcome; logs the call.
pub(crate) async fn ask(cx: &mut Cx<'_>, item: &str, system: &str, user: String) -> Finding {
    let Some(model) = cx.model else {
        return Finding::unjudged(NO_MODEL);
    };
    let conversation = Conversation {
        system: system.into(),
        tools: Default::default(),
        messages: vec![Message::user(user.clone())],
    };
    let name = model.describe();
    let mut call = JudgeCall {
        item: item.to_string(),
        model: name.clone(),
        prompt_chars: system.chars().count() + user.chars().count(),
        score: None,
        reasoning: String::new(),
        usage: Default::default(),
        error: None,
    };
    let outcome = match model.complete(&conversation).await {
        Err(e) => {
            call.error = Some(e.to_string());
            Finding::unjudged(format!("judge call to {name} failed: {e}"))
        }
        Ok((text, usage)) => {
            call.usage = usage;
            match parse_reply(&text) {
                Some(reply) => {
                    call.score = Some(reply.score);
                    call.reasoning = reply.reasoning.clone();
                    Finding::scored(
                        reply.score,
                        format!(
                            "judge {name}: {:.2} — {}",
                            reply.score,
                            truncate(reply.reasoning.trim(), REASONING_MAX)
                        ),
                    )
                }
                None => {
                    call.reasoning = text.clone();
                    call.error = Some("no score in the answer".into());
                    Finding::unjudged(format!(
                        "judge {name} gave no readable score: {:?}",
                        truncate(text.trim(), 200)
                    ))
                }
            }
        }
    };
    cx.log.calls.push(call);
    outcome
}

/// What an `llm_judge` item asks.
pub(crate) struct Ask<'a> {
    /// The item's name.
    pub name: &'a str,
    /// The native rubric item's own `description`.
    pub item_description: Option<&'a str>,
    /// What is judged (the check's `description`, Claw-Eval's wording).
    pub description: Option<&'a str>,
    /// The item's rubric text.
    pub rubric: Option<&'a str>,
    /// The evidence to show.
    pub evidence: &'a [Source],
    /// Always show the conversation and the audit (Claw-Eval's items: its judge saw both).
    pub full: bool,
}

/// Scores an `llm_judge` item.
pub(crate) async fn judge_item(cx: &mut Cx<'_>, a: &Ask<'_>) -> Finding {
    if cx.model.is_none() {
        return Finding::unjudged(NO_MODEL);
    }
    // Never show the judge an empty filesystem as if the agent had written nothing.
    if let Some(why) = &cx.ev.filesystem_missing {
        let files: Vec<&str> = a
            .evidence
            .iter()
            .filter_map(|s| match s {
                Source::File(p) => Some(p.as_str()),
                _ => None,
            })
            .collect();
        if !files.is_empty() {
            return Finding::unjudged(format!(
                "not judged: the item shows the judge {} and {why}",
                files.join(", ")
            ));
        }
    }
    let user = item_prompt(cx, a);
    ask(cx, a.name, prompt::EVAL_SYSTEM, user).await
}

/// The user message for an `llm_judge` item.
fn item_prompt(cx: &Cx<'_>, a: &Ask<'_>) -> String {
    let ev = cx.ev;
    let task = cx.task;
    let wants = |s: &Source| a.full || a.evidence.contains(s);
    let task_prompt = if ev.prompt.trim().is_empty() {
        task.prompt.text.clone()
    } else {
        ev.prompt.clone()
    };
    let files: Vec<String> = a
        .evidence
        .iter()
        .filter_map(|s| match s {
            Source::File(p) => Some(p.clone()),
            _ => None,
        })
        .collect();
    let mut rubric = format!("### This item: {}\n", a.name);
    for text in [a.item_description, a.description, a.rubric]
        .into_iter()
        .flatten()
    {
        rubric.push_str(text.trim());
        rubric.push('\n');
    }
    if let Some(r) = &task.judge_rubric {
        rubric.push_str(&format!("\n### The task's rubric\n{}\n", r.trim()));
    }
    rubric.push_str(&format!("\n### Scoring\n{}", prompt::CALIBRATION));
    let mut parts = vec![("Task Prompt", task_prompt)];
    if wants(&Source::Conversation) {
        parts.push(("Conversation", prompt::conversation(&ev.messages)));
    }
    if wants(&Source::Audit) {
        parts.push(("Actions Taken", prompt::actions(&ev.audits)));
    }
    parts.push(("Files", prompt::files(ev, &files)));
    if let Some(r) = &task.reference_solution {
        parts.push((
            "Reference Solution (for the judge only; the assistant never saw it)",
            r.clone(),
        ));
    }
    parts.push(("Rubric", rubric));
    prompt::sections(&parts)
}
