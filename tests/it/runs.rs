//! Runs (issue 6): a run killed with SIGKILL mid-way and resumed leaves the same journal as an
//! uninterrupted run; two shards merged report the same as the unsharded run; Ctrl-C stops
//! cleanly with a consistent journal.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The test suite.
fn suite() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/suite")
        .display()
        .to_string()
}

/// `clawrun run` on the test suite with `extra` arguments into `out`.
fn clawrun_run(out: &Path, trials: u32, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    c.args([
        "run",
        "--suite",
        &suite(),
        "--faults",
        "claw-eval:0.5",
        "--seed",
        "3",
        "-j",
        "2",
        "--json",
    ])
    .args(["--trials", &trials.to_string(), "--out"])
    .arg(out)
    .args(extra)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    c
}

/// The journal's lines, sorted (workers finish in any order).
fn sorted_lines(path: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

/// Waits until `path` holds at least `n` lines.
fn wait_for_lines(path: &Path, n: usize) -> usize {
    for _ in 0..20_000 {
        if let Ok(text) = std::fs::read_to_string(path) {
            let have = text.lines().count();
            if have >= n {
                return have;
            }
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("{} never reached {n} lines", path.display());
}

#[test]
fn kill_9_then_resume_equals_an_uninterrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let trials = 100; // 2 tasks x 100 = 200 trials
    let whole = tmp.path().join("whole");
    let done = clawrun_run(&whole, trials, &[]).output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );

    let cut = tmp.path().join("cut");
    let mut child = clawrun_run(&cut, trials, &[]).spawn().unwrap();
    let seen = wait_for_lines(&cut.join("journal.jsonl"), 10);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let at_kill = std::fs::read_to_string(cut.join("journal.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(
        seen >= 10 && at_kill < 200,
        "the kill landed mid-run ({at_kill} of 200 finished)"
    );

    let resumed = clawrun_run(&cut, trials, &["--resume"]).output().unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert_eq!(
        sorted_lines(&cut.join("journal.jsonl")),
        sorted_lines(&whole.join("journal.jsonl"))
    );
    // Without --resume an existing run folder is refused.
    let again = clawrun_run(&cut, trials, &[]).output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));
}

#[test]
fn two_shards_merged_equal_the_unsharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    let sharded = tmp.path().join("sharded");
    assert!(
        clawrun_run(&whole, 5, &[])
            .output()
            .unwrap()
            .status
            .success()
    );
    let a = clawrun_run(&sharded, 5, &["--shard", "0/2"])
        .output()
        .unwrap();
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    // The second shard takes its index from the environment, as a Slurm array task would.
    let b = clawrun_run(&sharded, 5, &["--shards", "2", "--resume"])
        .env("SLURM_ARRAY_TASK_ID", "1")
        .output()
        .unwrap();
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let one = sorted_lines(&sharded.join("journal.shard-0-of-2.jsonl"));
    let two = sorted_lines(&sharded.join("journal.shard-1-of-2.jsonl"));
    assert_eq!(one.len() + two.len(), 10);
    assert!(!one.is_empty() && !two.is_empty());

    let report = |run: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
            .args(["report", "--json"])
            .arg(run)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // Everything but the wall times (timings.jsonl: the one machine-dependent input) agrees.
    assert_eq!(
        without_wall_times(&report(&sharded)),
        without_wall_times(&report(&whole))
    );
    let mut merged: Vec<String> = one.into_iter().chain(two).collect();
    merged.sort();
    assert_eq!(merged, sorted_lines(&whole.join("journal.jsonl")));
}

#[test]
fn ctrl_c_stops_cleanly_and_the_journal_stays_consistent() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let child = clawrun_run(&out, 300, &[]).spawn().unwrap();
    wait_for_lines(&out.join("journal.jsonl"), 5);
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let result = child.wait_with_output().unwrap();
    let lines = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let n = lines.lines().count();
    assert!(n < 600, "stopped early ({n} of 600)");
    assert_eq!(
        result.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    for line in lines.lines() {
        serde_json::from_str::<serde_json::Value>(line).expect("whole records only");
    }
    let resumed = clawrun_run(&out, 300, &["--resume"]).output().unwrap();
    assert!(resumed.status.success());
    assert_eq!(
        std::fs::read_to_string(out.join("journal.jsonl"))
            .unwrap()
            .lines()
            .count(),
        600
    );
}

#[test]
fn list_and_report_outputs() {
    let list = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["list", "--suite", &suite()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&list.stdout);
    assert!(list.status.success(), "{text}");
    assert!(
        text.contains("e2e_mail") && text.contains("multi-turn"),
        "{text}"
    );
    assert!(text.contains("2 tasks, 0 failed to load"), "{text}");

    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    assert!(clawrun_run(&run, 2, &[]).output().unwrap().status.success());
    let (html, md) = (tmp.path().join("r.html"), tmp.path().join("r.md"));
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .arg("report")
        .arg(&run)
        .arg("--html")
        .arg(&html)
        .arg("--markdown")
        .arg(&md)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{table}");
    assert!(
        table.contains("e2e_chat") && table.contains("overall"),
        "{table}"
    );
    let md = std::fs::read_to_string(md).unwrap();
    assert!(
        md.contains("e2e\\_mail") && md.contains("| overall |"),
        "{md}"
    );
    let html = std::fs::read_to_string(html).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("e2e_mail"));
    // A folder that holds no run is a usage error.
    let bad = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .arg("report")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no journal.jsonl"));
}

/// `report --json` output with every wall time and the session count removed.
fn without_wall_times(json: &str) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                for key in ["wall_ms", "run_wall_ms", "sessions"] {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    strip(&mut v);
    v
}
