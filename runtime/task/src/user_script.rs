//! A scripted simulated user (our extension, `user_agent.script`), for multi-turn tasks without
//! an LLM.
//!
//! ```yaml
//! user_agent:
//!   enabled: true
//!   script:
//!     rules:
//!       - when: "which (team|department)"   # case-insensitive regex on the agent's message
//!         reply: "Platform engineering."
//!       - when: "scenario"
//!         reply: "Thanks, that's what I needed."
//!         done: true                        # the user is satisfied: the dialogue ends
//!     default: "[DONE]"                     # reply when no rule matches (default "[DONE]")
//! ```
//!
//! Rules are tried in order; the first matching rule that may still fire answers. A rule fires
//! at most once unless `once: false`.

use regex::{Regex, RegexBuilder};
use serde::Serialize;

use crate::read::{Cx, FromNode, Map};
use crate::yaml::Node;

/// The reply that ends a dialogue (Claw-Eval's simulated user says it when satisfied).
pub const DONE: &str = "[DONE]";

/// A scripted simulated user.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UserScript {
    /// Reply rules, tried in order.
    pub rules: Vec<UserRule>,
    /// The reply when no rule matches (default `[DONE]`).
    pub default: String,
}

/// One rule of a [`UserScript`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UserRule {
    /// A regex matched case-insensitively against the agent's latest message text.
    pub when: String,
    /// What the user replies.
    pub reply: String,
    /// Whether the user is satisfied after this reply (ends the dialogue; default false).
    pub done: bool,
    /// Whether the rule fires at most once (default true).
    pub once: bool,
}

/// What the scripted user says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptedReply {
    /// The reply text.
    pub text: String,
    /// Whether the dialogue ends after it.
    pub done: bool,
}

/// A [`UserScript`] in play: compiled regexes and which rules have fired.
#[derive(Clone, Debug)]
pub struct ScriptedUser {
    rules: Vec<(Regex, UserRule, bool)>,
    default: String,
}

impl UserRule {
    /// The rule's regex, case-insensitive.
    pub fn regex(&self) -> Result<Regex, regex::Error> {
        RegexBuilder::new(&self.when).case_insensitive(true).build()
    }
}

impl UserScript {
    /// Compiles the rules (validation already checked that they compile).
    pub fn start(&self) -> Result<ScriptedUser, regex::Error> {
        let rules = self
            .rules
            .iter()
            .map(|r| Ok((r.regex()?, r.clone(), false)))
            .collect::<Result<_, regex::Error>>()?;
        Ok(ScriptedUser {
            rules,
            default: self.default.clone(),
        })
    }
}

impl ScriptedUser {
    /// The user's answer to the agent's latest message.
    pub fn reply(&mut self, agent_text: &str) -> ScriptedReply {
        for (re, rule, fired) in &mut self.rules {
            if (*fired && rule.once) || !re.is_match(agent_text) {
                continue;
            }
            *fired = true;
            return ScriptedReply {
                done: rule.done || rule.reply.contains(DONE),
                text: rule.reply.clone(),
            };
        }
        ScriptedReply {
            done: self.default.contains(DONE),
            text: self.default.clone(),
        }
    }
}

impl FromNode for UserScript {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let rules = m.or_default("rules");
        let default = m.or("default", DONE.to_string());
        m.finish(&["rules", "default"]);
        Some(UserScript { rules, default })
    }
}

impl FromNode for UserRule {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let when = m.req(
            "when",
            "give a regex matched against the agent's message: `when: \"budget\"`",
        );
        let reply = m.req("reply", "write what the user says: `reply: ...`");
        let done = m.or("done", false);
        let once = m.or("once", true);
        m.finish(&["when", "reply", "done", "once"]);
        Some(UserRule {
            when: when?,
            reply: reply?,
            done,
            once,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(when: &str, reply: &str, done: bool, once: bool) -> UserRule {
        UserRule {
            when: when.into(),
            reply: reply.into(),
            done,
            once,
        }
    }

    #[test]
    fn rules_fire_in_order_once_then_default() {
        let script = UserScript {
            rules: vec![
                rule("team", "Platform.", false, true),
                rule("scenario", "Great.", true, true),
            ],
            default: DONE.into(),
        };
        let mut u = script.start().unwrap();
        assert_eq!(u.reply("Which TEAM?").text, "Platform.");
        let again = u.reply("which team again?");
        assert_eq!((again.text.as_str(), again.done), ("[DONE]", true));
        let r = u.reply("Here are the scenarios");
        assert_eq!((r.text.as_str(), r.done), ("Great.", true));
    }
}
