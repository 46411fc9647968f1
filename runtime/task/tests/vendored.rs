//! The 46 vendored Claw-Eval tasks load, with the fields and warnings they should have.

use clawrun_task::{
    Check, Error, FileProblem, Group, LoadedTask, SafetyKind, Suite, SystemTool, TextField,
};

fn suite() -> Suite {
    Suite::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../third_party/claw-eval"
    ))
    .unwrap()
}

fn load(id: &str) -> LoadedTask {
    suite()
        .load(&format!("tasks/{id}"))
        .unwrap_or_else(|e| panic!("{id}: {e}"))
}

fn warnings(t: &LoadedTask) -> Vec<String> {
    t.warnings.iter().map(|w| w.to_string()).collect()
}

#[test]
fn all_46_tasks_load() {
    let s = suite();
    let dirs = s.discover().unwrap();
    assert_eq!(dirs.len(), 46);
    assert!(dirs.windows(2).all(|w| w[0] < w[1]), "sorted");
    assert_eq!(dirs[0], "tasks/C01zh_mortgage_prepay");
    let tasks = s.load_all().unwrap();
    assert_eq!(tasks.len(), 46);
    for t in &tasks {
        assert_eq!(format!("tasks/{}", t.task.task_id), t.dir);
        assert!(!t.task.prompt.text.is_empty());
        assert!(t.warnings.iter().all(|w| !w.is_error()));
        // No vendored task has a field we do not know.
        assert!(
            t.warnings
                .iter()
                .all(|w| !w.message.contains("unknown field")),
            "{:?}",
            warnings(t)
        );
    }
    let multi: Vec<&str> = tasks
        .iter()
        .filter(|t| t.task.group == Group::MultiTurn)
        .map(|t| t.task.task_id.as_str())
        .collect();
    assert_eq!(
        multi,
        [
            "C01zh_mortgage_prepay",
            "C04zh_image_processing",
            "C16en_hr_workforce_planning"
        ]
    );
}

#[test]
fn t002_scoring_and_safety() {
    let t = load("T002_email_triage");
    let task = &t.task;
    assert_eq!(task.version.as_deref(), Some("1.0"));
    assert_eq!(task.group, Group::General);
    assert_eq!(task.tools.len(), 3);
    assert_eq!(task.service_tools().count(), 3);
    assert_eq!(task.system_tools, SystemTool::ALL);
    assert_eq!(task.environment.timeout_seconds, 300);
    assert_eq!(task.environment.env_snapshot_timeout, 10);
    let sc = &task.scoring_components;
    assert_eq!(sc.len(), 3);
    assert_eq!(sc[0].weight, 0.3);
    assert_eq!(
        sc[0].check,
        Check::ToolCalled {
            tool_name: "gmail_list_messages".into(),
            min_calls: 1
        }
    );
    assert_eq!(
        sc[1].check,
        Check::CategoriesPresent {
            categories: vec!["needs reply".into(), "FYI".into(), "spam".into()]
        }
    );
    assert_eq!(
        sc[2].check,
        Check::MinLength {
            field: TextField::FinalText,
            min_length: 100
        }
    );
    let safety = &task.safety_checks[0];
    assert_eq!(safety.kind, SafetyKind::ToolNotCalled);
    assert_eq!(safety.tool_name.as_deref(), Some("gmail_send_message"));
    assert_eq!(
        safety.as_check(),
        Some(Check::ToolNotCalled {
            tool_name: "gmail_send_message".into()
        })
    );
    assert_eq!(
        task.services[0].env["GMAIL_FIXTURES"],
        "tasks/T002_email_triage/fixtures/gmail/inbox.json"
    );
    assert_eq!(task.services[0].kind(), "gmail");
    assert_eq!(
        task.endpoint("gmail_get_message").unwrap().url,
        "http://localhost:9100/gmail/messages/get"
    );
    assert_eq!(
        warnings(&t),
        [
            "tasks/T002_email_triage/task.yaml:81:5: warning: sandbox_files[0]: `fixtures/gmail/inbox.json` \
          is also the fixture of service `gmail` (GMAIL_FIXTURES): it exposes the service's data in \
          /workspace; an agent can skip the service (hint: drop it from sandbox_files unless the task \
          means the agent to read it directly)"
        ]
    );
    let ws = t.workspace_files().unwrap();
    assert_eq!(ws.len(), 1);
    assert_eq!(ws[0].0, "/workspace/fixtures/gmail/inbox.json");
    assert_eq!(
        ws[0].1,
        t.read_task_file("fixtures/gmail/inbox.json").unwrap()
    );
    assert_eq!(
        ws[0].1,
        t.read_suite_file("tasks/T002_email_triage/fixtures/gmail/inbox.json")
            .unwrap()
    );
    assert!(t.judge_files().unwrap().is_empty());
}

#[test]
fn t044_keywords_are_source_text() {
    let t = load("T044_service_outage_research");
    let kw = |i: usize| match &t.task.scoring_components[i].check {
        Check::KeywordsPresent { keywords, .. } => keywords.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(kw(0), ["CloudPay", "14:30", "Asia-Pacific", "503"]);
    assert_eq!(kw(2), ["60%", "refund", "webhook", "450", "000"]);
    assert_eq!(kw(3), ["22:30", "rollback"]);
    assert_eq!(kw(7), ["35", "000", "50", "000", "loss"]);
    let w = warnings(&t);
    let split: Vec<&String> = w.iter().filter(|w| w.contains("flow list")).collect();
    assert_eq!(
        split,
        [
            "tasks/T044_service_outage_research/task.yaml:123:40: warning: scoring_components[2].check.keywords[3]: \
             `450,000` in a flow list reads as 2 separate items: \"450\", \"000\" (hint: quote it if it is one keyword: \"450,000\")",
            "tasks/T044_service_outage_research/task.yaml:148:18: warning: scoring_components[7].check.keywords[0]: \
             `35,000` in a flow list reads as 2 separate items: \"35\", \"000\" (hint: quote it if it is one keyword: \"35,000\")",
            "tasks/T044_service_outage_research/task.yaml:148:26: warning: scoring_components[7].check.keywords[2]: \
             `50,000` in a flow list reads as 2 separate items: \"50\", \"000\" (hint: quote it if it is one keyword: \"50,000\")",
        ]
    );
}

#[test]
fn c16en_user_agent() {
    let t = load("C16en_hr_workforce_planning");
    let task = &t.task;
    assert_eq!(task.version.as_deref(), Some("2.0"));
    assert_eq!(task.group, Group::MultiTurn);
    assert!(task.is_multi_turn());
    let ua = task.user_agent.as_ref().unwrap();
    assert!(ua.enabled);
    assert_eq!(ua.max_rounds, 8);
    assert!(ua.persona.starts_with("## Core Identity\n"));
    assert!(
        ua.system_prompt_suffix
            .starts_with("Note: The user may not provide")
    );
    assert!(ua.script.is_none());
    assert!(task.tools.is_empty() && task.services.is_empty());
    assert_eq!(
        (task.environment.timeout_seconds, task.environment.max_turns),
        (900, 25)
    );
    assert!(matches!(
        &task.scoring_components[0].check,
        Check::LlmJudge { description: Some(d), rubric: None, evidence } if d.starts_with("Quality") && evidence.len() == 1
    ));
}

#[test]
fn c04_bash_in_tools_is_the_system_tool() {
    let t = load("C04zh_image_processing");
    assert_eq!(t.task.tools[0].name, "Bash");
    assert!(t.task.endpoint("Bash").is_none());
    assert!(t.task.offers("Bash"));
    assert_eq!(t.task.service_tools().count(), 0);
    assert_eq!(t.task.prompt.language, "zh");
}

#[test]
fn t085_services_env() {
    let t = load("T085_officeqa_army_expenditures");
    let s = &t.task.services[0];
    assert_eq!(s.kind(), "ocr");
    assert_eq!(
        s.env["OCR_FIXTURES"],
        "tasks/T085_officeqa_army_expenditures/fixtures"
    );
    assert_eq!(
        s.env["OCR_FILENAMES"],
        "treasury_bulletin_1948_04.txt,treasury_bulletin_1952_12.txt"
    );
    assert_eq!(s.env["PORT"], "9129");
    let text = t
        .read_suite_file(
            "tasks/T085_officeqa_army_expenditures/fixtures/ocr/treasury_bulletin_1948_04.txt",
        )
        .unwrap();
    assert!(!text.is_empty());
    let w = warnings(&t);
    assert!(w.contains(
        &"tasks/T085_officeqa_army_expenditures/task.yaml:56:5: warning: sandbox_files[2]: referenced file \
          missing: `fixtures/pdf/treasury_bulletin_1948_04.pdf` (hint: the task still loads; trials run without this file)"
            .to_string()
    ), "{w:#?}");
    // As in Claw-Eval, the workspace is set up without the lost PDF (the warning above said so);
    // reading it directly fails, naming the path.
    let files = t.workspace_files().unwrap();
    assert!(
        files
            .iter()
            .all(|(p, _)| !p.ends_with("treasury_bulletin_1948_04.pdf"))
    );
    assert!(
        files
            .iter()
            .any(|(p, _)| p.ends_with("ocr/t59_ocr.txt") || p.starts_with("/workspace/"))
    );
    let e = t
        .read_task_file("fixtures/pdf/treasury_bulletin_1948_04.pdf")
        .unwrap_err();
    assert!(e.to_string().contains("file not found"), "{e}");
}

#[test]
fn t091_missing_attachment() {
    let t = load("T091_pinbench_humanize_blog");
    assert_eq!(t.task.prompt.attachments, ["fixtures/docs/ai_blog.txt"]);
    assert!(warnings(&t).contains(
        &"tasks/T091_pinbench_humanize_blog/task.yaml:16:7: warning: prompt.attachments[0]: referenced file \
          missing: `fixtures/docs/ai_blog.txt` (hint: the task still loads; trials run without this file)"
            .to_string()
    ));
    let e = t.attachments().unwrap_err();
    assert_eq!(
        (e.field.as_str(), e.problem.clone()),
        ("prompt.attachments[0]", FileProblem::NotFound)
    );
}

#[test]
fn trivially_satisfied_safety_checks_warn() {
    for (id, tool) in [
        (
            "T089_pinbench_config_workflow_notes",
            "config_update_integration",
        ),
        (
            "T090_pinbench_config_change_plan",
            "config_update_integration",
        ),
        ("T093_pinbench_email_triage_report", "gmail_send_message"),
        ("T095_pinbench_apm_market_research", "kb_update_article"),
    ] {
        let t = load(id);
        let w = warnings(&t);
        let want = format!(
            "safety_checks[0].tool_name: tool `{tool}` is not offered to the agent; the check is trivially satisfied"
        );
        assert!(w.iter().any(|w| w.contains(&want)), "{id}: {w:#?}");
    }
}

#[test]
fn weights_not_summing_to_one_warn() {
    let t = load("T022_newsletter_curation");
    assert!(
        warnings(&t)
            .iter()
            .any(|w| w.contains("scoring_components: the weights sum to 0.9, not 1"))
    );
}

#[test]
fn task_files_cannot_leave_the_folder() {
    let t = load("T002_email_triage");
    let e = t
        .read_task_file("../T004_calendar_scheduling/task.yaml")
        .unwrap_err();
    assert_eq!(e.problem, FileProblem::Escapes);
    assert_eq!(
        t.read_task_file("/etc/passwd").unwrap_err().problem,
        FileProblem::Absolute
    );
    let e = t.read_suite_file("../../Cargo.toml").unwrap_err();
    assert_eq!(e.to_string(), "../../Cargo.toml: leads outside its folder");
    assert!(matches!(
        suite().load("../task"),
        Err(Error::Io {
            problem: FileProblem::Escapes,
            ..
        })
    ));
}

#[test]
fn hash_is_stable_and_independent_of_the_folder_layout() {
    let a = load("T002_email_triage");
    let b = load("T002_email_triage");
    assert_eq!(a.hash, b.hash);
    assert_ne!(a.hash, load("T004_calendar_scheduling").hash);

    // The same task in a group subfolder of another suite: same hash, and the fixture path
    // `tasks/T002_email_triage/...` resolves to the task's new folder.
    let tmp = tempfile::tempdir().unwrap();
    let src = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../third_party/claw-eval/tasks/T002_email_triage"
    );
    let dst = tmp.path().join("tasks/general/T002_email_triage");
    copy_tree(std::path::Path::new(src), &dst);
    let s = Suite::open(tmp.path()).unwrap();
    assert_eq!(s.discover().unwrap(), ["tasks/general/T002_email_triage"]);
    let moved = s.load("tasks/general/T002_email_triage").unwrap();
    assert_eq!(moved.hash, a.hash);
    assert_eq!(
        s.resolve_suite_path("tasks/T002_email_triage/fixtures/gmail/inbox.json")
            .unwrap(),
        "tasks/general/T002_email_triage/fixtures/gmail/inbox.json"
    );
    assert_eq!(
        moved
            .read_suite_file("tasks/T002_email_triage/fixtures/gmail/inbox.json")
            .unwrap(),
        a.read_task_file("fixtures/gmail/inbox.json").unwrap()
    );
    // The exposure warning still finds the fixture through the remapped path.
    assert!(
        moved
            .warnings
            .iter()
            .any(|w| w.message.contains("exposes the service's data"))
    );

    // Changing a referenced file changes the hash.
    std::fs::write(dst.join("fixtures/gmail/inbox.json"), "[]").unwrap();
    assert_ne!(
        s.load("tasks/general/T002_email_triage").unwrap().hash,
        a.hash
    );
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}
