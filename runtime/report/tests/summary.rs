//! Building a summary from journal records: hand-computed figures, merging shards, errors.

mod common;

use clawrun_report::{Group, ReportError, Summary, read_journal, render_json};
use common::{close, infra, records, scored, scored_with, sourced, verdict};

fn fixture(k: Option<u32>) -> Summary {
    Summary::from_records(sourced("journal.jsonl", records()), k).unwrap()
}

#[test]
fn per_task_figures_are_hand_computed() {
    let s = fixture(None);
    assert_eq!(s.k, 3, "k defaults to the most scored trials of any task");
    let ids: Vec<&str> = s.tasks.iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(ids, ["T001_alpha", "T002_beta", "T003_gamma", "T004_delta"]);

    let t1 = &s.tasks[0]; // 0.9 P, 0.8 P, 0.5 F
    assert_eq!((t1.n, t1.c), (3, 2));
    close(t1.mean_score.unwrap(), 2.2 / 3.0); // (0.9 + 0.8 + 0.5) / 3
    close(t1.pass_at_1.unwrap(), 2.0 / 3.0);
    close(t1.pass_at_k.unwrap(), 1.0); // n − c = 1 < 3
    close(t1.pass_pow_k.unwrap(), 0.0); // C(2,3) = 0
    assert_eq!(t1.all_k_pass, Some(false));
    close(t1.pass_hat_k.unwrap(), 8.0 / 27.0); // (2/3)^3
    assert!(t1.flipped);
    assert_eq!(t1.faults_seen, 2);

    let t2 = &s.tasks[1]; // 1.0, 1.0, 0.95 all pass
    close(t2.mean_score.unwrap(), 2.95 / 3.0);
    close(t2.pass_pow_k.unwrap(), 1.0);
    assert_eq!(t2.all_k_pass, Some(true));
    assert!(!t2.flipped);

    let t3 = &s.tasks[2]; // 0.2 F, 0.1 F, one infra error
    assert_eq!((t3.n, t3.c, t3.infra_errors), (2, 0, 1));
    close(t3.mean_score.unwrap(), 0.15);
    assert_eq!(t3.pass_at_k, None, "2 scored trials < k = 3");
    assert_eq!(t3.all_k_pass, None);
    assert_eq!(t3.group, Group::MultiTurn);

    let t4 = &s.tasks[3]; // 0.76 P, 0.74 F (unjudged 0.3), 0.9 P
    close(t4.mean_score.unwrap(), 0.8); // 2.4 / 3
    assert_eq!(
        (t4.partly_judged_trials, t4.unjudged_trials, t4.c),
        (1, 0, 2)
    );
    close(t4.unjudged_weight, 0.3);
}

#[test]
fn overall_figures_are_hand_computed() {
    let o = fixture(None).overall;
    assert_eq!((o.tasks, o.trials, o.passed_trials), (4, 11, 7));
    // task means 2.2/3, 2.95/3, 0.15, 0.8 → (0.73333 + 0.98333 + 0.15 + 0.8) / 4 = 2.66667 / 4
    let mean = o.mean_score.unwrap();
    close(mean.value, (2.2 / 3.0 + 2.95 / 3.0 + 0.15 + 0.8) / 4.0);
    assert!(mean.ci95.lo <= mean.value && mean.value <= mean.ci95.hi);
    // pass@1: (2/3 + 1 + 0 + 2/3) / 4 = 7/12
    close(o.pass_at_1.unwrap().value, 7.0 / 12.0);
    // pass@3 over the 3 tasks with 3 scored trials: (1 + 1 + 1) / 3
    assert_eq!(o.tasks_with_k, 3);
    close(o.pass_at_k.unwrap().value, 1.0);
    // pass^3: (0 + 1 + 0) / 3
    close(o.pass_pow_k.unwrap().value, 1.0 / 3.0);
    assert_eq!(o.all_k_pass_tasks, 1);
    close(o.all_k_pass.unwrap().value, 1.0 / 3.0);
    // (c/n)^3: ((2/3)^3 + 1 + (2/3)^3) / 3 = (16/27 + 1) / 3 = 43/81
    close(o.pass_hat_k.unwrap().value, 43.0 / 81.0);
    // flips: T001 and T004 of the 4 tasks with ≥ 2 trials
    close(o.flip_rate.unwrap(), 0.5);
    assert_eq!(
        (
            o.infra_errors,
            o.unjudged_trials,
            o.partly_judged_trials,
            o.unjudged_tasks
        ),
        (1, 0, 1, 1)
    );
}

#[test]
fn categories_and_groups() {
    let s = fixture(None);
    let cats: Vec<(&str, u32)> = s
        .categories
        .iter()
        .map(|a| (a.name.as_str(), a.tasks))
        .collect();
    assert_eq!(cats, [("email", 2), ("finance", 2)]);
    // email: T003 (0.15) and T004 (0.8) → 0.475
    close(s.categories[0].mean_score.unwrap().value, 0.475);
    let groups: Vec<(&str, u32)> = s
        .groups
        .iter()
        .map(|a| (a.name.as_str(), a.tasks))
        .collect();
    assert_eq!(
        groups,
        [("general", 2), ("multimodal", 1), ("multi-turn", 1)]
    );
    // general: T001 (2.2/3) and T004 (0.8)
    close(
        s.groups[0].mean_score.unwrap().value,
        (2.2 / 3.0 + 0.8) / 2.0,
    );
    // one task: its interval is a point
    let mm = s.groups[1].mean_score.unwrap();
    close(mm.ci95.lo, 2.95 / 3.0);
    close(mm.ci95.hi, 2.95 / 3.0);
}

#[test]
fn explicit_k() {
    let s = fixture(Some(2));
    assert_eq!(s.overall.tasks_with_k, 4);
    // T001 (n=3, c=2): Pass^2 = C(2,2)/C(3,2) = 1/3
    close(s.tasks[0].pass_pow_k.unwrap(), 1.0 / 3.0);
    // T003 (n=2, c=0): Pass@2 = 1 − C(2,2)/C(2,2) = 0
    close(s.tasks[2].pass_at_k.unwrap(), 0.0);
    // T004 trials 0,1 are P,F: the first 2 do not all pass
    assert_eq!(s.tasks[3].all_k_pass, Some(false));
    assert!(matches!(
        Summary::from_records(sourced("j", records()), Some(0)),
        Err(ReportError::InvalidK)
    ));
}

#[test]
fn shards_merge_to_the_same_summary() {
    let all = records();
    let (a, b) = all.split_at(5);
    let mut merged = sourced("shard0/journal.jsonl", b.to_vec());
    merged.extend(sourced("shard1/journal.jsonl", a.to_vec()));
    // an identical duplicate (the same line in both shards) is fine
    merged.extend(sourced("shard2/journal.jsonl", vec![a[0].clone()]));
    let s = Summary::from_records(merged, None).unwrap();
    assert_eq!(render_json(&s), render_json(&fixture(None)));
}

#[test]
fn conflicting_duplicates_name_both_sources() {
    let mut recs = sourced("a/journal.jsonl", records());
    let mut other = scored("T002_beta", "finance", Group::Multimodal, 1, 0.3);
    other.seed = 99;
    recs.extend(sourced("b/journal.jsonl", vec![other]));
    let err = Summary::from_records(recs, None).unwrap_err().to_string();
    assert!(err.contains("T002_beta/1"), "{err}");
    assert!(err.contains("a/journal.jsonl:5"), "{err}");
    assert!(err.contains("b/journal.jsonl:1"), "{err}");
}

#[test]
fn a_retried_infra_error_is_counted_but_not_scored() {
    let mut recs = records();
    // T002 trial 1 failed once for infrastructure reasons before it was scored
    recs.push(infra("T002_beta", "finance", Group::Multimodal, 1));
    let s = Summary::from_records(sourced("j", recs), None).unwrap();
    assert_eq!((s.tasks[1].n, s.tasks[1].infra_errors), (3, 1));
    assert_eq!(s.overall.infra_errors, 2);
    close(s.tasks[1].mean_score.unwrap(), 2.95 / 3.0);
}

#[test]
fn shards_holding_the_same_retries_count_each_retry_once() {
    let mut first = infra("T002_beta", "finance", Group::Multimodal, 1);
    first.error = Some("model timed out".into());
    let mut second = infra("T002_beta", "finance", Group::Multimodal, 1);
    second.error = Some("connection reset".into());
    let mut recs = sourced("a/journal.jsonl", records());
    recs.extend(sourced(
        "a/journal.jsonl",
        vec![first.clone(), second.clone()],
    ));
    // shard b copied both retries (and one scored line) from a
    recs.extend(sourced(
        "b/journal.jsonl",
        vec![second, first, records()[0].clone()],
    ));
    let s = Summary::from_records(recs, None).unwrap();
    assert_eq!(s.tasks[1].infra_errors, 2);
    assert_eq!(s.overall.infra_errors, 3);
    assert_eq!(
        s.tasks[0].n,
        records()
            .iter()
            .filter(|r| r.task_id == "T001_alpha")
            .count() as u32
    );
}

#[test]
fn grader_disagreements_are_listed_in_trial_order() {
    // Trials 0..12 graded both ways; Claw-Eval's grader fails trials 2 and 10, clawrun's
    // rubric passes every trial.
    let recs: Vec<_> = (0..12)
        .map(|trial| {
            let claw_eval_passes = trial != 2 && trial != 10;
            let mut r = scored_with(
                "T001_alpha",
                "email",
                Group::General,
                trial,
                verdict(
                    if claw_eval_passes { 0.9 } else { 0.5 },
                    claw_eval_passes,
                    0.0,
                    0,
                ),
            );
            r.grader = Some("claw-eval".into());
            r.native_verdict = Some(verdict(0.9, true, 0.0, 0));
            r
        })
        .collect();
    // Journal order is arrival order: reversed here.
    let s = Summary::from_records(sourced("j", recs.into_iter().rev().collect()), None).unwrap();
    let g = s.graders.expect("graded both ways");
    assert_eq!((g.trials, g.same_pass), (12, 10));
    let order: Vec<&str> = g.disagreements.iter().map(|d| d.trial.as_str()).collect();
    assert_eq!(order, ["T001_alpha/2", "T001_alpha/10"]);
}

#[test]
fn inconsistent_category_is_an_error() {
    let mut recs = records();
    recs.push(scored("T001_alpha", "email", Group::General, 5, 0.9));
    let err = Summary::from_records(sourced("j", recs), None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("T001_alpha") && err.contains("category"),
        "{err}"
    );
}

#[test]
fn two_tasks_sharing_an_id_are_not_merged() {
    // Run b's T001_alpha is another task (other files, so another hash) under the same id, on
    // trial numbers run a does not have: before, its trials silently joined run a's.
    let mut recs = sourced("a/journal.jsonl", records());
    let mut other = scored("T001_alpha", "finance", Group::General, 3, 0.9);
    other.task_hash = "0ther".into();
    recs.extend(sourced("b/journal.jsonl", vec![other]));
    let err = Summary::from_records(recs, None).unwrap_err().to_string();
    assert!(
        err.starts_with(
            "task T001_alpha: records disagree: a/journal.jsonl:1 has task hash 7a5k but \
             b/journal.jsonl:1 has 0ther: these are two different tasks with one id"
        ),
        "{err}"
    );
}

#[test]
fn scored_without_verdict_is_an_error() {
    let mut rec = scored("T001_alpha", "finance", Group::General, 0, 0.9);
    rec.verdict = None;
    let err = Summary::from_records(sourced("j", vec![rec]), None).unwrap_err();
    assert!(matches!(err, ReportError::MissingVerdict { .. }), "{err}");
}

#[test]
fn journal_lines_round_trip_with_a_stable_field_order() {
    let recs = records();
    let text: String = recs.iter().map(|r| r.to_line() + "\n\n").collect();
    let (read, damage) = read_journal(text.as_bytes(), "run/journal.jsonl").unwrap();
    assert!(damage.is_empty());
    assert_eq!(read.len(), recs.len());
    assert_eq!(read[0].record, recs[0]);
    assert_eq!(
        read[1].source, "run/journal.jsonl:3",
        "blank lines keep numbering"
    );
    let line = recs[8].to_line();
    let order = [
        "task_id",
        "category",
        "group",
        "trial",
        "seed",
        "agent",
        "status",
        "error",
        "outcome",
        "turns",
        "user_rounds",
        "input_tokens",
        "output_tokens",
        "root_hash",
        "task_hash",
        "trace",
        "verdict",
    ];
    let positions: Vec<usize> = order
        .iter()
        .map(|k| {
            line.find(&format!("\"{k}\":"))
                .unwrap_or_else(|| panic!("{k} in {line}"))
        })
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{line}");
    assert!(line.contains("\"status\":\"infra_error\""), "{line}");
    assert!(line.contains("\"group\":\"multi-turn\""), "{line}");
    assert!(line.contains("\"verdict\":null"), "{line}");
}

#[test]
fn damaged_journal_lines_are_named_and_the_intact_records_read() {
    let line = records()[0].to_line();
    // What a power loss leaves: zeros where a line never reached the disk, then a line that
    // did, then a torn last line.
    let text = format!("{line}\nnot json\n\0\0\0\n{line}\n{}", &line[..20]);
    let (read, damage) = read_journal(text.as_bytes(), "j.jsonl").unwrap();
    assert_eq!(read.len(), 2);
    assert_eq!(read[1].source, "j.jsonl:4");
    let named: Vec<String> = damage.iter().map(|d| d.describe("j.jsonl")).collect();
    assert_eq!(named.len(), 3, "{named:?}");
    assert!(named[0].starts_with("j.jsonl:2 "), "{named:?}");
    assert!(named[0].contains("not a trial record"), "{named:?}");
    assert!(named[1].starts_with("j.jsonl:3 "), "{named:?}");
    assert!(
        named[2].starts_with("j.jsonl:5 ") && named[2].contains("torn"),
        "{named:?}"
    );
}

#[test]
fn order_of_records_does_not_change_the_output() {
    let mut recs = records();
    recs.reverse();
    let s = Summary::from_records(sourced("j", recs), None).unwrap();
    assert_eq!(render_json(&s), render_json(&fixture(None)));
}
