//! Golden tests of `Grep` through the full request/response envelope.

use std::fs;
use std::path::Path;

use clawrun_tool_grep::grep;
use clawrun_tool_protocol::handle;
use serde_json::{Value, json};

/// Runs `Grep` with `args` and cwd = `root`; paths under `root` are shown as `/ws`.
fn call(root: &Path, args: Value) -> (String, bool) {
    let root = root.to_str().unwrap();
    let input = json!({"args": args, "state": {"cwd": root, "env": {}}}).to_string();
    let response = handle("Grep", &input, grep);
    (response.output.replace(root, "/ws"), response.is_error)
}

fn out(root: &Path, args: Value) -> String {
    let (output, is_error) = call(root, args);
    assert!(!is_error, "unexpected error: {output}");
    output
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files: &[(&str, &[u8])] = &[
        (
            "src/main.rs",
            b"fn main() {\n    println!(\"Hello\");\n    helper();\n}\n",
        ),
        (
            "src/lib.rs",
            b"pub fn helper() {\n    // hello from lib\n}\n\npub fn other() {}\n",
        ),
        ("docs/guide.md", b"# Hello guide\nsay hello\n"),
        (
            "notes.txt",
            b"one\ntwo\nthree match\nfour\nfive\nsix\nseven match\neight\nnine\nten\n",
        ),
        ("app.py", b"def hello():\n    return 'hello'\n"),
        ("blob.bin", b"hello\0binary hello"),
        (".git/config", b"hello = true\n"),
        ("win.txt", b"crlf hello\r\nnext\r\n"),
    ];
    for (name, contents) in files {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
    }
    dir
}

#[test]
fn default_mode_lists_files_with_matches() {
    let dir = fixture();
    assert_eq!(
        out(dir.path(), json!({"pattern": "hello"})),
        "Found 4 files\n/ws/app.py\n/ws/docs/guide.md\n/ws/src/lib.rs\n/ws/win.txt"
    );
}

#[test]
fn case_insensitive_flag() {
    let dir = fixture();
    assert_eq!(
        out(dir.path(), json!({"pattern": "HELLO", "-i": true})),
        "Found 5 files\n/ws/app.py\n/ws/docs/guide.md\n/ws/src/lib.rs\n/ws/src/main.rs\n/ws/win.txt"
    );
    assert_eq!(
        out(dir.path(), json!({"pattern": "HELLO", "-i": false})),
        "No matches found"
    );
}

#[test]
fn content_mode_has_line_numbers_by_default() {
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "hel+o", "output_mode": "content", "path": "src"})
        ),
        "/ws/src/lib.rs:2:    // hello from lib"
    );
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "hel", "output_mode": "content", "path": "src", "-n": true})
        ),
        "/ws/src/lib.rs:1:pub fn helper() {\n/ws/src/lib.rs:2:    // hello from lib\n/ws/src/main.rs:3:    helper();"
    );
}

#[test]
fn content_mode_without_line_numbers() {
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "hello", "output_mode": "content", "-n": false, "path": "docs"})
        ),
        "/ws/docs/guide.md:say hello"
    );
}

#[test]
fn after_context() {
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "match", "output_mode": "content", "path": "notes.txt", "-A": 1})
        ),
        "/ws/notes.txt:3:three match\n/ws/notes.txt-4-four\n--\n/ws/notes.txt:7:seven match\n/ws/notes.txt-8-eight"
    );
}

#[test]
fn before_context() {
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "match", "output_mode": "content", "path": "notes.txt", "-B": 2})
        ),
        "/ws/notes.txt-1-one\n/ws/notes.txt-2-two\n/ws/notes.txt:3:three match\n--\n\
         /ws/notes.txt-5-five\n/ws/notes.txt-6-six\n/ws/notes.txt:7:seven match"
    );
}

#[test]
fn context_merges_adjacent_groups() {
    let dir = fixture();
    // -C 2 around lines 3 and 7 covers 1..=9 contiguously: no separator.
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "match", "output_mode": "content", "path": "notes.txt", "-C": 2, "-n": false})
        ),
        "/ws/notes.txt-one\n/ws/notes.txt-two\n/ws/notes.txt:three match\n/ws/notes.txt-four\n\
         /ws/notes.txt-five\n/ws/notes.txt-six\n/ws/notes.txt:seven match\n/ws/notes.txt-eight\n\
         /ws/notes.txt-nine"
    );
}

#[test]
fn explicit_after_overrides_context() {
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "seven", "output_mode": "content", "path": "notes.txt", "-C": 1, "-A": 0})
        ),
        "/ws/notes.txt-6-six\n/ws/notes.txt:7:seven match"
    );
}

#[test]
fn context_separates_files() {
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "hello", "output_mode": "content", "path": "src", "-i": true, "-B": 1})
        ),
        "/ws/src/lib.rs-1-pub fn helper() {\n/ws/src/lib.rs:2:    // hello from lib\n--\n\
         /ws/src/main.rs-1-fn main() {\n/ws/src/main.rs:2:    println!(\"Hello\");"
    );
}

#[test]
fn no_separators_without_context() {
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "match", "output_mode": "content", "path": "notes.txt"})
        ),
        "/ws/notes.txt:3:three match\n/ws/notes.txt:7:seven match"
    );
}

#[test]
fn count_mode() {
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "hello|match", "output_mode": "count"})
        ),
        "/ws/app.py:2\n/ws/docs/guide.md:1\n/ws/notes.txt:2\n/ws/src/lib.rs:1\n/ws/win.txt:1"
    );
}

#[test]
fn head_limit_in_every_mode() {
    let dir = fixture();
    assert_eq!(
        out(dir.path(), json!({"pattern": "hello", "head_limit": 2})),
        "Found 2 files\n/ws/app.py\n/ws/docs/guide.md"
    );
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "hello", "output_mode": "count", "head_limit": 1})
        ),
        "/ws/app.py:2"
    );
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "match", "output_mode": "content", "path": "notes.txt", "-A": 1, "head_limit": 3})
        ),
        "/ws/notes.txt:3:three match\n/ws/notes.txt-4-four\n--"
    );
    // 0 means unlimited.
    assert_eq!(
        out(dir.path(), json!({"pattern": "hello", "head_limit": 0}))
            .lines()
            .count(),
        5
    );
}

#[test]
fn glob_filter() {
    let dir = fixture();
    assert_eq!(
        out(dir.path(), json!({"pattern": "hello", "glob": "*.{md,py}"})),
        "Found 2 files\n/ws/app.py\n/ws/docs/guide.md"
    );
    assert_eq!(
        out(dir.path(), json!({"pattern": "hello", "glob": "src/*.rs"})),
        "Found 1 file\n/ws/src/lib.rs"
    );
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "hello", "glob": "!*.txt !*.py"})
        ),
        "Found 2 files\n/ws/docs/guide.md\n/ws/src/lib.rs"
    );
}

#[test]
fn type_filter() {
    let dir = fixture();
    assert_eq!(
        out(dir.path(), json!({"pattern": "hello", "type": "py"})),
        "Found 1 file\n/ws/app.py"
    );
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "fn", "type": "rust", "output_mode": "count"})
        ),
        "/ws/src/lib.rs:2\n/ws/src/main.rs:1"
    );
    let (output, is_error) = call(dir.path(), json!({"pattern": "x", "type": "cobol"}));
    assert!(is_error);
    assert!(output.starts_with("Unknown file type \"cobol\". Known types: c, cpp, cs,"));
}

#[test]
fn path_may_be_a_single_file() {
    let dir = fixture();
    assert_eq!(
        out(dir.path(), json!({"pattern": "hello", "path": "app.py"})),
        "Found 1 file\n/ws/app.py"
    );
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "hello", "path": "./src/../app.py", "output_mode": "content"})
        ),
        "/ws/app.py:1:def hello():\n/ws/app.py:2:    return 'hello'"
    );
}

#[test]
fn binary_files_and_vcs_dirs_are_skipped() {
    let dir = fixture();
    let listed = out(dir.path(), json!({"pattern": "hello", "-i": true}));
    assert!(!listed.contains("blob.bin"));
    assert!(!listed.contains(".git"));
}

#[test]
fn crlf_lines_are_matched_and_printed_without_cr() {
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "hello$", "path": "win.txt", "output_mode": "content"})
        ),
        "/ws/win.txt:1:crlf hello"
    );
}

#[test]
fn multiline_matches_span_lines() {
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "three.*four", "path": "notes.txt", "output_mode": "content", "multiline": true})
        ),
        "/ws/notes.txt:3:three match\n/ws/notes.txt:4:four"
    );
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "three.*four", "path": "notes.txt", "output_mode": "content"})
        ),
        "No matches found"
    );
}

#[test]
fn no_matches() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"pattern": "zebra"})),
        ("No matches found".into(), false)
    );
    assert_eq!(
        call(
            dir.path(),
            json!({"pattern": "zebra", "output_mode": "content"})
        ),
        ("No matches found".into(), false)
    );
}

#[test]
fn invalid_regex_is_an_error_naming_the_pattern() {
    let dir = fixture();
    let (output, is_error) = call(dir.path(), json!({"pattern": "fn (main"}));
    assert!(is_error);
    assert!(
        output.starts_with("Invalid regex pattern \"fn (main\": regex parse error:"),
        "{output}"
    );
    assert!(output.contains("unclosed group"), "{output}");
}

#[test]
fn bad_arguments_are_errors() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"pattern": "x", "path": "nowhere"})),
        ("Path does not exist: /ws/nowhere".into(), true)
    );
    assert_eq!(
        call(dir.path(), json!({"pattern": "x", "output_mode": "lines"})),
        (
            "Grep: invalid value for field \"output_mode\": unknown variant `lines`, \
             expected one of `content`, `files_with_matches`, `count`"
                .into(),
            true
        )
    );
    assert_eq!(
        call(dir.path(), json!({"pattern": "x", "-A": "two"})),
        (
            r#"Grep: invalid value for field "-A": expected a non-negative integer, got string "two""#
                .into(),
            true
        )
    );
    assert_eq!(
        call(dir.path(), json!({"glob": "*.rs"})),
        (r#"Grep: missing required field "pattern""#.into(), true)
    );
}

#[test]
fn long_lines_are_clipped_in_content_mode() {
    let dir = fixture();
    fs::write(
        dir.path().join("min.js"),
        format!("needle{}", "x".repeat(3000)),
    )
    .unwrap();
    let output = out(
        dir.path(),
        json!({"pattern": "needle", "path": "min.js", "output_mode": "content"}),
    );
    assert!(
        output.ends_with("... [line truncated: 1006 more characters]"),
        "{output}"
    );
}

#[test]
fn claw_eval_argument_names_mean_the_flags() {
    // Claw-Eval's sandbox schema names the flags in words; each means its Claude Code flag.
    let dir = fixture();
    assert_eq!(
        out(
            dir.path(),
            json!({"pattern": "HELLO", "case_insensitive": true})
        ),
        out(dir.path(), json!({"pattern": "HELLO", "-i": true})),
    );
    for (word, flag) in [
        ("context_lines", "-C"),
        ("after_context", "-A"),
        ("before_context", "-B"),
    ] {
        let args = |key: &str| json!({"pattern": "seven", "output_mode": "content", "path": "notes.txt", key: 1});
        let by_word = out(dir.path(), args(word));
        assert_eq!(by_word, out(dir.path(), args(flag)), "{word}");
        assert_ne!(
            by_word,
            out(
                dir.path(),
                json!({"pattern": "seven", "output_mode": "content", "path": "notes.txt"})
            ),
            "{word} changes nothing"
        );
    }
}
