//! What a sample says of its trial beyond the conversation: the verdict as Inspect scores
//! (`clawrun`, and `clawrun_native` under `--grader both`), the limit Execution stopped at,
//! and the record's facts as the sample's metadata.

use clawrun_agents::trace::Outcome;
use clawrun_report::{Judgement, TrialRecord};
use serde_json::{Map, Value, json};

use crate::run::Trial;
use crate::time::rfc3339;
use crate::trial::{TrialTrace, fault_json};

/// The scorer's name: its score is the verdict.
pub const SCORER: &str = "clawrun";

/// The scorer of clawrun's own verdict beside a Claw-Eval grader's (`--grader both`).
pub const NATIVE_SCORER: &str = "clawrun_native";

/// The sample's limit, when Execution stopped at one: its value is what the trial had used
/// when it stopped (turns, virtual seconds, tokens; the task's limit itself is not recorded).
pub(super) fn limit(r: &TrialRecord, trace: &TrialTrace) -> Option<Value> {
    let (kind, used, reason) = match r.outcome {
        Outcome::MaxTurns => (
            "turn",
            f64::from(r.turns),
            "the task's environment.max_turns was reached",
        ),
        Outcome::Timeout => (
            "time",
            trace.end_ns().saturating_sub(trace.start_ns) as f64 / 1e9,
            "the task's virtual time limit was reached",
        ),
        Outcome::TokenLimit => (
            "token",
            r.input_tokens.saturating_add(r.output_tokens) as f64,
            "the token limit was reached",
        ),
        _ => return None,
    };
    Some(json!({"type": kind, "limit": used, "reason": reason}))
}

/// The verdict as scores: `clawrun` (and `clawrun_native` under `--grader both`); `None` for
/// trials without a verdict (infrastructure and task errors).
pub(super) fn scores(r: &TrialRecord) -> Option<Value> {
    let verdict = r.verdict.as_ref()?;
    let judgement = r.judgement().unwrap_or(Judgement::Full);
    let mut scores = Map::new();
    scores.insert(
        SCORER.into(),
        score(verdict, judgement, r.grader.as_deref().unwrap_or("clawrun")),
    );
    if let Some(native) = &r.native_verdict {
        scores.insert(NATIVE_SCORER.into(), score(native, judgement, "clawrun"));
    }
    Some(Value::Object(scores))
}

/// One verdict as an Inspect `Score`: the five figures as its value, the rubric items and the
/// counts in its metadata.
fn score(v: &clawrun_judge::Verdict, judgement: Judgement, grader: &str) -> Value {
    let s = &v.scores;
    let explanation = match judgement {
        Judgement::Full => format!("score {:.3}, {}", s.score, if s.passed { "passed" } else { "failed" }),
        Judgement::Partial => format!(
            "PARTLY JUDGED: the score covers the checkable items only (unjudged weight {}): configure a judge model (clawrun run --judge MODEL) and re-judge",
            v.unjudged_weight
        ),
        Judgement::Unjudged => "UNJUDGED: no weighted rubric item could be judged; the recorded score measures nothing and clawrun's reports leave the trial out of every figure".to_string(),
    };
    json!({
        "value": {"score": s.score, "completion": s.completion, "safety": s.safety,
                  "robustness": s.robustness, "passed": s.passed},
        "explanation": explanation,
        "metadata": {"judgement": judgement.as_str(), "grader": grader, "items": v.items,
                     "unjudged_weight": v.unjudged_weight, "failed_calls": v.failed_calls,
                     "faults_seen": v.faults_seen},
        "history": [],
    })
}

/// The sample's metadata: the record's facts the messages do not carry.
pub(super) fn metadata(trial: &Trial, trace: &TrialTrace, agent: &str) -> Value {
    let r = &trial.record;
    let mut m = json!({
        "task_id": r.task_id, "category": r.category, "group": r.group, "trial": r.trial,
        "seed": r.seed.to_string(), "agent": agent, "status": r.status, "outcome": r.outcome,
        "turns": r.turns, "user_rounds": r.user_rounds, "root_hash": r.root_hash,
        "task_hash": r.task_hash, "trace_hash": trial.trace_hash,
        "faults": trace.faults().map(fault_json).collect::<Vec<_>>(),
        "virtual_start": rfc3339(trace.start_ns), "virtual_end": rfc3339(trace.end_ns()),
    });
    if r.cached_turns > 0 {
        m["cached_turns"] = json!(r.cached_turns);
    }
    if !r.limits.is_empty() {
        m["limits"] = json!(r.limits);
    }
    if let Some(us) = trial.wall_us {
        m["wall_us"] = json!(us);
    }
    if let Some(s) = &trace.snapshot
        && !s.tampering.is_empty()
    {
        m["tampering"] = json!(s.tampering);
    }
    m
}
