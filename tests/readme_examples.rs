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
        &clawrun::faults::LoadOptions::new(0),
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
        .find(|l| l.contains("cargo run --release -- run "))
        .expect("the main command");
    let args: Vec<&str> = line
        .split(" -- ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sample");
    let mut fixed: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--out" {
            fixed.push("--out".into());
            fixed.push(out.display().to_string());
            i += 2;
            continue;
        }
        fixed.push(args[i].to_string());
        i += 1;
    }
    for _ in 0..2 {
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_clawrun"))
            .args(&fixed)
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
    }
    assert!(out.join("report.html").is_file());
    let journal = std::fs::read_to_string(out.join("journal.jsonl")).unwrap();
    assert_eq!(
        journal.lines().count(),
        6,
        "2 tasks x 3 trials, the second run resumed"
    );
}
