//! The README's examples stay true: its fault plan parses and its main command runs.

#[test]
fn the_readme_fault_plan_parses() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let plan = clawrun::faults::plan_from_yaml(
        &readme[start..end],
        "README.md",
        &clawrun::faults::PlanOptions::new(0),
    )
    .unwrap();
    assert_eq!(plan.rules().len(), 2);
}

#[test]
fn the_readme_main_command_runs() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.contains("cargo run --release -- run"))
        .expect("the main command");
    // The command, without a trailing shell comment.
    let line = line.split(" #").next().unwrap();
    let args: Vec<&str> = line
        .split(" -- ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(args[0], "run");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("main");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(&args)
        .arg("--out")
        .arg(&out)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(stdout.contains("overall"), "{stdout}");
    assert!(out.join("report.html").is_file());
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    let tasks = std::fs::read_to_string(out.join("run.json")).unwrap();
    let run_json: serde_json::Value = serde_json::from_str(&tasks).unwrap();
    let n = run_json["tasks"].as_object().unwrap().len();
    assert!(n >= 40, "the bundled suite has {n} tasks");
    assert_eq!(
        journal.lines().count(),
        n * 3,
        "every bundled task, 3 trials"
    );
}
