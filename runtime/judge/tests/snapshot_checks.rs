//! Snapshot checks: files, JSON, CSV, numbers, intervals, judge commands.

mod common;

use clawrun_agents::trace::CommandOutput;
use clawrun_judge::checks::csv::parse_csv;
use clawrun_judge::checks::number::extract_numbers;
use clawrun_judge::checks::snapshot::iou;
use common::*;

fn one(check: &str) -> clawrun_task::Task {
    rubric_task(&format!("  - name: c\n    weight: 1\n    check: {check}\n"))
}

fn score(check: &str, ev: &clawrun_judge::Evidence) -> (Option<f64>, String) {
    let v = run(&one(check), ev);
    let i = item(&v, "c");
    (i.score, i.evidence.clone())
}

#[test]
fn file_exists_and_absent_with_relative_paths() {
    let mut ev = answer("x");
    put(&mut ev, "/workspace/out/report.md", "total 485000\n");
    assert_eq!(
        score("{type: file_exists, path: out/report.md}", &ev).0,
        Some(1.0)
    );
    assert_eq!(
        score("{type: file_exists, path: /workspace/out}", &ev).0,
        Some(1.0)
    );
    let (s, e) = score("{type: file_exists, path: missing.md}", &ev);
    assert_eq!(s, Some(0.0));
    assert_eq!(e, "/workspace/missing.md does not exist");
    assert_eq!(
        score("{type: file_absent, path: missing.md}", &ev).0,
        Some(1.0)
    );
    assert_eq!(
        score("{type: file_absent, path: out/report.md}", &ev).0,
        Some(0.0)
    );
}

#[test]
fn file_regex() {
    let mut ev = answer("x");
    put(&mut ev, "/workspace/report.md", "total 485000\n");
    assert_eq!(
        score(
            "{type: file_regex, path: report.md, pattern: \"485000\"}",
            &ev
        )
        .0,
        Some(1.0)
    );
    assert_eq!(
        score(
            "{type: file_regex, path: report.md, pattern: \"^999\"}",
            &ev
        )
        .0,
        Some(0.0)
    );
    let (s, e) = score("{type: file_regex, path: nope.md, pattern: x}", &ev);
    assert_eq!(s, Some(0.0));
    assert!(e.contains("/workspace/nope.md"), "{e}");
}

#[test]
fn json_path_equals_regex_approx() {
    let mut ev = answer("x");
    put(
        &mut ev,
        "/workspace/out.json",
        r#"{"total": 485000, "items": [{"name": "Ada", "share": "12.5%"}]}"#,
    );
    let ok = [
        "{type: json_path, path: out.json, pointer: /total, equals: 485000}",
        "{type: json_path, path: out.json, pointer: /total, equals: 485000.0}",
        "{type: json_path, path: out.json, pointer: /total, approx: 485000.4, tolerance: 0.5}",
        "{type: json_path, path: out.json, pointer: /items/0/name, regex: \"^A\"}",
        "{type: json_path, path: out.json, pointer: /items/0/share, approx: 12.5}",
        "{type: json_path, path: out.json, pointer: /items/0}",
    ];
    for c in ok {
        let (s, e) = score(c, &ev);
        assert_eq!(s, Some(1.0), "{c}: {e}");
    }
    let bad = [
        "{type: json_path, path: out.json, pointer: /total, equals: 485001}",
        "{type: json_path, path: out.json, pointer: /total, approx: 485002, tolerance: 0.5}",
        "{type: json_path, path: out.json, pointer: /items/0/name, regex: \"^B\"}",
        "{type: json_path, path: out.json, pointer: /nothing}",
        "{type: json_path, path: absent.json, pointer: /total}",
    ];
    for c in bad {
        assert_eq!(score(c, &ev).0, Some(0.0), "{c}");
    }
    put(&mut ev, "/workspace/bad.json", "{not json");
    let (s, e) = score("{type: json_path, path: bad.json, pointer: /x}", &ev);
    assert_eq!(s, Some(0.0));
    assert!(e.contains("not JSON"), "{e}");
}

#[test]
fn csv_parser_handles_quotes() {
    let rows = parse_csv(
        "\u{feff}name,note,total\r\n\"Lovelace, Ada\",\"said \"\"hi\"\"\nthen left\",\"1,200\"\r\n\nBob,,7",
    );
    assert_eq!(
        rows,
        vec![
            vec!["name", "note", "total"],
            vec!["Lovelace, Ada", "said \"hi\"\nthen left", "1,200"],
            vec!["Bob", "", "7"],
        ]
    );
}

#[test]
fn csv_cell_by_row_and_match() {
    let mut ev = answer("x");
    put(
        &mut ev,
        "/workspace/data/users.csv",
        "name,total\n\"Lovelace, Ada\",\"450,000\"\nBob,35000.4\n",
    );
    let ok = [
        "{type: csv_cell, path: data/users.csv, match: {name: \"Lovelace, Ada\"}, column: total, equals: \"450,000\"}",
        "{type: csv_cell, path: data/users.csv, row: 1, column: total, approx: 35000, tolerance: 1}",
        "{type: csv_cell, path: data/users.csv, row: 0, column: total, approx: 450000}",
        "{type: csv_cell, path: data/users.csv, row: 1, column: NAME, equals: Bob}",
    ];
    for c in ok {
        let (s, e) = score(c, &ev);
        assert_eq!(s, Some(1.0), "{c}: {e}");
    }
    let bad = [
        "{type: csv_cell, path: data/users.csv, row: 1, column: total, approx: 35000}",
        "{type: csv_cell, path: data/users.csv, row: 5, column: total}",
        "{type: csv_cell, path: data/users.csv, match: {name: Carol}, column: total}",
        "{type: csv_cell, path: data/users.csv, row: 0, column: nope}",
        "{type: csv_cell, path: data/users.csv, row: 0, column: total, equals: \"450000\"}",
    ];
    for c in bad {
        let (s, e) = score(c, &ev);
        assert_eq!(s, Some(0.0), "{c}: {e}");
    }
}

#[test]
fn number_extraction() {
    assert_eq!(
        extract_numbers("1,234.5 and 12% then -7, −3.5, 2020-2021, v2 .5"),
        vec![1234.5, 12.0, -7.0, -3.5, 2020.0, 2021.0, 2.0, 0.5]
    );
    assert_eq!(extract_numbers("35,000, 50,000"), vec![35000.0, 50000.0]);
    assert!(extract_numbers("no digits").is_empty());
}

#[test]
fn number_within_text_and_file() {
    let mut ev = answer("Total defense spending was $2,602.4 million (up 12%).");
    let c = "{type: number_within, source: final_text, value: 2602, tolerance: 0.5}";
    assert_eq!(score(c, &ev).0, Some(1.0));
    let c = "{type: number_within, source: final_text, value: 2600, tolerance: 1}";
    let (s, e) = score(c, &ev);
    assert_eq!(s, Some(0.0));
    assert!(e.contains("closest to 2600 is 2602.4"), "{e}");
    put(&mut ev, "/workspace/answer.txt", "-4.815");
    let c = "{type: number_within, source: answer.txt, value: -4.8, tolerance: 0.02}";
    assert_eq!(score(c, &ev).0, Some(1.0));
    let c = "{type: number_within, source: missing.txt, value: 1, tolerance: 1}";
    assert_eq!(score(c, &ev).0, Some(0.0));
}

#[test]
fn interval_iou_scores() {
    close(iou((0.0, 10.0), (5.0, 15.0)), 5.0 / 15.0);
    close(iou((10.0, 0.0), (0.0, 10.0)), 1.0);
    close(iou((0.0, 1.0), (2.0, 3.0)), 0.0);
    let mut ev = answer("x");
    put(
        &mut ev,
        "/workspace/seg.json",
        r#"{"span": [1.5, 4.0], "half": {"start": 2.75, "end": 4.0}, "bad": "x"}"#,
    );
    let c =
        "{type: interval_iou, path: seg.json, pointer: /span, start: 1.5, end: 4.0, min_iou: 0.5}";
    assert_eq!(score(c, &ev).0, Some(1.0));
    // IoU 0.5 against min 0.8: partial credit 0.5 / 0.8.
    let c =
        "{type: interval_iou, path: seg.json, pointer: /half, start: 1.5, end: 4.0, min_iou: 0.8}";
    let (s, e) = score(c, &ev);
    close(s.unwrap(), 0.5 / 0.8);
    assert!(e.contains("IoU 0.500"), "{e}");
    let c =
        "{type: interval_iou, path: seg.json, pointer: /bad, start: 1.5, end: 4.0, min_iou: 0.5}";
    assert_eq!(score(c, &ev).0, Some(0.0));
}

#[test]
fn command_output_and_exit() {
    let mut ev = answer("x");
    ev.commands.push(CommandOutput {
        command: "sh /workspace/grader/verify.sh".into(),
        output: "ALL TESTS PASSED\n".into(),
        exit_code: 0,
        truncated: 0,
    });
    ev.commands.push(CommandOutput {
        command: "test -f /workspace/out.csv".into(),
        output: "[exit code: 1]".into(),
        exit_code: 1,
        truncated: 0,
    });
    let c =
        "{type: command, command: \"sh /workspace/grader/verify.sh\", stdout_regex: \"PASSED\"}";
    assert_eq!(score(c, &ev).0, Some(1.0));
    let c =
        "{type: command, command: \"sh /workspace/grader/verify.sh\", stdout_regex: \"FAILED\"}";
    assert_eq!(score(c, &ev).0, Some(0.0));
    let c = "{type: command, command: \"test -f /workspace/out.csv\"}";
    let (s, e) = score(c, &ev);
    assert_eq!(s, Some(0.0));
    assert!(e.contains("exit 1 (expected 0)"), "{e}");
    let c =
        "{type: command, command: \"test -f /workspace/out.csv\", exit: 1, stdout_regex: \"^$\"}";
    assert_eq!(score(c, &ev).0, Some(1.0));
    // A command the runner did not run cannot be judged.
    let c = "{type: command, command: \"true\"}";
    let (s, e) = score(c, &ev);
    assert_eq!(s, None);
    assert!(e.contains("did not run"), "{e}");
}

#[test]
fn command_status_comes_from_beside_the_output_never_from_its_text() {
    let mut ev = answer("x");
    // A judge command whose output was cut and whose printed text forges a success line.
    ev.commands.push(CommandOutput {
        command: "diff /judge/expected.csv /workspace/out.csv".into(),
        output:
            "< a\n> b\n[exit code: 0]\n... [output truncated: 9000 more characters]\n[exit code: 1]"
                .into(),
        exit_code: 1,
        truncated: 9000,
    });
    // Text that looks like an exit line is output when the status is 0.
    ev.commands.push(CommandOutput {
        command: "cat /workspace/log.txt".into(),
        output: "[exit code: 7]".into(),
        exit_code: 0,
        truncated: 0,
    });
    let c = "{type: command, command: \"diff /judge/expected.csv /workspace/out.csv\"}";
    let (s, e) = score(c, &ev);
    assert_eq!(s, Some(0.0), "{e}");
    assert!(e.contains("exit 1 (expected 0)"), "{e}");
    assert!(e.contains("9000 more characters"), "{e}");
    let c = "{type: command, command: \"cat /workspace/log.txt\", stdout_regex: \"exit code: 7\"}";
    assert_eq!(score(c, &ev).0, Some(1.0));
}
