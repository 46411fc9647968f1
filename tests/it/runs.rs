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
/// The journal's records at `path` (in run folder `run`), sorted, each with its trace's bytes
/// in place of where they are: which pack and span a trace went to depends on which worker ran
/// the trial, everything else is the run's own.
pub(crate) fn sorted_records(run: &Path, path: &Path) -> Vec<String> {
    let mut lines: Vec<String> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let mut record: clawrun::report::TrialRecord = serde_json::from_str(line).unwrap();
            let trace = record.trace_bytes(run).unwrap();
            record.trace = format!("blake3:{}", blake3::hash(&trace));
            record.trace_span = None;
            record.to_line()
        })
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
        sorted_records(&cut, &cut.join("journal.jsonl")),
        sorted_records(&whole, &whole.join("journal.jsonl"))
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
    let one = sorted_records(&sharded, &sharded.join("journal.shard-0-of-2.jsonl"));
    let two = sorted_records(&sharded, &sharded.join("journal.shard-1-of-2.jsonl"));
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
    assert_eq!(merged, sorted_records(&whole, &whole.join("journal.jsonl")));
}

#[test]
fn a_one_based_slurm_array_with_a_task_resubmitted_alone_equals_the_unsharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    let sharded = tmp.path().join("sharded");
    assert!(
        clawrun_run(&whole, 4, &[])
            .output()
            .unwrap()
            .status
            .success()
    );
    // `sbatch --array=1-4 run.sh`, where run.sh runs `clawrun run --out DIR --resume`; task 3
    // is cancelled before it runs anything.
    for id in ["1", "2", "4"] {
        let o = clawrun_run(&sharded, 4, &["--resume"])
            .env("SLURM_ARRAY_TASK_ID", id)
            .env("SLURM_ARRAY_TASK_MIN", "1")
            .env("SLURM_ARRAY_TASK_MAX", "4")
            .env("SLURM_ARRAY_TASK_COUNT", "4")
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    for (index, id) in [(0, 1), (1, 2), (3, 4)] {
        let manifest = sharded.join(format!("run.shard-{index}-of-4.json"));
        assert!(manifest.is_file(), "task {id} is shard {index}");
    }
    // `sbatch --array=3 run.sh`: Slurm says an array of one; the folder says which shard.
    let o = clawrun_run(&sharded, 4, &["--resume"])
        .env("SLURM_ARRAY_TASK_ID", "3")
        .env("SLURM_ARRAY_TASK_MIN", "3")
        .env("SLURM_ARRAY_TASK_MAX", "3")
        .env("SLURM_ARRAY_TASK_COUNT", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("SLURM_ARRAY_TASK_COUNT=1 but") && err.contains("this is shard 2/4"),
        "{err}"
    );
    let mut merged = Vec::new();
    for index in 0..4 {
        let journal = sharded.join(format!("journal.shard-{index}-of-4.jsonl"));
        merged.extend(sorted_records(&sharded, &journal));
    }
    merged.sort();
    assert_eq!(merged, sorted_records(&whole, &whole.join("journal.jsonl")));
}

#[test]
fn a_kubernetes_indexed_job_of_four_pods_at_once_equals_the_unsharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    let sharded = tmp.path().join("sharded");
    let done = clawrun_run(&whole, 6, &[]).output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    // What deploy/kubernetes/job.yaml runs: every pod the same command, started together
    // into one folder, Kubernetes setting JOB_COMPLETION_INDEX.
    let pods: Vec<_> = (0..4)
        .map(|index| {
            clawrun_run(&sharded, 6, &["--shards", "4", "--resume"])
                .env("JOB_COMPLETION_INDEX", index.to_string())
                .spawn()
                .unwrap()
        })
        .collect();
    for (index, pod) in pods.into_iter().enumerate() {
        let o = pod.wait_with_output().unwrap();
        assert!(
            o.status.success(),
            "pod {index}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let mut merged = Vec::new();
    for index in 0..4 {
        let journal = sharded.join(format!("journal.shard-{index}-of-4.jsonl"));
        let records = sorted_records(&sharded, &journal);
        assert_eq!(records.len(), 3, "shard {index}: 2 tasks x 6 trials / 4");
        merged.extend(records);
    }
    merged.sort();
    assert_eq!(merged, sorted_records(&whole, &whole.join("journal.jsonl")));
    let report = |run: &Path, flags: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
            .arg("report")
            .args(flags)
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
    assert_eq!(
        without_wall_times(&report(&sharded, &["--json"])),
        without_wall_times(&report(&whole, &["--json"]))
    );
    report(&sharded, &["--require-complete"]);
}

#[test]
fn report_names_a_missing_and_an_unfinished_shard_and_require_complete_fails_on_them() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("sharded");
    let report = |run: &Path| {
        Command::new(env!("CARGO_BIN_EXE_clawrun"))
            .args(["report", "--require-complete"])
            .arg(run)
            .output()
            .unwrap()
    };
    let a = clawrun_run(&run, 4, &["--shard", "0/2"]).output().unwrap();
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let o = report(&run);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("shard 1/2: missing (no run.shard-1-of-2.json"),
        "{err}"
    );
    // The second shard stops after its second trial (as a node lost mid-run would).
    let b = clawrun_run(&run, 4, &["--shard", "1/2", "--resume"])
        .env("CLAWRUN_CRASH_AT", "trace-written:3")
        .output()
        .unwrap();
    assert_eq!(
        b.status.code(),
        None,
        "{}",
        String::from_utf8_lossy(&b.stderr)
    );
    let o = report(&run);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("shard 1/2: unfinished: ") && err.contains(" of 4 trials recorded"),
        "{err}"
    );
    assert!(!err.contains("shard 0/2"), "{err}");
    let b = clawrun_run(&run, 4, &["--shard", "1/2", "--resume"])
        .output()
        .unwrap();
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let o = report(&run);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        !err.contains("unfinished") && !err.contains("missing"),
        "{err}"
    );
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

/// `report --json` output with every wall time and the session count removed, and the run
/// folders' paths (`folders`: where a run is, not what it holds).
pub(crate) fn without_wall_times(json: &str) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                for key in ["wall_ms", "wall_us", "run_wall_ms", "sessions"] {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    if let Some(map) = v.as_object_mut() {
        map.remove("folders");
    }
    strip(&mut v);
    v
}

#[test]
fn traces_go_to_one_pack_per_worker_or_one_file_per_trial_and_trace_prints_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (packed, files) = (tmp.path().join("packed"), tmp.path().join("files"));
    for (out, extra) in [(&packed, &[][..]), (&files, &["--traces", "files"][..])] {
        let done = clawrun_run(out, 3, extra).output().unwrap();
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
    }
    // Same trials, same traces, wherever they are.
    assert_eq!(
        sorted_records(&packed, &packed.join("journal.jsonl")),
        sorted_records(&files, &files.join("journal.jsonl"))
    );
    let records = |run: &Path| -> Vec<clawrun::report::TrialRecord> {
        std::fs::read_to_string(run.join("journal.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    // Two workers: two packs, no folder per trial; each pack is the traces its worker wrote,
    // one after another, as the spans say.
    let packed_records = records(&packed);
    assert!(packed_records.iter().all(|r| r.trace_span.is_some()));
    let mut packs: Vec<String> = packed_records.iter().map(|r| r.trace.clone()).collect();
    packs.sort();
    packs.dedup();
    assert_eq!(packs, ["traces/0.jsonl", "traces/1.jsonl"]);
    // (Only trials that changed the workspace get a folder, for their changes.json.)
    assert!(!packed.join("e2e_chat").exists());
    assert!(!packed.join("e2e_mail/0/trace.jsonl").exists());
    assert!(packed.join("e2e_mail/0/changes.json").is_file());
    for pack in &packs {
        let mut spans: Vec<_> = packed_records
            .iter()
            .filter(|r| &r.trace == pack)
            .map(|r| r.trace_span.unwrap())
            .collect();
        spans.sort_by_key(|s| s.offset);
        let covered = spans
            .iter()
            .try_fold(0, |at, s| (s.offset == at).then(|| s.end()));
        assert_eq!(
            covered,
            Some(std::fs::metadata(packed.join(pack)).unwrap().len())
        );
    }
    assert!(
        records(&files).iter().all(|r| r.trace_span.is_none()
            && r.trace == format!("{}/{}/trace.jsonl", r.task_id, r.trial))
    );

    // `clawrun trace` prints a trial's trace, a task's, or the run's, in order.
    let trace = |target: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
            .arg("trace")
            .arg(target)
            .output()
            .unwrap();
        (
            out.status.code(),
            out.stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for run in [&packed, &files] {
        let one = trace(&run.join("e2e_mail/1"));
        assert_eq!(one.0, Some(0), "{}", one.2);
        assert_eq!(one.1, crate::common::trial_trace(run, "e2e_mail", 1));
        let task = trace(&run.join("e2e_mail"));
        let want: Vec<u8> = (0..3)
            .flat_map(|t| crate::common::trial_trace(run, "e2e_mail", t))
            .collect();
        assert_eq!(task.1, want);
        let all = trace(run);
        assert_eq!(
            String::from_utf8(all.1)
                .unwrap()
                .matches("\"type\":\"trace_start\"")
                .count(),
            packed_records.len()
        );
    }
    let (code, _, err) = trace(&packed.join("e2e_mail/7"));
    assert_eq!(code, Some(2));
    assert!(
        err.contains("e2e_mail/7: the run recorded no such trial"),
        "{err}"
    );
}
