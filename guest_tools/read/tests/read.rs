//! Golden tests of `Read` through the full request/response envelope.

use std::fs;
use std::path::Path;

use clawrun_tool_protocol::handle;
use clawrun_tool_read::read;
use serde_json::{Value, json};

/// Runs `Read` with `args` and cwd = `root`; paths under `root` are shown as `/ws`.
fn call(root: &Path, args: Value) -> (String, bool) {
    let root = root.to_str().unwrap();
    let input = json!({"args": args, "state": {"cwd": root, "env": {}}}).to_string();
    let response = handle("Read", &input, read);
    (response.output.replace(root, "/ws"), response.is_error)
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("src")).unwrap();
    let ten: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    fs::write(root.join("ten.txt"), ten).unwrap();
    fs::write(
        root.join("src/main.rs"),
        "fn main() {\n\tprintln!(\"hi\");\n}\n",
    )
    .unwrap();
    fs::write(root.join("empty.txt"), "").unwrap();
    fs::write(root.join("crlf.txt"), "a\r\nb\r\n").unwrap();
    fs::write(root.join("no_newline.txt"), "only").unwrap();
    fs::write(root.join("blob.bin"), b"\x7fELF\0\0\x01\x02").unwrap();
    dir
}

#[test]
fn numbers_lines_like_cat_n() {
    let dir = fixture();
    let (out, is_error) = call(dir.path(), json!({"file_path": "src/main.rs"}));
    assert!(!is_error);
    assert_eq!(
        out,
        "     1\tfn main() {\n     2\t\tprintln!(\"hi\");\n     3\t}"
    );
}

#[test]
fn absolute_path_and_dotdot_display() {
    let dir = fixture();
    let abs = dir.path().join("no_newline.txt");
    let (out, _) = call(dir.path(), json!({"file_path": abs}));
    assert_eq!(out, "     1\tonly");
    let (out, is_error) = call(dir.path(), json!({"file_path": "src/../missing.txt"}));
    assert!(is_error);
    assert_eq!(out, "File does not exist: /ws/missing.txt");
}

#[test]
fn offset_is_one_based_first_line() {
    let dir = fixture();
    let (out, _) = call(dir.path(), json!({"file_path": "ten.txt", "offset": 9}));
    assert_eq!(out, "     9\tline 9\n    10\tline 10");
    let (out, _) = call(
        dir.path(),
        json!({"file_path": "ten.txt", "offset": 0, "limit": 1}),
    );
    assert!(
        out.starts_with("     1\tline 1\n\n(Showing lines 1-1 of 10"),
        "{out}"
    );
}

#[test]
fn limit_caps_lines_and_says_how_to_continue() {
    let dir = fixture();
    let (out, is_error) = call(
        dir.path(),
        json!({"file_path": "ten.txt", "offset": 3, "limit": 2}),
    );
    assert!(!is_error);
    assert_eq!(
        out,
        "     3\tline 3\n     4\tline 4\n\n\
         (Showing lines 3-4 of 10; line limit reached. Use offset=5 to read more.)"
    );
}

#[test]
fn numeric_strings_are_accepted() {
    let dir = fixture();
    let (out, is_error) = call(
        dir.path(),
        json!({"file_path": "ten.txt", "offset": "10", "limit": "5"}),
    );
    assert!(!is_error);
    assert_eq!(out, "    10\tline 10");
}

#[test]
fn offset_past_end_is_a_note() {
    let dir = fixture();
    let (out, is_error) = call(dir.path(), json!({"file_path": "ten.txt", "offset": 11}));
    assert!(!is_error);
    assert_eq!(
        out,
        "Warning: the file /ws/ten.txt exists but is shorter than the provided offset (11). \
         The file has 10 lines."
    );
}

#[test]
fn empty_file_is_a_note() {
    let dir = fixture();
    let (out, is_error) = call(dir.path(), json!({"file_path": "empty.txt"}));
    assert!(!is_error);
    assert_eq!(
        out,
        "Warning: the file /ws/empty.txt exists but the contents are empty."
    );
}

#[test]
fn binary_file_is_described_not_an_error() {
    let dir = fixture();
    let (out, is_error) = call(dir.path(), json!({"file_path": "blob.bin"}));
    assert!(!is_error);
    assert_eq!(
        out,
        "Binary file /ws/blob.bin (8 bytes) cannot be displayed as text"
    );
}

#[test]
fn crlf_lines_are_shown_without_carriage_returns() {
    let dir = fixture();
    let (out, _) = call(dir.path(), json!({"file_path": "crlf.txt"}));
    assert_eq!(out, "     1\ta\n     2\tb");
}

#[test]
fn missing_file_and_directory_are_errors() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"file_path": "nope.txt"})),
        ("File does not exist: /ws/nope.txt".into(), true)
    );
    assert_eq!(
        call(dir.path(), json!({"file_path": "ten.txt/child"})),
        ("File does not exist: /ws/ten.txt/child".into(), true)
    );
    assert_eq!(
        call(dir.path(), json!({"file_path": "src"})),
        ("/ws/src is a directory".into(), true)
    );
}

#[test]
fn argument_errors_name_the_field() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"path": "ten.txt"})),
        (r#"Read: missing required field "file_path""#.into(), true)
    );
    assert_eq!(
        call(dir.path(), json!({"file_path": "ten.txt", "limit": "all"})),
        (
            r#"Read: invalid value for field "limit": expected a non-negative integer, got string "all""#
                .into(),
            true
        )
    );
    assert_eq!(
        call(dir.path(), json!({"file_path": "ten.txt", "limit": 0})),
        (r#"Read: "limit" must be at least 1"#.into(), true)
    );
    assert_eq!(
        call(dir.path(), json!({"file_path": ""})),
        (r#"Read: "file_path" must not be empty"#.into(), true)
    );
}

#[test]
fn default_limit_is_2000_lines() {
    let dir = fixture();
    let text: String = (1..=2001).map(|i| format!("{i}\n")).collect();
    fs::write(dir.path().join("long.txt"), text).unwrap();
    let (out, _) = call(dir.path(), json!({"file_path": "long.txt"}));
    assert!(out.contains("  2000\t2000\n\n(Showing lines 1-2000 of 2001; line limit reached. Use offset=2001 to read more.)"), "{}", &out[out.len() - 200..]);
    assert!(!out.contains("\t2001"));
}

#[test]
fn long_lines_are_clipped_at_2000_characters() {
    let dir = fixture();
    fs::write(dir.path().join("wide.txt"), "w".repeat(2500)).unwrap();
    let (out, _) = call(dir.path(), json!({"file_path": "wide.txt"}));
    assert_eq!(
        out,
        format!(
            "     1\t{}... [line truncated: 500 more characters]",
            "w".repeat(2000)
        )
    );
}

#[test]
fn output_cap_stops_at_a_whole_line_with_a_paging_note() {
    let dir = fixture();
    let text: String = (0..40).map(|_| format!("{}\n", "x".repeat(1000))).collect();
    fs::write(dir.path().join("big.txt"), text).unwrap();
    let (out, is_error) = call(dir.path(), json!({"file_path": "big.txt"}));
    assert!(!is_error);
    assert!(out.chars().count() <= clawrun_tool_protocol::MAX_OUTPUT_CHARS);
    assert!(!out.contains("[output truncated"));
    assert!(
        out.ends_with(
            "\n\n(Showing lines 1-29 of 40; output size limit reached. Use offset=30 to read more.)"
        ),
        "{}",
        &out[out.len() - 120..]
    );
}
