//! Trial benchmarks (DESIGN §10): oracle trials per second with faults on (a trial = fork the
//! task's workspace and services, play the oracle with retries, the Judge phase, the judge),
//! and the time from a cold `clawrun run` start (engine, compile cache, task loading) to the
//! first finished trial.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clawrun::faults::{PlanOptions, plan_from_cli};
use clawrun::judge::ScoreConfig;
use clawrun::run::AgentSpec;
use clawrun::trial::{Harness, Limits, TaskEnv, TrialInputs};
use criterion::Criterion;

/// The allocator the `clawrun` binary uses, so that the numbers are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The sample suite (tests/fixtures/suite).
fn suite() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/suite")
}

/// The task `id` of the sample suite, prepared with the claw-eval preset at `rate`.
fn prepare(id: &str, rate: &str) -> TaskEnv {
    let root = suite();
    let s = clawrun::task::Suite::open(&root).unwrap();
    let plan = plan_from_cli(&format!("claw-eval:{rate}"), &PlanOptions::new(1)).unwrap();
    TaskEnv::prepare(s.load(&format!("tasks/{id}")).unwrap(), Some(&plan)).unwrap()
}

/// One oracle trial of `task`, judged.
fn one_trial(rt: &tokio::runtime::Runtime, harness: &Harness, task: &TaskEnv, trial: u32) -> f64 {
    let mut agent = AgentSpec::Oracle.build(task, None, 0).unwrap();
    let user: Option<Box<dyn clawrun::trial::SimulatedUser>> = task
        .loaded
        .task
        .user_agent
        .as_ref()
        .and_then(|u| u.script.as_ref())
        .map(|s| Box::new(s.start().unwrap()) as Box<dyn clawrun::trial::SimulatedUser>);
    let out = TrialInputs {
        rt,
        harness,
        task,
        run_seed: 1,
        trial,
        agent: agent.as_mut(),
        user,
        limits: &Limits::of(task),
        plan: None,
        share_faults: None,
    }
    .run()
    .unwrap();
    let v = rt.block_on(clawrun::judge::judge(
        &task.loaded.task,
        &out.evidence,
        None,
        &ScoreConfig::default(),
    ));
    v.scores.score
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let harness = Harness::new(clawrun::sandbox::SandboxConfig::from_env());

    let mut group = c.benchmark_group("oracle_trial");
    for (id, rate) in [("e2e_mail", "0.5"), ("e2e_chat", "0.5")] {
        let task = prepare(id, rate);
        let mut trial = 0u32;
        group.bench_function(format!("{id}_faults_{rate}"), |b| {
            b.iter(|| {
                trial = trial.wrapping_add(1);
                black_box(one_trial(&rt, &harness, &task, trial))
            })
        });
    }
    group.finish();

    // Start-up: a fresh engine (warm on-disk compile cache), load + prepare the task, one trial.
    c.bench_function("start_to_first_trial", |b| {
        b.iter(|| {
            let h = Harness::new(clawrun::sandbox::SandboxConfig::from_env());
            let task = prepare("e2e_mail", "0.5");
            black_box(one_trial(&rt, &h, &task, 0))
        })
    });

    // Throughput on both cores: worker threads each running trials back to back.
    let task = prepare("e2e_mail", "0.5");
    let n = 2000u32;
    let start = Instant::now();
    std::thread::scope(|s| {
        for w in 0..2u32 {
            let (task, harness) = (&task, &harness);
            s.spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                for i in 0..n / 2 {
                    black_box(one_trial(&rt, harness, task, w * n + i));
                }
            });
        }
    });
    let secs = start.elapsed().as_secs_f64();
    println!(
        "oracle trials, 2 workers, e2e_mail with claw-eval:0.5: {n} in {secs:.3} s = {:.0} trials/s",
        f64::from(n) / secs
    );

    // The bundled suite: every task with an oracle, faults on, on both cores.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = clawrun::task::Suite::open(root).unwrap();
    let plan = plan_from_cli("claw-eval:0.25", &PlanOptions::new(1)).unwrap();
    let tasks: Vec<TaskEnv> = clawrun::run::runner::suite_tasks(&s, root)
        .unwrap()
        .into_iter()
        .filter_map(|d| s.load(&d).ok())
        .filter(|l| l.task.oracle.is_some())
        .filter(|l| {
            l.task
                .user_agent
                .as_ref()
                .is_none_or(|u| !u.enabled || u.script.is_some())
        })
        .map(|l| TaskEnv::prepare(l, Some(&plan)).unwrap())
        .collect();
    let rounds = 10u32;
    let start = Instant::now();
    std::thread::scope(|s| {
        for w in 0..2usize {
            let (tasks, harness) = (&tasks, &harness);
            s.spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                for r in 0..rounds {
                    for task in tasks.iter().skip(w).step_by(2) {
                        black_box(one_trial(&rt, harness, task, r));
                    }
                }
            });
        }
    });
    let secs = start.elapsed().as_secs_f64();
    let total = tasks.len() as f64 * f64::from(rounds);
    println!(
        "bundled suite: {} tasks x {rounds} oracle trials, 2 workers, claw-eval:0.25: {total} trials in {secs:.3} s = {:.0} trials/s",
        tasks.len(),
        total / secs
    );
    t002_breakdown(&mut c, &rt, &harness);
    c.final_summary();
}

/// What one T002 oracle trial costs, part by part (faults off, so every call is made once):
/// its 9 tool calls alone (through the trial's dispatcher, as the agent's calls go), the
/// trial with its judge, and the trial as a run records it (trace and record written to a
/// folder, plus its journal line).
fn t002_breakdown(c: &mut Criterion, rt: &tokio::runtime::Runtime, harness: &Harness) {
    use clawrun::run::trace_pack::{PackWriter, TracePack};
    use clawrun::run::trial_record::{TrialContext, Worker, run_and_record};
    use clawrun::tools::ToolState;
    use clawrun::trial::dispatch::call_tool;
    use clawrun::trial::grading::Grading;

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let s = clawrun::task::Suite::open(root).unwrap();
    let task = TaskEnv::prepare(s.load("tasks/T002_email_triage").unwrap(), None).unwrap();
    let oracle = task.loaded.task.oracle.clone().expect("T002 has an oracle");
    let calls: Vec<(String, serde_json::Value)> = oracle
        .calls()
        .into_iter()
        .map(|(_, call)| (call.call.clone(), call.args.clone()))
        .collect();
    assert_eq!(calls.len(), 9, "T002's oracle makes 9 calls");

    let mut group = c.benchmark_group("t002_breakdown");
    let mut trial = 0u32;
    group.bench_function("tool_calls_only", |b| {
        b.iter(|| {
            trial = trial.wrapping_add(1);
            let mut env = task.fork(1, trial);
            let mut state = ToolState::default();
            for (name, input) in &calls {
                black_box(call_tool(harness, &task, &mut env, &mut state, name, input).unwrap());
            }
        })
    });
    group.bench_function("trial_and_judge", |b| {
        b.iter(|| {
            trial = trial.wrapping_add(1);
            black_box(one_trial(rt, harness, &task, trial))
        })
    });
    let out = tempfile::tempdir().unwrap();
    let (agent, score, grading) = (AgentSpec::Oracle, ScoreConfig::default(), Grading::native());
    let cx = TrialContext {
        harness,
        agent: &agent,
        seed: 1,
        out: out.path(),
        judge: None,
        user_model: None,
        max_tokens: None,
        score: &score,
        grading: &grading,
        recorded: None,
    };
    let pack = TracePack::open(out.path(), "0", 0).unwrap();
    let mut worker = Worker::new(&cx, PackWriter::Pack(pack)).unwrap();
    let tasks = [task];
    group.bench_function("trial_recorded", |b| {
        b.iter(|| {
            trial = trial.wrapping_add(1);
            let record = run_and_record(rt, &cx, &mut worker, &tasks[0], trial).unwrap();
            black_box(record.to_line())
        })
    });
    group.finish();
}
