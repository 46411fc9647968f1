//! `clawrun replay` of a run whose run.json records a relative suite (`--suite .`), started
//! from another directory, and of a run folder holding only shard files.

use std::path::Path;
use std::process::{Command, Output};

use crate::fs_support;
use fs_support::copy_dir;

/// `clawrun ARGS` in `cwd`.
fn clawrun(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// A copy of the test suite in `tmp/suite`, and an unrelated folder `tmp/elsewhere`.
fn setup(tmp: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let suite = tmp.join("suite");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite"),
        &suite,
    );
    let elsewhere = tmp.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    (suite, elsewhere)
}

/// Lines in the files of `run` whose names start with `journal`.
fn journal_lines(run: &Path) -> usize {
    std::fs::read_dir(run)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("journal")
        })
        .map(|p| std::fs::read_to_string(p).unwrap().lines().count())
        .sum()
}

fn text(out: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn replay_from_another_directory_finds_the_suite_next_to_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (suite, elsewhere) = setup(tmp.path());
    let run = clawrun(
        &suite,
        &[
            "run", "--suite", ".", "--seed", "5", "--trials", "2", "--out", "runs-a",
        ],
    );
    assert!(run.status.success(), "{}", text(&run));
    let target = suite.join("runs-a");
    let n = journal_lines(&target);
    assert!(n > 0);

    // "." is not the suite from `elsewhere`, but it is relative to the run folder's parent
    let out = clawrun(&elsewhere, &["replay", target.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("{n} trials replayed, {n} identical, 0 diverged")),
        "{}",
        text(&out)
    );

    // a run moved away from its suite: both tries are named, and --suite fixes it
    let moved = elsewhere.join("moved");
    std::fs::rename(&target, &moved).unwrap();
    let out = clawrun(&elsewhere, &["replay", moved.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = text(&out);
    assert!(err.contains("relative to the current directory"), "{err}");
    assert!(err.contains("relative to the run folder's parent"), "{err}");
    assert!(err.contains(&elsewhere.display().to_string()), "{err}");
    assert!(err.contains("--suite"), "{err}");
    let out = clawrun(
        tmp.path(),
        &[
            "replay",
            "--suite",
            suite.to_str().unwrap(),
            moved.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn a_sharded_run_replays_all_its_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let (suite, elsewhere) = setup(tmp.path());
    for (shard, extra) in [("0/2", None), ("1/2", Some("--resume"))] {
        let mut args = vec![
            "run", "--suite", ".", "--seed", "5", "--trials", "2", "--out", "sharded", "--shard",
            shard,
        ];
        args.extend(extra);
        let out = clawrun(&suite, &args);
        assert!(out.status.success(), "{}", text(&out));
    }
    let target = suite.join("sharded");
    assert!(!target.join("run.json").exists());
    assert!(target.join("run.shard-0-of-2.json").is_file());
    let n = journal_lines(&target);
    assert!(n >= 2, "{n}");
    let out = clawrun(&elsewhere, &["replay", target.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("{n} trials replayed, {n} identical, 0 diverged")),
        "{}",
        text(&out)
    );

    // the report's header names the run's settings and both shards
    let out = clawrun(&suite, &["report", "sharded"]);
    assert!(out.status.success(), "{}", text(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("run sharded: agent oracle, seed 5, faults claw-eval:0.25, judge none, trials 2, shards 0/2 1/2, clawrun "),
        "{report}"
    );
}
