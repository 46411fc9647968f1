//! Comparisons of arms: pairing, the paired difference, wins / losses / ties, the sign test,
//! unpaired tasks; and the unjudged trials left out of the figures.

mod common;

use clawrun_judge::{ItemResult, ItemSource, Scores, Verdict};
use clawrun_report::compare::TaskOutcome;
use clawrun_report::stats::sign_test_p;
use clawrun_report::{
    ArmInput, Comparison, Group, Inputs, Judgement, Summary, TrialRecord, render_comparison_json,
    render_comparison_markdown, render_comparison_text,
};
use common::{close, scored, sourced};

/// An arm of `agent` whose task `T00i` scores `scores[i]` on every one of `trials` trials.
fn arm(agent: &str, scores: &[f64], trials: u32) -> ArmInput<'static> {
    let mut recs = Vec::new();
    for (i, &s) in scores.iter().enumerate() {
        for t in 0..trials {
            let mut r = scored(&format!("T{i:03}"), "files", Group::General, t, s);
            r.agent = agent.to_string();
            recs.push(r);
        }
    }
    ArmInput {
        label: agent.to_string(),
        runs: Vec::new(),
        records: sourced(&format!("{agent}/journal.jsonl"), recs),
        inputs: Inputs::default(),
    }
}

#[test]
fn the_sign_test_is_exact() {
    // 5 wins, 0 losses: 2 × (1/2)^5 = 0.0625
    close(sign_test_p(5, 0).unwrap(), 0.0625);
    // 1 win, 4 losses: 2 × (1 + 5)/32 = 0.375
    close(sign_test_p(1, 4).unwrap(), 0.375);
    // 3 vs 3: capped at 1
    close(sign_test_p(3, 3).unwrap(), 1.0);
    assert_eq!(sign_test_p(0, 0), None);
    // 2000 untied tasks, all one way: 2 × 2^-2000 underflows to 0 but stays finite
    let p = sign_test_p(2000, 0).unwrap();
    assert!((0.0..1e-300).contains(&p), "{p}");
    // 10 vs 0 with the log-space sum: 2 / 1024
    close(sign_test_p(0, 10).unwrap(), 2.0 / 1024.0);
}

#[test]
fn two_arms_are_paired_over_their_common_tasks() {
    // A: 1.0 1.0 0.5 0.8 ; B: 0.2 1.0 0.9 0.1 and a task only B has
    let a = arm("oracle", &[1.0, 1.0, 0.5, 0.8], 2);
    let b = arm("idle", &[0.2, 1.0, 0.9, 0.1, 0.3], 2);
    let c = Comparison::build(vec![a, b], None).unwrap();
    assert_eq!(c.k, 2);
    assert_eq!(c.arms.len(), 2);
    assert_eq!(
        (c.arms[0].name.as_str(), c.arms[1].name.as_str()),
        ("A", "B")
    );
    let p = &c.pairs[0];
    assert_eq!(p.paired_tasks, 4);
    // diffs B − A: −0.8, 0, +0.4, −0.7 → mean −0.275
    close(p.score_diff.unwrap().value, -0.275);
    let ci = p.score_diff.unwrap().ci95;
    assert!(ci.lo <= -0.275 && -0.275 <= ci.hi && ci.lo >= -0.8 && ci.hi <= 0.4);
    assert_eq!((p.b_better, p.b_worse, p.ties), (1, 2, 1));
    // 1 vs 2: 2 × (1 + 3)/8 = 1.0
    close(p.sign_test_p.unwrap(), 1.0);
    // pass@1 B − A: (0−1) + 0 + (1−0) + (0−1) over 4 = −0.25
    close(p.pass_at_1_diff.unwrap().value, -0.25);
    assert_eq!(p.unpaired_tasks, 1);
    let only_b = p.tasks.iter().find(|t| t.task_id == "T004").unwrap();
    assert_eq!(only_b.outcome, TaskOutcome::Unpaired);
    assert_eq!(only_b.unpaired.as_deref(), Some("not in A"));
    assert!(c.warnings().iter().any(|w| w.contains("T004 (not in A)")));
    // deterministic: the same input gives the same JSON
    let again = Comparison::build(
        vec![
            arm("oracle", &[1.0, 1.0, 0.5, 0.8], 2),
            arm("idle", &[0.2, 1.0, 0.9, 0.1, 0.3], 2),
        ],
        None,
    )
    .unwrap();
    assert_eq!(render_comparison_json(&c), render_comparison_json(&again));
}

#[test]
fn the_comparison_renders_in_text_json_and_markdown() {
    let c = Comparison::build(
        vec![
            arm("oracle", &[1.0, 1.0, 1.0], 1),
            arm("idle", &[0.2, 0.2, 1.0], 1),
        ],
        None,
    )
    .unwrap();
    let text = render_comparison_text(&c, None);
    assert!(text.contains("arm A = oracle"), "{text}");
    assert!(text.contains("arm B = idle"), "{text}");
    assert!(
        text.contains("B - A (paired over the 3 tasks both scored)"),
        "{text}"
    );
    assert!(text.contains("mean score B - A"), "{text}");
    assert!(text.contains("-0.533 ["), "{text}");
    assert!(
        text.contains("tasks B better / worse / tied  0 / 2 / 1"),
        "{text}"
    );
    // 0 vs 2: 2 × 1/4 = 0.5
    assert!(
        text.contains("p = 0.5000 (exact, two-sided, over the 2 untied tasks)"),
        "{text}"
    );
    let row = text.lines().find(|l| l.starts_with("T000")).unwrap();
    assert!(row.contains("-0.800") && row.contains("B worse"), "{row}");
    let json: serde_json::Value = serde_json::from_str(&render_comparison_json(&c)).unwrap();
    assert_eq!(json["kind"], "comparison");
    assert_eq!(json["comparison"]["pairs"][0]["b_worse"], 2);
    assert_eq!(json["comparison"]["arms"][1]["label"], "idle");
    let md = render_comparison_markdown(&c);
    assert!(
        md.contains("## B - A (paired over the 3 tasks both scored)"),
        "{md}"
    );
    assert!(
        md.contains("| T000 | files | 1.000 | 0.200 | -0.800 | B worse |"),
        "{md}"
    );
}

/// A verdict whose only weighted item needs the LLM judge (none configured): completion 0,
/// score 0.2 from robustness, "failed".
fn unjudged_verdict() -> Verdict {
    Verdict {
        scores: Scores {
            completion: 0.0,
            safety: 1.0,
            robustness: 1.0,
            score: 0.2,
            passed: false,
        },
        items: vec![ItemResult {
            name: "quality".into(),
            source: ItemSource::Rubric,
            check: "llm_judge".into(),
            weight: 1.0,
            gate: false,
            score: None,
            passed: None,
            evidence: "no judge model configured".into(),
        }],
        unjudged_weight: 1.0,
        failed_calls: 0,
        faults_seen: 0,
    }
}

fn unjudged_record(task: &str, trial: u32) -> TrialRecord {
    let mut r = scored(task, "writing", Group::General, trial, 0.2);
    r.verdict = Some(unjudged_verdict());
    r
}

#[test]
fn unjudged_trials_are_not_failures_and_stay_out_of_every_figure() {
    // T1: two fully judged passes; T2: two unjudged trials (0.2 recorded, "failed").
    let recs = vec![
        scored("T1", "files", Group::General, 0, 1.0),
        scored("T1", "files", Group::General, 1, 1.0),
        unjudged_record("T2", 0),
        unjudged_record("T2", 1),
    ];
    assert_eq!(recs[2].judgement(), Some(Judgement::Unjudged));
    let s = Summary::from_records(sourced("j", recs), None).unwrap();
    let t2 = &s.tasks[1];
    assert_eq!((t2.n, t2.c, t2.unjudged_trials), (0, 0, 2));
    assert_eq!(t2.mean_score, None);
    assert_eq!(t2.trials[0].judgement, Judgement::Unjudged);
    // the overall figures are T1's alone, not (1.0 + 0.2) / 2
    let o = &s.overall;
    close(o.mean_score.unwrap().value, 1.0);
    close(o.pass_at_1.unwrap().value, 1.0);
    assert_eq!((o.trials, o.passed_trials, o.unjudged_trials), (2, 2, 2));
    assert_eq!((o.scored_tasks, o.unjudged_tasks), (1, 1));
    assert_eq!(s.k, 2);
    let w = s.warnings();
    assert!(w[0].contains("2 of 4 trials have no score yet"), "{w:?}");
    assert!(
        w.iter()
            .any(|w| w.contains("no counted trial") && w.contains("T2")),
        "{w:?}"
    );
    let text = clawrun_report::render_text(&s);
    let row = text.lines().find(|l| l.starts_with("T2 ")).unwrap();
    assert!(row.contains("UNJUDGED") && row.contains("unj unj"), "{row}");
    assert!(!row.contains("0.20-"), "{row}");
}

#[test]
fn a_failed_gate_makes_an_unjudged_trial_a_judged_failure() {
    let mut v = unjudged_verdict();
    v.scores.safety = 0.0;
    v.scores.score = 0.0;
    v.items.push(ItemResult {
        name: "no_delete".into(),
        source: ItemSource::SafetyCheck,
        check: "tool_not_called".into(),
        weight: 0.0,
        gate: true,
        score: Some(0.0),
        passed: Some(false),
        evidence: "delete called".into(),
    });
    let mut r = scored("T1", "files", Group::General, 0, 0.0);
    r.verdict = Some(v);
    assert_eq!(r.judgement(), Some(Judgement::Partial));
    let s = Summary::from_records(sourced("j", vec![r]), None).unwrap();
    assert_eq!((s.tasks[0].n, s.tasks[0].c), (1, 0));
}

#[test]
fn an_unjudged_task_is_unpaired_in_a_comparison() {
    let a = arm("oracle", &[1.0, 1.0], 1);
    let mut b = arm("idle", &[0.2], 1);
    b.records
        .extend(sourced("idle/j", vec![unjudged_record("T001", 0)]));
    // T001 is in B with the same task hash as A's, but has no counted trial there.
    let c = Comparison::build(vec![a, b], None).unwrap();
    let p = &c.pairs[0];
    let t1 = p.tasks.iter().find(|t| t.task_id == "T001").unwrap();
    assert_eq!(t1.outcome, TaskOutcome::Unpaired);
    assert_eq!(t1.unpaired.as_deref(), Some("no counted trial in B"));
    assert_eq!(t1.not_fully_judged, 1);
    assert_eq!(p.paired_tasks, 1);
}

#[test]
fn tiny_p_values_are_written_in_scientific_notation() {
    use clawrun_report::render::compare_rows::p_value;
    assert_eq!(p_value(0.0625), "0.0625");
    // 82 losses, no win: 2 × 2^-82
    assert_eq!(p_value(sign_test_p(0, 82).unwrap()), "4.14e-25");
    assert_eq!(p_value(0.0), "0.0000");
}
