//! The conventions every command shares: `--version` with the commit (and the bare version
//! from a tarball), `-v`/`-q` log levels with RUST_LOG winning, shell completions and man
//! pages, where `--suite` looks for tasks, and exit status 2 for bad input.

#[path = "../../build/commit.rs"]
mod commit;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `clawrun ARGS` with the log variables cleared and `env` set.
fn clawrun(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    c.args(args)
        .env_remove("RUST_LOG")
        .env_remove("CLAWRUN_LOG");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn fixture_suite() -> PathBuf {
    repo().join("tests/fixtures/suite")
}

#[test]
fn version_names_the_commit_and_stays_out_of_runs() {
    let out = clawrun(&["--version"], &[]);
    assert!(out.status.success());
    let printed = text(&out.stdout);
    let expected = match commit::from_git(repo()) {
        Some((c, _)) => commit::version_text(env!("CARGO_PKG_VERSION"), Some(&c)),
        None => commit::version_text(
            env!("CARGO_PKG_VERSION"),
            commit::from_vcs_info(repo()).as_ref(),
        ),
    };
    assert_eq!(printed.trim_end(), format!("clawrun {expected}"));
    let Some((c, _)) = commit::from_git(repo()) else {
        return; // built from a tarball: nothing more to see
    };
    let date = c.date.clone().unwrap();
    assert!(
        c.hash.len() >= 7 && c.hash.chars().all(|ch| ch.is_ascii_hexdigit()),
        "{c:?}"
    );
    assert!(
        printed.contains(&format!("({} {date})", c.hash)),
        "{printed}"
    );

    // The commit is in no file of a run: traces, journal, run.json, reports.
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args([
            "run", "e2e_chat", "--json", "--trials", "1", "--faults", "none",
        ])
        .arg("--suite")
        .arg(fixture_suite())
        .arg("--out")
        .arg(&run)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut stack = vec![run];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let body = std::fs::read_to_string(&p).unwrap();
                assert!(!body.contains(&c.hash), "{} holds the commit", p.display());
            }
        }
    }
}

#[test]
fn without_git_the_version_is_bare_or_from_the_package_s_vcs_info() {
    let tmp = tempfile::tempdir().unwrap();
    // An unpacked tarball: no .git anywhere above (the temp folder).
    let tarball = tmp.path().join("clawrun-0.1.0");
    std::fs::create_dir_all(&tarball).unwrap();
    assert_eq!(commit::from_git(&tarball), None);
    assert_eq!(commit::from_vcs_info(&tarball), None);
    assert_eq!(commit::version_text("0.1.0", None), "0.1.0");
    // ... unpacked inside someone else's repository: that repository's commit is not ours.
    let outer = tmp.path().join("monorepo");
    let inner = outer.join("vendor/clawrun");
    std::fs::create_dir_all(&inner).unwrap();
    let git = Command::new("git")
        .arg("init")
        .arg("-q")
        .arg(&outer)
        .status();
    if git.is_ok_and(|s| s.success()) {
        assert_eq!(commit::from_git(&inner), None);
    }
    // A crates.io package carries its commit in .cargo_vcs_info.json.
    std::fs::write(
        tarball.join(".cargo_vcs_info.json"),
        "{\n  \"git\": {\n    \"sha1\": \"401b58b9c0ffee0000000000000000000000beef\"\n  },\n  \"path_in_vcs\": \"\"\n}",
    )
    .unwrap();
    let c = commit::from_vcs_info(&tarball).unwrap();
    assert_eq!(commit::version_text("0.1.0", Some(&c)), "0.1.0 (401b58b)");
}

#[test]
fn verbose_flags_raise_the_log_level_and_rust_log_wins() {
    let suite = fixture_suite();
    let suite = suite.to_str().unwrap();
    let list = |flags: &[&str], env: &[(&str, &str)]| {
        let mut args = flags.to_vec();
        args.extend(["list", "--suite", suite]);
        let o = clawrun(&args, env);
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stderr)
    };
    assert_eq!(list(&[], &[]), "", "quiet by default");
    let v = list(&["-v"], &[]);
    assert!(v.contains("INFO") && v.contains("2 task folders"), "{v}");
    assert!(!v.contains("DEBUG"), "{v}");
    // After the command too (a global flag), and repeatable.
    let o = clawrun(&["list", "--suite", suite, "-vv"], &[]);
    assert!(text(&o.stderr).contains("INFO"), "{}", text(&o.stderr));
    // RUST_LOG decides when set, whatever the flags say.
    assert_eq!(list(&["-v"], &[("RUST_LOG", "off")]), "");
    assert!(list(&[], &[("RUST_LOG", "clawrun=info")]).contains("INFO"));
    assert_eq!(list(&["-q"], &[]), "");
    // -q and -v contradict each other: a usage error.
    let o = clawrun(&["-q", "-v", "list", "--suite", suite], &[]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn completions_and_man_pages_describe_every_command() {
    for (shell, marker) in [
        ("bash", "_clawrun()"),
        ("zsh", "#compdef clawrun"),
        ("fish", "complete -c clawrun"),
        ("elvish", "clawrun"),
        ("powershell", "clawrun"),
    ] {
        let o = clawrun(&["completions", shell], &[]);
        assert!(o.status.success(), "{shell}: {}", text(&o.stderr));
        let script = text(&o.stdout);
        assert!(script.contains(marker), "{shell}");
        for word in ["judge", "replay", "suite", "max-connections"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    assert_eq!(
        clawrun(&["completions", "tcsh"], &[]).status.code(),
        Some(2)
    );

    let o = clawrun(&["man"], &[]);
    assert!(o.status.success());
    let page = text(&o.stdout);
    assert!(
        page.contains(".TH clawrun 1"),
        "{}",
        &page[..200.min(page.len())]
    );
    assert!(
        page.contains("clawrun\\-judge") || page.contains("judge"),
        "{page}"
    );
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("man1");
    let o = clawrun(&["man", "--dir", dir.to_str().unwrap()], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for page in [
        "clawrun.1",
        "clawrun-run.1",
        "clawrun-judge.1",
        "clawrun-report.1",
    ] {
        let body = std::fs::read_to_string(dir.join(page)).unwrap();
        assert!(body.starts_with(".ie") || body.contains(".TH"), "{page}");
    }
    let run_page = std::fs::read_to_string(dir.join("clawrun-run.1")).unwrap();
    assert!(run_page.contains("\\-\\-pass\\-threshold"), "{run_page}");
}

/// Writes a minimal task file at `dir` under `root`.
fn task_at(root: &Path, dir: &str) {
    let chat = std::fs::read_to_string(fixture_suite().join("tasks/e2e_chat/task.yaml")).unwrap();
    let d = root.join(dir);
    std::fs::create_dir_all(&d).unwrap();
    let id = dir.rsplit('/').next().unwrap();
    std::fs::write(
        d.join("task.yaml"),
        chat.replace("task_id: e2e_chat", &format!("task_id: {id}")),
    )
    .unwrap();
}

#[test]
fn the_suite_is_searched_only_where_the_docs_say_and_no_tasks_is_one_line_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(empty.join("a/b")).unwrap();
    // Too deep to be found: three folders below the root (no tasks/ folder).
    let deep = tmp.path().join("deep");
    task_at(&deep, "a/b/too_deep");
    for suite in [&empty, &deep] {
        for cmd in ["list", "validate", "run"] {
            let out = tmp.path().join(format!("out-{cmd}"));
            let o = Command::new(env!("CARGO_BIN_EXE_clawrun"))
                .args([cmd, "--suite"])
                .arg(suite)
                .args(if cmd == "run" {
                    vec!["--out", out.to_str().unwrap()]
                } else {
                    vec![]
                })
                .output()
                .unwrap();
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{cmd} {}: {err}", suite.display());
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(
                err.contains("no tasks found") && err.contains("tasks/GROUP/ID/task.yaml"),
                "{err}"
            );
            assert!(!out.exists());
        }
    }
    // Two levels are: tasks/ID and tasks/GROUP/ID.
    let ok = tmp.path().join("ok");
    task_at(&ok, "tasks/one");
    task_at(&ok, "tasks/group/two");
    task_at(&ok, "tasks/group/sub/three");
    let o = clawrun(&["list", "--json", "--suite", ok.to_str().unwrap()], &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut ids: Vec<String> = serde_json::from_slice::<serde_json::Value>(&o.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    assert_eq!(ids, ["one", "two"]);
}

#[test]
fn bad_input_exits_2_in_every_command() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    task_at(&suite, "tasks/good");
    let broken = suite.join("tasks/broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("task.yaml"), "task_id: broken\nprompt: {text: hi}\nscoring_components:\n  - {name: x, weight: one, check: {type: tool_called, tool_name: Bash}}\n").unwrap();
    let s = suite.to_str().unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    let cases: [&[&str]; 7] = [
        &["list", "--suite", s],
        &["validate", "--suite", s],
        &["run", "--suite", s, "--out", o],
        &[
            "run",
            "good",
            "--suite",
            s,
            "--out",
            o,
            "--faults",
            "no-such-plan.yaml",
        ],
        &["run", "nothing-like-it", "--suite", s, "--out", o],
        &["list", "--suite", "/no/such/folder"],
        &["judge", "/no/such/run", "--judge", "openai:m", "--suite", s],
    ];
    for args in cases {
        let r = clawrun(args, &[]);
        let err = text(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} made a run folder");
    }
    let r = clawrun(&["list", "--suite", s], &[]);
    assert!(
        text(&r.stderr).contains("tasks/broken/task.yaml:4:"),
        "{}",
        text(&r.stderr)
    );
}
