//! `clawrun run --report html|md|none`: which report files the run folder gets, a long run's
//! trials beside its HTML page, and `--html` with a report kind that has no HTML is refused.

use std::path::Path;
use std::process::{Command, Output};

fn run(out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "run",
            "T002_email_triage",
            "--trials",
            "2",
            "--faults",
            "none",
            "-j",
            "1",
        ])
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_report_files_a_run_writes_are_chosen() {
    let tmp = tempfile::tempdir().unwrap();
    for (kind, html, md) in [
        ("html", true, true),
        ("md", false, true),
        ("none", false, false),
    ] {
        let out = tmp.path().join(kind);
        let o = run(&out, &["--report", kind]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(out.join("report.html").is_file(), html, "{kind}");
        assert_eq!(out.join("report.md").is_file(), md, "{kind}");
        assert!(out.join("journal.jsonl").is_file(), "{kind}");
        // The summary is printed whatever is written.
        assert!(
            String::from_utf8_lossy(&o.stdout).contains("clawrun report:"),
            "{kind}"
        );
    }
    let out = tmp.path().join("conflict");
    let o = run(&out, &["--report", "md", "--html", "x.html"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("--html FILE writes the HTML report"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.exists());
}

#[test]
fn a_long_run_s_html_report_keeps_its_trials_beside_the_page() {
    // Above 1,000 trials the page holds an index and the trials are scripts in
    // report.trials/, 64 trials per file.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("long");
    let o = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "run",
            "T002_email_triage",
            "--trials",
            "1001",
            "--faults",
            "none",
        ])
        .args(["-j", "2", "--report", "html", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let trials = out.join("report.trials");
    assert_eq!(std::fs::read_dir(&trials).unwrap().count(), 16);
    // Two writers at once (shards of one folder ending together): each writes a staging
    // folder and a page of its own and puts them in place whole; nothing is left behind.
    let writers: Vec<_> = (0..2)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_clawrun"))
                .args(["report", "--html"])
                .arg(out.join("report.html"))
                .arg(&out)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut w in writers {
        assert!(w.wait().unwrap().success());
    }
    assert_eq!(std::fs::read_dir(&trials).unwrap().count(), 16);
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        page.contains("\"src\":\"report.trials/"),
        "an index entry names its file"
    );
    assert!(
        !page.contains("\"type\":\"trace_start\""),
        "no trace is embedded"
    );
    // The list and the index are in viewer order (the journal's is arrival order over two
    // workers), the list's i-th item naming the index's i-th trial.
    let listed: Vec<String> = page
        .split("<li data-i=\"")
        .skip(1)
        .map(|item| item.split("</li>").next().unwrap().to_string())
        .collect();
    assert_eq!(listed.len(), 1001);
    for (i, item) in listed.iter().enumerate() {
        assert!(
            item.starts_with(&format!("{i}\"><a href=\"#trial=T002_email_triage/{i}\">")),
            "{item}"
        );
    }
    let data = page.split("id=\"trial-data\">").nth(1).unwrap();
    let data = data.split("</script>").next().unwrap();
    let entries: Vec<serde_json::Value> = serde_json::from_str(data).unwrap();
    let order: Vec<u64> = entries
        .iter()
        .map(|e| e["record"]["trial"].as_u64().unwrap())
        .collect();
    assert_eq!(order, (0..1001).collect::<Vec<u64>>());
    // Each index entry names its file and its key in it; each file hands over its 64 trials
    // (the last, 1001 - 15 x 64 = 41), each whole.
    for (i, e) in entries.iter().enumerate() {
        let src = e["src"].as_str().unwrap();
        let (file, key) = src.split_once('#').unwrap();
        let n: usize = key.parse().unwrap();
        assert_eq!(file, format!("report.trials/{}.js", n / 64), "trial {i}");
    }
    for (file, count) in [("0.js", 64), ("15.js", 41)] {
        let script = std::fs::read_to_string(trials.join(file)).unwrap();
        assert_eq!(script.lines().count(), count, "{file}");
        assert!(
            script
                .lines()
                .all(|l| l.starts_with(&format!("clawrunTrial(\"report.trials/{file}#"))),
            "{script:.200}"
        );
        assert_eq!(script.matches("\"type\":\"trace_start\"").count(), count);
    }
    // `clawrun report` rewrites the folder (no stale trials).
    std::fs::write(trials.join("stale.js"), "x").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(["report"])
        .arg(&out)
        .arg("--html")
        .arg(out.join("report.html"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!trials.join("stale.js").exists());
    assert_eq!(std::fs::read_dir(&trials).unwrap().count(), 16);
}
