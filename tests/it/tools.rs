//! Golden tests of the agent's tools as the host runs them: each tool through
//! [`Toolbox::call`] over a VFS (the WASI component in the shared sandbox), then `clawrun tool`
//! end to end through the real binary.

use crate::common;
use std::collections::BTreeMap;
use std::process::{Command, Output};
use std::sync::LazyLock;

use clawrun::tools::{ToolCall, ToolEnv, ToolOutcome, ToolState, Toolbox, WORKSPACE};
use clawrun::vfs::Vfs;
use common::{SANDBOX, target_dir};
use serde_json::{Value, json};

static TOOLBOX: LazyLock<Toolbox> = LazyLock::new(Toolbox::new);

/// A VFS with `/workspace` holding `files` (parents created).
fn workspace(files: &[(&str, &[u8])]) -> Vfs {
    let mut vfs = Vfs::new();
    vfs.create_dir_all(WORKSPACE).unwrap();
    for (path, data) in files {
        let full = format!("{WORKSPACE}/{path}");
        let parent = &full[..full.rfind('/').unwrap()];
        vfs.create_dir_all(parent).unwrap();
        vfs.write_file(&full, data).unwrap();
    }
    vfs
}

fn call_with(name: &str, args: Value, vfs: Vfs, state: &ToolState) -> ToolOutcome {
    TOOLBOX
        .call(
            &SANDBOX,
            ToolCall {
                name,
                args: &args,
                state,
            },
            vfs,
            &ToolEnv::default(),
        )
        .unwrap_or_else(|e| panic!("{name} call failed: {e:#}"))
}

fn call(name: &str, args: Value, vfs: Vfs) -> ToolOutcome {
    call_with(name, args, vfs, &ToolState::default())
}

/// Runs `name` and expects a normal result; returns its output.
fn ok(name: &str, args: Value, vfs: Vfs) -> String {
    let out = call(name, args.clone(), vfs);
    assert!(!out.is_error, "{name} {args}: {}", out.output);
    out.output
}

/// Runs `name` and expects a tool error; returns its output.
fn err(name: &str, args: Value, vfs: Vfs) -> String {
    let out = call(name, args.clone(), vfs);
    assert!(out.is_error, "{name} {args} should fail: {}", out.output);
    out.output
}

fn text(vfs: &Vfs, path: &str) -> String {
    String::from_utf8(vfs.read_file(path).unwrap()).unwrap()
}

// ---------------------------------------------------------------------------------------- Read

const FIVE: &[u8] = b"one\ntwo\nthree\nfour\nfive\n";

#[test]
fn read_numbers_lines_like_cat_n() {
    let vfs = workspace(&[("a.txt", FIVE), ("sub/b.txt", b"no newline at end")]);
    assert_eq!(
        ok("Read", json!({"file_path": "a.txt"}), vfs.fork()),
        "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n     5\tfive"
    );
    // Absolute paths too, and a last line without a newline.
    assert_eq!(
        ok("Read", json!({"file_path": "/workspace/sub/b.txt"}), vfs),
        "     1\tno newline at end"
    );
}

#[test]
fn read_pages_with_offset_and_limit() {
    let vfs = workspace(&[("a.txt", FIVE)]);
    assert_eq!(
        ok(
            "Read",
            json!({"file_path": "a.txt", "offset": 2, "limit": 2}),
            vfs.fork()
        ),
        "     2\ttwo\n     3\tthree\n\n\
         (Showing lines 2-3 of 5; line limit reached. Use offset=4 to read more.)"
    );
    // Numbers given as strings are accepted; the tail has no paging note.
    assert_eq!(
        ok(
            "Read",
            json!({"file_path": "a.txt", "offset": "4"}),
            vfs.fork()
        ),
        "     4\tfour\n     5\tfive"
    );
    assert_eq!(
        ok(
            "Read",
            json!({"file_path": "a.txt", "offset": 9}),
            vfs.fork()
        ),
        "Warning: the file /workspace/a.txt exists but is shorter than the provided offset (9). \
         The file has 5 lines."
    );
    assert_eq!(
        err("Read", json!({"file_path": "a.txt", "limit": 0}), vfs),
        "Read: \"limit\" must be at least 1"
    );
}

#[test]
fn read_describes_binary_empty_missing_and_directories() {
    let vfs = workspace(&[
        ("blob.bin", b"\x00\x01\x02\xffPNG\x00\x00"),
        ("empty.txt", b""),
        ("dir/x", b"x"),
    ]);
    assert_eq!(
        ok("Read", json!({"file_path": "blob.bin"}), vfs.fork()),
        "Binary file /workspace/blob.bin (9 bytes) cannot be displayed as text"
    );
    assert_eq!(
        ok("Read", json!({"file_path": "empty.txt"}), vfs.fork()),
        "Warning: the file /workspace/empty.txt exists but the contents are empty."
    );
    assert_eq!(
        err("Read", json!({"file_path": "nope.txt"}), vfs.fork()),
        "File does not exist: /workspace/nope.txt"
    );
    assert_eq!(
        err("Read", json!({"file_path": "dir"}), vfs.fork()),
        "/workspace/dir is a directory"
    );
    assert_eq!(
        err("Read", json!({}), vfs.fork()),
        "Read: missing required field \"file_path\""
    );
    assert_eq!(
        err("Read", json!({"file_path": 3}), vfs),
        "Read: invalid value for field \"file_path\": invalid type: integer `3`, \
         expected a string"
    );
}

#[test]
fn read_stops_at_the_output_cap_with_a_paging_note() {
    let line = "x".repeat(99);
    let big: String = (0..1000).map(|_| format!("{line}\n")).collect();
    let out = ok(
        "Read",
        json!({"file_path": "big.txt"}),
        workspace(&[("big.txt", big.as_bytes())]),
    );
    assert!(out.chars().count() <= 30_000, "{} chars", out.len());
    let note = out.lines().last().unwrap();
    assert!(
        note.starts_with("(Showing lines 1-") && note.contains("output size limit reached"),
        "{note}"
    );
}

// --------------------------------------------------------------------------------------- Write

#[test]
fn write_creates_parents_and_overwrites() {
    let base = workspace(&[("old.txt", b"old\n")]);
    let out = call(
        "Write",
        json!({"file_path": "deep/new/file.txt", "content": "hello\n"}),
        base.fork(),
    );
    assert!(!out.is_error, "{}", out.output);
    assert_eq!(
        out.output,
        "File created: /workspace/deep/new/file.txt (6 bytes)"
    );
    assert_eq!(text(&out.vfs, "/workspace/deep/new/file.txt"), "hello\n");
    // The caller's VFS is a separate fork: untouched.
    assert!(base.read_file("/workspace/deep/new/file.txt").is_err());

    let out = call(
        "Write",
        json!({"file_path": "/workspace/old.txt", "content": ""}),
        base.fork(),
    );
    assert_eq!(out.output, "File overwritten: /workspace/old.txt (0 bytes)");
    assert_eq!(text(&out.vfs, "/workspace/old.txt"), "");

    assert_eq!(
        err(
            "Write",
            json!({"file_path": "deep", "content": "x"}),
            workspace(&[("deep/a", b"")])
        ),
        "/workspace/deep is a directory"
    );
    assert_eq!(
        err("Write", json!({"file_path": "a.txt"}), base),
        "Write: missing required field \"content\""
    );
}

// ---------------------------------------------------------------------------------------- Edit

const CODE: &[u8] = b"x = 1\ny = 1\nz = 2\n";

#[test]
fn edit_replaces_a_unique_string() {
    let out = call(
        "Edit",
        json!({"file_path": "e.py", "old_string": "z = 2", "new_string": "z = 3"}),
        workspace(&[("e.py", CODE)]),
    );
    assert!(!out.is_error, "{}", out.output);
    assert_eq!(
        out.output,
        "The file /workspace/e.py has been updated (1 replacement). Here's the result of running \
         `cat -n` on a snippet of the edited file:\n     1\tx = 1\n     2\ty = 1\n     3\tz = 3"
    );
    assert_eq!(text(&out.vfs, "/workspace/e.py"), "x = 1\ny = 1\nz = 3\n");
}

#[test]
fn edit_refuses_a_non_unique_string_unless_replace_all() {
    let base = workspace(&[("e.py", CODE)]);
    let out = call(
        "Edit",
        json!({"file_path": "e.py", "old_string": "= 1", "new_string": "= 0"}),
        base.fork(),
    );
    assert!(out.is_error);
    assert_eq!(
        out.output,
        "old_string occurs 2 times in /workspace/e.py, but replace_all is false. Add more \
         surrounding context to old_string to make it unique, or set replace_all to true to \
         replace every occurrence."
    );
    assert_eq!(text(&out.vfs, "/workspace/e.py"), "x = 1\ny = 1\nz = 2\n");

    let out = call(
        "Edit",
        json!({"file_path": "e.py", "old_string": "= 1", "new_string": "= 0", "replace_all": true}),
        base,
    );
    assert!(!out.is_error, "{}", out.output);
    assert!(
        out.output
            .starts_with("The file /workspace/e.py has been updated (2 replacements)."),
        "{}",
        out.output
    );
    assert_eq!(text(&out.vfs, "/workspace/e.py"), "x = 0\ny = 0\nz = 2\n");
}

#[test]
fn edit_reports_missing_strings_and_files() {
    let base = workspace(&[("e.py", CODE)]);
    assert_eq!(
        err(
            "Edit",
            json!({"file_path": "e.py", "old_string": "w = 9", "new_string": "w = 8"}),
            base.fork()
        ),
        "old_string not found in /workspace/e.py. It must match the file exactly, including \
         whitespace and indentation."
    );
    assert_eq!(
        err(
            "Edit",
            json!({"file_path": "e.py", "old_string": "x", "new_string": "x"}),
            base.fork()
        ),
        "No changes to make: old_string and new_string are exactly the same."
    );
    assert_eq!(
        err(
            "Edit",
            json!({"file_path": "gone.py", "old_string": "a", "new_string": "b"}),
            base.fork()
        ),
        "File does not exist: /workspace/gone.py"
    );
    // An empty old_string creates a new file.
    let out = call(
        "Edit",
        json!({"file_path": "new/f.txt", "old_string": "", "new_string": "made\n"}),
        base,
    );
    assert_eq!(out.output, "File created: /workspace/new/f.txt (5 bytes)");
    assert_eq!(text(&out.vfs, "/workspace/new/f.txt"), "made\n");
}

// ---------------------------------------------------------------------------------------- Glob

fn tree() -> Vfs {
    workspace(&[
        ("b.rs", b"fn b() {}\n"),
        ("a.rs", b"fn a() {}\n"),
        ("src/d.txt", b"TODO: d\n"),
        ("src/c.rs", b"// TODO: c\nfn c() {}\n// todo: lower\n"),
        ("src/deep/e.rs", b"fn e() {}\n"),
        ("src/app.js", b"// TODO js\n"),
        ("README.md", b"# readme\n"),
    ])
}

#[test]
fn glob_lists_matches_sorted() {
    assert_eq!(
        ok("Glob", json!({"pattern": "**/*.rs"}), tree()),
        "/workspace/a.rs\n/workspace/b.rs\n/workspace/src/c.rs\n/workspace/src/deep/e.rs"
    );
    assert_eq!(
        ok("Glob", json!({"pattern": "*.rs"}), tree()),
        "/workspace/a.rs\n/workspace/b.rs"
    );
    assert_eq!(
        ok(
            "Glob",
            json!({"pattern": "*.{js,txt}", "path": "src"}),
            tree()
        ),
        "/workspace/src/app.js\n/workspace/src/d.txt"
    );
    assert_eq!(
        ok("Glob", json!({"pattern": "*.zig"}), tree()),
        "No files found"
    );
    assert_eq!(
        err("Glob", json!({"pattern": "*", "path": "nowhere"}), tree()),
        "Directory does not exist: /workspace/nowhere"
    );
}

// ---------------------------------------------------------------------------------------- Grep

#[test]
fn grep_lists_files_with_matches_by_default() {
    assert_eq!(
        ok("Grep", json!({"pattern": "TODO"}), tree()),
        "Found 3 files\n/workspace/src/app.js\n/workspace/src/c.rs\n/workspace/src/d.txt"
    );
    assert_eq!(
        ok("Grep", json!({"pattern": "TODO", "type": "rust"}), tree()),
        "Found 1 file\n/workspace/src/c.rs"
    );
    assert_eq!(
        ok(
            "Grep",
            json!({"pattern": "TODO", "glob": "*.{js,txt}"}),
            tree()
        ),
        "Found 2 files\n/workspace/src/app.js\n/workspace/src/d.txt"
    );
    assert_eq!(
        ok("Grep", json!({"pattern": "nothing here"}), tree()),
        "No matches found"
    );
}

#[test]
fn grep_content_and_count_modes() {
    assert_eq!(
        ok(
            "Grep",
            json!({"pattern": "todo", "-i": true, "output_mode": "content", "path": "src/c.rs"}),
            tree()
        ),
        "/workspace/src/c.rs:1:// TODO: c\n/workspace/src/c.rs:3:// todo: lower"
    );
    assert_eq!(
        ok(
            "Grep",
            json!({"pattern": "^fn", "output_mode": "content", "-n": false, "-B": 1,
                   "path": "src/c.rs"}),
            tree()
        ),
        "/workspace/src/c.rs-// TODO: c\n/workspace/src/c.rs:fn c() {}"
    );
    assert_eq!(
        ok(
            "Grep",
            json!({"pattern": "(?i)todo", "output_mode": "count"}),
            tree()
        ),
        "/workspace/src/app.js:1\n/workspace/src/c.rs:2\n/workspace/src/d.txt:1"
    );
    assert_eq!(
        ok(
            "Grep",
            json!({"pattern": "fn", "output_mode": "content", "head_limit": 2}),
            tree()
        ),
        "/workspace/a.rs:1:fn a() {}\n/workspace/b.rs:1:fn b() {}"
    );
    let out = err("Grep", json!({"pattern": "(unclosed"}), tree());
    assert!(
        out.starts_with("Invalid regex pattern \"(unclosed\""),
        "{out}"
    );
}

// ---------------------------------------------------------------------------------------- Bash

fn bash(cmd: &str, vfs: Vfs, state: &ToolState) -> ToolOutcome {
    let out = call_with("Bash", json!({ "command": cmd }), vfs, state);
    assert!(!out.is_error, "{cmd}: {}", out.output);
    out
}

#[test]
fn bash_keeps_cwd_and_exports_across_calls() {
    let vfs = workspace(&[("sub/f.txt", b"in sub\n")]);
    let first = bash(
        "cd sub && export X=1 && Y=2",
        vfs.fork(),
        &ToolState::default(),
    );
    assert_eq!(first.output, "");
    assert_eq!(first.state.cwd, "/workspace/sub");
    // Exports persist (`cd` exports OLDPWD, as bash does); plain variables do not.
    assert_eq!(
        first.state.env,
        BTreeMap::from([
            ("OLDPWD".to_string(), "/workspace".to_string()),
            ("X".to_string(), "1".to_string())
        ])
    );

    let second = bash("pwd; cat f.txt; echo \"X=$X Y=$Y\"", vfs, &first.state);
    assert_eq!(second.output, "/workspace/sub\nin sub\nX=1 Y=\n");
    assert_eq!(second.state, first.state);
}

#[test]
fn bash_changes_the_vfs() {
    let out = bash(
        "mkdir -p out && printf 'a\\nb\\n' > out/x.txt && rm gone.txt && ls",
        workspace(&[("gone.txt", b"bye")]),
        &ToolState::default(),
    );
    assert_eq!(out.output, "out\n");
    assert_eq!(text(&out.vfs, "/workspace/out/x.txt"), "a\nb\n");
    assert!(out.vfs.read_file("/workspace/gone.txt").is_err());
}

#[test]
fn bash_unknown_command_is_status_127_not_a_tool_error() {
    let out = bash(
        "echo before; nosuchcmd --flag",
        workspace(&[]),
        &ToolState::default(),
    );
    assert_eq!(
        out.output,
        "before\nbash: nosuchcmd: command not found\n[exit code: 127]"
    );
    let out = bash("exit 3", workspace(&[]), &ToolState::default());
    assert_eq!(out.output, "[exit code: 3]");
}

#[test]
fn long_output_is_truncated_with_the_marker() {
    let out = bash("seq 1 10000", workspace(&[]), &ToolState::default());
    let full: String = (1..=10000).map(|i| format!("{i}\n")).collect();
    let cut = full.chars().count() - 30_000;
    assert_eq!(
        out.output,
        format!(
            "{}\n... [output truncated: {cut} more characters]",
            &full[..30_000]
        )
    );
}

#[test]
fn an_endless_shell_loop_ends_with_the_shell_budget_and_keeps_its_output() {
    // The shell's own budget (200,000 simple commands) ends well inside the default fuel, so
    // the model sees what the loop printed and a bash-like timeout status.
    let out = call(
        "Bash",
        json!({"command": "echo start; while true; do :; done"}),
        workspace(&[]),
    );
    assert!(!out.is_error, "{}", out.output);
    assert!(out.output.starts_with("start\n"), "{}", out.output);
    assert!(out.output.contains("Command timed out"), "{}", out.output);
    assert!(out.output.ends_with("[exit code: 124]"), "{}", out.output);
}

#[test]
fn a_tool_that_runs_out_of_fuel_comes_back_as_a_tool_error() {
    // One awk command spinning forever never returns to the shell: fuel stops the instance
    // and the host reports it to the model instead of failing.
    let state = ToolState {
        cwd: "/workspace".into(),
        env: BTreeMap::from([("KEEP".to_string(), "me".to_string())]),
    };
    let out = call_with(
        "Bash",
        json!({"command": "echo start > started.txt; awk 'BEGIN { while (1) { n++ } }'"}),
        workspace(&[]),
        &state,
    );
    assert!(out.is_error, "{}", out.output);
    assert!(
        out.output.starts_with(&format!(
            "Bash failed: the program ran out of fuel after {} units",
            clawrun::tools::BASH_FUEL
        )),
        "{}",
        out.output
    );
    // The state is the caller's; the filesystem keeps what the command did before it died.
    assert_eq!(out.state, state);
    assert_eq!(text(&out.vfs, "/workspace/started.txt"), "start\n");
    // The toolbox is still usable.
    let next = bash("echo alive", workspace(&[]), &state);
    assert_eq!(next.output, "alive\n");
}

#[test]
fn unknown_tools_are_host_errors() {
    let e = TOOLBOX
        .call(
            &SANDBOX,
            ToolCall {
                name: "Nope",
                args: &json!({}),
                state: &ToolState::default(),
            },
            workspace(&[]),
            &ToolEnv::default(),
        )
        .err()
        .expect("unknown tool");
    assert!(e.to_string().contains("unknown tool 'Nope'"), "{e}");
}

#[test]
fn every_tool_answers_non_object_arguments_with_a_tool_error() {
    for name in clawrun::tools::names() {
        let out = err(name, json!([1, 2]), workspace(&[]));
        assert_eq!(
            out,
            format!("{name}: arguments must be a JSON object, got an array")
        );
    }
}

// ------------------------------------------------------------------------------- clawrun tool

fn clawrun(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(args)
        .env("CLAWRUN_CACHE_DIR", target_dir().join("clawrun-test-cache"))
        .output()
        .expect("running clawrun")
}

fn out_text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn host_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "alpha\nbeta\n").unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/old.txt"), "old\n").unwrap();
    dir
}

#[test]
fn cli_prints_the_output_and_exits_1_on_a_tool_error() {
    let ws = host_workspace();
    let dir = ws.path().to_str().unwrap();
    let out = clawrun(&[
        "tool",
        "Read",
        r#"{"file_path": "a.txt"}"#,
        "--workspace",
        dir,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out.stderr));
    assert_eq!(out_text(&out.stdout), "     1\talpha\n     2\tbeta\n");

    let out = clawrun(&[
        "tool",
        "Bash",
        r#"{"command": "pwd; echo $X"}"#,
        "--state",
        r#"{"cwd": "/workspace/sub", "env": {"X": "from-state"}}"#,
        "--workspace",
        dir,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out.stderr));
    assert_eq!(out_text(&out.stdout), "/workspace/sub\nfrom-state\n\n");

    let out = clawrun(&["tool", "Read", r#"{"file_path": "missing.txt"}"#]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        out_text(&out.stdout),
        "File does not exist: /workspace/missing.txt\n"
    );
}

#[test]
fn cli_rejects_unknown_tools_and_bad_json_with_one_line() {
    for (args, start) in [
        (
            &["tool", "Nope", "{}"][..],
            "clawrun: error: unknown tool 'Nope'",
        ),
        (
            &["tool", "Read", "{not json"][..],
            "clawrun: error: JSON_ARGS is not valid JSON",
        ),
        (
            &["tool", "Read", "[1]"][..],
            "clawrun: error: JSON_ARGS must be a JSON object",
        ),
        (
            &["tool", "Bash", "{}", "--state", "nope"][..],
            "clawrun: error: --state is not a tool state",
        ),
    ] {
        let out = clawrun(args);
        let err = out_text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(err.starts_with(start), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn cli_write_back_is_the_only_way_changes_reach_the_host() {
    let ws = host_workspace();
    let dir = ws.path().to_str().unwrap();
    let cmd = r#"{"command": "echo new > new.txt; rm sub/old.txt; sed -i s/beta/gamma/ a.txt"}"#;

    let out = clawrun(&["tool", "Bash", cmd, "--workspace", dir]);
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out.stderr));
    assert!(!ws.path().join("new.txt").exists());
    assert!(ws.path().join("sub/old.txt").exists());
    assert_eq!(
        std::fs::read_to_string(ws.path().join("a.txt")).unwrap(),
        "alpha\nbeta\n"
    );

    let out = clawrun(&["tool", "Bash", cmd, "--workspace", dir, "--write-back"]);
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(ws.path().join("new.txt")).unwrap(),
        "new\n"
    );
    assert!(!ws.path().join("sub/old.txt").exists());
    assert!(ws.path().join("sub").is_dir());
    assert_eq!(
        std::fs::read_to_string(ws.path().join("a.txt")).unwrap(),
        "alpha\ngamma\n"
    );

    let out = clawrun(&[
        "tool",
        "Write",
        r#"{"file_path": "made/by/write.txt", "content": "w"}"#,
        "--workspace",
        dir,
        "--write-back",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(ws.path().join("made/by/write.txt")).unwrap(),
        "w"
    );
}

#[test]
fn bash_date_reads_the_virtual_clock_and_sleep_advances_it() {
    let out = bash(
        "date -u; date -u +%Y-%m-%dT%H:%M:%S; sleep 90; date -u +%s",
        workspace(&[]),
        &ToolState::default(),
    );
    assert_eq!(
        out.output,
        "Thu Jan  1 00:00:00 UTC 2026\n2026-01-01T00:00:00\n1767225690\n"
    );
}

fn injector(plan: &str) -> clawrun::faults::SharedInjector {
    use clawrun::faults::{FaultInjector, PlanOptions, SharedInjector, plan_from_yaml};
    SharedInjector::new(FaultInjector::new(
        plan_from_yaml(plan, "plan.yaml", &PlanOptions::new(0)).unwrap(),
    ))
}

fn call_faulted(name: &str, args: Value, vfs: Vfs, env: &ToolEnv) -> ToolOutcome {
    TOOLBOX
        .call(
            &SANDBOX,
            ToolCall {
                name,
                args: &args,
                state: &ToolState::default(),
            },
            vfs,
            env,
        )
        .unwrap()
}

#[test]
fn tool_call_faults_come_back_as_tool_errors_and_the_next_call_works() {
    let faults = injector("rules:\n  - point: tool:Read\n    kind: status500\n    calls: [1]\n");
    let env = ToolEnv {
        faults: Some(faults.clone()),
        ..ToolEnv::default()
    };
    let vfs = workspace(&[("a.txt", b"alpha\n")]);
    let first = call_faulted("Read", json!({"file_path": "a.txt"}), vfs.fork(), &env);
    assert!(first.is_error);
    assert!(
        first.output.starts_with("Read failed (HTTP 500): "),
        "{}",
        first.output
    );
    let second = call_faulted("Read", json!({"file_path": "a.txt"}), vfs.fork(), &env);
    assert!(!second.is_error, "{}", second.output);
    assert!(second.output.contains("alpha"));
    let events = faults.drain_events();
    assert_eq!(events.len(), 1);
    assert_eq!(&*events[0].point, "tool:Read");
}

#[test]
fn filesystem_faults_reach_the_tool_through_the_sandbox_hook() {
    let faults = injector(
        "rules:\n  - point: \"fs:open:/workspace/a.txt\"\n    kind: eio\n    calls: [1]\n",
    );
    let env = ToolEnv {
        faults: Some(faults.clone()),
        ..ToolEnv::default()
    };
    let vfs = workspace(&[("a.txt", b"alpha\n")]);
    let out = call_faulted(
        "Bash",
        json!({"command": "cat a.txt; cat a.txt"}),
        vfs,
        &env,
    );
    assert_eq!(out.output, "cat: a.txt: Input/output error\nalpha\n");
    assert_eq!(faults.drain_events().len(), 1);
}
