//! Issue 5 end to end: a task with services and system tools played by a model behind the mock
//! LLM server in both protocols; replay of the recorded run; the judge firewall; a multi-turn
//! task with the scripted user and with the mock LLM playing the user.

use std::path::{Path, PathBuf};

use clawrun::agents::llm::{ModelConfig, Provider, install_crypto_provider};
use clawrun::agents::mock::{Script, serve_mock_llm};
use clawrun::agents::trace::{EventKind, Outcome, read_trace};
use clawrun::report::Status;
use clawrun::run::agent_spec::RecordedRun;
use clawrun::run::{AgentSpec, RunOptions, run};
use clawrun::trial::{Harness, TaskEnv, firewall};

/// The test suite (tasks e2e_mail and e2e_chat).
fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite")
}

/// Run options for `tasks` with `agent` into `out`.
fn options(tasks: &[&str], agent: AgentSpec, out: &Path) -> RunOptions {
    let mut o = RunOptions::new(suite(), agent, out);
    o.tasks = tasks.iter().map(|t| t.to_string()).collect();
    o.seed = 7;
    o
}

/// The mock model's script: list the inbox, write the summary with Bash, answer; and play the
/// user of the multi-turn task.
const SCRIPT: &str = r#"
rules:
  - name: user
    match: {system_contains: "role-playing a user"}
    reply: {text: "The rate is 4.5% with 20 years left. [DONE]"}
  - name: chat-ask
    match: {turn: 0, last_contains: "pay off my loan"}
    reply: {text: "What interest rate does the loan have?"}
  - name: chat-answer
    match: {turn: 1, any_contains: "pay off my loan"}
    reply: {text: "At 4.5% interest, prepaying saves interest."}
  - name: list
    match: {turn: 0}
    reply:
      text: "Checking the inbox."
      tool_calls:
        - {name: gmail_list_messages, arguments: {days_back: 30}}
  - name: write
    match: {turn: 1}
    reply:
      tool_calls:
        - {name: Bash, arguments: {command: "echo 'inbox: msg_001 first' > /workspace/summary.txt && cat /workspace/notes.md"}}
  - name: answer
    match: {turn: 2}
    reply: {text: "msg_001 needs a reply first."}
"#;

/// A model config pointing at the mock server.
fn model(provider: Provider, url: &str, dir: &Path) -> ModelConfig {
    let mut m = ModelConfig::new(provider, "mock-model");
    m.base_url = Some(match provider {
        Provider::OpenAi => format!("{url}/v1"),
        Provider::Anthropic => url.to_string(),
    });
    m.api_key = Some("test-key".into());
    m.cache_dir = Some(dir.join("cache"));
    m
}

/// Runs e2e_mail with a mock model speaking `provider` and checks the trace; then replays it.
fn mail_through(provider: Provider) {
    install_crypto_provider();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let script = Script::parse(SCRIPT, "script").unwrap();
    let server = rt
        .block_on(serve_mock_llm(script, "127.0.0.1:0".parse().unwrap()))
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let agent = AgentSpec::Model(model(provider, &server.url(), tmp.path()));
    let result = run(&options(&["e2e_mail"], agent, &out)).unwrap();
    let records = result.records().unwrap();
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record.status, Status::Scored, "{record:?}");
    let verdict = record.verdict.as_ref().unwrap();
    assert!(verdict.scores.passed, "{verdict:#?}");

    let events = read_trace(record.trace_bytes(&out).unwrap().as_slice()).unwrap();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match &e.kind {
            EventKind::TraceStart { .. } => "trace_start",
            EventKind::Message { .. } => "message",
            EventKind::ToolCall { .. } => "tool_call",
            EventKind::Fault { .. } => "fault",
            EventKind::ModelCall { .. } => "model_call",
            EventKind::ToolResult { .. } => "tool_result",
            EventKind::UserTurn { .. } => "user_turn",
            EventKind::Snapshot { .. } => "snapshot",
            EventKind::Audit { .. } => "audit",
            EventKind::TraceEnd { .. } => "trace_end",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "trace_start",
            "message",
            "message",
            "tool_call",
            "tool_result",
            "message",
            "tool_call",
            "tool_result",
            "message",
            "snapshot",
            "audit",
            "trace_end"
        ]
    );
    // The service call reached gmail (its audit log has it) and the Bash call changed the VFS.
    let audit = events.iter().find_map(|e| match &e.kind {
        EventKind::Audit { service, data } if service == "gmail" => Some(data.to_string()),
        _ => None,
    });
    assert!(audit.unwrap().contains("/gmail/messages"));
    let bash = events.iter().find_map(|e| match &e.kind {
        EventKind::ToolResult {
            name,
            output,
            root_hash,
            ..
        } if name == "Bash" => Some((output.clone(), root_hash.clone())),
        _ => None,
    });
    let (output, hash) = bash.unwrap();
    assert!(output.contains("Triage notes"), "{output}");
    assert!(hash.is_some(), "a mutating call records the new root hash");
    let EventKind::TraceEnd { outcome, usage, .. } = &events.last().unwrap().kind else {
        panic!()
    };
    assert_eq!(*outcome, Outcome::FinalAnswer);
    assert!(usage.input_tokens > 0);
    assert_eq!(server.requests().len(), 3);

    // Replaying the recording gives a byte-identical trace and the same scores.
    let again = tmp.path().join("again");
    let replayed = run(&options(
        &["e2e_mail"],
        AgentSpec::Replay(RecordedRun::new(&out)),
        &again,
    ))
    .unwrap()
    .records()
    .unwrap();
    let a = record.trace_bytes(&out).unwrap();
    let b = replayed[0].trace_bytes(&again).unwrap();
    assert_eq!(String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
    assert_eq!(replayed[0].verdict.as_ref().unwrap().scores, verdict.scores);
}

#[test]
fn openai_protocol_end_to_end_and_replay() {
    mail_through(Provider::OpenAi);
}

#[test]
fn anthropic_protocol_end_to_end_and_replay() {
    mail_through(Provider::Anthropic);
}

#[test]
fn oracle_with_faults_replays_identically() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let mut o = options(&["e2e_mail"], AgentSpec::Oracle, &out);
    o.trials = 3;
    o.faults = Some("claw-eval:0.6".into());
    let first = run(&o).unwrap().records().unwrap();
    let faults: u32 = first
        .iter()
        .map(|r| r.verdict.as_ref().unwrap().faults_seen)
        .sum();
    assert!(faults > 0, "the preset at 0.6 injects faults in 3 trials");
    assert!(
        first
            .iter()
            .all(|r| r.verdict.as_ref().unwrap().scores.passed)
    );
    let again = tmp.path().join("again");
    let mut r = options(
        &["e2e_mail"],
        AgentSpec::Replay(RecordedRun::new(&out)),
        &again,
    );
    r.trials = 3;
    r.faults = o.faults.clone();
    let second = run(&r).unwrap();
    for (a, b) in first.iter().zip(&second.records().unwrap()) {
        assert_eq!(a.root_hash, b.root_hash);
        assert_eq!(a.trace_bytes(&out).unwrap(), b.trace_bytes(&again).unwrap());
    }
    // A different run seed takes different fault decisions: the replay then diverges.
    let diverged = tmp.path().join("diverged");
    let mut d = options(
        &["e2e_mail"],
        AgentSpec::Replay(RecordedRun::new(&out)),
        &diverged,
    );
    d.trials = 3;
    d.faults = Some("none".into());
    let third = run(&d).unwrap();
    assert!(third.records().unwrap().iter().any(|r| {
        r.error
            .as_deref()
            .is_some_and(|e| e.contains("replay diverged"))
    }));
}

#[test]
fn judge_files_are_invisible_during_execution() {
    let harness = Harness::new(clawrun::sandbox::SandboxConfig::from_env());
    let suite_dir = suite();
    let s = clawrun::task::Suite::open(&suite_dir).unwrap();
    let loaded = s.load("tasks/e2e_mail").unwrap();
    let task = TaskEnv::prepare(loaded, None).unwrap();
    assert!(!task.judge_files.is_empty());
    let leaks = firewall::probe(&harness, &task).unwrap();
    assert!(leaks.is_empty(), "{leaks:#?}");
    // The Judge phase does see the judge file (the rubric's gate command checks it).
    let tmp = tempfile::tempdir().unwrap();
    let result = run(&options(&["e2e_mail"], AgentSpec::Oracle, tmp.path())).unwrap();
    let records = result.records().unwrap();
    let items = &records[0].verdict.as_ref().unwrap().items;
    let gate = items.iter().find(|i| i.name == "judge_file_check").unwrap();
    assert_eq!(gate.passed, Some(true), "{gate:?}");
}

#[test]
fn multi_turn_scripted_user_offline_and_llm_user() {
    let tmp = tempfile::tempdir().unwrap();
    let result = run(&options(
        &["e2e_chat"],
        AgentSpec::Oracle,
        &tmp.path().join("a"),
    ))
    .unwrap();
    let records = result.records().unwrap();
    let r = &records[0];
    assert_eq!(
        r.user_rounds, 2,
        "one scripted answer, then the default [DONE]"
    );
    assert!(r.verdict.as_ref().unwrap().scores.passed);

    install_crypto_provider();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(serve_mock_llm(
            Script::parse(SCRIPT, "script").unwrap(),
            "127.0.0.1:0".parse().unwrap(),
        ))
        .unwrap();
    let out = tmp.path().join("b");
    let mut o = options(
        &["e2e_chat"],
        AgentSpec::Model(model(Provider::OpenAi, &server.url(), tmp.path())),
        &out,
    );
    // With a user model, the persona is played by it even though the task has a script (the
    // script would answer "The rate is 4.5%, 20 years left on 200000." and then "[DONE]").
    o.user_model = Some(model(Provider::OpenAi, &server.url(), tmp.path()));
    let result = run(&o).unwrap();
    let records = result.records().unwrap();
    let r = &records[0];
    assert_eq!(r.status, Status::Scored, "{r:?}");
    assert_eq!(r.user_rounds, 1);
    let events = read_trace(r.trace_bytes(&out).unwrap().as_slice()).unwrap();
    assert!(events.iter().any(
        |e| matches!(&e.kind, EventKind::UserTurn { text, done: true, .. } if text.contains("with 20 years left"))
    ));
}

#[test]
fn limits_end_execution_max_turns_and_tokens() {
    let tmp = tempfile::tempdir().unwrap();
    // e2e_mail allows 10 turns; this script wants 12 tool turns.
    let script = tmp.path().join("loop.yaml");
    let steps: String = (0..12)
        .map(|i| {
            format!("  - call: Bash\n    args: {{command: \"echo {i} >> /workspace/log.txt\"}}\n")
        })
        .collect();
    std::fs::write(&script, format!("steps:\n{steps}answer: done\n")).unwrap();
    let out = tmp.path().join("turns");
    let result = run(&options(&["e2e_mail"], AgentSpec::Scripted(script), &out)).unwrap();
    let records = result.records().unwrap();
    let r = &records[0];
    assert_eq!(r.outcome, Outcome::MaxTurns);
    assert_eq!(r.turns, 10);

    install_crypto_provider();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let heavy = "rules:\n  - match: {}\n    reply:\n      text: thinking\n      tool_calls: [{name: Bash, arguments: {command: 'true'}}]\n      usage: {input_tokens: 600, output_tokens: 10}\n";
    let server = rt
        .block_on(serve_mock_llm(
            Script::parse(heavy, "heavy").unwrap(),
            "127.0.0.1:0".parse().unwrap(),
        ))
        .unwrap();
    let mut o = options(
        &["e2e_mail"],
        AgentSpec::Model(model(Provider::Anthropic, &server.url(), tmp.path())),
        &tmp.path().join("tokens"),
    );
    o.max_tokens = Some(1000);
    let r = run(&o).unwrap().records().unwrap().remove(0);
    assert_eq!(r.outcome, Outcome::TokenLimit);
    assert_eq!(r.turns, 2, "610 tokens after one turn, 1220 after two");
}

#[test]
fn malformed_tool_arguments_are_reported_and_services_get_an_empty_object() {
    install_crypto_provider();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let script = "rules:\n  - match: {turn: 0}\n    reply:\n      tool_calls:\n        - {name: Bash, arguments_raw: '{\"command\": '}\n        - {name: gmail_list_messages, arguments_raw: '{days_back: 3'}\n  - match: {turn: 1}\n    reply: {text: done}\n";
    let server = rt
        .block_on(serve_mock_llm(
            Script::parse(script, "broken-args").unwrap(),
            "127.0.0.1:0".parse().unwrap(),
        ))
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let agent = AgentSpec::Model(model(Provider::OpenAi, &server.url(), tmp.path()));
    let r = run(&options(&["e2e_mail"], agent, &out))
        .unwrap()
        .records()
        .unwrap()
        .remove(0);
    let events = read_trace(r.trace_bytes(&out).unwrap().as_slice()).unwrap();
    let results: Vec<(String, String, bool, Option<u16>)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolResult {
                name,
                output,
                is_error,
                status,
                ..
            } => Some((name.clone(), output.clone(), *is_error, *status)),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 2);
    assert!(
        results[0].2 && results[0].1.contains("not a JSON object"),
        "{results:?}"
    );
    assert_eq!(
        (results[1].2, results[1].3),
        (false, Some(200)),
        "{results:?}"
    );
    assert!(events.iter().any(|e| matches!(&e.kind,
        EventKind::ToolCall { input, .. } if input.get("__invalid_json__").is_some())));
}
