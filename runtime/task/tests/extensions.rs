//! Our task.yaml extensions, read from a task that uses them all (tests/data/good/ext_demo).

use clawrun_task::yaml::Value;
use clawrun_task::{
    Check, EvidenceSource, Group, LoadedTask, Matcher, NumberSource, OracleStep, RowSelector,
    SafetyKind, Suite, SystemTool, Task, TextField,
};
use serde_json::json;

fn demo() -> LoadedTask {
    let s = Suite::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data")).unwrap();
    s.load("good/ext_demo").unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn header_fields_and_scalars_as_text() {
    let t = demo().task;
    assert_eq!(t.version.as_deref(), Some("1.0"));
    assert_eq!(t.group, Group::MultiTurn);
    assert_eq!(t.epoch, Some(1_772_442_000));
    assert_eq!(t.start_time(), 1_772_442_000);
    assert_eq!(
        t.system_tools,
        [SystemTool::Bash, SystemTool::Read, SystemTool::Write]
    );
    assert!(t.offers("Write") && !t.offers("Grep") && t.offers("gmail_list_messages"));
    let env = &t.services[0].env;
    assert_eq!(env["PORT"], "9100");
    assert_eq!(
        env["VERBOSE"], "True",
        "booleans read as Python prints them, like clawrun::services"
    );
    assert_eq!(
        t.tools[0].input_schema["properties"]["days_back"]["default"],
        json!(7)
    );
    assert_eq!(t.tool_endpoints[0].method, "POST");
    let e = &t.environment;
    assert_eq!(
        (e.timeout_seconds, e.max_turns, e.env_snapshot_timeout),
        (120, 12, 5)
    );
    assert!(e.enable_todo && !e.enable_compact);
    assert_eq!(t.env_snapshot_files, ["/workspace/*.md"]);
    assert!(t.expected_actions[0].required);
    assert_eq!(
        t.safety_checks[1].kind,
        SafetyKind::Other("leaks_secrets".into())
    );
    match &t.scoring_components[1].check {
        Check::KeywordsPresent { keywords, field } => {
            assert_eq!(keywords, &["14:30", "yes", "503", "450,000"]);
            assert_eq!(*field, TextField::FinalText);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn native_rubric() {
    let t = demo().task;
    let r = &t.rubric;
    assert_eq!(r.len(), 16);
    assert!(r[0].gate && r[0].weight == 0.0);
    let by_name = |n: &str| &r.iter().find(|i| i.name == n).unwrap().check;
    assert_eq!(
        *by_name("audit"),
        Check::Audit {
            service: "gmail".into(),
            key: "sent_messages".into(),
            where_: [
                ("subject".to_string(), Matcher::Regex("^Re: ".into())),
                ("to".to_string(), Matcher::Equals(json!("boss@example.com"))),
            ]
            .into(),
            min: 1,
            max: Some(1),
        }
    );
    assert_eq!(
        *by_name("json"),
        Check::JsonPath {
            path: "out.json".into(),
            pointer: "/total".into(),
            equals: Some(json!(485000)),
            regex: None,
            approx: Some(485000.0),
            tolerance: Some(0.5),
        }
    );
    assert!(
        matches!(by_name("csv"), Check::CsvCell { row: RowSelector::Match(m), equals: Some(e), .. }
        if m["name"] == "Ada" && e == "450000")
    );
    assert!(
        matches!(by_name("csv_row"), Check::CsvCell { row: RowSelector::Index(1), approx: Some(a), .. } if *a == 35000.0)
    );
    assert!(matches!(
        by_name("number"),
        Check::NumberWithin {
            source: NumberSource::FinalText,
            ..
        }
    ));
    assert!(
        matches!(by_name("number_file"), Check::NumberWithin { source: NumberSource::File(p), .. } if p == "/workspace/report.md")
    );
    assert!(
        matches!(by_name("iou"), Check::IntervalIou { start, end, min_iou, .. } if (*start, *end, *min_iou) == (1.5, 4.0, 0.5))
    );
    assert!(matches!(
        by_name("command"),
        Check::Command {
            exit: 0,
            stdout_regex: Some(_),
            ..
        }
    ));
    assert_eq!(
        *by_name("judge"),
        Check::LlmJudge {
            description: None,
            rubric: Some("Is the total right?".into()),
            evidence: vec![
                EvidenceSource::Conversation,
                EvidenceSource::Audit,
                EvidenceSource::File("/workspace/report.md".into())
            ],
        }
    );
    assert_eq!(
        by_name("order").tool_names(),
        ["gmail_list_messages", "Bash"]
    );
}

#[test]
fn oracle_steps() {
    let t = demo().task;
    let o = t.oracle.as_ref().unwrap();
    assert_eq!(o.steps.len(), 4);
    let OracleStep::Call(c) = &o.steps[0] else {
        panic!()
    };
    assert_eq!(
        (c.call.as_str(), &c.args),
        ("gmail_list_messages", &json!({"days_back": 30}))
    );
    let OracleStep::Parallel(cs) = &o.steps[1] else {
        panic!()
    };
    assert_eq!(cs[1].args, json!({"file_path": "notes.md"}));
    assert_eq!(
        o.steps[2],
        OracleStep::Say("Which file should I write?".into())
    );
    assert_eq!(o.answer, "The total is 485000.");
    let paths: Vec<String> = o.calls().into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        paths,
        [
            "steps[0]",
            "steps[1].parallel[0]",
            "steps[1].parallel[1]",
            "steps[3]"
        ]
    );
}

#[test]
fn user_script_runs() {
    let t = demo().task;
    let ua = t.user_agent.as_ref().unwrap();
    let script = ua.script.as_ref().unwrap();
    assert_eq!(script.default, "[DONE]");
    assert!(!script.rules[1].once && script.rules[1].done);
    let mut user = script.start().unwrap();
    let r = user.reply("Which FILE should I write?");
    assert_eq!((r.text.as_str(), r.done), ("report.md, please.", false));
    let r = user.reply("Which file, again?");
    assert_eq!((r.text.as_str(), r.done), ("[DONE]", true));
    assert!(user.reply("the total is 485000").done);
    assert!(user.reply("total again").done, "once: false fires again");
}

#[test]
fn faults_section_kept_as_positioned_nodes() {
    let t = demo().task;
    let f = t.faults.as_ref().unwrap();
    assert_eq!(f.get("seed").and_then(|n| n.as_u64()), Some(7));
    let rules = f.get("rules").unwrap();
    let Value::Seq(items) = &rules.value else {
        panic!()
    };
    let kind = items[0].get("kind").unwrap();
    assert_eq!(kind.as_str(), Some("status500"));
    assert_eq!(kind.pos.map(|p| (p.line, p.column)), Some((158, 13)));
}

#[test]
fn workspace_and_judge_files() {
    let t = demo();
    let ws: Vec<(String, String)> = t
        .workspace_files()
        .unwrap()
        .into_iter()
        .map(|(p, b)| (p, String::from_utf8(b).unwrap()))
        .collect();
    assert_eq!(
        ws,
        [
            (
                "/workspace/data/users.csv".to_string(),
                "id,name,total\n1,Ada,450000\n2,Bob,35000\n".to_string()
            ),
            (
                "/workspace/fixtures/inbox.json".into(),
                "[{\"id\": \"msg_001\", \"subject\": \"Budget\"}]\n".into()
            ),
            ("/workspace/notes.md".into(), "# Notes\nTODO\n".into()),
        ]
    );
    let judge: Vec<String> = t
        .judge_files()
        .unwrap()
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        judge,
        ["/judge/expected.json", "/workspace/grader/verify.sh"]
    );
    let local = t.local_grader_files().unwrap();
    assert_eq!(local[0].0, "grader/answer.json");
    assert_eq!(t.attachments().unwrap()[0].0, "fixtures/inbox.json");
    assert_eq!(t.file(), "good/ext_demo/task.yaml");
    assert_eq!(t.hash_hex().len(), 64);
}

#[test]
fn task_from_text_alone_and_derived_groups() {
    let parse = |y: &str| Task::from_yaml(y, "t.yaml").unwrap().task;
    let t = parse("task_id: a\nprompt: {text: hi}\ntags: [multimodal]\n");
    assert_eq!(t.group, Group::Multimodal);
    assert_eq!(t.task_name, "a");
    assert_eq!(t.epoch, None);
    assert_eq!(t.environment.max_turns, 20);
    let t = parse("task_id: a\nprompt: {text: hi}\nuser_agent: {enabled: true}\n");
    assert_eq!(
        (t.group, t.user_agent.unwrap().max_rounds),
        (Group::MultiTurn, 5)
    );
    let t = parse("task_id: a\nprompt: {text: hi}\ntags: [general]\n");
    assert_eq!(t.group, Group::General);
    // The model serialises (for run records).
    let v = serde_json::to_value(&t).unwrap();
    assert_eq!(v["group"], "general");
    assert_eq!(v["system_tools"][0], "Bash");
}

#[test]
fn standalone_oracle_file() {
    use clawrun_task::Oracle;
    let o = Oracle::from_yaml("steps:\n  - say: hi\nanswer: done\n", "script.yaml").unwrap();
    assert_eq!(o.steps, [OracleStep::Say("hi".into())]);
    let e = Oracle::from_yaml("steps:\n  - shout: hi\n", "script.yaml").unwrap_err();
    assert_eq!(
        e.to_string(),
        "script.yaml:1:1: answer: missing required field (hint: write the final answer text: `answer: ...`)\n\
         script.yaml:2:5: steps[0]: not a step (hint: a step is `call: TOOL` (with `args:`), `parallel: [...]` or `say: TEXT`)"
    );
}
