//! The LLM judge: reply parsing, prompts, failures.

mod common;

use clawrun_judge::llm::parse_reply;
use clawrun_judge::llm::prompt::{CONVERSATION_MAX, TOOL_MAX};
use common::*;
use serde_json::json;

#[test]
fn parse_plain_fenced_and_prose() {
    let r = parse_reply(r#"{"score": 0.7, "reasoning": "good"}"#).unwrap();
    assert_eq!((r.score, r.reasoning.as_str()), (0.7, "good"));
    let r = parse_reply("```json\n{\"score\": 0.4, \"reasoning\": \"meh\"}\n```").unwrap();
    assert_eq!((r.score, r.reasoning.as_str()), (0.4, "meh"));
    let r = parse_reply(
        "Here is my verdict:\n{\"score\": \"0.9\", \"reasoning\": \"fine\"} hope it helps",
    )
    .unwrap();
    assert_eq!(r.score, 0.9);
    // Broken JSON: the regex fallback still finds the score and the reasoning.
    let r = parse_reply(r#"{"score": 0.35, "reasoning": "has a "quote" inside"#).unwrap();
    assert_eq!(r.score, 0.35);
    let r = parse_reply("score: 0.5").unwrap();
    assert_eq!(r.score, 0.5);
}

#[test]
fn parse_clamps_and_rejects_garbage() {
    assert_eq!(
        parse_reply(r#"{"score": 7, "reasoning": "x"}"#)
            .unwrap()
            .score,
        1.0
    );
    assert_eq!(parse_reply(r#"{"score": -2}"#).unwrap().score, 0.0);
    assert!(parse_reply("I cannot evaluate this.").is_none());
    assert!(parse_reply(r#"{"reasoning": "no score"}"#).is_none());
    assert!(parse_reply("").is_none());
}

const JUDGED: &str = "  - name: quality
    weight: 1
    description: overall quality
    check: {type: llm_judge, rubric: Is the total right?, evidence: [conversation, audit, \"file:report.md\"]}
";

#[test]
fn prompt_has_claw_eval_sections() {
    let t = rubric_task(JUDGED);
    let mut ev = evidence(
        "The total is 485000.",
        vec![ok("gmail_send_message", json!({"to": "boss@x"}))],
    );
    ev.audits.insert("gmail",
        json!({"calls": [{"endpoint": "/gmail/send", "request_body": {"to": "boss@x"}, "response_body": {"status": "sent"}}], "sent_messages": [{"to": "boss@x"}]}),
    );
    put(&mut ev, "/workspace/report.md", "total 485000");
    let judge =
        FakeJudge::always("```json\n{\"score\": 0.75, \"reasoning\": \"Total matches.\"}\n```");
    let (v, log) = run_with(&t, &ev, Some(&judge));
    let i = item(&v, "quality");
    assert_eq!(i.score, Some(0.75));
    assert!(
        i.evidence
            .contains("judge fake:judge: 0.75 — Total matches."),
        "{}",
        i.evidence
    );
    let (system, user) = &judge.seen()[0];
    assert!(system.starts_with("You are an evaluation judge for an AI assistant"));
    assert!(system.contains("JSON only"));
    for section in [
        "## Task Prompt",
        "## Conversation",
        "## Actions Taken",
        "## Files",
        "## Rubric",
    ] {
        assert!(user.contains(section), "missing {section}:\n{user}");
    }
    assert!(user.contains("not from the agent's self-report"));
    assert!(
        user.contains("/gmail/send request={\"to\":\"boss@x\"}"),
        "{user}"
    );
    assert!(user.contains("### /workspace/report.md") && user.contains("total 485000"));
    assert!(
        user.contains("### This item: quality\noverall quality\nIs the total right?"),
        "{user}"
    );
    assert!(user.contains("0.8-1.0") && user.contains("0.0-0.2"));
    assert_eq!(log.calls[0].score, Some(0.75));
}

#[test]
fn native_items_show_only_the_evidence_they_name() {
    let t = rubric_task(
        "  - name: q\n    weight: 1\n    check: {type: llm_judge, rubric: is it right?, evidence: [conversation]}\n",
    );
    let mut ev = answer("x");
    ev.audits.insert("gmail", json!({"calls": []}));
    let judge = FakeJudge::score(0.5);
    run_with(&t, &ev, Some(&judge));
    let user = &judge.seen()[0].1;
    assert!(
        user.contains("## Conversation") && !user.contains("## Actions Taken"),
        "{user}"
    );
}

#[test]
fn long_tool_output_is_truncated() {
    let t = rubric_task(JUDGED);
    let mut call = ok("ocr_extract_text", json!({}));
    call.output = "A".repeat(50_000);
    let ev = evidence("done", vec![call]);
    let judge = FakeJudge::score(0.5);
    run_with(&t, &ev, Some(&judge));
    let user = &judge.seen()[0].1;
    assert!(
        user.contains(&format!("[truncated {} chars]", 50_000 - TOOL_MAX)),
        "marker missing"
    );
    assert!(user.len() < CONVERSATION_MAX + 20_000);
}

#[test]
fn garbage_or_failure_is_unjudged() {
    let t = rubric_task(JUDGED);
    let judge = FakeJudge::always("I refuse to answer in JSON.");
    let (v, log) = run_with(&t, &answer("x"), Some(&judge));
    let i = item(&v, "quality");
    assert_eq!(i.score, None);
    assert!(
        i.evidence.contains("gave no readable score"),
        "{}",
        i.evidence
    );
    assert_eq!(
        log.calls[0].error.as_deref(),
        Some("no score in the answer")
    );

    let judge = FakeJudge::failing();
    let (v, log) = run_with(&t, &answer("x"), Some(&judge));
    let i = item(&v, "quality");
    assert_eq!(i.score, None);
    assert!(i.evidence.contains("connection refused"), "{}", i.evidence);
    assert!(log.calls[0].error.is_some());
    assert_eq!(v.unjudged_weight, 1.0);
}

#[test]
fn judge_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let t = rubric_task(JUDGED);
    let ev = answer("x");
    let judge = FakeJudge::score(1.0);
    let config = clawrun_judge::ScoreConfig::default();
    let fut = clawrun_judge::judge(&t, &ev, Some(&judge), &config);
    assert_send(&fut);
}
