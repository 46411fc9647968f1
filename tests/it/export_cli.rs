//! `clawrun export` (issue 38): each format read back by its real consumer — the `.eval` log by
//! inspect-ai (`read_eval_log`, `inspect log dump`), the ATIF trajectories by Harbor's
//! validator and models, the OTLP/JSON by opentelemetry-proto's messages — with every trial's
//! score, tool calls and faults found in it; the same run exported twice (and from a copy of
//! its folder elsewhere) is byte-identical; a sharded run and a resumed run export as one;
//! `--otlp-endpoint` posts the spans to a loopback collector; Inspect's own viewer (its static
//! bundle, in headless Chromium) lists every sample with its scores.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use clawrun::agents::trace::{EventKind, read_trace};
use clawrun::report::run_folder;
use serde_json::{Value, json};

/// The tasks exported: a service task, a multimodal task whose tool shows the model an image,
/// and a multi-turn task with a simulated user (judge-only: its trials are unjudged).
const TASKS: [&str; 3] = [
    "T002_email_triage",
    "img_receipt_expense",
    "C01zh_mortgage_prepay",
];

fn clawrun(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    c.current_dir(env!("CARGO_MANIFEST_DIR")).args(args);
    c
}

fn ok(o: Output) -> Output {
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// `clawrun run TASKS` with faults at rate 0.5, 2 trials, into `out`, plus `extra`.
fn make_run(out: &Path, extra: &[&str]) {
    let mut c = clawrun(&["run"]);
    c.args(TASKS)
        .args(["--trials", "2", "--faults", "claw-eval:0.5", "--seed", "7"])
        .args(["-j", "1", "--report", "none", "--out"])
        .arg(out)
        .args(extra);
    ok(c.output().unwrap());
}

/// A run shared by the tests (made once per process), in the target's scratch folder (made
/// anew each time, so runs do not pile up).
fn the_run() -> &'static Path {
    static RUN: OnceLock<PathBuf> = OnceLock::new();
    RUN.get_or_init(|| {
        let run = Path::new(env!("CARGO_TARGET_TMPDIR")).join("export-cli/run");
        match std::fs::remove_dir_all(&run) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => panic!("{}: {e}", run.display()),
        }
        make_run(&run, &[]);
        run
    })
}

/// Exports `runs` in `format` to `out`.
fn export(runs: &[&Path], format: &str, out: &Path) -> Output {
    let mut c = clawrun(&["export", "--format", format, "--out"]);
    c.arg(out).args(runs);
    c.output().unwrap()
}

/// What each trial should show in every export: read from the run's journal and traces.
fn expected(runs: &[PathBuf]) -> BTreeMap<(String, u32), Value> {
    let records = run_folder::load_runs(runs, &mut |w| panic!("{w}")).unwrap();
    let mut out = BTreeMap::new();
    for r in records {
        let folder = runs
            .iter()
            .find(|f| r.trace_present(f))
            .expect("a folder holds the trace");
        let events = read_trace(r.trace_bytes(folder).unwrap().as_slice()).unwrap();
        let mut calls = Vec::new();
        let mut results = Vec::new();
        let mut faults = Vec::new();
        for e in &events {
            match &e.kind {
                EventKind::ToolCall { id, .. } => calls.push(id.clone()),
                EventKind::ToolResult { id, .. } => results.push(id.clone()),
                EventKind::Fault { kind, .. } => faults.push(kind.clone()),
                _ => {}
            }
        }
        faults.sort();
        let v = r.verdict.as_ref();
        out.insert(
            (r.task_id.clone(), r.trial),
            json!({
                "score": v.map(|v| v.scores.score),
                "passed": v.map(|v| v.scores.passed),
                "items": v.map(|v| v.items.len()),
                "tool_calls": calls, "tool_results": results, "faults": faults,
                "input_tokens": r.input_tokens,
            }),
        );
    }
    out
}

/// The consumers' Python: `CLAWRUN_EXPORT_PY`, else scripts/export-consumers.sh's venv (made
/// on first use). `None`, with a printed `SKIPPED:` reason, only when the package index is
/// unreachable.
fn consumers() -> Option<PathBuf> {
    static PY: OnceLock<Option<PathBuf>> = OnceLock::new();
    PY.get_or_init(|| {
        if let Some(py) = std::env::var_os("CLAWRUN_EXPORT_PY") {
            return Some(PathBuf::from(py));
        }
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        let o = Command::new(repo.join("scripts/export-consumers.sh"))
            .output()
            .unwrap();
        if o.status.success() {
            return Some(PathBuf::from(String::from_utf8(o.stdout).unwrap().trim()));
        }
        let reachable = std::net::ToSocketAddrs::to_socket_addrs(&("pypi.org", 443))
            .ok()
            .and_then(|mut a| a.next())
            .is_some_and(|a| {
                std::net::TcpStream::connect_timeout(&a, std::time::Duration::from_secs(10)).is_ok()
            });
        assert!(
            !reachable,
            "scripts/export-consumers.sh failed with the package index reachable:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        println!(
            "SKIPPED: the export consumers (inspect-ai, harbor, opentelemetry-proto) cannot be \
             installed: the package index (pypi.org) is unreachable"
        );
        None
    })
    .clone()
}

/// What consumer `kind` read from `path` (tests/export_support/consumers.py).
fn consume(py: &Path, kind: &str, path: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/export_support/consumers.py");
    let o = ok(Command::new(py)
        .arg(script)
        .arg(kind)
        .arg(path)
        .output()
        .unwrap());
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Checks that every trial of `want` is in `read` (a consumer's trials) with its score, pass,
/// rubric items, tool calls and results, faults and tokens.
fn check_trials(kind: &str, read: &Value, want: &BTreeMap<(String, u32), Value>) {
    let trials = read["trials"].as_array().unwrap();
    assert_eq!(trials.len(), want.len(), "{kind}: one entry per trial");
    for t in trials {
        let key = (
            t["task_id"].as_str().unwrap().to_string(),
            u32::try_from(t["trial"].as_u64().unwrap()).unwrap(),
        );
        let w = want
            .get(&key)
            .unwrap_or_else(|| panic!("{kind}: {key:?} is not a trial of the run"));
        let mut faults: Vec<String> = t["faults"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect();
        faults.sort();
        assert_eq!(json!(faults), w["faults"], "{kind} {key:?}: faults");
        for field in [
            "score",
            "passed",
            "items",
            "tool_calls",
            "tool_results",
            "input_tokens",
        ] {
            assert_eq!(t[field], w[field], "{kind} {key:?}: {field}");
        }
    }
}

#[test]
fn every_format_is_read_by_its_real_consumer_with_every_trial_s_score_and_tool_calls() {
    let run = the_run();
    let want = expected(&[run.to_path_buf()]);
    let calls: usize = want
        .values()
        .map(|w| w["tool_calls"].as_array().unwrap().len())
        .sum();
    let faults: usize = want
        .values()
        .map(|w| w["faults"].as_array().unwrap().len())
        .sum();
    assert!(calls > 20 && faults > 0, "{calls} calls, {faults} faults");
    let out = tempfile::tempdir().unwrap();
    let eval = out.path().join("run.eval");
    let atif = out.path().join("atif");
    let otel = out.path().join("spans.json");
    ok(export(&[run], "inspect", &eval));
    ok(export(&[run], "atif", &atif));
    ok(export(&[run], "otel", &otel));
    let Some(py) = consumers() else { return };

    let read = consume(&py, "inspect", &eval);
    check_trials("inspect", &read, &want);
    assert_eq!(read["status"], "success");
    assert_eq!(read["epochs"], 2, "epochs = trials");
    assert_eq!(read["dataset_samples"], TASKS.len(), "a sample per task");
    assert_eq!(read["total_samples"], want.len());
    assert_eq!(read["dump_samples"], want.len(), "inspect log dump");
    assert!(
        read["header_samples"].is_null(),
        "the header holds no samples"
    );
    for t in read["trials"].as_array().unwrap() {
        assert_eq!(t["tool_events"], t["tool_calls"], "a ToolEvent per call");
        // Each model call saw the conversation before it: the system prompt and the task
        // prompt first, one more turn's messages each time.
        let inputs = t["model_inputs"].as_array().unwrap();
        assert!(!inputs.is_empty());
        assert_eq!(inputs[0], json!([2, true]), "{t}");
        let lens: Vec<u64> = inputs.iter().map(|i| i[0].as_u64().unwrap()).collect();
        assert!(lens.windows(2).all(|w| w[0] < w[1]), "{lens:?}");
        assert!(inputs.iter().all(|i| i[1] == true), "{t}");
    }

    check_trials("atif", &consume(&py, "atif", &atif), &want);

    let read = consume(&py, "otel", &otel);
    check_trials("otel", &read, &want);
    let turns: u64 = read["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["chats"].as_u64().unwrap())
        .sum();
    assert!(turns >= want.len() as u64, "a chat span per assistant turn");
    assert_eq!(
        read["spans"].as_u64().unwrap(),
        want.len() as u64 + turns + calls as u64,
        "a span per trial, per turn, per tool call"
    );
}

#[test]
fn the_whole_bundled_suite_round_trips_through_every_consumer() {
    // Every bundled task once (prompt images, services, multi-turn users, judge-only tasks),
    // faults at Claw-Eval's rate.
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("suite");
    ok(
        clawrun(&["run", "--trials", "1", "--faults", "claw-eval", "-j", "2"])
            .args(["--report", "none", "--out"])
            .arg(&run)
            .output()
            .unwrap(),
    );
    let want = expected(std::slice::from_ref(&run));
    assert!(want.len() > 80, "{} trials", want.len());
    let eval = tmp.path().join("suite.eval");
    let atif = tmp.path().join("atif");
    let otel = tmp.path().join("spans.json");
    ok(export(&[&run], "inspect", &eval));
    ok(export(&[&run], "atif", &atif));
    ok(export(&[&run], "otel", &otel));
    // The prompts' images are in the exports: inline in the log, files beside trajectories.
    let with_images = samples(&eval)
        .values()
        .filter(|s| s["input"].to_string().contains("data:image/"))
        .count();
    assert!(with_images > 0, "no prompt image in the .eval log");
    let image_files = files(&atif)
        .keys()
        .filter(|p| p.to_string_lossy().contains("/images/"))
        .count();
    assert!(image_files > 0, "no image beside the trajectories");
    let Some(py) = consumers() else { return };
    check_trials("inspect (suite)", &consume(&py, "inspect", &eval), &want);
    check_trials("atif (suite)", &consume(&py, "atif", &atif), &want);
    check_trials("otel (suite)", &consume(&py, "otel", &otel), &want);
}

/// Every file under `dir`, relative, with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

#[test]
fn the_same_run_exported_twice_or_from_elsewhere_is_byte_identical() {
    let run = the_run();
    let tmp = tempfile::tempdir().unwrap();
    // A copy of the run folder elsewhere, exported from another working directory: no host
    // path, clock or hash-map order reaches the export.
    let copy = tmp.path().join("elsewhere/copied-run");
    std::fs::create_dir_all(&copy).unwrap();
    for (rel, bytes) in files(run) {
        let p = copy.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    for (format, name) in [
        ("inspect", "x.eval"),
        ("otel", "x.json"),
        ("atif", "x.atif"),
    ] {
        let a = tmp.path().join(format!("a-{name}"));
        let b = tmp.path().join(format!("b-{name}"));
        let c = tmp.path().join(format!("c-{name}"));
        ok(export(&[run], format, &a));
        ok(export(&[run], format, &b));
        ok(clawrun(&["export", "--format", format, "--out"])
            .arg(&c)
            .arg("copied-run")
            .current_dir(tmp.path().join("elsewhere"))
            .output()
            .unwrap());
        let read = |p: &Path| {
            if p.is_dir() {
                files(p)
            } else {
                BTreeMap::from([(PathBuf::new(), std::fs::read(p).unwrap())])
            }
        };
        let first = read(&a);
        assert!(!first.is_empty());
        assert!(first == read(&b), "{format}: two exports differ");
        assert!(first == read(&c), "{format}: the copy's export differs");
        // Exporting again over an earlier export replaces it.
        ok(export(&[run], format, &a));
        assert!(first == read(&a), "{format}: a re-export differs");
    }
}

/// The trials of an `.eval` log as (sample, epoch) -> its sample JSON without wall times.
fn samples(eval: &Path) -> BTreeMap<String, Value> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(eval).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).unwrap();
        let name = f.name().unwrap().to_string();
        if !name.starts_with("samples/") {
            continue;
        }
        let mut text = String::new();
        f.read_to_string(&mut text).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        for k in ["total_time", "working_time"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v["metadata"].as_object_mut().unwrap().remove("wall_us");
        out.insert(name, v);
    }
    out
}

#[test]
fn a_sharded_run_exports_as_one_run() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("shard0"), tmp.path().join("shard1"));
    make_run(&a, &["--shard", "0/2"]);
    // One shard alone is exported as far as the run got, and the missing shard is named.
    let half = tmp.path().join("half.eval");
    let o = ok(export(&[&a], "inspect", &half));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("warning") && err.contains("1/2") && err.contains("the export holds"),
        "{err}"
    );
    assert_eq!(samples(&half).len(), 3);
    make_run(&b, &["--shard", "1/2"]);
    let whole = the_run();
    let sharded = tmp.path().join("sharded.eval");
    let unsharded = tmp.path().join("unsharded.eval");
    ok(export(&[&a, &b], "inspect", &sharded));
    ok(export(&[whole], "inspect", &unsharded));
    // The shards' trials are the unsharded run's, trace for trace; only wall times differ.
    let (s, u) = (samples(&sharded), samples(&unsharded));
    assert_eq!(s.len(), 6);
    assert_eq!(s, u);
    let want = expected(&[a.clone(), b.clone()]);
    assert_eq!(want.len(), 6);
    if let Some(py) = consumers() {
        check_trials(
            "inspect (sharded)",
            &consume(&py, "inspect", &sharded),
            &want,
        );
    }
    // Two shards sharing one folder export as one too.
    let one = tmp.path().join("one-folder");
    make_run(&one, &["--shard", "0/2"]);
    make_run(&one, &["--shard", "1/2"]);
    let both = tmp.path().join("both.eval");
    ok(export(&[&one], "inspect", &both));
    assert_eq!(samples(&both), u);
    // A run extended by a resumed session (one trial, then two) exports as the run made at
    // once.
    let resumed = tmp.path().join("resumed");
    let mut first = clawrun(&["run"]);
    first
        .args(TASKS)
        .args(["--trials", "1", "--faults", "claw-eval:0.5", "--seed", "7"])
        .args(["-j", "1", "--report", "none", "--out"])
        .arg(&resumed);
    ok(first.output().unwrap());
    make_run(&resumed, &["--resume"]);
    let r = tmp.path().join("resumed.eval");
    ok(export(&[&resumed], "inspect", &r));
    assert_eq!(samples(&r), u);
}

/// A loopback collector answering `status` to one request; returns (port, the request).
fn collector(status: u16) -> (u16, std::thread::JoinHandle<(String, Vec<u8>)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 65536];
        let (head, body) = loop {
            let n = s.read(&mut chunk).unwrap();
            buf.extend_from_slice(&chunk[..n]);
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..i]).to_string();
                let len: usize = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().unwrap())
                    })
                    .unwrap();
                while buf.len() < i + 4 + len {
                    let n = s.read(&mut chunk).unwrap();
                    buf.extend_from_slice(&chunk[..n]);
                }
                break (head, buf[i + 4..i + 4 + len].to_vec());
            }
        };
        let reply = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{{}}"
        );
        s.write_all(reply.as_bytes()).unwrap();
        (head, body)
    });
    (port, handle)
}

#[test]
fn otlp_endpoint_posts_the_spans_to_a_collector_and_a_refusal_is_an_error() {
    let run = the_run();
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("spans.json");
    let (port, server) = collector(200);
    let o = ok(clawrun(&["export", "--format", "otel"])
        .arg(run)
        .args(["--otlp-endpoint", &format!("http://127.0.0.1:{port}")])
        .arg("--out")
        .arg(&file)
        .output()
        .unwrap());
    let (head, body) = server.join().unwrap();
    assert!(head.starts_with("POST /v1/traces HTTP/1.1"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    assert_eq!(
        body,
        std::fs::read(&file).unwrap(),
        "the body is the export"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("/v1/traces"));

    let (port, server) = collector(500);
    let o = clawrun(&["export", "--format", "otel"])
        .arg(run)
        .args([
            "--otlp-endpoint",
            &format!("http://127.0.0.1:{port}/custom"),
        ])
        .output()
        .unwrap();
    let (head, _) = server.join().unwrap();
    assert!(head.starts_with("POST /custom "), "{head}");
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--otlp-endpoint") && err.contains("500"),
        "{err}"
    );
    assert!(o.stdout.is_empty(), "nothing printed when sending");
}

#[test]
fn bad_input_is_refused_with_what_to_do() {
    let run = the_run();
    let tmp = tempfile::tempdir().unwrap();
    let fail = |args: &[&str], extra: &[&Path]| {
        let mut c = clawrun(&["export"]);
        c.args(args).args(extra);
        let o = c.output().unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    let eval = tmp.path().join("x.eval");
    let (code, err) = fail(&["--format", "inspect", "--out"], &[&eval, tmp.path()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no journal.jsonl"), "{err}");
    let (code, err) = fail(&["--format", "inspect", "--out", "x.zip"], &[run]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("name it FILE.eval"), "{err}");
    let (code, err) = fail(&["--format", "atif"], &[run]);
    assert_eq!(code, Some(2));
    assert!(err.contains("give --out DIR"), "{err}");
    let (code, err) = fail(
        &[
            "--format",
            "inspect",
            "--otlp-endpoint",
            "http://127.0.0.1:9",
        ],
        &[run],
    );
    assert_eq!(code, Some(2));
    assert!(err.contains("--format otel"), "{err}");
    // Two different runs are not one export.
    let other = tmp.path().join("other");
    ok(clawrun(&[
        "run",
        "T002_email_triage",
        "--trials",
        "1",
        "--faults",
        "none",
        "--report",
        "none",
        "--out",
    ])
    .arg(&other)
    .output()
    .unwrap());
    let (code, err) = fail(&["--format", "otel"], &[run, &other]);
    assert_eq!(code, Some(1));
    assert!(err.contains("different runs"), "{err}");
    // A run whose traces are gone names the trial, the file and the way out.
    let broken = tmp.path().join("broken");
    for (rel, bytes) in files(run) {
        if !rel.starts_with("traces") {
            let p = broken.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
    }
    let (code, err) = fail(&["--format", "otel"], &[&broken]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("traces/") && err.contains("could not be read") && err.contains("--resume"),
        "{err}"
    );
    // A folder holding other files is not overwritten by an ATIF export.
    std::fs::write(tmp.path().join("keep.txt"), "x").unwrap();
    let (code, err) = fail(&["--format", "atif", "--out"], &[tmp.path(), run]);
    assert_eq!(code, Some(1));
    assert!(err.contains("holds no earlier ATIF export"), "{err}");
    assert!(tmp.path().join("keep.txt").is_file());
}

/// A model that lists the inbox, then answers; each turn reports its tokens.
const MODEL_SCRIPT: &str = r#"rules:
  - match: {turn: 0}
    reply:
      text: "Let me look."
      tool_calls:
        - name: gmail_list_messages
          arguments: {max_results: 5}
      usage: {input_tokens: 1000, output_tokens: 50, cached_input_tokens: 400}
  - match: {turn: 1}
    reply:
      text: "msg_001 needs a reply first."
      usage: {input_tokens: 1200, output_tokens: 20}
"#;

#[test]
fn a_model_agent_s_turns_usage_and_model_name_are_exported() {
    let (_rt, server) = crate::mock_model::mock_server_with(MODEL_SCRIPT);
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite");
    ok(
        clawrun(&["run", "e2e_mail", "--agent", "openai:mock-model"])
            .args([
                "--trials",
                "2",
                "--faults",
                "claw-eval:0.5",
                "-j",
                "1",
                "--report",
                "none",
            ])
            .arg("--suite")
            .arg(&suite)
            .arg("--out")
            .arg(&run)
            .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("CLAWRUN_CACHE_DIR", tmp.path().join("cache"))
            .output()
            .unwrap(),
    );
    let want = expected(std::slice::from_ref(&run));
    assert_eq!(want.len(), 2);
    let eval = tmp.path().join("model.eval");
    let atif = tmp.path().join("atif");
    let otel = tmp.path().join("spans.json");
    ok(export(&[&run], "inspect", &eval));
    ok(export(&[&run], "atif", &atif));
    ok(export(&[&run], "otel", &otel));
    // The model's name and its per-turn usage, as each format names them.
    for s in samples(&eval).values() {
        let usage = &s["model_usage"]["openai/mock-model"];
        assert_eq!(usage["input_tokens"], 2200 - 400, "{s}");
        assert_eq!(usage["input_tokens_cache_read"], 400);
        assert_eq!(usage["output_tokens"], 70);
        let models: Vec<&Value> = s["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["event"] == "model")
            .collect();
        assert_eq!(models.len(), 2, "a model event per turn");
        assert_eq!(models[0]["output"]["usage"]["output_tokens"], 50);
    }
    for trial in 0..2 {
        let path = atif.join(format!("e2e_mail/{trial}/trajectory.json"));
        let t: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        assert_eq!(t["agent"]["model_name"], "mock-model");
        let agent: Vec<&Value> = t["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["source"] == "agent")
            .collect();
        assert_eq!(agent.len(), 2);
        assert_eq!(agent[0]["llm_call_count"], 1);
        assert_eq!(
            agent[0]["metrics"],
            json!({"prompt_tokens": 1000, "completion_tokens": 50, "cached_tokens": 400})
        );
    }
    let text = std::fs::read_to_string(&otel).unwrap();
    assert!(
        text.contains(r#"{"key":"gen_ai.request.model","value":{"stringValue":"mock-model"}}"#)
    );
    assert!(text.contains(r#"{"key":"gen_ai.provider.name","value":{"stringValue":"openai"}}"#));
    assert!(
        text.contains(
            r#"{"key":"gen_ai.usage.cache_read.input_tokens","value":{"intValue":"400"}}"#
        )
    );
    let Some(py) = consumers() else { return };
    let read = consume(&py, "inspect", &eval);
    check_trials("inspect (model)", &read, &want);
    assert_eq!(read["model"], "openai/mock-model");
    assert_eq!(read["model_base_url"], format!("{}/v1", server.url()));
    assert!(read["generate_config"]["timeout"].is_u64(), "{read}");
    check_trials("atif (model)", &consume(&py, "atif", &atif), &want);
    check_trials("otel (model)", &consume(&py, "otel", &otel), &want);
}

/// The text a person sees in `dom` (scripts and styles left out, tags as spaces).
fn visible_text(dom: &str) -> String {
    let mut text = String::new();
    let mut rest = dom;
    while let Some(at) = rest.find('<') {
        text.push_str(&rest[..at]);
        text.push(' ');
        let tag = &rest[at..];
        let skip_to = ["<script", "<style"]
            .iter()
            .find(|open| tag.starts_with(**open))
            .map(|open| format!("</{}>", &open[1..]));
        rest = match skip_to {
            Some(close) => tag.find(&close).map_or("", |e| &tag[e + close.len()..]),
            None => tag.find('>').map_or("", |e| &tag[e + 1..]),
        };
    }
    text.push_str(rest);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn inspect_s_own_viewer_shows_every_sample_and_its_score_in_headless_chromium() {
    let run = the_run();
    let want = expected(&[run.to_path_buf()]);
    let out = tempfile::tempdir().unwrap();
    let logs = out.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    ok(export(&[run], "inspect", &logs.join("run.eval")));
    let Some(py) = consumers() else { return };
    let Some(exe) = crate::browser::chromium() else {
        return;
    };
    // The viewer as Inspect publishes it (`inspect view bundle`: a static site), served on
    // loopback, loaded in headless Chromium until its scripts have read the log.
    let bundle = out.path().join("bundle");
    let inspect = py.with_file_name("inspect");
    ok(Command::new(&inspect)
        .args(["view", "bundle", "--log-dir"])
        .arg(&logs)
        .arg("--output-dir")
        .arg(&bundle)
        .output()
        .unwrap());
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new(&py)
        .args(["-m", "http.server", "--bind", "127.0.0.1"])
        .arg(port.to_string())
        .arg("--directory")
        .arg(&bundle)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let up = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    let dir = out.path().join("chromium");
    std::fs::create_dir_all(&dir).unwrap();
    // The viewer first syncs the log listing into the browser's storage, then shows the log;
    // on a busy machine the first load can end while it still syncs ("Syncing data..."). The
    // profile keeps what was synced, so the page is loaded again (as a person would reload it)
    // until it shows the log, a few times at most.
    let want_samples = format!("{} Samples", want.len());
    let mut text = String::new();
    let mut loaded = false;
    for _ in 0..5 {
        let (ok, dom) = crate::browser::run_chromium(
            &exe,
            &dir,
            &["--virtual-time-budget=120000", "--dump-dom"],
            &format!("http://127.0.0.1:{port}/index.html"),
        );
        loaded = ok;
        text = visible_text(&dom);
        if !ok || text.contains(&want_samples) {
            break;
        }
    }
    let _ = server.kill();
    let _ = server.wait();
    assert!(up && loaded, "the viewer's page did not load");
    assert!(
        text.contains(&format!("{} Samples", want.len())),
        "the viewer lists {} samples: {}",
        want.len(),
        &text[..text.len().min(3000)]
    );
    for (task, trial) in want.keys() {
        let row = format!("{task} {}", trial + 1);
        assert!(text.contains(&row), "no row `{row}` in the viewer: {text}");
    }
    for scorer in ["completion", "passed", "robustness", "safety", "score"] {
        assert!(text.contains(scorer), "no {scorer} column: {text}");
    }
    assert!(!text.contains("Duration -"), "a negative duration: {text}");
}
