//! Golden tests of `Write` through the full request/response envelope.

use std::fs;
use std::path::Path;

use clawrun_tool_protocol::handle;
use clawrun_tool_write::write;
use serde_json::{Value, json};

/// Runs `Write` with `args` and cwd = `root`; paths under `root` are shown as `/ws`.
fn call(root: &Path, args: Value) -> (String, bool) {
    let root = root.to_str().unwrap();
    let input = json!({"args": args, "state": {"cwd": root, "env": {"K": "V"}}}).to_string();
    let response = handle("Write", &input, write);
    assert_eq!(response.state.cwd, root, "state is echoed");
    assert_eq!(response.state.env["K"], "V", "state is echoed");
    (response.output.replace(root, "/ws"), response.is_error)
}

#[test]
fn creates_file_and_parent_directories() {
    let dir = tempfile::tempdir().unwrap();
    let (out, is_error) = call(
        dir.path(),
        json!({"file_path": "a/b/c.txt", "content": "héllo\n"}),
    );
    assert!(!is_error);
    assert_eq!(out, "File created: /ws/a/b/c.txt (7 bytes)");
    assert_eq!(
        fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
        "héllo\n"
    );
}

#[test]
fn overwrites_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    fs::write(&file, "old contents that are longer").unwrap();
    let (out, is_error) = call(dir.path(), json!({"file_path": file, "content": "new"}));
    assert!(!is_error);
    assert_eq!(out, "File overwritten: /ws/f.txt (3 bytes)");
    assert_eq!(fs::read_to_string(&file).unwrap(), "new");
}

#[test]
fn empty_content_makes_an_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = call(dir.path(), json!({"file_path": "./e", "content": ""}));
    assert_eq!(out, "File created: /ws/e (0 bytes)");
    assert_eq!(fs::read(dir.path().join("e")).unwrap(), b"");
}

#[test]
fn directory_path_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("d")).unwrap();
    assert_eq!(
        call(dir.path(), json!({"file_path": "d", "content": "x"})),
        ("/ws/d is a directory".into(), true)
    );
}

#[test]
fn parent_that_is_a_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), "x").unwrap();
    let (out, is_error) = call(dir.path(), json!({"file_path": "f/g.txt", "content": "x"}));
    assert!(is_error);
    assert!(
        out.starts_with("Cannot create parent directories of /ws/f/g.txt: "),
        "{out}"
    );
}

#[test]
fn argument_errors_name_the_field() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        call(dir.path(), json!({"file_path": "x"})),
        (r#"Write: missing required field "content""#.into(), true)
    );
    assert_eq!(
        call(dir.path(), json!({"file_path": "x", "content": ["a"]})),
        (
            r#"Write: invalid value for field "content": invalid type: sequence, expected a string"#
                .into(),
            true
        )
    );
    assert!(!dir.path().join("x").exists());
}
