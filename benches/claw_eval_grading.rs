//! One trial graded by Claw-Eval's own `grader.py` in the Python sandbox against the same trial
//! graded natively by clawrun's rubric: the oracle trial of the bundled
//! `T040_onboarding_coordinator` (its grader needs no judge), the export of its evidence, the
//! grading alone, and trial + grading end to end. Needs `clawrun setup python`.

use std::hint::black_box;
use std::sync::Arc;

use clawrun::claw_eval::{Checkout, ClawEvalGrader, GraderOutcome, JudgeDoor, export};
use clawrun::judge::ScoreConfig;
use clawrun::run::AgentSpec;
use clawrun::trial::{Harness, Limits, TaskEnv, TrialInputs, TrialOutput};
use criterion::Criterion;

const TASK: &str = "tasks/T040_onboarding_coordinator";

fn trial(rt: &tokio::runtime::Runtime, harness: &Harness, task: &TaskEnv, n: u32) -> TrialOutput {
    let mut agent = AgentSpec::Oracle.build(task, None, 0).unwrap();
    TrialInputs {
        rt,
        harness,
        task,
        run_seed: 1,
        trial: n,
        agent: agent.as_mut(),
        user: None,
        limits: &Limits::of(task),
        plan: None,
        share_faults: None,
    }
    .run()
    .unwrap()
}

fn grade(rt: &tokio::runtime::Runtime, grader: &ClawEvalGrader, task: &TaskEnv, out: &TrialOutput) {
    let exported = export::export(&task.loaded, 0, &out.events, &out.evidence);
    let door = Arc::new(JudgeDoor::new(None, rt.handle().clone()));
    let grading = grader
        .grade(&task.loaded, &exported, door, None, out.seed)
        .unwrap();
    assert!(
        matches!(grading.outcome, GraderOutcome::Graded(_)),
        "{:?}",
        grading.outcome
    );
    black_box(grading);
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let harness = Harness::new(clawrun::sandbox::SandboxConfig::from_env());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = clawrun::task::Suite::open(root).unwrap();
    let task = TaskEnv::prepare(suite.load(TASK).unwrap(), None).unwrap();
    let grader = ClawEvalGrader::new(Checkout::open(&root.join("third_party/claw-eval")).unwrap());
    let sample = trial(&rt, &harness, &task, 0);
    // Warm: the interpreter is loaded and the task's layer built before measuring.
    grade(&rt, &grader, &task, &sample);

    let mut g = c.benchmark_group("claw_eval_grading");
    g.sample_size(10);
    g.bench_function("export_evidence", |b| {
        b.iter(|| {
            black_box(export::export(
                &task.loaded,
                0,
                &sample.events,
                &sample.evidence,
            ))
        })
    });
    g.bench_function("grade_with_grader_py", |b| {
        b.iter(|| grade(&rt, &grader, &task, &sample))
    });
    g.bench_function("grade_with_clawrun_rubric", |b| {
        b.iter(|| {
            black_box(rt.block_on(clawrun::judge::judge(
                &task.loaded.task,
                &sample.evidence,
                None,
                &ScoreConfig::default(),
            )))
        })
    });
    let mut n = 0u32;
    g.bench_function("oracle_trial_graded_by_grader_py", |b| {
        b.iter(|| {
            n += 1;
            let out = trial(&rt, &harness, &task, n);
            grade(&rt, &grader, &task, &out);
        })
    });
    g.bench_function("oracle_trial_graded_by_clawrun_rubric", |b| {
        b.iter(|| {
            n += 1;
            let out = trial(&rt, &harness, &task, n);
            black_box(rt.block_on(clawrun::judge::judge(
                &task.loaded.task,
                &out.evidence,
                None,
                &ScoreConfig::default(),
            )))
        })
    });
    g.finish();
    c.final_summary();
}
