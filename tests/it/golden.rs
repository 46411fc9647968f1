//! The golden replay records (`snapshots/golden`, recorded by `scripts/record-golden.sh`):
//! every bundled task's oracle trial, replayed from its trace, must give a byte-identical trace
//! (per-step hashes, tool results, faults) and identical scores.

use std::path::Path;
use std::process::Command;

#[test]
fn golden_records_replay_identically() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let golden = root.join("snapshots/golden");
    assert!(
        golden.join("journal.jsonl").is_file(),
        "snapshots/golden is missing: run scripts/record-golden.sh"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["replay", "--suite", "."])
        .arg(&golden)
        .current_dir(root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "golden replay diverged (if the change was intended, run scripts/record-golden.sh and review the diff):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let journal = std::fs::read_to_string(golden.join("journal.jsonl")).unwrap();
    let n = journal.lines().count();
    assert!(
        stdout.contains(&format!("{n} trials replayed, {n} identical, 0 diverged")),
        "{stdout}"
    );
}

#[test]
fn the_bundled_suite_validates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["validate", "--suite", "."])
        .current_dir(root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(", 0 failed"), "{stdout}");
}
