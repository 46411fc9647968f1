//! Golden tests of `Glob` through the full request/response envelope.

use std::fs;
use std::path::Path;

use clawrun_tool_glob::glob;
use clawrun_tool_protocol::handle;
use serde_json::{Value, json};

/// Runs `Glob` with `args` and cwd = `root`; paths under `root` are shown as `/ws`.
fn call(root: &Path, args: Value) -> (String, bool) {
    let root = root.to_str().unwrap();
    let input = json!({"args": args, "state": {"cwd": root, "env": {}}}).to_string();
    let response = handle("Glob", &input, glob);
    (response.output.replace(root, "/ws"), response.is_error)
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for file in [
        "Cargo.toml",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
        "src/util/mod.rs",
        "src/util/strings.rs",
        "tests/it.rs",
        "web/app.ts",
        "web/view.tsx",
        "web/types.d.ts",
        ".github/ci.yml",
        ".git/HEAD",
        ".git/config.rs",
    ] {
        let path = root.join(file);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, file).unwrap();
    }
    dir
}

#[test]
fn double_star_matches_recursively_sorted_absolute() {
    let dir = fixture();
    let (out, is_error) = call(dir.path(), json!({"pattern": "**/*.rs"}));
    assert!(!is_error);
    assert_eq!(
        out,
        "/ws/src/lib.rs\n/ws/src/main.rs\n/ws/src/util/mod.rs\n/ws/src/util/strings.rs\n/ws/tests/it.rs"
    );
}

#[test]
fn single_star_stays_in_one_directory() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"pattern": "*"})).0,
        "/ws/Cargo.toml\n/ws/README.md"
    );
    assert_eq!(
        call(dir.path(), json!({"pattern": "src/*.rs"})).0,
        "/ws/src/lib.rs\n/ws/src/main.rs"
    );
}

#[test]
fn path_argument_sets_the_search_directory() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"pattern": "*.rs", "path": "src/util"})).0,
        "/ws/src/util/mod.rs\n/ws/src/util/strings.rs"
    );
    let abs = dir.path().join("src");
    assert_eq!(
        call(dir.path(), json!({"pattern": "**/mod.rs", "path": abs})).0,
        "/ws/src/util/mod.rs"
    );
}

#[test]
fn braces_and_character_classes() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"pattern": "web/*.{ts,tsx}"})).0,
        "/ws/web/app.ts\n/ws/web/types.d.ts\n/ws/web/view.tsx"
    );
    assert_eq!(
        call(dir.path(), json!({"pattern": "src/[lm]*.rs"})).0,
        "/ws/src/lib.rs\n/ws/src/main.rs"
    );
}

#[test]
fn hidden_files_are_included_but_vcs_dirs_skipped() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"pattern": "**/*.yml"})).0,
        "/ws/.github/ci.yml"
    );
    // .git is skipped by a recursive walk, but can be globbed explicitly.
    assert_eq!(
        call(dir.path(), json!({"pattern": ".git/*"})).0,
        "/ws/.git/HEAD\n/ws/.git/config.rs"
    );
}

#[test]
fn absolute_and_parent_relative_patterns() {
    let dir = fixture();
    let pattern = format!("{}/src/**/*.rs", dir.path().to_str().unwrap());
    assert_eq!(
        call(dir.path(), json!({"pattern": pattern})).0,
        "/ws/src/lib.rs\n/ws/src/main.rs\n/ws/src/util/mod.rs\n/ws/src/util/strings.rs"
    );
    assert_eq!(
        call(dir.path(), json!({"pattern": "../web/*.ts", "path": "src"})).0,
        "/ws/web/app.ts\n/ws/web/types.d.ts"
    );
}

#[test]
fn literal_pattern_finds_one_file() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"pattern": "src/main.rs"})).0,
        "/ws/src/main.rs"
    );
}

#[test]
fn no_match_says_no_files_found() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"pattern": "**/*.py"})),
        ("No files found".into(), false)
    );
}

#[test]
fn results_are_capped_at_1000() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..1005 {
        fs::write(dir.path().join(format!("f{i:04}.txt")), "").unwrap();
    }
    let (out, is_error) = call(dir.path(), json!({"pattern": "*.txt"}));
    assert!(!is_error);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1001);
    assert_eq!(lines[0], "/ws/f0000.txt");
    assert_eq!(lines[999], "/ws/f0999.txt");
    assert_eq!(
        lines[1000],
        "(Results are truncated: showing the first 1000 of 1005 files. \
         Use a more specific path or pattern.)"
    );
}

#[test]
fn bad_paths_and_patterns_are_errors() {
    let dir = fixture();
    assert_eq!(
        call(dir.path(), json!({"pattern": "*", "path": "missing"})),
        ("Directory does not exist: /ws/missing".into(), true)
    );
    assert_eq!(
        call(dir.path(), json!({"pattern": "*", "path": "Cargo.toml"})),
        ("Path is not a directory: /ws/Cargo.toml".into(), true)
    );
    let (out, is_error) = call(dir.path(), json!({"pattern": "src/[a-"}));
    assert!(is_error);
    assert!(
        out.starts_with("Invalid glob pattern \"src/[a-\": "),
        "{out}"
    );
    assert_eq!(
        call(dir.path(), json!({"path": "src"})),
        (r#"Glob: missing required field "pattern""#.into(), true)
    );
}
