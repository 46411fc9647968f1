//! The cost of a tool call made from outside clawrun, over MCP (streamable HTTP and stdio),
//! against the same call made by a built-in agent: the bundled T002 task's
//! `gmail_get_message`, served by the sandbox's mail service with the trace recorded, no
//! faults. Each sample times `CALLS` calls of one trial; session start-up (the trial's fork,
//! MCP's handshake, for stdio the `clawrun mcp` process) is left out, and so is the Judge
//! phase. Throughput is in calls.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clawrun::external::bridge::{ExternalAgent, ModelLedger};
use clawrun::external::mcp::TrialTools;
use clawrun::external::server::{LoopbackServer, McpMount};
use clawrun::run::AgentSpec;
use clawrun::run::agent_spec::oracle_step;
use clawrun::trial::{Harness, Limits, TaskEnv, TrialInputs};
use criterion::{Criterion, Throughput};
use serde_json::{Value, json};

/// The allocator the `clawrun` binary uses, so that the numbers are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Tool calls per timed sample (T002 allows 20 turns).
const CALLS: usize = 16;

/// The repository (its bundled tasks).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// T002, no faults.
fn task() -> TaskEnv {
    let suite = clawrun::task::Suite::open(repo()).unwrap();
    TaskEnv::prepare(suite.load("tasks/T002_email_triage").unwrap(), None).unwrap()
}

/// The arguments of call `i`.
fn args(i: usize) -> Value {
    json!({"message_id": format!("msg_00{}", 1 + i % 8)})
}

/// Limits that never stop the benchmark's trials.
fn unlimited() -> Limits {
    Limits {
        max_turns: u32::MAX,
        timeout: Duration::from_secs(3600),
        max_tokens: None,
    }
}

/// A built-in (scripted) agent's trial making `calls` calls, without its Judge phase' share:
/// the time of a trial of `calls` calls less that of a trial of none.
fn builtin(
    rt: &tokio::runtime::Runtime,
    harness: &Harness,
    task: &TaskEnv,
    calls: usize,
) -> Duration {
    let trial = |n: usize| {
        let steps = (0..n)
            .map(|i| {
                oracle_step(&clawrun::task::oracle::OracleStep::Call(
                    clawrun::task::oracle::OracleCall {
                        call: "gmail_get_message".into(),
                        args: args(i),
                    },
                ))
            })
            .collect();
        let mut agent = clawrun::agents::ScriptAgent::new(
            "bench".into(),
            steps,
            "done".into(),
            clawrun::agents::RetryPolicy::NONE,
        );
        let start = Instant::now();
        TrialInputs {
            rt,
            harness,
            task,
            run_seed: 1,
            trial: 0,
            agent: &mut agent,
            user: None,
            limits: &unlimited(),
            plan: None,
            share_faults: None,
        }
        .run()
        .unwrap();
        start.elapsed()
    };
    trial(calls).saturating_sub(trial(0))
}

/// A trial played by an MCP client over streamable HTTP: `calls` calls timed.
fn over_http(
    harness: &Harness,
    task: &TaskEnv,
    calls: usize,
    client_rt: &tokio::runtime::Runtime,
) -> Duration {
    let ledger = Arc::new(Mutex::new(ModelLedger::default()));
    let (mut agent, bridge) = ExternalAgent::new("mcp".into(), None, ledger);
    let tools = TrialTools::new(&task.tools, bridge, &task.system);
    let server = LoopbackServer::start(
        "127.0.0.1:0".parse().unwrap(),
        Some(McpMount {
            tools,
            end_on_delete: None,
        }),
        None,
        None,
    )
    .unwrap();
    let url = server.mcp_url();
    std::thread::scope(|s| {
        let trial = s.spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            TrialInputs {
                rt: &rt,
                harness,
                task,
                run_seed: 1,
                trial: 0,
                agent: &mut agent,
                user: None,
                limits: &unlimited(),
                plan: None,
                share_faults: None,
            }
            .run()
            .unwrap();
            // The trial is over: `finish` gets its answer.
            drop(agent);
        });
        let took = client_rt.block_on(async {
            let client = HttpClient::connect(&url).await;
            let start = Instant::now();
            for i in 0..calls {
                let r = client.call("gmail_get_message", args(i)).await;
                assert_eq!(r["result"]["isError"], false, "{r}");
            }
            let took = start.elapsed();
            client.call("finish", json!({"answer": "done"})).await;
            took
        });
        trial.join().unwrap();
        took
    })
}

/// A minimal streamable-HTTP MCP client (JSON-RPC over POST, answers as SSE).
struct HttpClient {
    http: reqwest::Client,
    url: String,
    session: String,
    next: std::sync::atomic::AtomicU64,
}

impl HttpClient {
    async fn connect(url: &str) -> HttpClient {
        let http = reqwest::Client::builder().no_proxy().build().unwrap();
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}}});
        let response = http
            .post(url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(init.to_string())
            .send()
            .await
            .unwrap();
        let session = response.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_string();
        let _ = response.text().await;
        let client = HttpClient {
            http,
            url: url.into(),
            session,
            next: 1.into(),
        };
        client
            .post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    async fn post(&self, body: &Value) -> String {
        self.http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &self.session)
            .header("mcp-protocol-version", "2025-06-18")
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    async fn call(&self, name: &str, arguments: Value) -> Value {
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let text = self
            .post(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}}))
            .await;
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v.get("id").is_some())
            .unwrap_or_else(|| panic!("no answer in {text}"))
    }
}

/// A trial played over `clawrun mcp --stdio` (a process of its own): `calls` calls timed.
fn over_stdio(calls: usize, out: &Path) -> Duration {
    let _ = std::fs::remove_dir_all(out);
    let mut child = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args([
            "mcp",
            "T002_email_triage",
            "--stdio",
            "--faults",
            "none",
            "--suite",
        ])
        .arg(repo())
        .arg("--out")
        .arg(out)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut rpc = |message: Value, answer: bool| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        if answer {
            stdout.read_line(&mut line).unwrap();
        }
        line
    };
    rpc(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"}}}),
        true,
    );
    rpc(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        false,
    );
    let start = Instant::now();
    for i in 0..calls {
        let line = rpc(
            json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                "params": {"name": "gmail_get_message", "arguments": args(i)}}),
            true,
        );
        assert!(line.contains("\"isError\":false"), "{line}");
    }
    let took = start.elapsed();
    rpc(
        json!({"jsonrpc": "2.0", "id": 999, "method": "tools/call",
            "params": {"name": "finish", "arguments": {"answer": "done"}}}),
        true,
    );
    drop(stdin);
    child.wait().unwrap();
    took
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let harness = Harness::new(clawrun::sandbox::SandboxConfig::from_env());
    clawrun::agents::llm::install_crypto_provider();
    let task = task();
    // A warm-up trial (compiles what the trials share).
    let mut agent = AgentSpec::Oracle.build(&task, None, 0).unwrap();
    TrialInputs {
        rt: &rt,
        harness: &harness,
        task: &task,
        run_seed: 1,
        trial: 0,
        agent: agent.as_mut(),
        user: None,
        limits: &Limits::of(&task),
        plan: None,
        share_faults: None,
    }
    .run()
    .unwrap();
    let out = tempfile::tempdir().unwrap();

    let mut group = c.benchmark_group("tool_call");
    group.throughput(Throughput::Elements(CALLS as u64));
    group.sample_size(20);
    group.bench_function("builtin_agent", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| builtin(&rt, &harness, &task, CALLS))
                .sum()
        })
    });
    group.bench_function("mcp_http", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| over_http(&harness, &task, CALLS, &rt))
                .sum()
        })
    });
    group.bench_function("mcp_stdio", |b| {
        b.iter_custom(|iters| {
            (0..iters)
                .map(|_| over_stdio(CALLS, &out.path().join("run")))
                .sum()
        })
    });
    group.finish();
    c.final_summary();
}
