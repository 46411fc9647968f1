//! The JSON envelopes exchanged with the host and the tool entry points.

use std::collections::BTreeMap;
use std::io::{Read, Write};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::args::parse_args;
use crate::image::{Image, Output};
use crate::output::{exit_line, truncate_counted};
use crate::path::ToolPath;

/// The working directory used when the request carries no `state`.
pub const DEFAULT_CWD: &str = "/workspace";

/// Shell-like state threaded through tool calls: working directory and exported environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// Absolute working directory that relative paths are resolved against.
    #[serde(default = "default_cwd")]
    pub cwd: String,
    /// Exported environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

fn default_cwd() -> String {
    DEFAULT_CWD.to_owned()
}

impl Default for State {
    fn default() -> Self {
        State {
            cwd: default_cwd(),
            env: BTreeMap::new(),
        }
    }
}

impl State {
    /// A state with the given working directory and an empty environment.
    pub fn with_cwd(cwd: impl Into<String>) -> Self {
        State {
            cwd: cwd.into(),
            env: BTreeMap::new(),
        }
    }

    /// Resolves a path argument against [`State::cwd`].
    pub fn resolve(&self, path: &str) -> ToolPath {
        ToolPath::resolve(&self.cwd, path)
    }
}

/// The request envelope read from stdin.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Request {
    /// The tool arguments exactly as the model sent them.
    #[serde(default)]
    pub args: Value,
    /// Caller state; absent or `null` means [`State::default`].
    #[serde(default)]
    pub state: Option<State>,
}

/// The response envelope written to stdout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    /// The text the model sees: capped by [`crate::truncate_output`], then, for a command that
    /// failed, its `[exit code: N]` line (never cut).
    pub output: String,
    /// Whether `output` describes a tool error.
    pub is_error: bool,
    /// The (possibly updated) state.
    pub state: State,
    /// Images for the model, shown after `output` (absent when there are none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<Image>,
    /// The exit status of the command the tool ran (Bash; absent for other tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Characters of output cut by the cap (absent when nothing was cut).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub truncated: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Response {
    fn new<O: Into<Output>>(result: Result<O, String>, state: State) -> Self {
        let (output, is_error) = match result {
            Ok(output) => (output.into(), false),
            Err(output) => (Output::from(output), true),
        };
        let (mut text, truncated) = truncate_counted(output.text);
        if let Some(line) = output.exit_code.and_then(exit_line) {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&line);
        }
        Response {
            output: text,
            is_error,
            state,
            images: output.images,
            exit_code: output.exit_code,
            truncated,
        }
    }
}

/// Handles one request given as JSON text, for tools that only read the state.
///
/// `tool` is the tool's name as the model knows it (`"Read"`, ...), used to prefix
/// argument errors. `f` returns `Ok(output)` (a `String`, or an [`Output`] with images) or
/// `Err(error message)`.
pub fn handle<A, O, F>(tool: &str, input: &str, f: F) -> Response
where
    A: DeserializeOwned,
    O: Into<Output>,
    F: FnOnce(A, &State) -> Result<O, String>,
{
    handle_mut(tool, input, |args, state: &mut State| f(args, state))
}

/// Like [`handle`], but the tool may update the state (Bash changes `cwd` and `env`).
pub fn handle_mut<A, O, F>(tool: &str, input: &str, f: F) -> Response
where
    A: DeserializeOwned,
    O: Into<Output>,
    F: FnOnce(A, &mut State) -> Result<O, String>,
{
    let request: Request = match serde_json::from_str(input) {
        Ok(request) => request,
        Err(err) => {
            let message = format!("{tool}: invalid request envelope: {err}");
            return Response::new(Err::<String, _>(message), State::default());
        }
    };
    let mut state = request.state.unwrap_or_default();
    let result = parse_args::<A>(tool, &request.args).and_then(|args| f(args, &mut state));
    Response::new(result, state)
}

/// The whole life of a read-only tool: stdin request -> `f` -> stdout response.
///
/// A tool's `main` is just `clawrun_tool_protocol::run("Read", clawrun_tool_read::read)`.
pub fn run<A, O, F>(tool: &str, f: F)
where
    A: DeserializeOwned,
    O: Into<Output>,
    F: FnOnce(A, &State) -> Result<O, String>,
{
    run_mut(tool, |args, state: &mut State| f(args, state));
}

/// Like [`run`], for tools that update the state.
pub fn run_mut<A, O, F>(tool: &str, f: F)
where
    A: DeserializeOwned,
    O: Into<Output>,
    F: FnOnce(A, &mut State) -> Result<O, String>,
{
    let mut input = String::new();
    let response = match std::io::stdin().read_to_string(&mut input) {
        Ok(_) => handle_mut(tool, &input, f),
        Err(err) => Response::new(
            Err::<String, _>(format!("{tool}: cannot read request from stdin: {err}")),
            State::default(),
        ),
    };
    write_response(&response);
}

fn write_response(response: &Response) {
    // Serialising these plain types cannot fail; if stdout is gone there is nobody to tell.
    let json = serde_json::to_string(response).unwrap_or_default();
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{json}");
    let _ = stdout.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize)]
    struct Echo {
        text: String,
    }

    fn echo(args: Echo, _: &State) -> Result<String, String> {
        if args.text == "fail" {
            Err("it failed".into())
        } else {
            Ok(args.text)
        }
    }

    #[test]
    fn success_echoes_state() {
        let input = r#"{"args":{"text":"hi"},"state":{"cwd":"/w","env":{"B":"2","A":"1"}}}"#;
        let response = handle("Echo", input, echo);
        assert_eq!(
            serde_json::to_value(&response).unwrap(),
            json!({"output": "hi", "is_error": false, "state": {"cwd": "/w", "env": {"A": "1", "B": "2"}}})
        );
        // BTreeMap keeps the serialised env deterministic.
        let text = serde_json::to_string(&response).unwrap();
        assert!(text.contains(r#""env":{"A":"1","B":"2"}"#), "{text}");
    }

    #[test]
    fn missing_state_defaults_to_workspace() {
        let response = handle("Echo", r#"{"args":{"text":"x"}}"#, echo);
        assert_eq!(response.state, State::default());
        assert_eq!(response.state.cwd, "/workspace");
        let response = handle("Echo", r#"{"args":{"text":"x"},"state":null}"#, echo);
        assert_eq!(response.state, State::default());
        let response = handle("Echo", r#"{"args":{"text":"x"},"state":{}}"#, echo);
        assert_eq!(response.state, State::default());
    }

    #[test]
    fn tool_errors_set_is_error() {
        let response = handle("Echo", r#"{"args":{"text":"fail"}}"#, echo);
        assert!(response.is_error);
        assert_eq!(response.output, "it failed");
    }

    #[test]
    fn argument_errors_are_tool_errors() {
        let input = r#"{"args":{},"state":{"cwd":"/w","env":{}}}"#;
        let response = handle("Echo", input, echo);
        assert!(response.is_error);
        assert_eq!(response.output, r#"Echo: missing required field "text""#);
        assert_eq!(response.state.cwd, "/w");
    }

    #[test]
    fn malformed_envelope_is_a_tool_error() {
        let response = handle("Echo", "not json", echo);
        assert!(response.is_error);
        assert!(
            response
                .output
                .starts_with("Echo: invalid request envelope: "),
            "{}",
            response.output
        );
    }

    #[test]
    fn output_is_truncated() {
        let text = "y".repeat(crate::MAX_OUTPUT_CHARS + 10);
        let input = json!({"args": {"text": text}}).to_string();
        let response = handle("Echo", &input, echo);
        assert!(!response.is_error);
        assert!(
            response
                .output
                .ends_with("\n... [output truncated: 10 more characters]")
        );
    }

    #[test]
    fn images_travel_after_the_text_and_are_omitted_when_absent() {
        let response = handle("Img", r#"{"args":{"text":"x"}}"#, |_: Echo, _: &State| {
            Ok(Output {
                text: "an image".into(),
                images: vec![Image::from_bytes("image/png", b"png")],
                exit_code: None,
            })
        });
        assert_eq!(
            serde_json::to_value(&response).unwrap()["images"],
            json!([{"media_type": "image/png", "data": "cG5n"}])
        );
        let response = handle("Echo", r#"{"args":{"text":"x"}}"#, echo);
        assert!(
            serde_json::to_value(&response)
                .unwrap()
                .get("images")
                .is_none()
        );
    }

    #[test]
    fn handle_mut_returns_updated_state() {
        let response = handle_mut(
            "Cd",
            r#"{"args":{"text":"/tmp"}}"#,
            |args: Echo, state: &mut State| {
                state.cwd = args.text;
                state.env.insert("OLDPWD".into(), "/workspace".into());
                Ok(String::new())
            },
        );
        assert_eq!(response.state.cwd, "/tmp");
        assert_eq!(response.state.env["OLDPWD"], "/workspace");
    }
}
