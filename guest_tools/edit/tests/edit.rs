//! Golden tests of `Edit` through the full request/response envelope.

use std::fs;
use std::path::Path;

use clawrun_tool_edit::edit;
use clawrun_tool_protocol::handle;
use serde_json::{Value, json};

/// Runs `Edit` with `args` and cwd = `root`; paths under `root` are shown as `/ws`.
fn call(root: &Path, args: Value) -> (String, bool) {
    let root = root.to_str().unwrap();
    let input = json!({"args": args, "state": {"cwd": root, "env": {}}}).to_string();
    let response = handle("Edit", &input, edit);
    (response.output.replace(root, "/ws"), response.is_error)
}

const CODE: &str = "\
fn one() {}
fn two() {}
fn three() {}
fn four() {}
fn five() {}
fn six() {}
fn seven() {}
fn eight() {}
fn nine() {}
fn ten() {}
";

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("code.rs"), CODE).unwrap();
    fs::write(dir.path().join("dup.txt"), "x = 1\ny = 2\nx = 1\nx = 1\n").unwrap();
    dir
}

fn contents(root: &Path, name: &str) -> String {
    fs::read_to_string(root.join(name)).unwrap()
}

#[test]
fn unique_replacement_shows_a_snippet() {
    let dir = fixture();
    let (out, is_error) = call(
        dir.path(),
        json!({"file_path": "code.rs", "old_string": "fn six() {}", "new_string": "fn six() {\n    6\n}"}),
    );
    assert!(!is_error, "{out}");
    assert_eq!(
        out,
        "The file /ws/code.rs has been updated (1 replacement). \
         Here's the result of running `cat -n` on a snippet of the edited file:\n\
         \x20    2\tfn two() {}\n\
         \x20    3\tfn three() {}\n\
         \x20    4\tfn four() {}\n\
         \x20    5\tfn five() {}\n\
         \x20    6\tfn six() {\n\
         \x20    7\t    6\n\
         \x20    8\t}\n\
         \x20    9\tfn seven() {}\n\
         \x20   10\tfn eight() {}\n\
         \x20   11\tfn nine() {}\n\
         \x20   12\tfn ten() {}"
    );
    assert_eq!(
        contents(dir.path(), "code.rs"),
        CODE.replace("fn six() {}", "fn six() {\n    6\n}")
    );
}

#[test]
fn snippet_at_start_of_file_and_deletion() {
    let dir = fixture();
    let (out, _) = call(
        dir.path(),
        json!({"file_path": "code.rs", "old_string": "fn one() {}\n", "new_string": ""}),
    );
    assert!(
        out.ends_with(
            "snippet of the edited file:\n     1\tfn two() {}\n     2\tfn three() {}\n     3\tfn four() {}\n     4\tfn five() {}\n     5\tfn six() {}"
        ),
        "{out}"
    );
}

#[test]
fn long_snippets_are_capped() {
    let dir = fixture();
    let big: String = (0..100).map(|i| format!("// {i}\n")).collect();
    let (out, _) = call(
        dir.path(),
        json!({"file_path": "code.rs", "old_string": "fn two() {}\n", "new_string": big}),
    );
    let snippet = out.split_once(":\n").unwrap().1;
    assert_eq!(snippet.lines().count(), 41);
    assert!(snippet.starts_with("     1\tfn one() {}\n     2\t// 0\n"));
    assert!(snippet.ends_with("    40\t// 38\n... (snippet truncated)"));
}

#[test]
fn missing_old_string_is_an_error() {
    let dir = fixture();
    assert_eq!(
        call(
            dir.path(),
            json!({"file_path": "code.rs", "old_string": "fn eleven() {}", "new_string": "x"})
        ),
        (
            "old_string not found in /ws/code.rs. It must match the file exactly, \
             including whitespace and indentation."
                .into(),
            true
        )
    );
    assert_eq!(contents(dir.path(), "code.rs"), CODE);
}

#[test]
fn ambiguous_old_string_is_an_error() {
    let dir = fixture();
    assert_eq!(
        call(
            dir.path(),
            json!({"file_path": "dup.txt", "old_string": "x = 1", "new_string": "x = 9"})
        ),
        (
            "old_string occurs 3 times in /ws/dup.txt, but replace_all is false. \
             Add more surrounding context to old_string to make it unique, \
             or set replace_all to true to replace every occurrence."
                .into(),
            true
        )
    );
    assert_eq!(
        contents(dir.path(), "dup.txt"),
        "x = 1\ny = 2\nx = 1\nx = 1\n"
    );
}

#[test]
fn replace_all_replaces_every_occurrence() {
    let dir = fixture();
    let (out, is_error) = call(
        dir.path(),
        json!({"file_path": "dup.txt", "old_string": "x = 1", "new_string": "x = 9", "replace_all": "true"}),
    );
    assert!(!is_error);
    assert_eq!(
        out,
        "The file /ws/dup.txt has been updated (3 replacements). \
         Here's the result of running `cat -n` on a snippet of the edited file:\n\
         \x20    1\tx = 9\n     2\ty = 2\n     3\tx = 9\n     4\tx = 9"
    );
    assert_eq!(
        contents(dir.path(), "dup.txt"),
        "x = 9\ny = 2\nx = 9\nx = 9\n"
    );
}

#[test]
fn replace_all_false_with_unique_match_replaces_once() {
    let dir = fixture();
    let (out, is_error) = call(
        dir.path(),
        json!({"file_path": "dup.txt", "old_string": "y = 2", "new_string": "y = 3", "replace_all": false}),
    );
    assert!(!is_error);
    assert!(out.contains("(1 replacement)"));
    assert_eq!(
        contents(dir.path(), "dup.txt"),
        "x = 1\ny = 3\nx = 1\nx = 1\n"
    );
}

#[test]
fn identical_strings_are_an_error() {
    let dir = fixture();
    assert_eq!(
        call(
            dir.path(),
            json!({"file_path": "code.rs", "old_string": "a", "new_string": "a"})
        ),
        (
            "No changes to make: old_string and new_string are exactly the same.".into(),
            true
        )
    );
}

#[test]
fn missing_file_and_directory_are_errors() {
    let dir = fixture();
    assert_eq!(
        call(
            dir.path(),
            json!({"file_path": "nope.rs", "old_string": "a", "new_string": "b"})
        ),
        ("File does not exist: /ws/nope.rs".into(), true)
    );
    fs::create_dir(dir.path().join("d")).unwrap();
    assert_eq!(
        call(
            dir.path(),
            json!({"file_path": "d", "old_string": "a", "new_string": "b"})
        ),
        ("/ws/d is a directory".into(), true)
    );
}

#[test]
fn empty_old_string_creates_a_new_file() {
    let dir = fixture();
    let (out, is_error) = call(
        dir.path(),
        json!({"file_path": "new/file.txt", "old_string": "", "new_string": "fresh\n"}),
    );
    assert!(!is_error);
    assert_eq!(out, "File created: /ws/new/file.txt (6 bytes)");
    assert_eq!(contents(dir.path(), "new/file.txt"), "fresh\n");

    fs::write(dir.path().join("blank.txt"), "").unwrap();
    let (_, is_error) = call(
        dir.path(),
        json!({"file_path": "blank.txt", "old_string": "", "new_string": "filled"}),
    );
    assert!(!is_error);
    assert_eq!(contents(dir.path(), "blank.txt"), "filled");
}

#[test]
fn empty_old_string_on_a_non_empty_file_is_an_error() {
    let dir = fixture();
    let (out, is_error) = call(
        dir.path(),
        json!({"file_path": "code.rs", "old_string": "", "new_string": "x"}),
    );
    assert!(is_error);
    assert_eq!(
        out,
        "Cannot create /ws/code.rs: the file already exists and is not empty. \
         Give a non-empty old_string to edit it, or use Write to replace it."
    );
}

#[test]
fn crlf_files_keep_their_line_endings() {
    let dir = fixture();
    fs::write(dir.path().join("win.txt"), "a\r\nb\r\nc\r\n").unwrap();
    let (out, is_error) = call(
        dir.path(),
        json!({"file_path": "win.txt", "old_string": "a\nb", "new_string": "A\nB"}),
    );
    assert!(!is_error, "{out}");
    assert_eq!(contents(dir.path(), "win.txt"), "A\r\nB\r\nc\r\n");
    assert!(out.ends_with("     1\tA\n     2\tB\n     3\tc"), "{out}");
}

#[test]
fn non_utf8_files_are_refused() {
    let dir = fixture();
    fs::write(dir.path().join("bin"), b"\xff\xfe\x00abc").unwrap();
    assert_eq!(
        call(
            dir.path(),
            json!({"file_path": "bin", "old_string": "abc", "new_string": "x"})
        ),
        (
            "/ws/bin is not valid UTF-8 text; Edit only edits text files".into(),
            true
        )
    );
}

#[test]
fn argument_errors_name_the_field() {
    let dir = fixture();
    assert_eq!(
        call(
            dir.path(),
            json!({"file_path": "code.rs", "new_string": "x"})
        ),
        (r#"Edit: missing required field "old_string""#.into(), true)
    );
    assert_eq!(
        call(
            dir.path(),
            json!({"file_path": "code.rs", "old_string": "a", "new_string": "b", "replace_all": 3})
        ),
        (
            r#"Edit: invalid value for field "replace_all": expected a boolean, got 3"#.into(),
            true
        )
    );
}
