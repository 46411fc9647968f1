//! Python in the sandbox: interpreter start-up (`print(1)`), a pandas job (import, read a
//! 10,000-row CSV, group, write a CSV), the same through the Bash tool as an agent's call, and
//! an oracle trial of the bundled task `data_xlsx_headcount_cost` (two `python3` calls reading
//! an Excel workbook with pandas, the judge's Python check, the judge).
//! Needs `clawrun setup python`. Compare with native `python3` on the same machine:
//! `hyperfine 'python3 -c "print(1)"'` and the same pandas script.

use std::hint::black_box;

use clawrun::judge::ScoreConfig;
use clawrun::python::{PythonRuntime, install};
use clawrun::run::AgentSpec;
use clawrun::sandbox::cache::ComponentCache;
use clawrun::sandbox::fs::SharedFs;
use clawrun::sandbox::{RunConfig, Sandbox, SandboxConfig};
use clawrun::tools::{ToolCall, ToolEnv, ToolState, Toolbox};
use clawrun::trial::{Harness, Limits, TaskEnv, TrialInputs};
use clawrun::vfs::Vfs;
use criterion::Criterion;

const PANDAS_JOB: &str = "import pandas as pd; df = pd.read_csv('data.csv'); \
    df.groupby('city')['amount'].agg(['sum', 'mean']).to_csv('out.csv')";

fn workspace() -> Vfs {
    let mut csv = String::from("city,amount\n");
    for i in 0..10_000 {
        csv.push_str(&format!("c{},{}\n", i % 17, i * 7 % 1000));
    }
    let mut vfs = Vfs::new();
    vfs.create_dir_all("/workspace").unwrap();
    vfs.write_file("/workspace/data.csv", csv.as_bytes())
        .unwrap();
    vfs
}

fn run(runtime: &PythonRuntime, vfs: &Vfs, args: &[&str]) {
    let config = RunConfig {
        args: args.iter().map(|s| s.to_string()).collect(),
        fuel: 40_000_000_000,
        ..RunConfig::default()
    };
    let out = runtime
        .run(
            SharedFs::new(vfs.fork(), Default::default()),
            "/workspace",
            config,
        )
        .unwrap();
    assert_eq!(
        out.status.exit_code(),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    black_box(out);
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let cache = ComponentCache::default_dir();
    let installation = install::find(cache.as_deref())
        .unwrap()
        .expect("run `clawrun setup python` first");
    let runtime = PythonRuntime::load(&installation, cache.as_deref()).unwrap();
    let vfs = workspace();

    let mut g = c.benchmark_group("python");
    g.sample_size(10);
    g.bench_function("print_1", |b| {
        b.iter(|| run(&runtime, &vfs, &["-c", "print(1)"]))
    });
    g.bench_function("pandas_groupby_10k_rows", |b| {
        b.iter(|| run(&runtime, &vfs, &["-c", PANDAS_JOB]))
    });
    let sandbox = Sandbox::new(SandboxConfig::from_env()).unwrap();
    let tools = Toolbox::new();
    let command = format!("python3 -c \"{PANDAS_JOB}\" && wc -l out.csv");
    let args = serde_json::json!({ "command": command });
    g.bench_function("bash_tool_call_running_pandas", |b| {
        b.iter(|| {
            let env = ToolEnv {
                seed: 1,
                clock: Default::default(),
                faults: None,
                network: None,
                judge_imports: None,
            };
            let call = ToolCall {
                name: "Bash",
                args: &args,
                state: &ToolState::default(),
            };
            let out = tools.call(&sandbox, call, vfs.fork(), &env).unwrap();
            assert!(out.output.contains("18 out.csv"), "{}", out.output);
            black_box(out);
        })
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let harness = Harness::new(clawrun::sandbox::SandboxConfig::from_env());
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = clawrun::task::Suite::open(root).unwrap();
    let task = TaskEnv::prepare(
        suite
            .load("tasks/general/data_xlsx_headcount_cost")
            .unwrap(),
        None,
    )
    .unwrap();
    let mut trial = 0u32;
    g.bench_function("oracle_trial_data_xlsx_headcount_cost", |b| {
        b.iter(|| {
            trial += 1;
            let mut agent = AgentSpec::Oracle.build(&task, None, 0).unwrap();
            let out = TrialInputs {
                rt: &rt,
                harness: &harness,
                task: &task,
                run_seed: 1,
                trial,
                agent: agent.as_mut(),
                user: None,
                limits: &Limits::of(&task),
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
            assert_eq!(v.scores.score, 1.0);
            black_box(v);
        })
    });
    g.finish();
    c.final_summary();
}
