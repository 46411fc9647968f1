//! Crash safety (README "The run folder", ARCHITECTURE.md §9): a run stopped at any moment — an
//! abort right after each step that writes the run folder, `kill -9` at arbitrary times, a
//! power loss that keeps only what was synced — and then `--resume`d ends as an uninterrupted
//! run: the same records (wall-clock fields apart, which records do not hold), the same trace
//! bytes for every trial, the same report. On one worker the order of trials is fixed, so the
//! journal and the trace pack are byte-identical too.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use clawrun::report::{Status, TrialRecord};
use clawrun::run::crash::POINTS;
use serde_json::Value;

/// Quick bundled tasks: services, faults, the Bash tool.
const TASKS: &[&str] = &[
    "T002_email_triage",
    "T010_contact_lookup",
    "T086_pinbench_calendar_event_creation",
    "code_changelog_entry",
];
/// Trials per task.
const TRIALS: &str = "4";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `clawrun run` of [`TASKS`] into `out` on `jobs` workers, with `env` set.
fn command(out: &Path, jobs: u32, resume: bool, env: &[(&str, &str)]) -> Command {
    command_with(out, jobs, resume, env, &[])
}

/// [`command`] with `extra` arguments (a shard).
fn command_with(
    out: &Path,
    jobs: u32,
    resume: bool,
    env: &[(&str, &str)],
    extra: &[&str],
) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    c.args(["run", "--quiet", "--agent", "oracle", "--seed", "11"])
        .args([
            "--trials",
            TRIALS,
            "-j",
            &jobs.to_string(),
            "--report",
            "none",
        ])
        .arg("--suite")
        .arg(repo())
        .arg("--out")
        .arg(out)
        .args(TASKS)
        .args(extra)
        .env_remove("CLAWRUN_CRASH_AT")
        .env_remove("CLAWRUN_SYNC_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if resume {
        c.arg("--resume");
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

fn text(o: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Resumes the run in `out` to its end (no hooks), which must succeed.
fn resume(out: &Path, jobs: u32) {
    let o = command(out, jobs, true, &[]).output().unwrap();
    assert!(o.status.success(), "resume failed:\n{}", text(&o));
}

/// An uninterrupted run on `jobs` workers.
fn baseline(jobs: u32) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let o = command(dir.path(), jobs, false, &[]).output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    dir
}

/// Each trial's latest record (without where its trace is) and its trace bytes, read as every
/// command reads them (the hash checked).
fn trials(out: &Path) -> BTreeMap<String, (Value, Vec<u8>)> {
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let mut latest = BTreeMap::new();
    for line in journal.lines() {
        let record: TrialRecord = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{}: a damaged line stayed: {e}", out.display()));
        latest.insert(record.key(), record);
    }
    latest
        .into_iter()
        .map(|(key, record)| {
            let bytes = record
                .trace_bytes(out)
                .unwrap_or_else(|e| panic!("{key}: {e}"));
            let mut value = serde_json::to_value(&record).unwrap();
            for field in ["trace", "trace_span"] {
                value.as_object_mut().unwrap().remove(field);
            }
            (key, (value, bytes))
        })
        .collect()
}

/// The ordering a crash relies on: every record the journal `journal` holds (its complete
/// lines, `bytes` of it) names trace bytes that `read(pack)` holds whole, of the recorded
/// blake3 — so no record is ever on disk (or, for `read` giving what was synced, durable)
/// before its trace. Returns the records checked.
fn records_name_whole_traces(journal: &[u8], read: impl Fn(&str) -> Vec<u8>, what: &str) -> usize {
    let complete = journal
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let mut packs: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut n = 0;
    for line in std::str::from_utf8(&journal[..complete]).unwrap().lines() {
        let record: TrialRecord = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{what}: a journal line that is not a record: {e}"));
        let span = record.trace_span.expect("a pack's span");
        let pack = packs
            .entry(record.trace.clone())
            .or_insert_with(|| read(&record.trace));
        let bytes = pack
            .get(span.offset as usize..span.end() as usize)
            .unwrap_or_else(|| {
                panic!(
                    "{what}: the record of {} names bytes {}..{} of {}, which holds {}",
                    record.key(),
                    span.offset,
                    span.end(),
                    record.trace,
                    pack.len()
                )
            });
        assert_eq!(
            clawrun::report::trace_file::trace_hash(bytes),
            record.trace_hash.clone().unwrap(),
            "{what}: the record of {} names bytes that are not its trace",
            record.key()
        );
        n += 1;
    }
    n
}

/// `clawrun report --json` of `out` without its wall-clock figures.
fn report(out: &Path) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["report", "--json"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let mut v: Value = serde_json::from_slice(&o.stdout).unwrap();
    strip_wall(&mut v);
    v
}

/// Removes every field about wall time and invocations (sessions, the run folder's path)
/// from `v`.
fn strip_wall(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|k, _| {
                !(k.contains("wall")
                    || k.contains("started")
                    || k == "sessions"
                    || k == "path"
                    || k == "folders"
                    || k == "run")
            });
            map.values_mut().for_each(strip_wall);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_wall),
        _ => {}
    }
}

/// The run in `out` equals `base`: every trial, its record and its trace, and the report.
fn assert_same_run(out: &Path, base: &Path, what: &str) {
    let (got, want) = (trials(out), trials(base));
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{what}: other trials"
    );
    for (key, (record, bytes)) in &want {
        let (r, b) = &got[key];
        assert_eq!(r, record, "{what}: the record of {key} differs");
        assert!(b == bytes, "{what}: the trace of {key} differs");
    }
    let (got, want) = (report(out), report(base));
    assert!(
        got == want,
        "{what}: the report differs at {}",
        first_difference(&got, &want, String::new())
    );
}

/// The path of the first place where `a` and `b` differ, with both values.
fn first_difference(a: &Value, b: &Value, at: String) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) if w == v => {}
                    Some(w) => return first_difference(v, w, format!("{at}.{k}")),
                    None => return format!("{at}.{k}: only in the resumed run"),
                }
            }
            format!("{at}: keys only in the uninterrupted run")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if v != w {
                    return first_difference(v, w, format!("{at}[{i}]"));
                }
            }
            at
        }
        _ => format!("{at}: {a} vs {b}"),
    }
}

#[test]
fn a_run_aborted_after_any_write_step_resumes_to_the_uninterrupted_run_byte_for_byte() {
    let base = baseline(1);
    let mut aborted = 0;
    for point in POINTS {
        for n in [1, 3, 8] {
            let dir = tempfile::tempdir().unwrap();
            let spec = format!("{point}:{n}");
            let o = command(dir.path(), 1, false, &[("CLAWRUN_CRASH_AT", &spec)])
                .output()
                .unwrap();
            if o.status.success() {
                // The run ended before passing the point that often.
                continue;
            }
            assert_eq!(o.status.code(), None, "{spec}: not an abort:\n{}", text(&o));
            aborted += 1;
            // What the process left (the kernel's cache): no record before its trace.
            let journal = std::fs::read(dir.path().join("journal.jsonl")).unwrap_or_default();
            records_name_whole_traces(
                &journal,
                |pack| std::fs::read(dir.path().join(pack)).unwrap(),
                &spec,
            );
            resume(dir.path(), 1);
            let what = format!("aborted at {spec}");
            for file in ["journal.jsonl", "traces/0.jsonl"] {
                assert!(
                    std::fs::read(dir.path().join(file)).unwrap()
                        == std::fs::read(base.path().join(file)).unwrap(),
                    "{what}: {file} differs from the uninterrupted run's"
                );
            }
            assert_same_run(dir.path(), base.path(), &what);
        }
    }
    assert!(
        aborted >= 10,
        "only {aborted} runs reached their crash point"
    );
}

#[test]
fn kill_9_at_arbitrary_moments_then_resume_ends_as_the_uninterrupted_run() {
    let base = baseline(2);
    for (i, delay_ms) in [40u64, 150, 300, 450, 700, 1000].into_iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        // Killed once, and its first resume killed again halfway, for half the tries.
        let kills = if i % 2 == 0 { 1 } else { 2 };
        for k in 0..kills {
            let mut child = command(dir.path(), 2, k > 0, &[]).spawn().unwrap();
            std::thread::sleep(Duration::from_millis(delay_ms / (k + 1)));
            let _ = child.kill();
            let _ = child.wait();
        }
        resume(dir.path(), 2);
        assert_same_run(
            dir.path(),
            base.path(),
            &format!("killed {kills}x after {delay_ms} ms"),
        );
    }
}

/// A small seeded generator (xorshift64*), so that the cuts are the same on every machine.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

/// What the run synced last, by file (relative to the run folder), from a `CLAWRUN_SYNC_LOG`.
fn synced(log: &Path) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for line in std::fs::read_to_string(log).unwrap_or_default().lines() {
        let (path, len) = line.rsplit_once(' ').unwrap();
        let len: u64 = len.parse().unwrap();
        let e = out.entry(path.to_string()).or_insert(0);
        *e = len.max(*e);
    }
    out
}

#[test]
fn a_power_loss_keeping_only_what_was_synced_resumes_to_the_uninterrupted_run() {
    let base = baseline(1);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut stopped, mut durable_records, mut set_aside) = (0, 0, 0);
    // After each batch of journal lines is written, and right after the packs' sync and the
    // journal's (the last, at the run's end, syncs every line).
    let specs = (1..=7)
        .map(|n| format!("journal-written:{n}"))
        .chain(["packs-synced:1".into(), "journal-synced:1".into()]);
    for (i, spec) in specs.enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("sync.log");
        let out = dir.path().join("run");
        let o = command(
            &out,
            1,
            false,
            &[
                ("CLAWRUN_CRASH_AT", &spec),
                ("CLAWRUN_SYNC_LOG", log.to_str().unwrap()),
            ],
        )
        .output()
        .unwrap();
        if o.status.success() {
            // Fewer batches of journal lines than that.
            continue;
        }
        stopped += 1;
        let synced = synced(&log);
        // What was synced is durable in order: every record of the synced journal names
        // synced trace bytes (the packs' group commit comes first).
        let journal = std::fs::read(out.join("journal.jsonl")).unwrap();
        let durable = synced.get("journal.jsonl").copied().unwrap_or(0) as usize;
        let checked = records_name_whole_traces(
            &journal[..durable.min(journal.len())],
            |pack| {
                let mut bytes = std::fs::read(out.join(pack)).unwrap();
                bytes.truncate(synced.get(pack).copied().unwrap_or(0) as usize);
                bytes
            },
            &format!("synced at {spec}"),
        );
        durable_records += checked;
        // Every file a run appends to keeps at least what was synced, and any part of the rest:
        // cut at a seeded length, and for every other try the unsynced part zeroed in places
        // (as when data blocks never reached the disk but the file's length did).
        let mut files = vec!["journal.jsonl".to_string(), "timings.jsonl".to_string()];
        for e in std::fs::read_dir(out.join("traces")).unwrap() {
            files.push(format!(
                "traces/{}",
                e.unwrap().file_name().to_string_lossy()
            ));
        }
        for file in &files {
            let path = out.join(file);
            let len = std::fs::metadata(&path).map_or(0, |m| m.len());
            let keep = synced.get(file).copied().unwrap_or(0).min(len);
            let cut = keep + rng.below(len - keep + 1);
            let mut bytes = std::fs::read(&path).unwrap_or_default();
            bytes.truncate(cut as usize);
            if i % 2 == 1 && cut > keep {
                let from = keep + rng.below(cut - keep);
                let to = from + 1 + rng.below(cut - from);
                bytes[from as usize..to as usize].fill(0);
            }
            std::fs::write(&path, bytes).unwrap();
        }
        resume(&out, 1);
        assert_same_run(&out, base.path(), &format!("power loss at {spec}"));
        // Lines set aside from the journal are kept for people, never read as a journal.
        if out.join("journal.damaged.jsonl").is_file() {
            set_aside += 1;
            let o = Command::new(env!("CARGO_BIN_EXE_clawrun"))
                .args(["report", "--json"])
                .arg(&out)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                o.status.success() && !err.contains("damaged.jsonl"),
                "power loss at {spec}: {err}"
            );
        }
    }
    assert!(
        stopped >= 3,
        "only {stopped} runs reached their crash point"
    );
    assert!(
        durable_records > 0,
        "no record was ever synced before a crash"
    );
    assert!(
        set_aside > 0,
        "no power loss left journal lines to set aside"
    );
}

#[test]
fn a_second_writer_on_one_run_folder_is_refused_while_the_first_holds_it() {
    let base = baseline(1);
    let before = std::fs::read(base.path().join("journal.jsonl")).unwrap();
    // Another process holding the folder's lock (as a running clawrun does).
    let mut held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(base.path().join(".clawrun.lock"))
        .unwrap();
    held.lock().unwrap();
    std::io::Write::write_all(&mut held, b"4242\n").unwrap();
    let second = command(base.path(), 1, true, &[]).output().unwrap();
    assert_eq!(second.status.code(), Some(2), "{}", text(&second));
    assert!(
        text(&second).contains("is being written by another clawrun (process 4242)"),
        "{}",
        text(&second)
    );
    assert_eq!(
        std::fs::read(base.path().join("journal.jsonl")).unwrap(),
        before
    );
    // Once it lets go, the run continues.
    held.unlock().unwrap();
    resume(base.path(), 1);
}

#[test]
fn a_shard_aborted_after_any_write_step_resumes_to_the_uninterrupted_shard() {
    // A shard's files (its journal, pack, timings) go through the same steps under their own
    // names.
    let shard = ["--shard", "1/2"];
    let base = tempfile::tempdir().unwrap();
    let o = command_with(base.path(), 1, false, &[], &shard)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let journal = "journal.shard-1-of-2.jsonl";
    let pack = "traces/shard-1-of-2.0.jsonl";
    let mut aborted = 0;
    for point in POINTS {
        let dir = tempfile::tempdir().unwrap();
        let spec = format!("{point}:2");
        let o = command_with(dir.path(), 1, false, &[("CLAWRUN_CRASH_AT", &spec)], &shard)
            .output()
            .unwrap();
        if o.status.success() {
            continue;
        }
        assert_eq!(o.status.code(), None, "{spec}: not an abort:\n{}", text(&o));
        aborted += 1;
        records_name_whole_traces(
            &std::fs::read(dir.path().join(journal)).unwrap_or_default(),
            |p| std::fs::read(dir.path().join(p)).unwrap(),
            &spec,
        );
        let o = command_with(dir.path(), 1, true, &[], &shard)
            .output()
            .unwrap();
        assert!(o.status.success(), "{spec}: resume failed:\n{}", text(&o));
        for file in [journal, pack] {
            assert!(
                std::fs::read(dir.path().join(file)).unwrap()
                    == std::fs::read(base.path().join(file)).unwrap(),
                "aborted at {spec}: {file} differs from the uninterrupted shard's"
            );
        }
    }
    assert!(
        aborted >= 4,
        "only {aborted} runs reached their crash point"
    );
}

/// `clawrun trace`, `replay`, `report --html` and `judge` of `run`, whose trial `key` (of
/// `total`) has a damaged trace: each names it and uses the others; `notes` must appear on
/// the stderr of each (what else was damaged).
fn readers_name_the_damage_and_use_the_rest(run: &Path, key: &str, total: usize, notes: &[&str]) {
    // What the readers write goes to a folder of its own.
    let scratch = tempfile::tempdir().unwrap();
    let clawrun = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_clawrun"));
        c.args(args)
            .arg(run)
            .current_dir(repo())
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL");
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    let noted = |what: &str, err: &str| {
        for note in notes {
            assert!(err.contains(note), "{what}: {note:?} is not named:\n{err}");
        }
    };
    let trace = clawrun(&["trace"], &[]);
    let err = String::from_utf8_lossy(&trace.stderr);
    assert_eq!(trace.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("reading the trace of {key}")),
        "trace: {err}"
    );
    noted("trace", &err);
    let starts = String::from_utf8_lossy(&trace.stdout)
        .matches("\"trace_start\"")
        .count();
    assert_eq!(starts, total - 1, "the intact traces are printed");

    let replay = clawrun(&["replay", "--suite", "."], &[]);
    let out = String::from_utf8_lossy(&replay.stdout);
    assert_eq!(replay.status.code(), Some(1), "{out}");
    assert!(out.contains(&format!("DAMAGED {key}: ")), "{out}");
    assert!(
        out.contains(&format!(
            "{} trials replayed, {} identical, 1 diverged",
            total,
            total - 1
        )),
        "{out}"
    );
    noted(
        "replay",
        &format!("{out}{}", String::from_utf8_lossy(&replay.stderr)),
    );

    let html = scratch.path().join("page.html");
    let report = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .arg("report")
        .arg(run)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&report.stderr);
    assert!(report.status.success(), "{err}");
    assert!(
        err.contains(&format!("trial {key} is shown without its trace")),
        "{err}"
    );
    noted("report", &err);
    assert!(html.is_file());

    // Re-judging judges every intact trial (the judge model is never asked here: the bundled
    // tasks' rubrics are deterministic) and records the damaged one as not judged.
    let (_rt, server) = crate::mock_model::mock_server_with(
        "rules:\n  - name: any\n    match: {}\n    reply: {text: '{\"score\": 1.0, \"reasoning\": \"ok\"}'}\n",
    );
    let base = format!("{}/v1", server.url());
    let judged = scratch.path().join("judged");
    let o = clawrun(
        &[
            "judge",
            "--suite",
            ".",
            "--judge",
            "openai:mock-judge",
            "--no-probe",
            "-j",
            "1",
            "--out",
            judged.to_str().unwrap(),
        ],
        &[("OPENAI_BASE_URL", base.as_str())],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{key}: ")) && err.contains("not judged"),
        "judge: {err}"
    );
    noted("judge", &err);
    let records: Vec<TrialRecord> = std::fs::read_to_string(judged.join("journal.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), total);
    for r in &records {
        if r.key() == key {
            assert_eq!(r.status, Status::InfraError, "{r:?}");
            assert!(r.verdict.is_none());
            assert!(
                r.error.as_deref().unwrap_or("").contains("not judged"),
                "{r:?}"
            );
        } else {
            assert_eq!(r.status, Status::Scored, "{r:?}");
        }
    }
}

#[test]
fn trace_replay_report_and_judge_name_a_damaged_trace_and_use_the_intact_ones() {
    let dir = baseline(1);
    let run = dir.path();
    // Damage one trial's bytes in the pack (the same length: only the hash can tell).
    let journal = std::fs::read_to_string(run.join("journal.jsonl")).unwrap();
    let victim: TrialRecord = serde_json::from_str(journal.lines().nth(5).unwrap()).unwrap();
    let span = victim.trace_span.unwrap();
    let pack = run.join(&victim.trace);
    let mut bytes = std::fs::read(&pack).unwrap();
    let at = (span.offset + span.len / 2) as usize;
    bytes[at] = if bytes[at] == b'a' { b'b' } else { b'a' };
    std::fs::write(&pack, bytes).unwrap();
    let total = journal.lines().count();
    readers_name_the_damage_and_use_the_rest(run, &victim.key(), total, &["not the trial's trace"]);
}

#[test]
fn trace_replay_report_and_judge_on_a_torn_tail_use_what_is_intact() {
    // What a power loss can leave: the journal's last line torn, and the last trace the
    // whole lines name cut short in its pack.
    let dir = baseline(1);
    let run = dir.path();
    let journal_path = run.join("journal.jsonl");
    let journal = std::fs::read_to_string(&journal_path).unwrap();
    let lines: Vec<&str> = journal.lines().collect();
    let last: TrialRecord = serde_json::from_str(lines[lines.len() - 1]).unwrap();
    let span = last.trace_span.unwrap();
    let pack = run.join(&last.trace);
    let mut bytes = std::fs::read(&pack).unwrap();
    bytes.truncate((span.offset + span.len / 3) as usize);
    std::fs::write(&pack, bytes).unwrap();
    let torn = &lines[0][..lines[0].len() / 2];
    std::fs::write(&journal_path, format!("{journal}{torn}")).unwrap();
    let total = lines.len();
    readers_name_the_damage_and_use_the_rest(
        run,
        &last.key(),
        total,
        &[&format!("journal.jsonl:{}", total + 1)],
    );

    // A trial's changes.json cut short (written before its record, never synced): the report
    // names it and shows the trial without its diff.
    let changed = TASKS
        .iter()
        .flat_map(|t| (0..4).map(move |n| run.join(t).join(n.to_string()).join("changes.json")))
        .find(|p| p.is_file())
        .expect("a trial that changed its workspace");
    let bytes = std::fs::read(&changed).unwrap();
    std::fs::write(&changed, &bytes[..bytes.len() / 2]).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let report = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .arg("report")
        .arg(run)
        .arg("--html")
        .arg(scratch.path().join("page.html"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&report.stderr);
    assert!(report.status.success(), "{err}");
    assert!(
        err.contains(&format!("{}: ", changed.display()))
            && err.contains("is shown without its workspace changes"),
        "{err}"
    );
}

#[test]
fn a_panic_ends_clawrun_with_101_and_is_written_to_the_panic_log() {
    // The test command sets CLAWRUN_PANIC_LOG for every clawrun the tests start and fails when
    // one ended in a panic (issue 32: exit 101 never appears), whatever its test asserted.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("panics.log");
    let log_arg = log.to_str().unwrap();
    // A run that ends well writes nothing there.
    let out = dir.path().join("fine");
    let o = command(&out, 1, false, &[("CLAWRUN_PANIC_LOG", log_arg)])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert!(!log.exists());
    // A panic, in the main thread or in a worker, is one line naming the command and it.
    for point in ["manifest-written", "trace-written"] {
        let out = dir.path().join(point);
        let crash = format!("{point}:1:panic");
        let o = command(
            &out,
            2,
            false,
            &[("CLAWRUN_CRASH_AT", &crash), ("CLAWRUN_PANIC_LOG", log_arg)],
        )
        .output()
        .unwrap();
        assert_eq!(o.status.code(), Some(101), "{point}: {}", text(&o));
        let logged = std::fs::read_to_string(&log).unwrap();
        let line = logged.lines().last().unwrap();
        assert!(line.contains(" run --quiet --agent oracle"), "{line}");
        assert!(
            line.contains(": exit 101: panicked at runtime/run/src/crash.rs:")
                && line.contains(&format!("a panic asked for at {point}")),
            "{line}"
        );
    }
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 2);
}
