//! The reference solution as steps (our extension), driven by the `oracle` agent.
//!
//! ```yaml
//! oracle:
//!   steps:
//!     - call: gmail_list_messages            # one tool call
//!       args: {days_back: 30}
//!     - parallel:                            # several calls in one assistant message
//!         - {call: gmail_get_message, args: {message_id: msg_001}}
//!         - {call: gmail_get_message, args: {message_id: msg_002}}
//!     - say: "Which account should I use?"   # a message without tool calls (multi-turn:
//!                                            # the simulated user answers it)
//!   answer: "Needs reply: msg_001 ..."       # the final answer text
//! ```

use serde::Serialize;

use crate::read::{Cx, FromNode, Map, index, join};
use crate::yaml::{Node, Value};

/// The reference solution: steps, then the final answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Oracle {
    /// What the agent does, in order.
    pub steps: Vec<OracleStep>,
    /// The final answer text.
    pub answer: String,
}

/// One assistant turn of the oracle.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OracleStep {
    /// One tool call (`call: TOOL, args: {...}`).
    Call(OracleCall),
    /// Several tool calls in one assistant message (`parallel: [...]`).
    Parallel(Vec<OracleCall>),
    /// A message without tool calls (`say: TEXT`).
    Say(String),
}

/// A tool call of the oracle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OracleCall {
    /// The tool's name (a task tool or a system tool).
    pub call: String,
    /// The arguments (a JSON object; default `{}`).
    pub args: serde_json::Value,
}

impl Oracle {
    /// Every tool call, in order, with its field path relative to `oracle`
    /// (`steps[2].parallel[1]`).
    pub fn calls(&self) -> Vec<(String, &OracleCall)> {
        let mut out = Vec::new();
        for (i, step) in self.steps.iter().enumerate() {
            match step {
                OracleStep::Call(c) => out.push((format!("steps[{i}]"), c)),
                OracleStep::Parallel(cs) => {
                    for (j, c) in cs.iter().enumerate() {
                        out.push((format!("steps[{i}].parallel[{j}]"), c));
                    }
                }
                OracleStep::Say(_) => {}
            }
        }
        out
    }
}

impl FromNode for Oracle {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        if n.value == Value::Null {
            let hint = "write `steps: [...]` and `answer: ...`";
            cx.error(path, n.pos, "the oracle is empty", Some(hint.into()));
            return None;
        }
        let mut m = Map::open(cx, n, path)?;
        let steps = m.or_default("steps");
        let answer = m.req("answer", "write the final answer text: `answer: ...`");
        m.finish(&["steps", "answer"]);
        Some(Oracle {
            steps,
            answer: answer?,
        })
    }
}

impl FromNode for OracleCall {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let call = m.req("call", "name the tool: `call: TOOL_NAME`");
        let args = match m.node("args") {
            None => Some(serde_json::Value::Object(Default::default())),
            Some(a) if a.value == Value::Null => {
                Some(serde_json::Value::Object(Default::default()))
            }
            Some(
                a @ Node {
                    value: Value::Map(_),
                    ..
                },
            ) => serde_json::Value::read(m.cx, a, &join(path, "args")),
            Some(a) => {
                let hint = "write the arguments as a mapping: `args: {name: value}`".to_string();
                m.cx.expected(&join(path, "args"), a, "a mapping", Some(hint));
                None
            }
        };
        m.finish(&["call", "args"]);
        Some(OracleCall {
            call: call?,
            args: args?,
        })
    }
}

impl FromNode for OracleStep {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let hint = "a step is `call: TOOL` (with `args:`), `parallel: [...]` or `say: TEXT`";
        if n.get("call").is_some() {
            return OracleCall::read(cx, n, path).map(OracleStep::Call);
        }
        let mut m = Map::open(cx, n, path)?;
        let step = if let Some(p) = m.node("parallel") {
            let calls = match &p.value {
                Value::Seq(items) => {
                    let mut out = Vec::new();
                    for (i, item) in items.iter().enumerate() {
                        out.push(OracleCall::read(
                            m.cx,
                            item,
                            &index(&join(path, "parallel"), i),
                        ));
                    }
                    out.into_iter().collect::<Option<Vec<_>>>()
                }
                _ => {
                    m.cx.expected(
                        &join(path, "parallel"),
                        p,
                        "a list of calls",
                        Some(hint.into()),
                    );
                    None
                }
            };
            calls.map(OracleStep::Parallel)
        } else if m.has("say") {
            m.req::<String>("say", hint).map(OracleStep::Say)
        } else {
            m.cx.error(path, n.pos, "not a step", Some(hint.into()));
            return None;
        };
        m.finish(&["call", "args", "parallel", "say"]);
        step
    }
}

impl Oracle {
    /// Parses a stand-alone script in the oracle format (`steps`, `answer`), as the `scripted`
    /// agent reads it; errors carry file:line:column.
    pub fn from_yaml(text: &str, file: &str) -> Result<Oracle, crate::Error> {
        let root = crate::load::parse_yaml(text, file)?;
        let mut cx = Cx::new(text, file);
        match Oracle::read(&mut cx, &root, "") {
            Some(o) if !cx.failed() => Ok(o),
            _ => Err(crate::Error::Invalid(crate::load::sorted(cx.diags))),
        }
    }
}
