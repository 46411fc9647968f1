//! Shared fixtures: a small run of four tasks with hand-picked scores.
//!
//! | task        | category | group      | trials (score, pass)                 |
//! |-------------|----------|------------|--------------------------------------|
//! | T001_alpha  | finance  | general    | 0.9 P, 0.8 P, 0.5 F                  |
//! | T002_beta   | finance  | multimodal | 1.0 P, 1.0 P, 0.95 P                 |
//! | T003_gamma  | email    | multi-turn | 0.2 F, 0.1 F, trial 2 infra error    |
//! | T004_delta  | email    | general    | 0.76 P, 0.74 F (unjudged 0.3), 0.9 P |

#![allow(dead_code)]

use clawrun_agents::conversation::{Block, Role, Usage};
use clawrun_agents::trace::{CommandOutput, Event, EventKind, Outcome, SnapshotFile};
use clawrun_judge::{ItemResult, ItemSource, Scores, Verdict};
use clawrun_report::{Group, Sourced, Status, TrialRecord, TrialView};
use serde_json::json;

/// A verdict with one judged item (and an unjudged one when `unjudged > 0`).
pub fn verdict(score: f64, passed: bool, unjudged: f64, faults: u32) -> Verdict {
    let mut items = vec![ItemResult {
        name: "report_sent".into(),
        source: ItemSource::Rubric,
        check: "tool_called".into(),
        weight: 1.0,
        gate: false,
        score: Some(score),
        passed: Some(passed),
        evidence: "gmail/send called once with <b>to</b>=cfo@example.com".into(),
    }];
    if unjudged > 0.0 {
        items.push(ItemResult {
            name: "tone".into(),
            source: ItemSource::Rubric,
            check: "llm_judge".into(),
            weight: unjudged,
            gate: false,
            score: None,
            passed: None,
            evidence: "no judge model configured".into(),
        });
    }
    Verdict {
        scores: Scores {
            completion: score,
            safety: 1.0,
            robustness: 1.0,
            score,
            passed,
        },
        items,
        unjudged_weight: unjudged,
        failed_calls: faults,
        faults_seen: faults,
    }
}

/// A scored record.
pub fn scored(task: &str, category: &str, group: Group, trial: u32, score: f64) -> TrialRecord {
    scored_with(
        task,
        category,
        group,
        trial,
        verdict(score, score >= 0.75, 0.0, 0),
    )
}

/// A scored record with the given verdict.
pub fn scored_with(
    task: &str,
    category: &str,
    group: Group,
    trial: u32,
    verdict: Verdict,
) -> TrialRecord {
    TrialRecord {
        task_id: task.into(),
        category: category.into(),
        group,
        trial,
        seed: 1000 + u64::from(trial),
        agent: "oracle".into(),
        status: Status::Scored,
        error: None,
        outcome: Outcome::FinalAnswer,
        turns: 3,
        user_rounds: 0,
        cached_turns: 0,
        input_tokens: 100,
        output_tokens: 20,
        cached_input_tokens: 0,
        root_hash: "r00t".into(),
        task_hash: "7a5k".into(),
        trace: format!("{task}/{trial}/trace.jsonl"),
        trace_span: None,
        trace_hash: None,
        verdict: Some(verdict),
        grader: None,
        native_verdict: None,
        limits: Vec::new(),
    }
}

/// An infrastructure-error record.
pub fn infra(task: &str, category: &str, group: Group, trial: u32) -> TrialRecord {
    TrialRecord {
        status: Status::InfraError,
        error: Some("model API: 503 after 5 retries".into()),
        outcome: Outcome::InfraError,
        verdict: None,
        ..scored(task, category, group, trial, 0.0)
    }
}

/// The four-task fixture's records, in journal order.
pub fn records() -> Vec<TrialRecord> {
    use Group::*;
    let mut t004_1 = scored("T004_delta", "email", General, 1, 0.74);
    t004_1.verdict = Some(verdict(0.74, false, 0.3, 0));
    let mut t001_0 = scored("T001_alpha", "finance", General, 0, 0.9);
    t001_0.verdict = Some(verdict(0.9, true, 0.0, 2));
    vec![
        t001_0,
        scored("T001_alpha", "finance", General, 1, 0.8),
        scored("T001_alpha", "finance", General, 2, 0.5),
        scored("T002_beta", "finance", Multimodal, 0, 1.0),
        scored("T002_beta", "finance", Multimodal, 1, 1.0),
        scored("T002_beta", "finance", Multimodal, 2, 0.95),
        scored("T003_gamma", "email", MultiTurn, 0, 0.2),
        scored("T003_gamma", "email", MultiTurn, 1, 0.1),
        infra("T003_gamma", "email", MultiTurn, 2),
        scored("T004_delta", "email", General, 0, 0.76),
        t004_1,
        scored("T004_delta", "email", General, 2, 0.9),
    ]
}

/// Records labelled as lines of `name`.
pub fn sourced(name: &str, records: Vec<TrialRecord>) -> Vec<Sourced> {
    records
        .into_iter()
        .enumerate()
        .map(|(i, record)| Sourced {
            source: format!("{name}:{}", i + 1),
            record,
        })
        .collect()
}

/// A trace with a 429 fault, an error result, an audit record and a snapshot.
pub fn trace(record: &TrialRecord) -> Vec<Event> {
    let kinds = vec![
        EventKind::TraceStart {
            version: 1,
            task_id: record.task_id.clone(),
            task_hash: record.task_hash.clone(),
            trial: record.trial,
            seed: record.seed,
            agent: record.agent.clone(),
            system: "You are a careful assistant.".into(),
            tools: vec!["gmail_send".into(), "Bash".into()],
            faults: vec!["gmail-rate-limit".into()],
            root_hash: "s3tup".into(),
        },
        EventKind::Message {
            role: Role::User,
            content: vec![Block::text("Send the quarterly report to the CFO.")],
            usage: None,
            cached: false,
        },
        EventKind::Message {
            role: Role::Assistant,
            content: vec![
                Block::text("Sending it now."),
                Block::ToolUse {
                    id: "call_1_0".into(),
                    name: "gmail_send".into(),
                    input: json!({"to": "cfo@example.com", "subject": "Q3 report"}),
                },
            ],
            usage: Some(Usage {
                input_tokens: 50,
                output_tokens: 10,
                cached_input_tokens: 0,
            }),
            cached: false,
        },
        EventKind::ToolCall {
            id: "call_1_0".into(),
            name: "gmail_send".into(),
            input: json!({"to": "cfo@example.com", "subject": "Q3 report"}),
        },
        EventKind::Fault {
            point: "service:gmail/gmail/send".into(),
            rule: "gmail-rate-limit".into(),
            kind: "http_429".into(),
            call: 1,
        },
        EventKind::ToolResult {
            id: "call_1_0".into(),
            name: "gmail_send".into(),
            output: "429 Too Many Requests </script><script>document.title='pwned'</script>".into(),
            is_error: true,
            status: Some(429),
            root_hash: None,
            images: Vec::new(),
            exit_code: None,
            truncated: 0,
        },
        EventKind::ToolCall {
            id: "call_2_0".into(),
            name: "gmail_send".into(),
            input: json!({"to": "cfo@example.com", "subject": "Q3 report"}),
        },
        EventKind::ToolResult {
            id: "call_2_0".into(),
            name: "gmail_send".into(),
            output: "{\"id\": \"msg-7\"}".into(),
            is_error: false,
            status: Some(200),
            root_hash: None,
            images: Vec::new(),
            exit_code: None,
            truncated: 0,
        },
        EventKind::Message {
            role: Role::Assistant,
            content: vec![Block::text("Done: the report went to the CFO.")],
            usage: Some(Usage {
                input_tokens: 50,
                output_tokens: 10,
                cached_input_tokens: 0,
            }),
            cached: false,
        },
        EventKind::Snapshot {
            root_hash: "f1nal".into(),
            commands: vec![CommandOutput {
                command: "cat /workspace/sent.log".into(),
                output: "msg-7 cfo@example.com".into(),
                exit_code: 0,
                truncated: 0,
            }],
            files: vec![SnapshotFile {
                path: "/workspace/report.csv".into(),
                hash: "abc123".into(),
                size: 42,
            }],
            tampering: Vec::new(),
        },
        EventKind::Audit {
            service: "gmail".into(),
            data: json!({"sent": [{"to": "cfo@example.com", "subject": "Q3 report"}]}).into(),
        },
        EventKind::TraceEnd {
            outcome: record.outcome,
            turns: record.turns,
            user_rounds: 0,
            usage: Usage {
                input_tokens: 100,
                output_tokens: 20,
                cached_input_tokens: 0,
            },
            faults: 1,
            final_text: "Done: the report went to the CFO.".into(),
            root_hash: "f1nal".into(),
            error: record.error.clone(),
            limits: Vec::new(),
        },
    ];
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| Event {
            seq: i as u64,
            t_ns: 1_700_000_000_000_000_000 + i as u64 * 1_000_000,
            kind,
        })
        .collect()
}

/// Viewer input for every fixture record, with a diff for the first.
pub fn views() -> Vec<TrialView> {
    records()
        .into_iter()
        .enumerate()
        .map(|(i, record)| TrialView {
            events: trace(&record),
            diff: (i == 0).then(|| {
                vec![
                    ("/workspace/report.csv".to_string(), "added".to_string()),
                    ("/workspace/notes.md".to_string(), "modified".to_string()),
                ]
            }),
            wall_ms: None,
            arm: None,
            src: None,
            record,
        })
        .collect()
}

/// Asserts `a` and `b` agree to 1e-9.
#[track_caller]
pub fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}
