//! The text, JSON, Markdown and HTML outputs (the browser's view is in `browser.rs`).

mod common;

use clawrun_report::{
    Group, Summary, TrialView, render_html, render_json, render_markdown, render_text,
};
use common::{records, scored, sourced, views};

fn fixture() -> Summary {
    Summary::from_records(sourced("journal.jsonl", records()), None).unwrap()
}

/// A run where everything was judged and nothing failed.
fn clean() -> Summary {
    let recs = (0..3)
        .map(|t| scored("T009_clean", "files", Group::General, t, 0.9))
        .collect();
    Summary::from_records(sourced("j", recs), None).unwrap()
}

#[test]
fn text_shows_every_task_aggregate_then_the_judge_note_once_at_the_end() {
    let out = render_text(&fixture());
    for id in ["T001_alpha", "T002_beta", "T003_gamma", "T004_delta"] {
        assert_eq!(
            out.lines().filter(|l| l.starts_with(id)).count(),
            1,
            "{id}\n{out}"
        );
    }
    for row in [
        "category: email",
        "category: finance",
        "group: general",
        "group: multimodal",
        "group: multi-turn",
        "overall ",
    ] {
        assert!(out.lines().any(|l| l.starts_with(row)), "{row}\n{out}");
    }
    let note: Vec<&str> = out
        .lines()
        .filter(|l| {
            l.starts_with("note: NEEDS A JUDGE: 1 of 11 are scored over their checkable items only")
        })
        .collect();
    assert_eq!(note.len(), 1, "{out}");
    // What was measured comes first: the note follows the overall figures.
    assert!(out.find("\nOVERALL\n").unwrap() < out.find("note: NEEDS A JUDGE").unwrap());
    assert!(!out.contains("!!!"), "{out}");
    assert!(
        out.contains("infrastructure errors: 1 (excluded from all scores)"),
        "{out}"
    );
    // T001's mean score 2.2/3 and the overall mean (2.2/3 + 2.95/3 + 0.15 + 0.8)/4
    assert!(
        out.lines()
            .any(|l| l.starts_with("T001_alpha") && l.contains(" 0.733 "))
    );
    assert!(
        out.contains("mean score                             ~0.667 ["),
        "{out}"
    );
}

#[test]
fn text_columns_are_aligned() {
    let out = render_text(&fixture());
    let lines: Vec<&str> = out.lines().collect();
    let header = lines.iter().position(|l| l.starts_with("task ")).unwrap();
    // right-aligned numeric columns end at the same offset as their header
    let end = lines[header].find("score").unwrap() + "score".len();
    for row in &lines[header + 2..header + 6] {
        assert_eq!(
            &row[end - 5..end],
            &row[end - 5..end].trim_start().to_string()[..]
        );
        assert!(row[..end].ends_with(|c: char| c.is_ascii_digit()), "{row}");
        assert_eq!(row.as_bytes()[end], b' ', "{row}");
    }
}

#[test]
fn clean_runs_have_no_banner() {
    let s = clean();
    for out in [
        render_text(&s),
        render_markdown(&s),
        render_json(&s),
        render_html(&s, &[]),
    ] {
        assert!(!out.contains("NEEDS A JUDGE"), "{out}");
    }
}

#[test]
fn json_is_stable_and_complete() {
    let out = render_json(&fixture());
    assert_eq!(out, render_json(&fixture()));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["report_version"], 2);
    assert_eq!(v["kind"], "run");
    let w = v["warnings"][0].as_str().unwrap();
    assert!(w.starts_with("NEEDS A JUDGE: "), "{w}");
    let s = &v["summary"];
    assert_eq!(s["k"], 3);
    assert_eq!(s["bootstrap"]["resamples"], 2000);
    assert_eq!(s["tasks"][2]["task_id"], "T003_gamma");
    assert_eq!(s["tasks"][2]["infra_errors"], 1);
    assert_eq!(s["overall"]["unjudged_trials"], 0);
    assert_eq!(s["overall"]["partly_judged_trials"], 1);
    assert_eq!(s["tasks"][3]["trials"][1]["judgement"], "partial");
    assert_eq!(s["groups"][2]["name"], "multi-turn");
    let mean = s["overall"]["mean_score"]["value"].as_f64().unwrap();
    assert!((mean - 2.0 / 3.0).abs() < 1e-9, "{mean}");
    assert!(out.ends_with("}\n"));
}

#[test]
fn markdown_has_tables_and_the_banner() {
    let out = render_markdown(&fixture());
    assert!(
        out.contains("> **NEEDS A JUDGE: 1 of 11 are scored over their checkable items only"),
        "{out}"
    );
    assert!(
        out.contains("| T001\\_alpha | finance | general | 3 | 2 | 0.733 |"),
        "{out}"
    );
    assert!(out.contains("| overall | 4 | 11 | \\~0.667 \\["), "{out}");
    assert!(out.contains("Infrastructure errors: 1"), "{out}");
    // every table line has the header's number of cells
    let header = out.lines().find(|l| l.starts_with("| task |")).unwrap();
    let cells = header.matches(" | ").count();
    for l in out.lines().filter(|l| l.starts_with("| T00")) {
        assert_eq!(l.matches(" | ").count(), cells, "{l}");
    }
}

#[test]
fn html_is_self_contained() {
    let out = render_html(&fixture(), &views());
    assert!(out.starts_with("<!DOCTYPE html>"));
    for banned in ["http://", "https://", "<link", "src=\"", "@import", "url("] {
        assert!(!out.contains(banned), "HTML contains {banned}");
    }
    assert_eq!(out, render_html(&fixture(), &views()), "deterministic");
}

#[test]
fn html_embeds_trial_data_without_closing_the_script() {
    let out = render_html(&fixture(), &views());
    // the fixture's tool output contains "</script><script>...": only the data element's and
    // the viewer script's own closing tags may appear
    assert_eq!(out.matches("</script>").count(), 2);
    assert!(out.contains("\\u003c/script>\\u003cscript>document.title"));
    let start = out
        .find("<script type=\"application/json\" id=\"trial-data\">")
        .unwrap();
    let body = &out[start..];
    let body = &body[body.find('>').unwrap() + 1..body.find("</script>").unwrap()];
    let data: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(data.as_array().unwrap().len(), 12);
    assert_eq!(data[0]["record"]["task_id"], "T001_alpha");
    assert_eq!(data[0]["diff"][0][0], "/workspace/report.csv");
    // seeds are strings, in the record and in the trace's trace_start
    assert_eq!(data[0]["record"]["seed"], "1000");
    assert_eq!(data[0]["events"][0]["seed"], "1000");
}

#[test]
fn html_embeds_u64_seeds_exactly() {
    let mut view = views().remove(0);
    view.record.seed = u64::MAX - 58;
    view.events = common::trace(&view.record);
    let out = render_html(&fixture(), &[view]);
    // 18446744073709551557 does not survive a JS number (it parses as ...551616)
    assert!(
        out.contains("\"seed\":\"18446744073709551557\""),
        "the record's seed is a string"
    );
    assert!(!out.contains("\"seed\":18446744073709551557"));
    assert!(!out.contains("\"seed\":1"), "no seed stays a JSON number");
}

#[test]
fn html_tables_are_rendered_without_js() {
    let out = render_html(&fixture(), &views());
    let before_js = &out[..out.find("<script").unwrap()];
    for id in ["T001_alpha", "T002_beta", "T003_gamma", "T004_delta"] {
        assert!(
            before_js.contains(&format!("<tr data-task=\"{id}\">")),
            "{id}"
        );
    }
    assert!(before_js.contains("id=\"unjudged-banner\""));
    assert!(
        before_js.contains("<div class=\"value\">~0.667</div>"),
        "mean score card"
    );
    let t003 = &before_js[before_js.find("<tr data-task=\"T003_gamma\">").unwrap()..];
    let t003 = &t003[..t003.find("</tr>").unwrap()];
    assert!(
        t003.contains(">0.150</td>"),
        "T003's score (0.2 + 0.1) / 2: {t003}"
    );
    // HTML in evidence and task data is escaped
    assert!(!before_js.contains("<b>to</b>"));
    assert!(
        before_js.contains(
            "<li data-i=\"0\"><a href=\"#trial=T001_alpha/0\">T001_alpha / trial 0 &mdash; 0.900 pass</a></li>"
        )
    );
}

#[test]
fn html_escapes_names() {
    let rec = scored("T<x>&\"q\"", "c<at>", Group::General, 0, 0.9);
    let s = Summary::from_records(sourced("j", vec![rec.clone()]), None).unwrap();
    let view = TrialView {
        events: common::trace(&rec),
        record: rec,
        diff: None,
        wall_ms: None,
        arm: None,
        src: None,
    };
    let out = render_html(&s, &[view]);
    assert!(out.contains("T&lt;x&gt;&amp;&quot;q&quot;"));
    assert!(!out.contains("T<x>"));
    assert!(!out.contains("c<at>"));
}

#[test]
fn trial_view_loads_its_trace() {
    use clawrun_agents::trace::TraceWriter;
    let dir = tempfile::tempdir().unwrap();
    let rec = records().remove(0);
    let path = dir.path().join(&rec.trace);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut w = TraceWriter::new(std::fs::File::create(&path).unwrap());
    for e in common::trace(&rec) {
        w.push(e.t_ns, e.kind).unwrap();
    }
    drop(w);
    let view = TrialView::load(dir.path(), rec.clone()).unwrap();
    assert_eq!(view.events, common::trace(&rec));
    let missing = TrialView::load(&dir.path().join("nope"), rec).unwrap_err();
    assert!(missing.to_string().contains("trace.jsonl"), "{missing}");
}

/// A manifest as `clawrun run` writes it (runtime/run/src/manifest.rs), with a model agent.
fn manifest(shard: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "clawrun_version": "0.1.0", "trace_version": 1, "agent": "openai:gpt-x",
        "suite": ".", "trials": 3, "seed": 18446744073709551557u64,
        "faults": "claw-eval:0.5", "fault_plan": "abc", "shard": shard,
        "judge": null, "user_model": null, "max_tokens": null, "cache": false,
        "models": {
            "agent": {"model": "openai:gpt-x", "base_url": "http://127.0.0.1:9/v1",
                "temperature": 0.0, "max_tokens": null, "timeout": 60.0, "max_retries": 2,
                "max_connections": 4},
            "judge": {"model": null},
            "user_model": {"model": null}
        }
    })
}

#[test]
fn the_run_header_shows_each_folders_settings_in_text_markdown_and_html() {
    use clawrun_report::RunHeader;
    let mut s = fixture();
    s.runs = vec![
        RunHeader::from_manifests("runs/a", &[("run.json".into(), manifest(None))]),
        RunHeader::from_manifests(
            "runs/b",
            &[
                ("run.shard-0-of-2.json".into(), manifest(Some("0/2"))),
                ("run.shard-1-of-2.json".into(), manifest(Some("1/2"))),
            ],
        ),
        RunHeader::from_manifests("runs/old", &[]),
    ];
    let line = "agent openai:gpt-x, seed 18446744073709551557, faults claw-eval:0.5, judge none, \
                agent settings (temperature 0.0, timeout 60.0s, max retries 2, max connections 4, \
                base url http://127.0.0.1:9/v1), trials 3";
    let versions = "clawrun 0.1.0, trace v1";
    let text = render_text(&s);
    assert!(
        text.contains(&format!("run runs/a: {line}, {versions}\n")),
        "{text}"
    );
    assert!(
        text.contains(&format!("run runs/b: {line}, shards 0/2 1/2, {versions}\n")),
        "{text}"
    );
    assert!(text.contains("run runs/old: no run.json (settings unknown)\n"));
    // before the tables
    assert!(text.find("run runs/a:").unwrap() < text.find("T001_alpha").unwrap());

    let md = render_markdown(&s);
    assert!(
        md.contains("- run `runs/a`: agent openai:gpt-x, seed 18446744073709551557"),
        "{md}"
    );
    assert!(md.contains("shards 0/2 1/2"), "{md}");
    assert!(md.find("- run `runs/b`").unwrap() < md.find("## Tasks").unwrap());

    let html = render_html(&s, &[]);
    let header = &html[html.find("<header>").unwrap()..html.find("</header>").unwrap()];
    assert!(
        header.contains(&format!(
            "<li>run <code>runs/a</code>: {line}, {versions}</li>"
        )),
        "{header}"
    );
    assert!(header.contains("<li>run <code>runs/old</code>: no run.json (settings unknown)</li>"));
    // the JSON report names the folders, and is otherwise unchanged by headers
    let mut with: serde_json::Value = serde_json::from_str(&render_json(&s)).unwrap();
    let mut without: serde_json::Value = serde_json::from_str(&render_json(&fixture())).unwrap();
    let folders: Vec<&str> = s.runs.iter().map(|r| r.folder.as_str()).collect();
    assert_eq!(with["folders"], serde_json::json!(folders));
    assert!(folders.contains(&"runs/a"), "{folders:?}");
    assert_eq!(without["folders"], serde_json::json!([]));
    with.as_object_mut().unwrap().remove("folders");
    without.as_object_mut().unwrap().remove("folders");
    assert_eq!(with, without);
}

#[test]
fn a_task_run_thousands_of_times_keeps_a_readable_row() {
    // 12,000 trials once made a cell wider than `format!` pads (65,535): the report panicked.
    let recs = (0..12_000)
        .map(|t| scored("T010_many", "files", Group::General, t, 0.9))
        .collect();
    let summary = Summary::from_records(sourced("j", recs), Some(3)).unwrap();
    let out = render_text(&summary);
    let row = out
        .lines()
        .find(|l| l.starts_with("T010_many"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(row.ends_with("... (+11976 more)"), "{row}");
    assert_eq!(row.matches("0.90+").count(), 24, "{row}");
    assert!(render_markdown(&summary).contains("(+11976 more)"));
}

#[test]
fn merged_records_keep_what_their_judgement_needs_and_drop_the_rest() {
    let recs: Vec<_> = (0..3)
        .map(|t| scored("T011_slim", "files", Group::General, t, 0.9))
        .collect();
    assert!(
        recs[0]
            .verdict
            .as_ref()
            .unwrap()
            .items
            .iter()
            .any(|i| !i.evidence.is_empty())
    );
    let slim = recs[0].clone().for_summary();
    assert_eq!(slim.judgement(), recs[0].judgement());
    assert!(
        slim.verdict.as_ref().unwrap().items.is_empty(),
        "fully judged: no items kept"
    );
    // A partly judged record keeps the items its judgement reads, without their text.
    let partial = common::scored_with(
        "T012_partial",
        "files",
        Group::General,
        0,
        common::verdict(0.5, false, 0.4, 0),
    );
    let slim = partial.clone().for_summary();
    assert_eq!(slim.judgement(), partial.judgement());
    assert!(
        slim.verdict
            .as_ref()
            .unwrap()
            .items
            .iter()
            .all(|i| i.evidence.is_empty())
    );
    // Summaries of slim and full records agree.
    let full = Summary::from_records(sourced("j", recs.clone()), None).unwrap();
    let again = Summary::from_records(
        sourced("j", recs.into_iter().map(|r| r.for_summary()).collect()),
        None,
    )
    .unwrap();
    assert_eq!(full, again);
}

#[test]
fn a_task_run_thousands_of_times_keeps_a_short_html_row() {
    let recs = (0..30)
        .map(|t| scored("T013_many", "files", Group::General, t, 0.9))
        .collect();
    let summary = Summary::from_records(sourced("j", recs), Some(3)).unwrap();
    let page = render_html(&summary, &[]);
    let row = &page[page.find("<tr data-task=\"T013_many\">").unwrap()..];
    let row = &row[..row.find("</tr>").unwrap()];
    assert_eq!(row.matches("class=\"chip pass\"").count(), 24, "{row}");
    assert!(
        row.contains("<a class=\"chip more\" href=\"#task=T013_many\">+6 more</a>"),
        "{row}"
    );
}

/// The numbers an SVG chart carries in its `<title>`s, in order.
fn titles(svg: &str) -> Vec<&str> {
    svg.split("<title>")
        .skip(1)
        .map(|t| &t[..t.find("</title>").unwrap()])
        .collect()
}

#[test]
fn html_charts_show_each_category_the_pass_curves_and_every_trial() {
    use clawrun_report::render::html::charts;
    let s = fixture();
    let html = render_html(&s, &views());
    for id in ["chart-categories", "chart-passk", "chart-strips"] {
        assert_eq!(html.matches(&format!("id=\"{id}\"")).count(), 1, "{id}");
    }
    // A bar per category with a counted trial, its title the mean and interval the tables show.
    let bars = charts::category_chart(&s);
    let counted: Vec<_> = s
        .categories
        .iter()
        .filter(|c| c.mean_score.is_some())
        .collect();
    assert_eq!(bars.matches("class=\"bar\"").count(), counted.len());
    for c in &counted {
        let e = c.mean_score.unwrap();
        let title = format!(
            "{}: {:.3} [{:.3}, {:.3}]",
            c.name, e.value, e.ci95.lo, e.ci95.hi
        );
        assert!(bars.contains(&title), "{title} in {bars}");
    }
    // Pass@k and Pass^k at k = 1 equal the tables' Pass@1 (both are c/n); every k up to the
    // most trials a task has is drawn, over the tasks with that many.
    let curve = charts::pass_curve(&s);
    let top = s.tasks.iter().map(|t| t.n).max().unwrap();
    let points = titles(&curve);
    assert_eq!(points.len(), 2 * top as usize, "{points:?}");
    let pass1 = s.overall.pass_at_1.unwrap().value;
    assert!(
        points[0].starts_with(&format!("Pass@k, k = 1: {pass1:.3} over")),
        "{points:?}"
    );
    assert!(
        points[top as usize].starts_with(&format!("Pass^k, k = 1: {pass1:.3} over")),
        "{points:?}"
    );
    let at_k = s.overall.pass_at_k.unwrap().value;
    let with_k = s.tasks.iter().filter(|t| t.n >= s.k).count();
    assert!(
        points.contains(&format!("Pass@k, k = {}: {at_k:.3} over {with_k} tasks", s.k).as_str()),
        "{points:?}"
    );
    // A mark per scored trial; unjudged ones grey.
    let strips = charts::task_strips(&s);
    let marks: usize = s.tasks.iter().map(|t| t.trials.len()).sum();
    assert_eq!(strips.matches("<rect class=\"mark").count(), marks);
    assert_eq!(
        strips.matches("fill=\"#b8bec9\"").count(),
        s.tasks
            .iter()
            .flat_map(|t| &t.trials)
            .filter(|t| t.judgement == clawrun_report::Judgement::Unjudged)
            .count()
    );
    // The same summary draws the same bytes.
    assert_eq!(render_html(&s, &views()), html);
}

#[test]
fn html_charts_are_left_out_when_nothing_was_scored() {
    let s = Summary::from_records(sourced("j", Vec::new()), None).unwrap();
    assert!(!render_html(&s, &[]).contains("id=\"charts\""));
}
