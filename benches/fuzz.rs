//! Fuzzing benchmarks (issue 15): search trials per second on the workers (`-j 2`) with an
//! in-process agent, and the time `clawrun fuzz` takes to find and shrink each known weakness
//! of the agents in tests/fuzz_agents (never retries, retries twice, obeys tool output), the
//! search ending at the first failure, the reproducers written and played by `clawrun run`
//! included.

use std::path::PathBuf;
use std::time::Duration;

use clawrun::fuzz::{Confirm, FuzzOptions, SearchConfig, fuzz};
use clawrun::run::{AgentSpec, RunOptions};
use criterion::{Criterion, Throughput};

#[path = "../tests/fuzz_agents/mod.rs"]
mod fuzz_agents;

/// The allocator the `clawrun` binary uses, so that the numbers are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A session on T002 with `agent`: `budget` search trials on `jobs` workers.
fn options(agent: AgentSpec, out: PathBuf, budget: u64, jobs: usize) -> FuzzOptions {
    let mut run = RunOptions::new(env!("CARGO_MANIFEST_DIR"), agent, out);
    run.tasks = vec!["T002_email_triage".into()];
    run.jobs = jobs;
    FuzzOptions {
        run,
        search: SearchConfig {
            budget: Some(budget),
            time: None,
            seed: 7,
            fs: false,
            max_failures: 10,
            confirm: Confirm::ONCE,
            shrink_budget: 2_000,
            stop_after: None,
        },
    }
}

/// One session into a fresh folder (ending its search at the first failure when `first`);
/// returns its search trials/s.
fn session(agent: &AgentSpec, budget: u64, jobs: usize, first: bool) -> f64 {
    let out = tempfile::tempdir().unwrap();
    let mut options = options(agent.clone(), out.path().join("f"), budget, jobs);
    options.search.stop_after = first.then_some(1);
    let r = fuzz(&options).unwrap();
    let t = &r.tasks[0].search;
    assert!(!first || !t.findings.is_empty(), "the weakness is found");
    t.trials as f64 / t.search_secs
}

/// Prints, for one session of `agent`, where its first failure was found and what shrinking it
/// cost (the parts of the session criterion times as a whole).
fn report_find_and_shrink(name: &str, agent: &AgentSpec, budget: u64) {
    let out = tempfile::tempdir().unwrap();
    let mut options = options(agent.clone(), out.path().join("f"), budget, 2);
    options.search.stop_after = Some(1);
    let r = fuzz(&options).unwrap();
    let t = &r.tasks[0].search;
    let f = &t.findings[0];
    eprintln!(
        "{name}: found at search trial {} after {:.1} ms; shrunk {} -> {} perturbation(s) in {} \
         trials, {:.1} ms; session {:.1} ms",
        f.found_at_trial,
        f.found_secs * 1e3,
        f.found.len(),
        f.minimal.len(),
        f.shrink_trials,
        f.shrink_secs * 1e3,
        r.secs * 1e3
    );
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("fuzz");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    // Search throughput: an agent that retries until it succeeds never fails here, so the
    // whole session is the search.
    const BUDGET: u64 = 4_000;
    let patient = fuzz_agents::weak("patient", u32::MAX - 1, false);
    g.throughput(Throughput::Elements(BUDGET));
    g.bench_function("search_patient_t002_j2", |b| {
        b.iter(|| session(&patient, BUDGET, 2, false))
    });
    g.throughput(Throughput::Elements(1));
    for (name, agent, budget) in [
        (
            "find_and_shrink/never_retries",
            fuzz_agents::weak("never-retries", 0, false),
            300,
        ),
        (
            "find_and_shrink/retries_twice",
            fuzz_agents::weak("retries-twice", 2, false),
            1_000,
        ),
        (
            "find_and_shrink/obeys_injections",
            fuzz_agents::weak("obedient", 4, true),
            1_000,
        ),
    ] {
        report_find_and_shrink(name, &agent, budget);
        g.bench_function(name, |b| b.iter(|| session(&agent, budget, 2, true)));
    }
    g.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
