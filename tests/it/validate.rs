//! `clawrun validate` fails a task whose careless agent passes, whose oracle fails, or whose
//! judge file is visible during Execution; and passes the sample tasks.

use std::path::Path;
use std::process::Command;

use crate::fs_support;
use fs_support::copy_dir;

/// Runs `clawrun validate` on `suite`; returns (exit code, stdout).
fn validate(suite: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["validate", "--suite"])
        .arg(suite)
        .arg("e2e_mail")
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn validate_catches_weak_rubrics_failing_oracles_and_leaks() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite"),
        &suite,
    );
    let task = suite.join("tasks/e2e_mail");
    let (code, out) = validate(&suite);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("oracle passes") && out.contains("careless agent fails"),
        "{out}"
    );

    // A careless agent that does what the oracle does passes: the rubric is called out.
    let yaml = std::fs::read_to_string(task.join("task.yaml")).unwrap();
    let oracle = &yaml[yaml.find("oracle:\n").unwrap() + "oracle:\n".len()..];
    let script: String = oracle
        .lines()
        .map(|l| format!("{}\n", l.strip_prefix("  ").unwrap_or(l)))
        .collect();
    std::fs::write(task.join("careless.yaml"), &script).unwrap();
    let (code, out) = validate(&suite);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("the careless agent (careless.yaml) passes"),
        "{out}"
    );
    std::fs::remove_file(task.join("careless.yaml")).unwrap();

    // An oracle that forgets the summary file and names no email fails its own rubric.
    let broken = yaml
        .replace(
            "echo 'inbox: 8 messages, msg_001 first' > /workspace/summary.txt",
            "true",
        )
        .replace(
            "answer: \"msg_001 from your boss needs a reply first; the summary is in summary.txt.\"",
            "answer: Done.",
        );
    std::fs::write(task.join("task.yaml"), &broken).unwrap();
    let (code, out) = validate(&suite);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("the oracle does not pass") && out.contains("summary_written"),
        "{out}"
    );

    // A judge file copied into the workspace is found by the firewall probe.
    std::fs::copy(task.join("judge/expected.txt"), task.join("expected.txt")).unwrap();
    let leaky = yaml.replace(
        "sandbox_files:\n  - notes.md",
        "sandbox_files:\n  - notes.md\n  - expected.txt",
    );
    std::fs::write(task.join("task.yaml"), &leaky).unwrap();
    let (code, out) = validate(&suite);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("judge firewall: judge file /judge/expected.txt is visible during Execution"),
        "{out}"
    );
}

#[test]
fn agents_whose_rubric_is_all_llm_judged_are_called_unjudged_not_failing() {
    // T091's every weighted item needs the LLM judge: offline, no agent's score means anything.
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["validate", "--suite"])
        .arg(env!("CARGO_MANIFEST_DIR"))
        .arg("T091_pinbench_humanize_blog")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("do-nothing agent unjudged: every weighted rubric item is LLM-judged"),
        "{text}"
    );
    assert!(text.contains("careless agent unjudged"), "{text}");
    assert!(!text.contains("agent fails: score"), "{text}");
}

/// An oracle whose tool calls fail (no fault injected) does not pass validation, though its
/// answer scores: a wrong path fails the task; a file the task references but the suite lacks
/// (a fixture upstream never committed) makes it unverifiable, reported as skipped.
#[test]
fn an_oracle_whose_calls_fail_is_not_passed() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite"),
        &suite,
    );
    let task = suite.join("tasks/e2e_mail");
    let yaml = std::fs::read_to_string(task.join("task.yaml")).unwrap();
    let step = "  steps:\n    - call: gmail_list_messages\n";
    assert!(yaml.contains(step));
    let reading = |path: &str| {
        yaml.replace(
            step,
            &format!("  steps:\n    - call: Read\n      args: {{file_path: {path}}}\n    - call: gmail_list_messages\n"),
        )
    };

    std::fs::write(
        task.join("task.yaml"),
        reading("/workspace/no_such_notes.md"),
    )
    .unwrap();
    let (code, out) = validate(&suite);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL e2e_mail"), "{out}");
    assert!(
        out.contains("the oracle's tool calls fail (no fault was injected into them): Read: "),
        "{out}"
    );

    let missing = reading("/workspace/lost.md").replace(
        "sandbox_files:\n  - notes.md",
        "sandbox_files:\n  - notes.md\n  - lost.md",
    );
    assert_ne!(missing, reading("/workspace/lost.md"));
    std::fs::write(task.join("task.yaml"), missing).unwrap();
    let (code, out) = validate(&suite);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("skip e2e_mail"), "{out}");
    assert!(
        out.contains("not validated: the oracle's tool calls fail on files the task references but the suite lacks (`lost.md`)"),
        "{out}"
    );
    assert!(!out.contains("oracle passes"), "{out}");
    assert!(out.contains("1 tasks, 0 failed, 1 skipped"), "{out}");
}
