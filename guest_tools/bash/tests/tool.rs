//! End-to-end tests of the tool entry point: envelope handling, state persistence and the
//! output conventions documented in the README.

use clawrun_tool_bash::bash_tool;
use clawrun_tool_protocol::{State, handle_mut};

/// What the model reads after `command`: the response envelope's output.
fn run(dir: &std::path::Path, state: &mut State, command: &str) -> String {
    let _ = dir;
    let input = serde_json::json!({"args": {"command": command}, "state": &*state}).to_string();
    let response = handle_mut("Bash", &input, bash_tool);
    assert!(!response.is_error, "bash never returns a tool error");
    *state = response.state;
    response.output
}

#[test]
fn cwd_and_exports_persist_between_calls() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let mut state = State::with_cwd(dir.path().to_string_lossy());
    assert_eq!(
        run(dir.path(), &mut state, "cd sub && export GREETING=hi"),
        ""
    );
    assert!(state.cwd.ends_with("/sub"), "{}", state.cwd);
    assert_eq!(state.env.get("GREETING").map(String::as_str), Some("hi"));
    // Built-in defaults are not persisted.
    assert!(!state.env.contains_key("PATH"));
    let out = run(
        dir.path(),
        &mut state,
        "pwd; echo $GREETING; NOT_EXPORTED=1",
    );
    assert!(out.ends_with("/sub\nhi\n"), "{out}");
    assert!(!state.env.contains_key("NOT_EXPORTED"));
}

#[test]
fn exit_status_is_appended() {
    let dir = tempfile::tempdir().unwrap();
    let mut state = State::with_cwd(dir.path().to_string_lossy());
    assert_eq!(
        run(dir.path(), &mut state, "echo hi; false"),
        "hi\n[exit code: 1]"
    );
    assert_eq!(
        run(dir.path(), &mut state, "nosuchcmd"),
        "bash: nosuchcmd: command not found\n[exit code: 127]"
    );
    assert_eq!(
        run(dir.path(), &mut state, "echo )"),
        "bash: syntax error near unexpected token `)'\n[exit code: 2]"
    );
    assert_eq!(run(dir.path(), &mut state, "exit 3"), "[exit code: 3]");
}

#[test]
fn stdout_and_stderr_interleave_in_write_order() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), "A\n").unwrap();
    let mut state = State::with_cwd(dir.path().to_string_lossy());
    assert_eq!(
        run(dir.path(), &mut state, "cat a nofile a"),
        "A\ncat: nofile: No such file or directory\nA\n[exit code: 1]"
    );
}

#[test]
fn endless_loops_hit_the_command_budget() {
    let dir = tempfile::tempdir().unwrap();
    let mut state = State::with_cwd(dir.path().to_string_lossy());
    let out = run(dir.path(), &mut state, "while true; do :; done");
    assert!(out.contains("Command timed out"), "{out}");
    assert!(out.ends_with("[exit code: 124]"), "{out}");
}

#[test]
fn envelope_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let input = serde_json::json!({
        "args": {"command": "echo $X; cd /", "timeout": 5000, "description": "demo"},
        "state": {"cwd": dir.path().to_string_lossy(), "env": {"X": "from-state"}}
    })
    .to_string();
    let response = handle_mut("Bash", &input, bash_tool);
    assert!(!response.is_error);
    assert_eq!(response.output, "from-state\n");
    assert_eq!(response.state.cwd, "/");
    assert_eq!(
        response.state.env.get("X").map(String::as_str),
        Some("from-state")
    );
    let bad = handle_mut("Bash", r#"{"args": {}}"#, bash_tool);
    assert!(bad.is_error);
    assert_eq!(bad.output, r#"Bash: missing required field "command""#);
}

#[test]
fn the_exit_status_survives_the_output_cap_and_travels_beside_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let state = State::with_cwd(dir.path().to_string_lossy());
    // 40,000 characters of output, then a failure: the cap cuts the text, not the status.
    let command = "i=0; while [ $i -lt 4000 ]; do echo 123456789; i=$((i+1)); done; (exit 3)";
    let input = serde_json::json!({"args": {"command": command}, "state": &state}).to_string();
    let response = handle_mut("Bash", &input, bash_tool);
    assert_eq!(response.exit_code, Some(3));
    assert_eq!(response.truncated, 10_000);
    assert!(
        response
            .output
            .ends_with("\n... [output truncated: 10000 more characters]\n[exit code: 3]"),
        "{}",
        &response.output[response.output.len() - 80..]
    );
    // An agent's own text that looks like an exit line changes nothing beside it.
    let input =
        serde_json::json!({"args": {"command": "echo '[exit code: 0]'; exit 1"}, "state": &state})
            .to_string();
    let response = handle_mut("Bash", &input, bash_tool);
    assert_eq!(response.exit_code, Some(1));
    let input = serde_json::json!({"args": {"command": "true"}, "state": &state}).to_string();
    let response = handle_mut("Bash", &input, bash_tool);
    assert_eq!(response.exit_code, Some(0));
    assert_eq!(response.truncated, 0);
}

#[test]
fn random_advances_on_every_expansion_and_reseeds() {
    let dir = tempfile::tempdir().unwrap();
    let mut state = State::with_cwd(dir.path().to_string_lossy());
    let numbers = |out: &str| -> Vec<u32> {
        out.split_whitespace()
            .map(|n| n.parse().unwrap_or_else(|_| panic!("{out}")))
            .collect()
    };
    let once = numbers(&run(
        dir.path(),
        &mut state,
        "echo $RANDOM $RANDOM $RANDOM $RANDOM",
    ));
    assert_eq!(once.len(), 4);
    assert!(once.iter().all(|&n| n <= 32767), "{once:?}");
    assert!(once.windows(2).all(|w| w[0] != w[1]), "{once:?}");
    // Arithmetic, `${RANDOM}` and a loop all advance it too.
    let mixed = numbers(&run(
        dir.path(),
        &mut state,
        "for i in 1 2 3; do echo $((RANDOM)) ${RANDOM}; done",
    ));
    assert!(mixed.windows(2).all(|w| w[0] != w[1]), "{mixed:?}");
    // `RANDOM=N` seeds it as bash does (GNU bash 5.2 prints these for 5).
    assert_eq!(
        run(
            dir.path(),
            &mut state,
            "RANDOM=5; echo $RANDOM $RANDOM $RANDOM"
        ),
        "18498 29338 982\n"
    );
    // A command substitution draws its own numbers; the parent's sequence goes on.
    let sub = numbers(&run(
        dir.path(),
        &mut state,
        "RANDOM=5; echo $(echo $RANDOM) $RANDOM $(echo $RANDOM)",
    ));
    assert_eq!(sub[1], 18498, "{sub:?}");
    assert!(
        sub[0] != sub[1] && sub[0] != sub[2] && sub[1] != sub[2],
        "{sub:?}"
    );
    // Not persisted in the tool state; `unset RANDOM` makes it an ordinary variable.
    assert!(!state.env.contains_key("RANDOM"));
    assert_eq!(
        run(
            dir.path(),
            &mut state,
            "unset RANDOM; echo \"[$RANDOM]\"; RANDOM=x; echo $RANDOM $RANDOM"
        ),
        "[]\nx x\n"
    );
}
