//! The `Bash` agent tool: a small bash-compatible shell with GNU-style utilities built in,
//! for running inside a WASI component where there are no processes.
//!
//! The grammar comes from `brush-parser`; expansion, execution and every utility are
//! implemented here over `std::fs`. See the crate README for the supported surface and the
//! output conventions.

pub mod arith;
pub mod builtins;
pub mod exec;
pub mod expand;
pub mod io;
pub mod parse;
pub mod pattern;
pub mod random;
pub mod regex_posix;
pub mod shell;
pub mod timefmt;

use clawrun_tool_protocol::{Output, State};
use serde::Deserialize;

use crate::io::{Input, Io, Stream};
use crate::shell::{Flow, Shell};

/// Arguments of the `Bash` tool as the model sends them.
#[derive(Debug, Deserialize)]
pub struct BashArgs {
    /// The shell command line to run.
    pub command: String,
    /// Timeout in milliseconds. Accepted for compatibility; the command budget bounds work.
    #[serde(default)]
    pub timeout: Option<serde_json::Value>,
    /// Accepted and ignored (Claude Code sends a human-readable description).
    #[serde(default)]
    pub description: Option<String>,
}

/// The result of running one command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    /// Everything written to stdout and stderr, in order of writes.
    pub output: Vec<u8>,
    /// The exit status.
    pub status: i32,
    /// Whether the command budget ran out.
    pub timed_out: bool,
}

/// Runs `command` in a shell at `cwd` with the exported environment `env`, with stdout and
/// stderr going to one in-order buffer. Updates `cwd` and `env` like an interactive shell.
pub fn run_command(
    command: &str,
    cwd: &mut String,
    env: &mut std::collections::BTreeMap<String, String>,
) -> RunResult {
    let term = Stream::buffer();
    let io = Io {
        stdin: Input::empty(),
        stdout: term.clone(),
        stderr: term.clone(),
    };
    run_with_io(command, cwd, env, &io, &term)
}

/// Like [`run_command`] but with caller-provided descriptors; `term` is the stream whose
/// bytes become [`RunResult::output`].
pub fn run_with_io(
    command: &str,
    cwd: &mut String,
    env: &mut std::collections::BTreeMap<String, String>,
    io: &Io,
    term: &Stream,
) -> RunResult {
    let mut sh = Shell::new(cwd, env);
    let (mut status, mut timed_out) = match sh.run_script(command, io) {
        Ok(s) | Err(Flow::Exit(s)) | Err(Flow::Return(s)) => (s, false),
        Err(Flow::Break(_)) | Err(Flow::Continue(_)) => (0, false),
        Err(Flow::Timeout) => (124, true),
    };
    // `trap CMD EXIT`: runs once as the shell exits; its own `exit N` sets the status.
    if let Some(trap) = sh.exit_trap.take() {
        sh.last_status = status;
        match sh.run_script(&trap, io) {
            Err(Flow::Exit(s)) => status = s,
            Err(Flow::Timeout) => (status, timed_out) = (124, true),
            _ => {}
        }
    }
    *cwd = sh.cwd.clone();
    *env = sh.exported_env();
    RunResult {
        output: term.take(),
        status,
        timed_out,
    }
}

/// The text of a run for the model: the output, then a note when the command budget ran
/// out. The exit status travels beside it ([`Output::exit_code`]); the protocol adds the
/// `[exit code: N]` line after capping the text, so the status is never cut.
pub fn format_output(result: &RunResult) -> String {
    let mut text = String::from_utf8_lossy(&result.output).into_owned();
    if result.timed_out {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("Command timed out: the command budget was exhausted (endless loop?)");
    }
    text
}

/// The tool entry point: runs `args.command` and updates `state`.
pub fn bash_tool(args: BashArgs, state: &mut State) -> Result<Output, String> {
    let result = run_command(&args.command, &mut state.cwd, &mut state.env);
    Ok(Output {
        text: format_output(&result),
        images: Vec::new(),
        exit_code: Some(result.status),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(cmd: &str) -> (String, i32) {
        let dir = std::env::temp_dir();
        let mut cwd = dir.to_string_lossy().into_owned();
        let mut env = std::collections::BTreeMap::new();
        let r = run_command(cmd, &mut cwd, &mut env);
        (String::from_utf8_lossy(&r.output).into_owned(), r.status)
    }

    #[test]
    fn control_flow_and_functions() {
        assert_eq!(sh("f() { echo \"$1-$2\"; }; f a b").0, "a-b\n");
        assert_eq!(sh("for i in 1 2 3; do echo $i; done | tail -1").0, "3\n");
        assert_eq!(
            sh("x=0; while [ $x -lt 3 ]; do x=$((x+1)); done; echo $x").0,
            "3\n"
        );
        assert_eq!(
            sh("case abc in a*) echo yes;; *) echo no;; esac").0,
            "yes\n"
        );
        assert_eq!(
            sh("if false; then echo a; elif true; then echo b; fi").0,
            "b\n"
        );
        assert_eq!(sh("true && false || echo recovered").0, "recovered\n");
        assert_eq!(sh("(exit 7); echo $?").0, "7\n");
        assert_eq!(sh("x=1; (x=2); echo $x").0, "1\n");
        assert_eq!(sh("x=1; { x=2; }; echo $x").0, "2\n");
    }

    #[test]
    fn pipelines_and_redirections() {
        assert_eq!(sh("printf 'b\\na\\n' | sort | head -1").0, "a\n");
        assert_eq!(sh("echo err >&2 2>/dev/null").0, "err\n");
        assert_eq!(sh("{ echo out; echo err >&2; } 2>/dev/null").0, "out\n");
        assert_eq!(sh("cat <<< 'here string'").0, "here string\n");
        assert_eq!(sh("cat <<EOF\nx=$((2*3))\nEOF").0, "x=6\n");
        assert_eq!(sh("echo $(echo a; echo b)").0, "a b\n");
        assert_eq!(sh("echo \"$(printf 'x\\n\\n')\"").0, "x\n");
        assert_eq!(sh("grep -c x <(printf 'x\\nx\\n')").0, "2\n");
    }

    #[test]
    fn statuses_match_bash() {
        assert_eq!(sh("nosuch").1, 127);
        assert_eq!(sh("echo ok | grep nope").1, 1);
        assert_eq!(sh("if then").1, 2);
        assert_eq!(sh("! true").1, 1);
        assert_eq!(sh("false | true").1, 0);
        assert_eq!(sh("set -o pipefail; false | true").1, 1);
        assert_eq!(sh("set -e; false; echo no").0, "");
    }
}
