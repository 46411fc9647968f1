//! Opens the HTML report in headless Chromium and checks what a person would see after the
//! page's script ran (`--dump-dom` prints the DOM after load).
//!
//! Needs Debian's `chromium` package (`apt-get install -y chromium`); set
//! `CLAWRUN_SKIP_BROWSER_TESTS=1` to skip these tests (a loud note is printed).

mod common;
// The Chromium runner the root crate's command-line tests use too.
#[allow(dead_code)]
#[path = "../../../tests/browser/mod.rs"]
mod browser;

use browser::{chromium, run_chromium};

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use clawrun_report::{Summary, render_html};

/// A fresh folder under the target dir for one test.
fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("report-browser")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes the fixture's HTML report into `dir` and returns its path.
fn write_report(dir: &Path) -> PathBuf {
    let summary =
        Summary::from_records(common::sourced("journal.jsonl", common::records()), None).unwrap();
    let path = dir.join("report.html");
    fs::write(&path, render_html(&summary, &common::views())).unwrap();
    path
}

/// The DOM after the page's script ran.
fn dump_dom(exe: &Path, dir: &Path, url: &str, extra: &[&str]) -> String {
    let mut args = extra.to_vec();
    args.push("--dump-dom");
    let (ok, dom) = run_chromium(exe, dir, &args, url);
    assert!(
        ok && dom.contains("</html>"),
        "chromium --dump-dom failed; see {}/chromium.stderr\n{dom}",
        dir.display()
    );
    dom
}

/// `file://` URL of `path`, with an optional fragment.
fn url(path: &Path, fragment: &str) -> String {
    format!("file://{}{fragment}", path.display())
}

/// The element with `id`, from its opening tag to the end of the DOM.
fn from_id<'a>(dom: &'a str, id: &str) -> &'a str {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in the DOM"));
    &dom[at..]
}

#[test]
fn the_page_shows_tables_banner_and_the_first_trial_with_its_fault() {
    let Some(exe) = chromium() else { return };
    let dir = workdir("default");
    let report = write_report(&dir);
    let dom = dump_dom(&exe, &dir, &url(&report, ""), &[]);

    // the unjudged banner and the summary cards
    let banner = from_id(&dom, "unjudged-banner");
    assert!(banner.contains("NEEDS A JUDGE: 1 of 11 are scored over their checkable items only"));
    assert!(dom.contains("<div class=\"label\">Mean score</div><div class=\"value\">~0.667</div>"));
    // every task row, with its mean score (T001: (0.9 + 0.8 + 0.5) / 3 = 0.733)
    for (id, score) in [
        ("T001_alpha", "0.733"),
        ("T002_beta", "0.983"),
        ("T003_gamma", "0.150"),
        ("T004_delta", "~0.800"),
    ] {
        let row = &dom[dom.find(&format!("<tr data-task=\"{id}\">")).expect(id)..];
        let row = &row[..row.find("</tr>").unwrap()];
        assert!(row.contains(&format!(">{score}</td>")), "{id}: {row}");
    }

    // the viewer rendered the first trial, with the fault and the error result highlighted
    let viewer = from_id(&dom, "viewer");
    assert!(viewer.contains("<h3>T001_alpha / trial 0 <span class=\"tag pass\">PASS</span></h3>"));
    assert!(
        viewer.contains("<div class=\"event fault\"><span class=\"tag fault\">FAULT 429</span>")
    );
    assert!(viewer.contains("rule gmail-rate-limit at service:gmail/gmail/send (call 1)"));
    assert!(viewer.contains("class=\"event tool_result error\""));
    assert!(viewer.contains("<span class=\"tag error\">ERROR 429</span>"));
    // tool call arguments, the rubric evidence (as text), audit, snapshot and diff
    assert!(viewer.contains("\"subject\": \"Q3 report\""));
    assert!(viewer.contains("gmail/send called once with &lt;b&gt;to&lt;/b&gt;=cfo@example.com"));
    assert!(viewer.contains("service gmail"));
    assert!(viewer.contains("$ cat /workspace/sent.log (exit 0)"));
    assert!(viewer.contains("<li>added: /workspace/report.csv</li>"));
    // the "</script>" inside a tool output stayed text: the title is untouched
    assert!(dom.contains("<title>clawrun report</title>"));
    assert!(viewer.contains("429 Too Many Requests &lt;/script&gt;&lt;script&gt;"));

    // the charts are drawn without script: a bar per category, a mark per trial
    let charts = from_id(&dom, "charts");
    assert!(charts.contains("id=\"chart-categories\""));
    assert!(charts.contains("id=\"chart-passk\""));
    assert!(charts.contains("<rect class=\"mark"));

    // screenshots for people to look at (not asserted): a laptop's width and a phone's
    for (name, size) in [
        ("report-1280.png", "1280,2600"),
        ("report-390.png", "390,2600"),
    ] {
        let png = dir.join(name);
        let shot = format!("--screenshot={}", png.display());
        let window = format!("--window-size={size}");
        let (ok, _) = run_chromium(&exe, &dir, &[&shot, &window], &url(&report, ""));
        let _ = std::io::stderr()
            .write_all(format!("screenshot (ok={ok}): {}\n", png.display()).as_bytes());
    }
}

#[test]
fn the_fragment_picks_a_trial_and_sorts_the_task_table() {
    let Some(exe) = chromium() else { return };
    let dir = workdir("fragment");
    let report = write_report(&dir);
    let dom = dump_dom(
        &exe,
        &dir,
        &url(&report, "#trial=T004_delta/1&sort=-score"),
        &[],
    );
    let viewer = from_id(&dom, "viewer");
    assert!(viewer.contains(
        "<h3>T004_delta / trial 1 <span class=\"tag fail\">FAIL</span><span class=\"tag partial\">PARTLY JUDGED</span></h3>"
    ));
    assert!(viewer.contains("<span class=\"tag unjudged\">UNJUDGED</span>"));
    // by mean score, descending: T002 0.983, T004 0.800, T001 0.733, T003 0.150
    let table = from_id(&dom, "task-table");
    let order: Vec<usize> = ["T002_beta", "T004_delta", "T001_alpha", "T003_gamma"]
        .iter()
        .map(|id| table.find(&format!("<tr data-task=\"{id}\">")).expect(id))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert!(table.contains("data-key=\"score\" title=\"sort\" aria-sort=\"descending\""));
}

#[test]
fn without_javascript_the_tables_still_show() {
    let Some(exe) = chromium() else { return };
    let dir = workdir("nojs");
    let report = write_report(&dir);
    // JS off: a copy of the page whose Content-Security-Policy forbids every script
    // (Chromium's own scriptEnabled=false also stops --dump-dom from printing anything).
    let html = fs::read_to_string(&report).unwrap().replacen(
        "<meta charset=\"utf-8\">",
        "<meta charset=\"utf-8\"><meta http-equiv=\"Content-Security-Policy\" content=\"script-src 'none'\">",
        1,
    );
    let nojs = dir.join("report-nojs.html");
    fs::write(&nojs, html).unwrap();
    let dom = dump_dom(&exe, &dir, &url(&nojs, ""), &[]);
    assert!(
        dom.contains("<div id=\"viewer\"></div>"),
        "the script did not run"
    );
    for id in ["T001_alpha", "T002_beta", "T003_gamma", "T004_delta"] {
        assert!(dom.contains(&format!("<tr data-task=\"{id}\">")), "{id}");
    }
    assert!(from_id(&dom, "unjudged-banner").contains("NEEDS A JUDGE"));
    assert!(dom.contains("<div class=\"value\">~0.667</div>"));
    assert!(dom.contains("The trial viewer needs JavaScript"));
}

#[test]
fn the_viewer_shows_a_u64_seed_exactly() {
    let Some(exe) = chromium() else { return };
    let dir = workdir("seed");
    let mut views = common::views();
    // above 2^53: JSON.parse of a number would show 18446744073709552000
    views[0].record.seed = u64::MAX - 58;
    let summary =
        Summary::from_records(common::sourced("journal.jsonl", common::records()), None).unwrap();
    let report = dir.join("report.html");
    fs::write(&report, render_html(&summary, &views)).unwrap();
    let dom = dump_dom(&exe, &dir, &url(&report, ""), &[]);
    let viewer = from_id(&dom, "viewer");
    assert!(viewer.contains("<h3>T001_alpha / trial 0 "), "{viewer}");
    assert!(
        viewer.contains("<dt>seed</dt><dd>18446744073709551557</dd>"),
        "{viewer}"
    );
}

#[test]
fn a_long_run_s_trials_load_from_beside_the_page_when_shown() {
    let Some(exe) = chromium() else { return };
    let dir = workdir("linked");
    let summary =
        Summary::from_records(common::sourced("journal.jsonl", common::records()), None).unwrap();
    // The layout `clawrun report` writes above its embedding limit: an index in the page,
    // the trials in scripts in report.trials/, several per file (here 3), each trial's src
    // naming its file and its key.
    fs::create_dir_all(dir.join("report.trials")).unwrap();
    let mut files: Vec<String> = Vec::new();
    let index: Vec<_> = common::views()
        .into_iter()
        .enumerate()
        .map(|(n, view)| {
            let src = format!("report.trials/{}.js#{n}", n / 3);
            if n % 3 == 0 {
                files.push(String::new());
            }
            files
                .last_mut()
                .unwrap()
                .push_str(&clawrun_report::trial_script(&src, &view));
            clawrun_report::TrialView {
                events: Vec::new(),
                diff: None,
                src: Some(src),
                ..view
            }
        })
        .collect();
    for (i, script) in files.iter().enumerate() {
        fs::write(dir.join(format!("report.trials/{i}.js")), script).unwrap();
    }
    let page = render_html(&summary, &index);
    assert!(!page.contains("Q3 report"), "the page holds no trace");
    let path = dir.join("report.html");
    fs::write(&path, page).unwrap();
    let dom = dump_dom(
        &exe,
        &dir,
        &url(&path, "#trial=T001_alpha/0"),
        &["--virtual-time-budget=5000"],
    );
    let viewer = from_id(&dom, "viewer");
    assert!(viewer.contains("<h3>T001_alpha / trial 0 <span class=\"tag pass\">PASS</span></h3>"));
    assert!(viewer.contains("\"subject\": \"Q3 report\""), "{viewer}");
    assert!(viewer.contains("<li>added: /workspace/report.csv</li>"));
    // A trial of the second file (the fourth trial) loads from it.
    let dom = dump_dom(
        &exe,
        &dir,
        &url(&path, "#trial=T002_beta/0"),
        &["--virtual-time-budget=5000"],
    );
    let viewer = from_id(&dom, "viewer");
    assert!(viewer.contains("<h3>T002_beta / trial 0 "), "{viewer}");
    assert!(!dom.contains("id=\"load-error\""), "{viewer}");

    // A missing trial file says what to keep.
    fs::remove_file(dir.join("report.trials/0.js")).unwrap();
    let dom = dump_dom(
        &exe,
        &dir,
        &url(&path, "#trial=T001_alpha/0"),
        &["--virtual-time-budget=5000"],
    );
    assert!(
        from_id(&dom, "load-error").contains("Could not load report.trials/0.js"),
        "{dom}"
    );
}
