//! The mock LLM's script: ordered rules matching requests, each with a reply (MOCK_LLM.md).

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::conversation::Usage;
use crate::llm::Provider;

/// A whole script.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// The rules; the first that matches a request answers it.
    pub rules: Vec<Rule>,
}

/// One rule: conditions on the request and the reply.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// A name for logs and error messages.
    #[serde(default)]
    pub name: Option<String>,
    /// The conditions, all of which must hold (none = always).
    #[serde(default, rename = "match")]
    pub when: Match,
    /// Answer only the first N matching requests, then let later rules answer.
    #[serde(default)]
    pub times: Option<u32>,
    /// What to answer.
    pub reply: MockReply,
    /// The rule's line in the script (1-based; 0 when built in code).
    #[serde(skip)]
    pub line: u64,
}

/// Conditions on a request; text conditions are case-sensitive substring tests.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Match {
    /// The number of assistant messages already in the request (0 = the first call).
    #[serde(default)]
    pub turn: Option<usize>,
    /// The requested model, exactly.
    #[serde(default)]
    pub model: Option<String>,
    /// The wire protocol (`openai` or `anthropic`).
    #[serde(default)]
    pub protocol: Option<ProtocolName>,
    /// Text the system prompt contains.
    #[serde(default)]
    pub system_contains: Option<String>,
    /// Text the last turn contains: every message after the last assistant message (the
    /// user's text and the tool results).
    #[serde(default)]
    pub last_contains: Option<String>,
    /// Text any message (or the system prompt) contains.
    #[serde(default)]
    pub any_contains: Option<String>,
    /// Tools that must all be on offer.
    #[serde(default)]
    pub tools_include: Vec<String>,
}

/// A protocol name in a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProtocolName {
    /// Chat Completions.
    Openai,
    /// Anthropic Messages.
    Anthropic,
}

impl ProtocolName {
    /// The provider speaking this protocol.
    pub fn provider(self) -> Provider {
        match self {
            ProtocolName::Openai => Provider::OpenAi,
            ProtocolName::Anthropic => Provider::Anthropic,
        }
    }
}

/// A reply: an assistant message (text and tool calls) or an HTTP error.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MockReply {
    /// The assistant's text.
    #[serde(default)]
    pub text: Option<String>,
    /// The tool calls, with ids `call_<turn>_<index>` unless given.
    #[serde(default)]
    pub tool_calls: Vec<MockToolCall>,
    /// The reported usage; default: request bytes / 4 and reply bytes / 4, rounded up.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// An HTTP error status (400..=599) to answer with instead of a message.
    #[serde(default)]
    pub status: Option<u16>,
    /// The error's message (with `status`).
    #[serde(default)]
    pub message: Option<String>,
    /// A `Retry-After` header, in seconds (with `status`).
    #[serde(default)]
    pub retry_after: Option<u64>,
    /// Milliseconds to wait before answering (with `until_in_flight`: the longest wait).
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Answer as soon as this many requests are in flight at once (or `delay_ms` passed).
    #[serde(default)]
    pub until_in_flight: Option<usize>,
}

/// One tool call in a reply.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MockToolCall {
    /// The tool.
    pub name: String,
    /// The arguments (a mapping; default `{}`).
    #[serde(default)]
    pub arguments: Option<Value>,
    /// Argument text sent verbatim instead (to test malformed JSON).
    #[serde(default)]
    pub arguments_raw: Option<String>,
    /// The call id; `""` sends none (default `call_<turn>_<index>`).
    #[serde(default)]
    pub id: Option<String>,
}

/// A script that could not be loaded, with its position when known.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin}{}: {message}", position(*.line, *.column))]
pub struct ScriptError {
    /// The file (or a label for in-memory text).
    pub origin: String,
    /// The 1-based line, when known.
    pub line: Option<u64>,
    /// The 1-based column, when known.
    pub column: Option<u64>,
    /// What is wrong.
    pub message: String,
}

/// `:line:column`, or `:line`, or nothing.
fn position(line: Option<u64>, column: Option<u64>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}

/// The script as written: rules with their positions.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScript {
    /// The rules.
    rules: Vec<serde_saphyr::Spanned<Rule>>,
}

impl Script {
    /// Parses a script from YAML or JSON text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Script, ScriptError> {
        let raw: RawScript = serde_saphyr::from_str(text).map_err(|e| {
            let location = e.location().filter(|l| l.line() > 0);
            let mut message = e.without_snippet().to_string();
            if let Some(l) = location {
                let tail = format!(" at line {}, column {}", l.line(), l.column());
                if let Some(stripped) = message.strip_suffix(&tail) {
                    message = stripped.to_string();
                }
            }
            // serde-saphyr's advice is for its API users, not for script authors.
            if let Some(i) = message.find(", set DuplicateKeyPolicy") {
                message.truncate(i);
            }
            ScriptError {
                origin: origin.to_string(),
                line: location.map(|l| l.line()),
                column: location.map(|l| l.column()),
                message,
            }
        })?;
        let rules: Vec<Rule> = raw
            .rules
            .into_iter()
            .map(|spanned| {
                let mut rule = spanned.value;
                rule.line = spanned.defined.line();
                (rule, spanned.defined.column())
            })
            .map(|(rule, column)| {
                rule.validate()
                    .map(|()| rule.clone())
                    .map_err(|message| ScriptError {
                        origin: origin.to_string(),
                        line: Some(rule.line).filter(|l| *l > 0),
                        column: Some(column).filter(|c| *c > 0),
                        message,
                    })
            })
            .collect::<Result<_, _>>()?;
        if rules.is_empty() {
            return Err(ScriptError {
                origin: origin.to_string(),
                line: None,
                column: None,
                message: "the script has no rules".into(),
            });
        }
        Ok(Script { rules })
    }

    /// Reads and parses a script file.
    pub fn load(path: &Path) -> Result<Script, ScriptError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ScriptError {
            origin: origin.clone(),
            line: None,
            column: None,
            message: format!("cannot read: {e}"),
        })?;
        Script::parse(&text, &origin)
    }
}

impl Rule {
    /// A rule answering every request with `reply` (for scripts built in code).
    pub fn always(reply: MockReply) -> Rule {
        Rule {
            name: None,
            when: Match::default(),
            times: None,
            reply,
            line: 0,
        }
    }

    /// `name` or `rule at line N`, for messages.
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => format!("rule `{n}`"),
            None => format!("rule at line {}", self.line),
        }
    }

    /// Checks what serde cannot: consistent reply fields.
    fn validate(&self) -> Result<(), String> {
        let r = &self.reply;
        let label = self.label();
        if self.times == Some(0) {
            return Err(format!("{label}: `times` must be at least 1"));
        }
        if let Some(status) = r.status {
            if !(400..=599).contains(&status) {
                return Err(format!(
                    "{label}: `status` must be an error status (400..=599), not {status}"
                ));
            }
            if r.text.is_some() || !r.tool_calls.is_empty() || r.usage.is_some() {
                return Err(format!(
                    "{label}: an error reply (`status`) has no `text`, `tool_calls` or `usage`"
                ));
            }
        } else if r.message.is_some() || r.retry_after.is_some() {
            return Err(format!(
                "{label}: `message` and `retry_after` belong to an error reply (`status`)"
            ));
        }
        if r.until_in_flight.is_some() && r.delay_ms.is_none() {
            return Err(format!(
                "{label}: `until_in_flight` needs `delay_ms` (the longest wait)"
            ));
        }
        for (i, call) in r.tool_calls.iter().enumerate() {
            if call.arguments.is_some() && call.arguments_raw.is_some() {
                return Err(format!(
                    "{label}: tool_calls[{i}] has both `arguments` and `arguments_raw`"
                ));
            }
            if let Some(args) = &call.arguments
                && !args.is_object()
            {
                return Err(format!(
                    "{label}: tool_calls[{i}].arguments must be a mapping"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_yaml_and_json() {
        let yaml = "rules:\n  - name: first\n    match: {turn: 0, tools_include: [Read]}\n    reply:\n      text: hi\n      tool_calls:\n        - name: Read\n          arguments: {file_path: /a, n: [1, 2.5, null]}\n  - reply: {status: 429, retry_after: 2}\n    times: 2\n";
        let s = Script::parse(yaml, "s.yaml").unwrap();
        assert_eq!(s.rules.len(), 2);
        assert_eq!(s.rules[0].line, 2);
        assert_eq!(s.rules[1].line, 9);
        assert_eq!(s.rules[0].when.turn, Some(0));
        assert_eq!(
            s.rules[0].reply.tool_calls[0].arguments,
            Some(serde_json::json!({"file_path": "/a", "n": [1, 2.5, null]}))
        );
        assert_eq!(s.rules[1].times, Some(2));
        let json = r#"{"rules": [{"match": {"protocol": "anthropic"}, "reply": {"text": "x"}}]}"#;
        let s = Script::parse(json, "s.json").unwrap();
        assert_eq!(
            s.rules[0].when.protocol.map(ProtocolName::provider),
            Some(Provider::Anthropic)
        );
    }

    #[test]
    fn errors_name_positions() {
        let e =
            Script::parse("rules:\n  - reply: {text: hi}\n    mtach: {}\n", "f.yaml").unwrap_err();
        assert_eq!((e.origin.as_str(), e.line), ("f.yaml", Some(3)), "{e}");
        assert!(e.to_string().starts_with("f.yaml:3:"), "{e}");
        assert!(e.message.contains("mtach"), "{e}");

        let e = Script::parse("rules:\n  - reply: {text: [oops\n", "f.yaml").unwrap_err();
        assert!(e.line.is_some(), "{e}");

        let e = Script::parse(
            "rules:\n  - reply: {text: ok}\n  - name: bad\n    reply: {status: 200}\n",
            "f.yaml",
        )
        .unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
        assert!(e.message.contains("rule `bad`"), "{e}");

        let e = Script::parse("rules:\n  - reply: {text: x, status: 500}\n", "f.yaml").unwrap_err();
        assert!(e.to_string().starts_with("f.yaml:2:"), "{e}");

        let e = Script::parse("rules: []\n", "f.yaml").unwrap_err();
        assert!(e.message.contains("no rules"), "{e}");
        let e = Script::parse(
            "rules:\n  - reply:\n      tool_calls: [{name: a, arguments: [1]}]\n",
            "f.yaml",
        )
        .unwrap_err();
        assert!(e.message.contains("mapping"), "{e}");
    }
}
