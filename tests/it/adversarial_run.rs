//! Evaluation integrity around runs (issue 11, items 6, 7 and 9), black-box through the
//! `clawrun` binary, one test per trick: task ids that are paths, duplicate task ids,
//! `--resume` with another configuration, `--force` where it is allowed, a deleted trace file,
//! and a reader of stdout that goes away early.

use std::io::PipeWriter;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::fs_support;
use fs_support::copy_dir;

/// The test suite (two tasks: `e2e_chat`, `e2e_mail`).
fn fixture_suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite")
}

/// A suite under `root` whose task folders are `(folder, task_id)`, each a copy of the fixture
/// task `e2e_chat` (no services, quick) with that id.
fn suite_with(root: &Path, tasks: &[(&str, &str)]) -> PathBuf {
    let chat = std::fs::read_to_string(fixture_suite().join("tasks/e2e_chat/task.yaml")).unwrap();
    let suite = root.join("suite");
    for (folder, id) in tasks {
        let dir = suite.join("tasks").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let yaml = chat.replacen("task_id: e2e_chat", &format!("task_id: {id}"), 1);
        assert_ne!(yaml, chat);
        std::fs::write(dir.join("task.yaml"), yaml).unwrap();
    }
    suite
}

/// `clawrun ARGS`.
fn clawrun(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    c.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    c
}

/// `clawrun run` on `suite` into `out` (one worker; no faults and seed 3 unless `extra` says
/// otherwise), plus `extra`.
fn run(suite: &Path, out: &Path, trials: u32, extra: &[&str]) -> Output {
    let mut c = clawrun(&["run", "--json", "-j", "1"]);
    for (flag, default) in [("--faults", "none"), ("--seed", "3")] {
        if !extra.contains(&flag) {
            c.args([flag, default]);
        }
    }
    c.arg("--suite")
        .arg(suite)
        .arg("--out")
        .arg(out)
        .args(["--trials", &trials.to_string()])
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count()
}

/// Every file under `root`, relative to it, sorted.
fn files(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

#[test]
fn a_task_id_climbing_out_of_the_run_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with(tmp.path(), &[("evil", "../../x")]);
    let out = tmp.path().join("runs/deep/out");
    let o = run(&suite, &out, 1, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "tasks/evil/task.yaml:1:10: task_id: `../../x` is not a valid task id: it contains a \
             path separator `/` (hint: task ids name the run's trace folders"
        ),
        "{err}"
    );
    // Nothing was written anywhere (before, the traces went to runs/x/0/).
    assert_eq!(files(tmp.path()), ["suite/tasks/evil/task.yaml"]);
}

#[test]
fn an_absolute_task_id_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("elsewhere");
    let id = target.display().to_string();
    let suite = suite_with(tmp.path(), &[("abs", &id)]);
    let o = run(&suite, &tmp.path().join("out"), 1, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "tasks/abs/task.yaml:1:10: task_id: `{id}` is not a valid task id"
        )),
        "{err}"
    );
    assert!(!target.exists(), "the run wrote to the absolute id's path");
    assert_eq!(files(tmp.path()), ["suite/tasks/abs/task.yaml"]);
}

#[test]
fn duplicate_task_ids_are_refused_by_run_validate_and_list_naming_both_files() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with(tmp.path(), &[("first", "same"), ("second", "same")]);
    let both = "tasks/second/task.yaml:1:10: task_id: `same` is also the id of \
                tasks/first/task.yaml:1:10";
    let out = tmp.path().join("out");
    let o = run(&suite, &out, 1, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains(both), "{}", stderr(&o));
    assert!(!out.exists(), "a run started");
    let v = clawrun(&["validate", "--suite"])
        .arg(&suite)
        .output()
        .unwrap();
    assert_eq!(v.status.code(), Some(2));
    assert!(stderr(&v).contains(both), "{}", stderr(&v));
    let l = clawrun(&["list", "--suite"]).arg(&suite).output().unwrap();
    assert_eq!(l.status.code(), Some(2));
    assert!(stderr(&l).contains(both), "{}", stderr(&l));
    assert!(String::from_utf8_lossy(&l.stdout).contains("2 tasks, 2 failed to load"));
    // Selecting one of them is a valid run.
    let one = run(&suite, &out, 1, &["first"]);
    assert!(one.status.success(), "{}", stderr(&one));
}

#[test]
fn resuming_with_another_seed_faults_or_agent_is_refused_naming_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = fixture_suite();
    let out = tmp.path().join("run");
    let first = run(&suite, &out, 2, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let journal = out.join("journal.jsonl");
    let manifest = std::fs::read(out.join("run.json")).unwrap();
    assert_eq!(lines(&journal), 4);

    let cases: [(&[&str], &str); 4] = [
        (
            &["--seed", "4"],
            "seed: the run used 3 (run.json), this invocation 4 (hint: pass --seed 3",
        ),
        (
            &["--faults", "claw-eval:0.5"],
            "faults: the run used none (run.json), this invocation claw-eval:0.5 (plan ",
        ),
        (
            &["--agent", "idle"],
            "agent: the run used oracle (run.json), this invocation idle (hint: pass --agent oracle",
        ),
        (
            &["--pass-threshold", "0.5"],
            "score.pass_threshold: the run used 0.75 (run.json), this invocation 0.5",
        ),
    ];
    for (args, message) in cases {
        let o = run(&suite, &out, 2, &[&["--resume"], args].concat());
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("it holds trials of another configuration"),
            "{err}"
        );
        assert!(err.contains(message), "{args:?}: {err}");
        assert_eq!(lines(&journal), 4, "{args:?} appended trials");
        assert_eq!(std::fs::read(out.join("run.json")).unwrap(), manifest);
        // --force does not override these.
        let forced = run(&suite, &out, 2, &[&["--resume", "--force"], args].concat());
        assert_eq!(
            forced.status.code(),
            Some(2),
            "{args:?} --force: {}",
            stderr(&forced)
        );
        assert_eq!(lines(&journal), 4);
    }

    // Without run.json the journal's records still give the other seed away.
    std::fs::remove_file(out.join("run.json")).unwrap();
    let o = run(&suite, &out, 2, &["--resume", "--seed", "4"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("run.json is missing"), "{err}");
    assert!(err.contains("seed: the run used trial seed "), "{err}");
    assert!(err.contains("journal.jsonl:"), "{err}");
    assert_eq!(lines(&journal), 4);
}

#[test]
fn resuming_with_another_grader_is_refused_even_when_the_run_used_the_default() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = fixture_suite();
    let out = tmp.path().join("run");
    let first = run(&suite, &out, 1, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let journal = out.join("journal.jsonl");
    let before = lines(&journal);
    // Today's manifest, and one as clawrun wrote the default before (`"grader": null`).
    let manifest = std::fs::read_to_string(out.join("run.json")).unwrap();
    let mut legacy: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    legacy["grader"] = serde_json::Value::Null;
    for (name, text) in [
        ("today's", manifest.clone()),
        ("legacy", serde_json::to_string(&legacy).unwrap()),
    ] {
        std::fs::write(out.join("run.json"), &text).unwrap();
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("third_party/claw-eval");
        let checkout = checkout.to_str().unwrap();
        for grader in ["claw-eval", "both", "clawrun"] {
            let o = run(
                &suite,
                &out,
                1,
                &["--resume", "--grader", grader, "--claw-eval", checkout],
            );
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{name} {grader}: {err}");
            assert!(
                err.contains(&format!(
                    "grader.choice: the run used auto (run.json), this invocation {grader} (hint: pass --grader auto"
                )),
                "{name} {grader}: {err}"
            );
            assert!(!err.contains("written by an older clawrun"), "{err}");
            assert_eq!(lines(&journal), before, "{name} {grader}: trials appended");
        }
        // The run's own grader continues it.
        let o = run(&suite, &out, 1, &["--resume"]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
    }
}

/// A cassette at `dir` answering `https://example.com/` with `body`.
fn cassette_answering(dir: &Path, body: &[u8]) {
    let hash = blake3::hash(body).to_hex().to_string();
    let bodies = dir.join("bodies").join(&hash[..2]);
    std::fs::create_dir_all(&bodies).unwrap();
    std::fs::write(bodies.join(&hash), body).unwrap();
    let line = serde_json::json!({
        "request": {"kind": "fetch", "url": "https://example.com/"},
        "response": {"status": 200, "url": "https://example.com/", "body": hash, "size": body.len()},
        "latency_ms": 1,
        "recorded_unix": 0,
    });
    std::fs::write(dir.join("index.jsonl"), format!("{line}\n")).unwrap();
}

#[test]
fn resuming_with_other_model_settings_another_proxy_model_or_cassette_is_refused() {
    // Settings that change what a model answers or what the web says: each recorded in
    // run.json and checked, naming the field (issue 32, item 3).
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with(tmp.path(), &[("chat", "chat")]);
    let file = |name: &str, text: &str| {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    // Runs `extra` on a run folder, then resumes it with each of `others` (refused, naming
    // the field) and with `extra` again (continued).
    let check = |name: &str, extra: &[&str], others: &[(Vec<&str>, &str)]| {
        let out = tmp.path().join(name);
        let with_key = |trials: u32, args: &[&str]| {
            let mut c = clawrun(&["run", "--json", "-j", "1", "--faults", "none", "--no-probe"]);
            c.arg("--suite")
                .arg(&suite)
                .arg("--out")
                .arg(&out)
                .args(["--trials", &trials.to_string()])
                .args(args)
                .env("OPENAI_API_KEY", "sk-test-not-used")
                .output()
                .unwrap()
        };
        let first = with_key(1, extra);
        assert!(first.status.success(), "{name}: {}", stderr(&first));
        let journal = out.join("journal.jsonl");
        for (args, message) in others {
            let o = with_key(2, &[&["--resume"], &args[..]].concat());
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{name} {args:?}: {err}");
            assert!(err.contains(message), "{name} {args:?}: {err}");
            assert!(!err.contains("written by an older clawrun"), "{err}");
            assert_eq!(lines(&journal), 1, "{name} {args:?}: trials appended");
        }
        let again = with_key(2, &[&["--resume"], extra].concat());
        assert!(again.status.success(), "{name}: {}", stderr(&again));
        assert_eq!(lines(&journal), 2);
    };

    // A judge's output cap and whether it sees images (a model settings file).
    let settings = |rest: &str| {
        file(
            &format!("judge-{}.yaml", blake3::hash(rest.as_bytes()).to_hex()),
            &format!("judge:\n  model: openai:judge-model\n{rest}"),
        )
    };
    let (base, more_tokens, images) = (
        settings("  max_tokens: 100\n  images: false\n"),
        settings("  max_tokens: 200\n  images: false\n"),
        settings("  max_tokens: 100\n  images: true\n"),
    );
    check(
        "judge",
        &["--model-config", &base],
        &[
            (
                vec!["--model-config", &more_tokens],
                "models.judge.max_tokens: the run used 100 (run.json), this invocation 200",
            ),
            (
                vec!["--model-config", &images],
                "models.judge.images: the run used false (run.json), this invocation true",
            ),
        ],
    );

    // The model behind an agent program's proxy (`--model`).
    let script = |name: &str| {
        let path = file(name, "rules:\n  - reply: {text: fine}\n");
        format!("scripted:{path}")
    };
    let (one, two) = (script("one.yaml"), script("two.yaml"));
    let program = "cmd:sh -c 'exit 0'";
    check(
        "proxy",
        &["--agent", program, "--model", &one],
        &[
            (
                vec!["--agent", program, "--model", &two],
                &format!(
                    "models.proxy: the run used {one} (run.json), this invocation {two} (hint: pass --model {one}"
                ),
            ),
            (
                vec!["--agent", program],
                &format!("models.proxy: the run used {one} (run.json), this invocation none"),
            ),
        ],
    );

    // The cassette a replay answers from: another content is refused, a copy elsewhere is the
    // same web.
    let (first, other, copy) = (
        tmp.path().join("c1"),
        tmp.path().join("c2"),
        tmp.path().join("copy"),
    );
    cassette_answering(&first, b"<html>one web</html>");
    cassette_answering(&other, b"<html>another web</html>");
    cassette_answering(&copy, b"<html>one web</html>");
    let first = first.display().to_string();
    let other = other.display().to_string();
    check(
        "cassette",
        &["--web", "replay", "--web-cassette", &first],
        &[(
            vec!["--web", "replay", "--web-cassette", &other],
            &format!("web.cassette_hash: the run used the cassette {first} (content "),
        )],
    );
    let out = tmp.path().join("cassette");
    let o = clawrun(&["run", "--json", "-j", "1", "--faults", "none", "--resume"])
        .arg("--suite")
        .arg(&suite)
        .arg("--out")
        .arg(&out)
        .args(["--trials", "3", "--web", "replay", "--web-cassette"])
        .arg(&copy)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_journal_naming_a_host_file_as_a_trace_is_never_read() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = fixture_suite();
    let out = tmp.path().join("run");
    assert!(run(&suite, &out, 1, &[]).status.success());
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, "root:x:0:0:host secret\n").unwrap();
    let journal = out.join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    for target in [secret.display().to_string(), "../secret.txt".to_string()] {
        // Every record names the host file as its whole trace.
        let edited: String = text
            .lines()
            .map(|line| {
                let mut r: serde_json::Value = serde_json::from_str(line).unwrap();
                r["trace"] = target.clone().into();
                let r = r.as_object_mut().unwrap();
                r.remove("trace_span");
                r.remove("trace_hash");
                serde_json::to_string(r).unwrap() + "\n"
            })
            .collect();
        std::fs::write(&journal, edited).unwrap();
        let html = tmp.path().join("r.html");
        for args in [
            vec!["trace".to_string(), out.display().to_string()],
            vec![
                "report".into(),
                out.display().to_string(),
                "--html".into(),
                html.display().to_string(),
            ],
            vec![
                "replay".into(),
                "--suite".into(),
                suite.display().to_string(),
                out.display().to_string(),
            ],
        ] {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = clawrun(&args).output().unwrap();
            let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
            assert!(
                !all.contains("host secret"),
                "{args:?} read {target}: {all}"
            );
            assert!(
                all.contains("is not a file of the run folder"),
                "{args:?}: {all}"
            );
        }
        assert!(
            !std::fs::read_to_string(&html)
                .unwrap()
                .contains("host secret")
        );
    }
}

#[test]
fn hashes_a_run_folder_holds_that_are_no_hashes_are_named_never_panicked_on() {
    // Messages quote a recorded hash's first 12 characters; a run folder's `run.json` and
    // journal are input, and a hash there whose 12th byte falls inside a character made
    // `run --resume`, `report` and `judge` panic (exit 101).
    const NO_HASH: &str = "0123456789a\u{e9}0123";
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with(tmp.path(), &[("chat", "chat")]);
    let out = tmp.path().join("run");
    assert!(run(&suite, &out, 1, &[]).status.success());
    let manifest = out.join("run.json");
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    doc["fault_plan"] = NO_HASH.into();
    doc["web"]["mode"] = "replay".into();
    doc["web"]["cassette_hash"] = NO_HASH.into();
    doc["tasks"]["chat"] = NO_HASH.into();
    std::fs::write(&manifest, serde_json::to_vec(&doc).unwrap()).unwrap();
    let journal = out.join("journal.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut record: serde_json::Value = serde_json::from_str(text.trim_end()).unwrap();
    record["task_hash"] = NO_HASH.into();
    std::fs::write(&journal, format!("{record}\n")).unwrap();

    let shown = "0123456789a\u{e9}";
    let o = run(&suite, &out, 1, &["--resume", "--faults", "claw-eval:0.5"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("(plan {shown})")), "{err}");
    assert!(err.contains(&format!("task hash {shown}")), "{err}");
    let o = clawrun(&["report"]).arg(&out).output().unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert_eq!(o.status.code(), Some(0), "{all}");
    assert!(
        all.contains(&format!("web replay (cassette {shown})")),
        "{all}"
    );
    let o = clawrun(&[
        "judge",
        "--judge",
        "openai:judge-model",
        "--no-probe",
        "--suite",
    ])
    .arg(&suite)
    .arg("--out")
    .arg(tmp.path().join("judged"))
    .arg(&out)
    .env("OPENAI_API_KEY", "sk-test-not-used")
    .output()
    .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("the run recorded {shown})")), "{err}");
}

#[test]
fn a_folder_holding_other_files_is_not_taken_as_a_run_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("notes");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("thesis.tex"), "mine").unwrap();
    for extra in [&[][..], &["--resume"][..]] {
        let o = run(&fixture_suite(), &out, 1, extra);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(
            err.contains("the folder is not empty (thesis.tex) and holds no run"),
            "{err}"
        );
    }
    assert_eq!(
        files(&out),
        vec!["thesis.tex".to_string()],
        "nothing was written"
    );
}

#[test]
fn a_changed_task_needs_force_and_then_runs_again() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    copy_dir(&fixture_suite(), &suite);
    let out = tmp.path().join("run");
    assert!(run(&suite, &out, 2, &[]).status.success());
    let journal = out.join("journal.jsonl");
    let manifest = |key: &str| -> serde_json::Value {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
        v[key].clone()
    };
    let old_hash = manifest("tasks")["e2e_chat"].as_str().unwrap().to_string();

    // The task author edits the task between the runs.
    let task = suite.join("tasks/e2e_chat/task.yaml");
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(&task, text.replace("max_rounds: 4", "max_rounds: 3")).unwrap();

    let refused = run(&suite, &out, 2, &["--resume"]);
    let err = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "tasks.e2e_chat: the run used task hash {} (run.json)",
            &old_hash[..12]
        )),
        "{err}"
    );
    assert!(
        err.contains("pass --force to run its finished trials again"),
        "{err}"
    );
    assert_eq!(lines(&journal), 4);

    let forced = run(&suite, &out, 2, &["--resume", "--force"]);
    let err = stderr(&forced);
    assert!(forced.status.success(), "{err}");
    assert!(
        err.contains("--force: tasks.e2e_chat: the run used task hash"),
        "{err}"
    );
    // Both trials of the changed task ran again; the old records stay, superseded.
    assert_eq!(lines(&journal), 6);
    let new_hash = manifest("tasks")["e2e_chat"].as_str().unwrap().to_string();
    assert_ne!(new_hash, old_hash);
    let overrides = manifest("overrides");
    assert_eq!(overrides[0]["field"], "tasks.e2e_chat", "{overrides}");
    // The report sees one consistent task.
    let report = clawrun(&["report", "--json"]).arg(&out).output().unwrap();
    assert!(report.status.success(), "{}", stderr(&report));
    // A forced resume that stopped half-way continues without --force: the change was taken.
    let mut half: Vec<String> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    half.pop();
    std::fs::write(&journal, half.join("\n") + "\n").unwrap();
    let rest = run(&suite, &out, 2, &["--resume"]);
    assert!(rest.status.success(), "{}", stderr(&rest));
    assert_eq!(lines(&journal), 6);
    // Nothing is left to do.
    let again = run(&suite, &out, 2, &["--resume"]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(lines(&journal), 6);
}

#[test]
fn another_clawrun_version_needs_force_and_is_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = fixture_suite();
    let out = tmp.path().join("run");
    assert!(run(&suite, &out, 1, &[]).status.success());
    // The run was started by an older clawrun with the same trace version.
    let path = out.join("run.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["clawrun_version"] = "0.0.9".into();
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();

    let refused = run(&suite, &out, 2, &["--resume"]);
    let err = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(
        err.contains("clawrun_version: the run used 0.0.9 (run.json), this invocation "),
        "{err}"
    );
    let forced = run(&suite, &out, 2, &["--resume", "--force"]);
    assert!(forced.status.success(), "{}", stderr(&forced));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(v["overrides"][0]["field"], "clawrun_version", "{v}");
    assert_eq!(v["overrides"][0]["was"], "0.0.9", "{v}");
    assert_eq!(lines(&out.join("journal.jsonl")), 4);
}

#[test]
fn extending_a_run_keeps_run_json_describing_the_whole_journal() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = fixture_suite();
    let out = tmp.path().join("run");
    assert!(run(&suite, &out, 1, &["e2e_chat"]).status.success());
    let more = run(&suite, &out, 2, &["--resume", "e2e_mail"]);
    assert!(more.status.success(), "{}", stderr(&more));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    let tasks: Vec<&String> = v["tasks"].as_object().unwrap().keys().collect();
    assert_eq!(tasks, ["e2e_chat", "e2e_mail"]);
    assert_eq!(v["trials"], 2);
    assert_eq!(lines(&out.join("journal.jsonl")), 3);
}

#[test]
fn the_shards_of_one_folder_must_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = fixture_suite();
    let out = tmp.path().join("run");
    let first = run(&suite, &out, 2, &["--shard", "0/2"]);
    assert!(first.status.success(), "{}", stderr(&first));
    // Another seed in the second shard, or another shard count, or more trials.
    let cases: [(u32, &[&str], &str); 3] = [
        (
            2,
            &["--shard", "1/2", "--seed", "4"],
            "seed: the run used 3 (run.shard-0-of-2.json)",
        ),
        (
            2,
            &["--shard", "1/3"],
            "shard: the run used 2 shards (run.shard-0-of-2.json), this invocation 3 shards",
        ),
        (
            3,
            &["--shard", "0/2", "--resume"],
            "trials: the run used 2 (run.shard-0-of-2.json), this invocation 3",
        ),
    ];
    for (trials, args, message) in cases {
        let o = run(&suite, &out, trials, args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
    assert!(!out.join("journal.shard-1-of-2.jsonl").exists());
    let second = run(&suite, &out, 2, &["--shard", "1/2"]);
    assert!(second.status.success(), "{}", stderr(&second));
}

#[test]
fn a_lost_trace_is_named_by_report_and_run_again_on_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = fixture_suite();
    let out = tmp.path().join("run");
    assert!(run(&suite, &out, 2, &[]).status.success());
    // On one worker the journal's last record names the end of the one pack: cutting the pack
    // there loses that trial's trace (as a crash before the pack reached the disk would).
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let last: clawrun::report::TrialRecord =
        serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    let span = last.trace_span.expect("a run writes trace packs");
    assert_eq!(last.trace, "traces/0.jsonl");
    let pack = out.join(&last.trace);
    assert_eq!(std::fs::metadata(&pack).unwrap().len(), span.end());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&pack)
        .unwrap()
        .set_len(span.offset + span.len / 2)
        .unwrap();
    let location = out.join(last.trace_location());
    let key = last.key();

    let html = tmp.path().join("r.html");
    let report = clawrun(&["report"])
        .arg(&out)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    let err = stderr(&report);
    // The damage is named, and the intact trials are reported (the lost one without steps).
    assert!(report.status.success(), "{err}");
    assert!(
        err.contains(&format!("trial {key} is shown without its trace"))
            && err.contains("clawrun run --resume --out"),
        "{err}"
    );
    assert!(
        std::fs::read_to_string(&html)
            .unwrap()
            .contains("the trace could not be read")
    );
    // The page's spill file and temporary page do not outlive the report.
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")),
        "{left:?}"
    );

    let resumed = run(&suite, &out, 2, &["--resume"]);
    let err = stderr(&resumed);
    assert!(resumed.status.success(), "{err}");
    assert!(
        err.contains(&format!(
            "{} is missing or damaged: running trial {key} again",
            location.display()
        )),
        "{err}"
    );
    // The torn half is cut: the trial's new trace starts where its lost one did.
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 5);
    let again: clawrun::report::TrialRecord =
        serde_json::from_str(journal.lines().last().unwrap()).unwrap();
    assert_eq!(again.key(), key);
    assert_eq!(again.trace_span.unwrap().offset, span.offset);
    assert!(again.trace_present(&out));
    let report = clawrun(&["report"])
        .arg(&out)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", stderr(&report));
}

/// The write end of a pipe whose reader has exited without reading (as `head -1` does once it
/// has its line): every write to it fails with EPIPE.
fn pipe_to_a_reader_that_left() -> PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    let status = Command::new("true").stdin(reader).status().unwrap();
    assert!(status.success());
    writer
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = fixture_suite();
    let out = tmp.path().join("run");
    assert!(run(&suite, &out, 1, &["e2e_chat"]).status.success());
    let suite = suite.display().to_string();
    let out = out.display().to_string();
    let commands: [&[&str]; 5] = [
        &["list", "--suite", &suite],
        &["report", &out],
        &["report", "--json", &out],
        &["validate", "--suite", &suite, "e2e_chat"],
        &["tool", "Bash", r#"{"command": "seq 1 100"}"#],
    ];
    for args in commands {
        let o = Command::new(env!("CARGO_BIN_EXE_clawrun"))
            .args(args)
            .stdout(pipe_to_a_reader_that_left())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
}

/// A cassette folder at `dir` whose one index line records `https://example.com/` with the
/// body field `body` and size `size` (issue 32, item 8: a cassette is untrusted data).
fn cassette_naming(dir: &Path, body: &str, size: u64) {
    std::fs::create_dir_all(dir.join("bodies")).unwrap();
    let line = serde_json::json!({
        "request": {"kind": "fetch", "url": "https://example.com/"},
        "response": {"status": 200, "url": "https://example.com/", "body": body, "size": size},
        "latency_ms": 1,
        "recorded_unix": 0,
    });
    std::fs::write(dir.join("index.jsonl"), format!("{line}\n")).unwrap();
}

#[test]
fn a_cassette_s_body_hash_that_is_no_hash_is_refused_not_panicked_on_or_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("x");
    std::fs::write(&outside, "a host file outside the cassette\n").unwrap();
    for (body, size) in [
        ("aé", 2),
        ("../../x", 33),
        (outside.to_str().unwrap(), 33),
        ("/etc/hostname", 8),
        ("/dev/zero", 10 << 20),
    ] {
        let from = tmp.path().join("c/from");
        let _ = std::fs::remove_dir_all(tmp.path().join("c"));
        cassette_naming(&from, body, size);
        let into = tmp.path().join("c/into");
        let from_arg = from.display().to_string();
        let into_arg = into.display().to_string();
        for args in [
            vec!["cassette", "show", from_arg.as_str()],
            vec!["cassette", "merge", into_arg.as_str(), from_arg.as_str()],
        ] {
            let started = std::time::Instant::now();
            let o = clawrun(&args).output().unwrap();
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?} with {body:?}: {err}");
            assert!(
                err.contains("index.jsonl:1: response.body: ")
                    && err.contains("is not a body hash"),
                "{args:?} with {body:?}: {err}"
            );
            assert!(!err.contains("panicked"), "{err}");
            assert!(started.elapsed() < std::time::Duration::from_secs(5));
        }
        assert!(
            !into.join("bodies").exists() || files(&into.join("bodies")).is_empty(),
            "{body:?}: a body was copied from outside the cassette"
        );
    }
}

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn task_numbers_that_would_crash_a_run_are_refused_naming_file_field_and_line() {
    // A timeout past what `Instant` holds panicked an agent program's trial; two weights of
    // 1e308 made the score NaN (the journal stored null and the run could not be reported).
    let chat = std::fs::read_to_string(fixture_suite().join("tasks/e2e_chat/task.yaml")).unwrap();
    let timeout = chat.replacen(
        "timeout_seconds: 300",
        "timeout_seconds: 18446744073709551615",
        1,
    );
    let weights = chat.replacen(
        "scoring_components:\n  - name: mentions_rate\n    weight: 1.0\n",
        "scoring_components:\n  - name: answered\n    weight: 1e308\n    check: {type: min_length, min_length: 1}\n  - name: mentions_rate\n    weight: 1e308\n",
        1,
    );
    for (yaml, needle, field) in [
        (&timeout, "timeout_seconds:", "environment.timeout_seconds"),
        (&weights, "weight: 1e308", "scoring_components[0].weight"),
    ] {
        assert_ne!(yaml, &chat);
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("suite/tasks/big");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("task.yaml"), yaml).unwrap();
        let out = tmp.path().join("out");
        let o = run(
            &tmp.path().join("suite"),
            &out,
            1,
            &["--agent", "cmd:sh -c 'exit 0'"],
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{field}: {err}");
        let at = format!("tasks/big/task.yaml:{}:", line_of(yaml, needle));
        assert!(
            err.lines()
                .any(|l| l.contains(&at) && l.contains(&format!("{field}: "))),
            "{field}: {err}"
        );
        assert!(!out.join("journal.jsonl").exists(), "{field}: a trial ran");
        // `clawrun mcp` loads the task the same way (its timeout panicked there too).
        let o = clawrun(&["mcp", "--out"])
            .arg(tmp.path().join("mcp"))
            .arg("--suite")
            .arg(tmp.path().join("suite"))
            .arg("big")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "mcp, {field}: {err}");
        assert!(
            err.contains(&at) && err.contains(field),
            "mcp, {field}: {err}"
        );
    }
}

#[test]
fn a_model_timeout_beyond_a_day_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = fixture_suite();
    // The flag.
    let o = run(
        &suite,
        &tmp.path().join("a"),
        1,
        &["--agent", "openai:gpt-5-mini", "--timeout", "1e300"],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--timeout") && err.contains("86400"), "{err}");
    // The model config file's `timeout:`.
    let config = tmp.path().join("models.yaml");
    std::fs::write(
        &config,
        "agent:\n  model: openai:gpt-5-mini\n  timeout: 1e300\n",
    )
    .unwrap();
    let o = run(
        &suite,
        &tmp.path().join("b"),
        1,
        &["--model-config", config.to_str().unwrap()],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("agent.timeout: 1e300: must be a number of seconds from 0.001 to 86400"),
        "{err}"
    );
}
