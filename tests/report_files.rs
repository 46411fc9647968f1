//! `clawrun run --report html|md|none`: which report files the run folder gets (the HTML
//! viewer holds every trace, so long runs may leave it out), and `--html` with a report kind
//! that has no HTML is refused.

use std::path::Path;
use std::process::{Command, Output};

fn run(out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "run",
            "T002_email_triage",
            "--trials",
            "2",
            "--faults",
            "none",
            "-j",
            "1",
        ])
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_report_files_a_run_writes_are_chosen() {
    let tmp = tempfile::tempdir().unwrap();
    for (kind, html, md) in [
        ("html", true, true),
        ("md", false, true),
        ("none", false, false),
    ] {
        let out = tmp.path().join(kind);
        let o = run(&out, &["--report", kind]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(out.join("report.html").is_file(), html, "{kind}");
        assert_eq!(out.join("report.md").is_file(), md, "{kind}");
        assert!(out.join("journal.jsonl").is_file(), "{kind}");
        // The summary is printed whatever is written.
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("clawrun report:"),
            "{kind}"
        );
    }
    let out = tmp.path().join("conflict");
    let o = run(&out, &["--report", "md", "--html", "x.html"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--html FILE writes the HTML report"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.exists());
}
