//! Issue 12's reports through the `clawrun` binary: two runs of different agents compared side
//! by side (text, JSON against the schema, HTML rendered by the page's script in Chromium);
//! tokens, wall time and cost from a model run against the mock server; unjudged trials shown
//! as unjudged, not as failures; the terminal table fitting a width.

use crate::browser;
use crate::mock_model;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The repository (bundled tasks in `tasks/`).
fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where screenshots for people go: `$CLAWRUN_SHOTS_DIR`, else the test's own folder.
fn shots(dir: &Path) -> PathBuf {
    std::env::var_os("CLAWRUN_SHOTS_DIR").map_or_else(|| dir.to_path_buf(), PathBuf::from)
}

/// `clawrun` with `args` in the repository, the model environment cleared, plus `env`.
fn clawrun(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    cmd.args(args)
        .current_dir(repo())
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENROUTER_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("COLUMNS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// Runs `clawrun` and asserts exit 0; returns stdout.
#[track_caller]
fn ok(args: &[&str], env: &[(&str, &str)]) -> String {
    let out = clawrun(args, env);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Bundled tasks the oracle passes fully offline, and one whose only weighted item needs an
/// LLM judge (unjudged without `--judge`).
const TASKS: [&str; 3] = [
    "T010_contact_lookup",
    "T086_pinbench_calendar_event_creation",
    "T091_pinbench_humanize_blog",
];

/// `clawrun run TASKS --agent AGENT --trials 2 --faults none` into `out`.
fn run_agent(agent: &str, out: &Path) {
    let mut args = TASKS.to_vec();
    args.splice(0..0, ["run"]);
    args.extend([
        "--agent",
        agent,
        "--trials",
        "2",
        "--faults",
        "none",
        "-j",
        "2",
        "--seed",
        "7",
        "--out",
        out.to_str().unwrap(),
    ]);
    ok(&args, &[]);
}

/// The shipped schema of `report --json`, compiled.
fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(repo().join("schemas/report.schema.json")).unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

/// Asserts `doc` matches the schema, listing every error.
#[track_caller]
fn assert_schema(doc: &Value) {
    let v = schema();
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn two_agents_are_compared_in_text_json_and_html() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("oracle"), tmp.path().join("idle"));
    run_agent("oracle", &a);
    run_agent("idle", &b);
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());

    // text: both arms, the paired difference, the per-task outcome
    let text = ok(&["report", a, b], &[]);
    assert!(
        text.starts_with("clawrun comparison: 2 arms, k = 2\n"),
        "{text}"
    );
    assert!(
        text.contains("arm A = oracle\n") && text.contains("arm B = idle\n"),
        "{text}"
    );
    assert!(
        text.contains("B - A (paired over the 2 tasks both scored)"),
        "{text}"
    );
    assert!(
        text.contains("tasks B better / worse / tied  0 / 2 / 0"),
        "{text}"
    );
    // 0 better, 2 worse: p = 2 × (1/2)^2 = 0.5
    assert!(text.contains("p = 0.5000 (exact, two-sided"), "{text}");
    let row = text
        .lines()
        .find(|l| l.starts_with("T010_contact_lookup"))
        .unwrap();
    assert!(row.contains("1.000") && row.contains("B worse"), "{row}");
    // the judge-only task has no score in either arm: unpaired, not a tie or a loss
    let unjudged = text
        .lines()
        .find(|l| l.starts_with("T091_pinbench_humanize_blog"))
        .unwrap();
    assert!(
        unjudged.contains("UNJUDGED") && unjudged.contains("unpaired"),
        "{unjudged}"
    );

    // JSON: the schema, the arms, the pair
    let json: Value = serde_json::from_str(&ok(&["report", "--json", a, b], &[])).unwrap();
    assert_schema(&json);
    assert_eq!(json["kind"], "comparison");
    let c = &json["comparison"];
    assert_eq!(c["arms"][0]["label"], "oracle");
    assert_eq!(c["arms"][1]["label"], "idle");
    let pair = &c["pairs"][0];
    assert_eq!(
        (pair["b_worse"].as_u64(), pair["ties"].as_u64()),
        (Some(2), Some(0))
    );
    let diff = pair["score_diff"]["value"].as_f64().unwrap();
    assert!(diff < -0.5, "{diff}");
    assert_eq!(pair["unpaired_tasks"], 1);
    // deterministic: byte-identical twice
    assert_eq!(
        ok(&["report", "--json", a, b], &[]),
        ok(&["report", "--json", a, b], &[])
    );

    // HTML: the comparison view is drawn by the page's script
    let html = tmp.path().join("compare.html");
    let md = tmp.path().join("compare.md");
    ok(
        &[
            "report",
            a,
            b,
            "--html",
            html.to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
        ],
        &[],
    );
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.starts_with("# clawrun comparison\n"), "{md}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        !page.contains("id=\"cmp-tasks\""),
        "the task comparison is drawn by the script"
    );
    let Some(exe) = browser::chromium() else {
        return;
    };
    let dir = tmp.path().join("chromium");
    std::fs::create_dir_all(&dir).unwrap();
    let dom = browser::dump_dom(&exe, &dir, &html, "");
    let view = browser::from_id(&dom, "cmp-view");
    assert!(
        view.contains("<h3>B \u{2212} A: idle vs oracle</h3>"),
        "{}",
        &view[..view.len().min(3000)]
    );
    assert!(view.contains("B better on 0, worse on 2, tied on 0; 1 unpaired"));
    assert!(view.contains("p = 0.5000 (exact, two-sided)"));
    let table = browser::from_id(&dom, "cmp-tasks");
    let row = &table[table
        .find("<tr data-task=\"T010_contact_lookup\" data-differs=\"1\">")
        .expect("T010's row, marked as differing")..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(row.contains("class=\"diff worse\""), "{row}");
    assert!(row.contains("B worse"), "{row}");
    assert!(table.contains("unpaired: no counted trial in A"));
    // the viewer lists both arms' trials and filters them by arm
    let arm_b = browser::dump_dom(&exe, &dir, &html, "#arm=B&failed=1");
    let count = browser::from_id(&arm_b, "f-count");
    assert!(
        count.starts_with("id=\"f-count\" class=\"meta\">4 of 12 trials<"),
        "{}",
        &count[..80]
    );
    let shots = shots(tmp.path());
    browser::screenshot(
        &exe,
        &dir,
        &html,
        "",
        &shots.join("comparison.png"),
        "1400,1000",
    );
    browser::screenshot(
        &exe,
        &dir,
        &html,
        "",
        &shots.join("comparison-full.png"),
        "1400,2600",
    );
}

/// A mock model that answers at once, reporting 1000 input tokens (400 of them from its
/// prompt cache) and 50 output tokens per call.
const PRICED_SCRIPT: &str = "rules:\n  - match: {turn: 0}\n    reply:\n      text: \"msg_001 needs a reply first.\"\n      usage: {input_tokens: 1000, output_tokens: 50, cached_input_tokens: 400}\n";

#[test]
fn two_runs_of_one_configuration_are_two_arms_and_a_run_s_shards_in_two_folders_one() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("first"), tmp.path().join("second"));
    run_agent("oracle", &a);
    run_agent("oracle", &b);
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    // The same settings, two runs: compared, each arm named by its folder.
    let text = ok(&["report", a, b], &[]);
    assert!(
        text.starts_with("clawrun comparison: 2 arms, k = 2\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!("arm A = oracle @ {a}\n"))
            && text.contains(&format!("arm B = oracle @ {b}\n")),
        "{text}"
    );
    // A sharded run whose shards sit in two folders is one run.
    let shard = |i: &str, out: &Path| {
        let mut args = TASKS.to_vec();
        args.splice(0..0, ["run"]);
        args.extend([
            "--trials", "2", "--faults", "none", "--seed", "7", "--shard", i,
        ]);
        args.extend(["--out", out.to_str().unwrap()]);
        ok(&args, &[]);
    };
    let (s0, s1) = (tmp.path().join("s0"), tmp.path().join("s1"));
    shard("0/2", &s0);
    shard("1/2", &s1);
    let text = ok(&["report", s0.to_str().unwrap(), s1.to_str().unwrap()], &[]);
    assert!(text.starts_with("clawrun report: "), "{text}");
}

#[test]
fn tokens_wall_time_and_cost_are_totalled_from_a_model_run() {
    let (_rt, server) = mock_model::mock_server_with(PRICED_SCRIPT);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let suite = repo().join("tests/fixtures/suite");
    let base = format!("{}/v1", server.url());
    ok(
        &[
            "run",
            "e2e_mail",
            "--suite",
            suite.to_str().unwrap(),
            "--agent",
            "openai:mock-model",
            "--trials",
            "2",
            "--faults",
            "none",
            "-j",
            "1",
            "--out",
            out.to_str().unwrap(),
        ],
        &[
            ("OPENAI_BASE_URL", &base),
            (
                "CLAWRUN_CACHE_DIR",
                tmp.path().join("cache").to_str().unwrap(),
            ),
        ],
    );
    // the trace records the cached tokens; the journal carries them; wall times sit outside
    let trace = String::from_utf8(crate::common::trial_trace(&out, "e2e_mail", 0)).unwrap();
    assert!(
        trace.contains(
            "\"usage\":{\"input_tokens\":1000,\"output_tokens\":50,\"cached_input_tokens\":400}"
        ),
        "{trace}"
    );
    assert!(!trace.contains("wall_ms"), "no wall time in the trace");
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    assert!(journal.contains("\"cached_input_tokens\":400"), "{journal}");
    assert!(!journal.contains("wall_ms"), "no wall time in the journal");
    let timings = std::fs::read_to_string(out.join("timings.jsonl")).unwrap();
    let kinds: Vec<String> = timings
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(kinds, ["trial", "trial", "session"], "{timings}");

    let prices = tmp.path().join("prices.yaml");
    std::fs::write(
        &prices,
        "mock-model: {input: 2.0, output: 10.0, cached_input: 0.5}\n",
    )
    .unwrap();
    let run = out.to_str().unwrap();
    let p = prices.to_str().unwrap();
    let json: Value =
        serde_json::from_str(&ok(&["report", "--json", "--prices", p, run], &[])).unwrap();
    assert_schema(&json);
    let s = &json["summary"];
    let totals = &s["overall"]["totals"];
    assert_eq!(totals["input_tokens"], 2000);
    assert_eq!(totals["output_tokens"], 100);
    assert_eq!(totals["cached_input_tokens"], 800);
    // per trial: (600 × 2 + 400 × 0.5 + 50 × 10) / 1e6 = 0.0019
    let cost = totals["cost_usd"].as_f64().unwrap();
    assert!((cost - 0.0038).abs() < 1e-12, "{cost}");
    assert!(totals["wall_ms"].is_u64(), "{totals}");
    assert!(s["run_wall_ms"].is_u64(), "{s}");
    assert_eq!(s["sessions"], 1);
    let trial = &s["tasks"][0]["trials"][1]["totals"];
    assert_eq!(
        (
            trial["input_tokens"].as_u64(),
            trial["cached_input_tokens"].as_u64()
        ),
        (Some(1000), Some(400))
    );
    assert!(trial["wall_ms"].is_u64());
    // Wall times are kept in microseconds and summed as such; milliseconds are their rounding.
    let trials_us: Vec<u64> = s["tasks"][0]["trials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["totals"]["wall_us"].as_u64().unwrap())
        .collect();
    assert!(trials_us.iter().all(|&us| us > 0), "{trials_us:?}");
    assert_eq!(totals["wall_us"].as_u64(), Some(trials_us.iter().sum()));
    assert_eq!(
        totals["wall_ms"].as_u64(),
        Some((trials_us.iter().sum::<u64>() + 500) / 1000)
    );
    assert!(
        timings
            .lines()
            .filter(|l| l.contains("\"trial\""))
            .all(|l| l.contains("\"wall_us\":"))
    );
    let text = ok(&["report", "--prices", p, run], &[]);
    assert!(text.contains("2000 in (800 cached) / 100 out"), "{text}");
    assert!(text.contains("$0.0038"), "{text}");
    // without --prices no cost anywhere; a table without the model is one clear error
    let plain = ok(&["report", "--json", run], &[]);
    assert!(plain.contains("\"cost_usd\": null") && !plain.contains("\"priced\": true"));
    std::fs::write(&prices, "other-model: {input: 1, output: 1}\n").unwrap();
    let missing = clawrun(&["report", "--prices", p, run], &[]);
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("prices.yaml: no price for model `openai:mock-model`"),
        "{err}"
    );
    let absent = clawrun(&["report", "--prices", "/nonexistent/p.yaml", run], &[]);
    assert_eq!(absent.status.code(), Some(2));
}

#[test]
fn unjudged_trials_show_as_unjudged_not_as_failures() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("oracle");
    run_agent("oracle", &out);
    let run = out.to_str().unwrap();
    let text = ok(&["report", run], &[]);
    // before: T091 showed "0.200" and "0.20- 0.20-", failing, and pulled the mean to 0.733
    let row = text
        .lines()
        .find(|l| l.starts_with("T091_pinbench_humanize_blog"))
        .unwrap();
    assert!(row.contains("UNJUDGED") && row.contains("unj unj"), "{row}");
    assert!(!row.contains("0.200") && !row.contains("0.20-"), "{row}");
    assert!(
        text.contains("note: NEEDS A JUDGE: 2 of 6 trials have no score yet"),
        "{text}"
    );
    let overall = text.lines().find(|l| l.starts_with("overall ")).unwrap();
    assert!(overall.contains(" 1.000 [1.000, 1.000]"), "{overall}");
    assert!(overall.contains("2 UNJUDGED"), "{overall}");

    let json: Value = serde_json::from_str(&ok(&["report", "--json", run], &[])).unwrap();
    assert_schema(&json);
    let o = &json["summary"]["overall"];
    assert_eq!(
        (o["trials"].as_u64(), o["passed_trials"].as_u64()),
        (Some(4), Some(4))
    );
    assert_eq!(o["unjudged_trials"], 2);
    let t091 = &json["summary"]["tasks"][2];
    assert_eq!(t091["task_id"], "T091_pinbench_humanize_blog");
    assert_eq!(
        (t091["n"].as_u64(), t091["mean_score"].is_null()),
        (Some(0), true)
    );
    assert_eq!(t091["trials"][0]["judgement"], "unjudged");

    let html = tmp.path().join("report.html");
    let md = tmp.path().join("report.md");
    ok(
        &[
            "report",
            run,
            "--html",
            html.to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
        ],
        &[],
    );
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("| T091\\_pinbench\\_humanize\\_blog |"), "{md}");
    assert!(md.contains("| UNJUDGED |"), "{md}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<a class=\"chip unj\" href=\"#trial=T091_pinbench_humanize_blog/0\""));
    let Some(exe) = browser::chromium() else {
        return;
    };
    let dir = tmp.path().join("chromium");
    std::fs::create_dir_all(&dir).unwrap();
    let dom = browser::dump_dom(&exe, &dir, &html, "#trial=T091_pinbench_humanize_blog/1");
    let viewer = browser::from_id(&dom, "viewer");
    assert!(
        viewer.contains("<h3>T091_pinbench_humanize_blog / trial 1 <span class=\"tag unjudged\">UNJUDGED</span></h3>"),
        "{}",
        &viewer[..viewer.len().min(2000)]
    );
    assert!(viewer.contains("not at all: no rubric item it weighs could be judged"));
    assert!(viewer.contains("- (unjudged: the recorded 0.200 measures nothing)"));
    // "failed only" lists no unjudged trial (and here no trial at all: the oracle passed)
    let failed = browser::dump_dom(&exe, &dir, &html, "#failed=1");
    assert!(
        browser::from_id(&failed, "f-count")
            .starts_with("id=\"f-count\" class=\"meta\">0 of 6 trials<")
    );
    assert!(failed.contains("No trial matches the filters."));
    // "not fully judged" lists the two
    let nfj = browser::dump_dom(&exe, &dir, &html, "#unjudged=1");
    assert!(
        browser::from_id(&nfj, "f-count")
            .starts_with("id=\"f-count\" class=\"meta\">2 of 6 trials<")
    );
    let shots = shots(tmp.path());
    browser::screenshot(
        &exe,
        &dir,
        &html,
        "",
        &shots.join("unjudged.png"),
        "1400,1000",
    );
    browser::screenshot(
        &exe,
        &dir,
        &html,
        "#unjudged=1&trial=T091_pinbench_humanize_blog/0",
        &shots.join("viewer-filters.png"),
        "1400,2600",
    );
}

#[test]
fn the_terminal_table_fits_the_width_and_pipes_stay_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("oracle");
    run_agent("oracle", &out);
    let run = out.to_str().unwrap();
    let piped = ok(&["report", run], &[]);
    let widest = piped.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest > 120, "every column when piped: {widest}");
    // COLUMNS is read only for a terminal: a pipe stays stable for scripts
    assert_eq!(ok(&["report", run], &[("COLUMNS", "60")]), piped);
    let narrow = ok(&["report", run, "--width", "80"], &[]);
    let tables: Vec<&str> = narrow
        .lines()
        .skip_while(|l| *l != "TASKS")
        .take_while(|l| *l != "OVERALL")
        .filter(|l| !l.starts_with('(') && !l.starts_with("!!!"))
        .collect();
    assert!(tables.len() > 6);
    for l in &tables {
        assert!(l.chars().count() <= 80, "{l:?}");
    }
    assert!(
        narrow.contains("columns hidden to fit 80 characters"),
        "{narrow}"
    );
    assert_eq!(ok(&["report", run, "--width", "0"], &[]), piped);
}

/// `run --json` (and `report --json`) name the run folder, so a script need not guess where
/// the run went; the document still fits the shipped schema.
#[test]
fn run_json_names_the_run_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("contact");
    let out = out.to_str().unwrap();
    for args in [
        vec![
            "run",
            "T010_contact_lookup",
            "--trials",
            "1",
            "--faults",
            "none",
            "--json",
            "--out",
            out,
        ],
        vec!["report", out, "--json"],
    ] {
        let doc: Value = serde_json::from_str(&ok(&args, &[])).unwrap();
        assert_eq!(doc["kind"], "run", "{args:?}");
        assert_eq!(doc["folders"], serde_json::json!([out]), "{args:?}");
        assert_schema(&doc);
    }
}
