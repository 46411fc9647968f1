//! `--agent cmd:...`: agent programs started per trial, the task's tools over MCP and the model
//! behind clawrun's recording proxy. A small SDK-style agent and a real agent CLI (OpenAI's
//! Codex, from npm) solve a bundled task against a scripted model; model-side faults are
//! injected and recorded; the trials replay byte-identically, or the replay names the first
//! difference.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use crate::external::{oracle_model_script, path_with_codex, repo, tiny_agent};

/// `clawrun ARGS` with `env`.
fn clawrun(args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    command.args(args).arg("--suite").arg(repo());
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

/// One trial of T002 into `run` played by `agent` (`cmd:...`) with `model` behind its proxy
/// (none when empty) under `faults`, and `extra` flags.
fn one_trial(
    run: &Path,
    agent: &str,
    model: &str,
    faults: &str,
    extra: &[&str],
    env: &[(&str, &std::ffi::OsStr)],
) -> Output {
    let mut args = vec!["run", "T002_email_triage", "--agent", agent];
    if !model.is_empty() {
        args.extend(["--model", model]);
    }
    args.extend([
        "--trials",
        "1",
        "--faults",
        faults,
        "--out",
        run.to_str().unwrap(),
    ]);
    args.extend(extra);
    clawrun(&args, env)
}

/// `clawrun replay RUN` with `env`.
fn replay(run: &Path, env: &[(&str, &std::ffi::OsStr)]) -> (bool, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    command.arg("replay").arg(run);
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command.output().unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// The run's one journal record.
fn record(run: &Path) -> Value {
    let text = std::fs::read_to_string(run.join("journal.jsonl")).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// The T002 trial's trace events.
fn trace(run: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .arg("trace")
        .arg(run.join("T002_email_triage/0"))
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `cmd:RECIPE`: a recipe in `dir` running the small SDK-style agent program, passing it
/// `TINY_AGENT_SKIP_FIRST_TOOL` from clawrun's environment.
fn tiny_recipe(dir: &Path) -> String {
    let argv: Vec<String> = shlex::split(tiny_agent().strip_prefix("cmd:").unwrap()).unwrap();
    let recipe = dir.join("tiny.yaml");
    std::fs::write(
        &recipe,
        format!(
            "command: {}\npass_env: [TINY_AGENT_SKIP_FIRST_TOOL]\n",
            serde_json::to_string(&argv).unwrap()
        ),
    )
    .unwrap();
    format!("cmd:{}", recipe.display())
}

/// Writes the oracle-as-a-model script for T002 into `dir`.
fn script(dir: &Path) -> String {
    let path = dir.join("model.json");
    std::fs::write(&path, oracle_model_script("T002_email_triage").to_string()).unwrap();
    path.display().to_string()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_sdk_agent_recovers_from_model_faults_and_its_trial_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join("faults.yaml");
    std::fs::write(
        &plan,
        "rules:\n  - point: model:chat\n    kind: status500\n    calls: [2]\n  - point: model:chat\n    kind: truncated_body\n    calls: [4]\n  - point: model:chat\n    kind: connection_reset\n    calls: [6]\n",
    )
    .unwrap();
    let run = tmp.path().join("run");
    let model = format!("scripted:{}", script(tmp.path()));
    let out = one_trial(
        &run,
        &tiny_recipe(tmp.path()),
        &model,
        plan.to_str().unwrap(),
        &[],
        &[],
    );
    ok(&out);
    let record = record(&run);
    assert_eq!(record["outcome"], "final_answer", "{record}");
    assert_eq!(record["verdict"]["passed"], true, "{record}");
    assert_eq!(record["verdict"]["faults_seen"], 3, "{record}");
    assert!(record["input_tokens"].as_u64().unwrap() > 0, "{record}");

    // Each fault is in the trace right before the model call it hit; the program retried.
    let events = trace(&run);
    let model: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "model_call")
        .collect();
    assert_eq!(model.len(), 9 + 1 + 3, "9 calls, the answer, 3 retries");
    let faulted: Vec<(u64, &str, u64)> = model
        .iter()
        .filter(|e| e.get("fault").is_some())
        .map(|e| {
            (
                e["n"].as_u64().unwrap(),
                e["fault"].as_str().unwrap(),
                e["status"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        faulted,
        [
            (2, "status500", 500),
            (4, "truncated_body", 200),
            (6, "connection_reset", 0)
        ]
    );
    for (i, e) in events.iter().enumerate() {
        if e["type"] == "fault" {
            assert_eq!(events[i + 1]["type"], "model_call", "{e}");
            assert!(e["point"] == "model:chat");
        }
    }
    assert!(
        model[0]["content_type"]
            .as_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    // The program's output is kept in the run folder.
    let stdout = std::fs::read_to_string(run.join("T002_email_triage/0/agent/stdout.log")).unwrap();
    assert!(stdout.contains("Needs reply"), "{stdout}");
    let stderr = std::fs::read_to_string(run.join("T002_email_triage/0/agent/stderr.log")).unwrap();
    assert!(stderr.contains("model: HTTP 500"), "{stderr}");
    assert!(!run.join("T002_email_triage/0/agent/home").exists());
    // Every request the program sent, beside the logs (not in the trace).
    let requests =
        std::fs::read_to_string(run.join("T002_email_triage/0/agent/model_requests.jsonl"))
            .unwrap();
    let requests: Vec<Value> = requests
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(requests.len(), 13);
    assert_eq!(requests[0]["path"], "/v1/chat/completions");
    assert_eq!(requests[0]["body"]["stream"], true);
    assert!(requests[12]["body"]["messages"].as_array().unwrap().len() > 10);

    // The replay runs the program again against the recorded answers: identical.
    let (same, text) = replay(&run, &[]);
    assert!(same, "{text}");
    assert!(text.contains("1 identical, 0 diverged"), "{text}");

    // A program that behaves differently on replay (told so by a variable its recipe passes
    // on): the first difference is named.
    let (same, text) = replay(&run, &[("TINY_AGENT_SKIP_FIRST_TOOL", "1".as_ref())]);
    assert!(!same, "{text}");
    assert!(
        text.contains("DIFF T002_email_triage/0: trace line"),
        "{text}"
    );
}

#[test]
fn the_codex_cli_solves_a_bundled_task_through_mcp_and_the_proxy_and_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let model = format!("scripted:{}", script(tmp.path()));
    let path = path_with_codex();
    let env = [("PATH", path.as_os_str())];
    let out = one_trial(&run, "cmd:codex", &model, "none", &[], &env);
    ok(&out);
    let record = record(&run);
    assert_eq!(record["agent"], "cmd:codex");
    assert_eq!(record["outcome"], "final_answer", "{record}");
    assert_eq!(record["verdict"]["passed"], true, "{record}");
    let events = trace(&run);
    let calls: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "tool_call")
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(calls.len(), 9, "{calls:?}");
    assert_eq!(calls[0], "gmail_list_messages");
    // Codex speaks the Responses API, streamed; every answer it got is in the trace.
    let model: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "model_call")
        .collect();
    assert_eq!(model.len(), 10);
    assert!(model.iter().all(|e| e["wire"] == "responses"));
    let end = events.last().unwrap();
    assert!(end["final_text"].as_str().unwrap().contains("Needs reply"));
    let log = std::fs::read_to_string(run.join("T002_email_triage/0/agent/stdout.log")).unwrap();
    assert!(log.contains("mcp_tool_call"), "{log}");

    let (same, text) = replay(&run, &env);
    assert!(same, "{text}");
    assert!(text.contains("1 identical, 0 diverged"), "{text}");
}

#[test]
fn a_failing_program_is_the_agent_s_error_and_a_missing_one_stops_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let out = one_trial(
        &run,
        "cmd:sh -c 'echo giving up >&2; exit 3'",
        "",
        "none",
        &[],
        &[],
    );
    ok(&out);
    let record = record(&run);
    assert_eq!(record["outcome"], "agent_error", "{record}");
    let error = record["error"].as_str().unwrap();
    assert!(
        error.contains("exit status: 3") && error.contains("giving up"),
        "{error}"
    );

    let never = tmp.path().join("never");
    let out = clawrun(
        &[
            "run",
            "T002_email_triage",
            "--agent",
            "cmd:codex",
            "--out",
            never.to_str().unwrap(),
        ],
        &[("PATH", "/nonexistent".as_ref())],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"codex\" is not on PATH: install it (npm install"),
        "{err}"
    );
    assert!(!never.exists(), "no run folder is made");

    let out = clawrun(
        &["run", "T002_email_triage", "--model", "openai:gpt-5"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("it needs --agent cmd:"));

    let recipe = tmp.path().join("bad.yaml");
    std::fs::write(&recipe, "command: [my-agent, '{prompt}', '{modle}']\n").unwrap();
    let out = clawrun(
        &[
            "run",
            "T002_email_triage",
            "--agent",
            &format!("cmd:{}", recipe.display()),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.yaml: command: unknown placeholder {modle}"),
        "{err}"
    );
}

#[test]
fn a_program_still_running_when_the_time_is_up_is_stopped_and_the_trial_times_out() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    crate::fs_support::copy_dir(&repo().join("tests/fixtures/suite"), &suite);
    let task = suite.join("tasks/e2e_mail/task.yaml");
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(
        &task,
        text.replace("timeout_seconds: 300", "timeout_seconds: 2"),
    )
    .unwrap();
    let run = tmp.path().join("run");
    let marker = tmp.path().join("still-running");
    // The program would write the marker after 5 s: killed at 2 s, it never does.
    let agent = format!("cmd:sh -c 'sleep 5; touch {}'", marker.display());
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args([
            "run", "e2e_mail", "--trials", "1", "--faults", "none", "--agent", &agent,
        ])
        .arg("--suite")
        .arg(&suite)
        .arg("--out")
        .arg(&run)
        .output()
        .unwrap();
    ok(&out);
    let record = record(&run);
    assert_eq!(record["outcome"], "timeout", "{record}");
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert!(
        !marker.exists(),
        "the program's process group was not killed"
    );
}

#[test]
fn an_anthropic_speaking_program_is_served_over_messages_and_replays() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let model = format!("scripted:{}", script(tmp.path()));
    let plan = tmp.path().join("faults.yaml");
    std::fs::write(
        &plan,
        "rules:\n  - point: model:messages\n    kind: status429:1\n    calls: [1]\n",
    )
    .unwrap();
    let agent = format!("{} --anthropic", tiny_agent());
    let out = one_trial(&run, &agent, &model, plan.to_str().unwrap(), &[], &[]);
    ok(&out);
    let record = record(&run);
    assert_eq!(record["verdict"]["passed"], true, "{record}");
    assert_eq!(record["verdict"]["faults_seen"], 1, "{record}");
    let events = trace(&run);
    let model: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "model_call")
        .collect();
    assert_eq!(model.len(), 11);
    assert!(model.iter().all(|e| e["wire"] == "messages"));
    assert_eq!(
        (model[0]["status"].as_u64(), model[0]["fault"].as_str()),
        (Some(429), Some("status429"))
    );
    let end = events.last().unwrap();
    assert!(end["usage"]["input_tokens"].as_u64().unwrap() > 0, "{end}");
    let (same, text) = replay(&run, &[]);
    assert!(same, "{text}");
}

#[test]
fn a_forwarded_model_gets_the_real_key_and_its_answers_are_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let script_path = script(tmp.path());
    let script = clawrun::agents::mock::Script::load(Path::new(&script_path)).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let run = tmp.path().join("run");
    let (out, requests) = rt.block_on(async {
        // The "real" model: an OpenAI-compatible server on loopback with its own key.
        let upstream =
            clawrun::agents::mock::serve_mock_llm(script, "127.0.0.1:0".parse().unwrap())
                .await
                .unwrap();
        let base = format!("{}/v1", upstream.url());
        let run = run.clone();
        let out = tokio::task::spawn_blocking(move || {
            let env = [
                ("OPENAI_BASE_URL", base.as_ref()),
                ("OPENAI_API_KEY", "the-real-key".as_ref()),
            ];
            let model = "openai:upstream-model";
            one_trial(&run, &tiny_agent(), model, "none", &[], &env)
        })
        .await
        .unwrap();
        (out, upstream.requests())
    });
    ok(&out);
    let record = record(&run);
    assert_eq!(record["verdict"]["passed"], true, "{record}");
    assert_eq!(requests.len(), 10);
    for r in &requests {
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(r.header("authorization"), Some("Bearer the-real-key"));
        assert_eq!(r.body["model"], "upstream-model");
    }
    let events = trace(&run);
    let answers = events
        .iter()
        .filter(|e| e["type"] == "model_call" && e["status"] == 200);
    assert_eq!(answers.count(), 10);
}

#[test]
fn past_the_token_limit_the_proxy_refuses_and_the_trial_ends_on_it() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let model = format!("scripted:{}", script(tmp.path()));
    let out = one_trial(
        &run,
        &tiny_agent(),
        &model,
        "none",
        &["--max-tokens", "3000"],
        &[],
    );
    ok(&out);
    let first = record(&run);
    // Between its tool calls: the trial's own check before a turn.
    assert_eq!(first["outcome"], "token_limit", "{first}");
    let spent = first["input_tokens"].as_u64().unwrap() + first["output_tokens"].as_u64().unwrap();
    assert!(spent >= 3000, "{first}");

    // A program that only talks to its model: the proxy refuses past the limit.
    let script = tmp.path().join("chatty.yaml");
    std::fs::write(&script, "rules:\n  - reply: {text: more}\n").unwrap();
    let program = tmp.path().join("chatty.sh");
    std::fs::write(
        &program,
        "for i in 1 2 3 4 5 6 7 8; do curl -s -X POST \"$OPENAI_BASE_URL/chat/completions\" -H 'content-type: application/json' -d '{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}' >/dev/null; done\n",
    )
    .unwrap();
    let run = tmp.path().join("chatty");
    let out = one_trial(
        &run,
        &format!("cmd:sh {}", program.display()),
        &format!("scripted:{}", script.display()),
        "none",
        &["--max-tokens", "100"],
        &[],
    );
    ok(&out);
    let chatty = record(&run);
    assert_eq!(chatty["outcome"], "token_limit", "{chatty}");
    let events = trace(&run);
    let statuses: Vec<u64> = events
        .iter()
        .filter(|e| e["type"] == "model_call")
        .map(|e| e["status"].as_u64().unwrap())
        .collect();
    assert_eq!(statuses.len(), 8);
    let answered = statuses.iter().take_while(|s| **s == 200).count();
    assert!((1..8).contains(&answered), "{statuses:?}");
    assert!(
        statuses[answered..].iter().all(|s| *s == 400),
        "{statuses:?}"
    );
}

/// Every file under `dir`, with its bytes.
fn files_under(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            let bytes = std::fs::read(&p).unwrap();
            out.push((p, bytes));
        }
    }
    out
}

#[test]
fn a_program_gets_an_allow_listed_environment_and_none_of_clawrun_s_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let seen = tmp.path().join("env.txt");
    let agent = format!("cmd:sh -c 'env > {}'", seen.display());
    let env = [
        ("OPENROUTER_API_KEY", "real-openrouter-key".as_ref()),
        ("OPENAI_API_KEY", "real-openai-key".as_ref()),
        ("ANTHROPIC_API_KEY", "real-anthropic-key".as_ref()),
        ("SERP_DEV_KEY", "real-serp-key".as_ref()),
        ("MY_JUDGE_KEY", "real-judge-key".as_ref()),
        ("LC_CTYPE", "C.UTF-8".as_ref()),
    ];
    let out = one_trial(&run, &agent, "openrouter:some/model", "none", &[], &env);
    ok(&out);
    let seen = std::fs::read_to_string(&seen).unwrap();
    assert!(
        !seen.contains("real-"),
        "a key of clawrun's reached the program:\n{seen}"
    );
    let names: Vec<&str> = seen
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect();
    for name in [
        "PATH",
        "HOME",
        "LC_CTYPE",
        "CLAWRUN_MCP_URL",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
    ] {
        assert!(names.contains(&name), "{name} missing: {names:?}");
    }
    for name in [
        "OPENROUTER_API_KEY",
        "SERP_DEV_KEY",
        "MY_JUDGE_KEY",
        "CARGO_MANIFEST_DIR",
    ] {
        assert!(!names.contains(&name), "{name} passed: {names:?}");
    }
    assert!(seen.contains("OPENAI_API_KEY=clawrun-proxy"), "{seen}");

    // A recipe may pass on a variable by name, never one holding a key clawrun uses.
    let recipe = tmp.path().join("pass.yaml");
    let asks = |names: &str| {
        std::fs::write(
            &recipe,
            format!(
                "command: [sh, -c, 'env > {}']\npass_env: [{names}]\n",
                tmp.path().join("passed.txt").display()
            ),
        )
        .unwrap();
        format!("cmd:{}", recipe.display())
    };
    let mine = [
        ("MY_SETTING", "kept".as_ref()),
        ("MY_JUDGE_KEY", "real-judge-key".as_ref()),
    ];
    ok(&one_trial(
        &tmp.path().join("r2"),
        &asks("MY_SETTING"),
        "",
        "none",
        &[],
        &mine,
    ));
    let passed = std::fs::read_to_string(tmp.path().join("passed.txt")).unwrap();
    assert!(passed.contains("MY_SETTING=kept"), "{passed}");
    let out = one_trial(
        &tmp.path().join("r3"),
        &asks("OPENROUTER_API_KEY"),
        "",
        "none",
        &[],
        &env,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pass_env: \"OPENROUTER_API_KEY\": clawrun holds the key"),
        "{err}"
    );
    // A variable holding the key behind the proxy: the trial fails, naming it.
    let leaky = [
        ("OPENROUTER_API_KEY", "real-openrouter-key".as_ref()),
        ("MY_SETTING", "x-real-openrouter-key".as_ref()),
    ];
    let r4 = tmp.path().join("r4");
    let _ = one_trial(
        &r4,
        &asks("MY_SETTING"),
        "openrouter:some/model",
        "none",
        &[],
        &leaky,
    );
    let text = std::fs::read_to_string(r4.join("journal.jsonl")).unwrap();
    assert!(
        text.contains("pass_env: MY_SETTING holds a key clawrun uses itself"),
        "{text}"
    );
    assert!(!text.contains("real-openrouter-key"), "{text}");
    // The judge's key, from a variable of the judge's own naming (`api_key_env`): withheld
    // from a program whose recipe asks for that variable, and the trial fails naming it.
    let config = tmp.path().join("judge.yaml");
    std::fs::write(
        &config,
        "judge:\n  model: openai:judge-model\n  api_key_env: MY_JUDGE_KEY\n",
    )
    .unwrap();
    let passed = tmp.path().join("passed.txt");
    std::fs::remove_file(&passed).unwrap();
    let r5 = tmp.path().join("r5");
    let _ = one_trial(
        &r5,
        &asks("MY_JUDGE_KEY"),
        "",
        "none",
        &[
            "--model-config",
            config.to_str().unwrap(),
            "--no-probe",
            "--grader",
            "clawrun",
        ],
        &mine,
    );
    let text = std::fs::read_to_string(r5.join("journal.jsonl")).unwrap();
    assert!(
        text.contains("pass_env: MY_JUDGE_KEY holds a key clawrun uses itself"),
        "{text}"
    );
    assert!(!text.contains("real-judge-key"), "{text}");
    assert!(!passed.exists(), "the program ran with the judge's key");
}

/// A model endpoint on loopback that echoes the request's `Authorization` header in its
/// answer (as a debugging proxy might): its address.
fn echoing_upstream() -> std::net::SocketAddr {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let mut reader = BufReader::new(stream);
            let (mut auth, mut length) = (String::new(), 0usize);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("authorization:") {
                    auth = line[line.len() - v.len()..].trim().to_string();
                }
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let answer = serde_json::json!({
                "id": "x", "object": "chat.completion", "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": format!("you sent {auth}")}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            })
            .to_string();
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    addr
}

#[test]
fn an_upstream_echoing_the_real_key_hands_it_neither_to_the_program_nor_to_the_trace() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let got = tmp.path().join("answer.json");
    let program = tmp.path().join("ask.sh");
    std::fs::write(
        &program,
        format!(
            "curl -s -X POST \"$OPENAI_BASE_URL/chat/completions\" -H \"authorization: Bearer $OPENAI_API_KEY\" -H 'content-type: application/json' -d '{{\"model\": \"m\", \"messages\": [{{\"role\": \"user\", \"content\": \"hi\"}}]}}' > {}\n",
            got.display()
        ),
    )
    .unwrap();
    let base = format!("http://{}/v1", echoing_upstream());
    let env = [
        ("OPENAI_BASE_URL", base.as_ref()),
        ("OPENAI_API_KEY", "the-real-key-4711".as_ref()),
    ];
    let agent = format!("cmd:sh {}", program.display());
    let out = one_trial(&run, &agent, "openai:upstream-model", "none", &[], &env);
    ok(&out);
    let got = std::fs::read_to_string(&got).unwrap();
    assert!(got.contains("you sent Bearer clawrun-proxy"), "{got}");
    assert!(!got.contains("the-real-key-4711"), "{got}");
    for (path, bytes) in files_under(&run) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains("the-real-key-4711"),
            "the real key is in {}",
            path.display()
        );
    }
}

#[test]
fn the_model_proxy_refuses_a_request_body_over_its_limit_with_413() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let (code, body) = (tmp.path().join("code"), tmp.path().join("body"));
    let script = tmp.path().join("model.yaml");
    std::fs::write(&script, "rules:\n  - reply: {text: fine}\n").unwrap();
    let program = tmp.path().join("flood.sh");
    // 40 MB declared (refused before it is read), then 40 MB chunked (refused as it passes
    // the limit).
    std::fs::write(
        &program,
        format!(
            "for how in length chunked; do\n\
             if [ $how = chunked ]; then h='transfer-encoding: chunked'; else h='x-how: length'; fi\n\
             head -c 40000000 /dev/zero | tr '\\0' a | curl -s -o {body}.$how -w '%{{http_code}}\\n' -X POST -H 'content-type: application/json' -H \"$h\" --data-binary @- \"$OPENAI_BASE_URL/chat/completions\" >> {code}\n\
             done\n",
            body = body.display(),
            code = code.display()
        ),
    )
    .unwrap();
    let agent = format!("cmd:sh {}", program.display());
    let model = format!("scripted:{}", script.display());
    let out = one_trial(&run, &agent, &model, "none", &[], &[]);
    ok(&out);
    let codes = std::fs::read_to_string(&code).unwrap();
    assert_eq!(codes, "413\n413\n", "{codes}");
    for how in ["length", "chunked"] {
        let said = std::fs::read_to_string(format!("{}.{how}", body.display())).unwrap();
        assert!(
            said.contains("larger than its limit of 33554432 bytes"),
            "{how}: {said}"
        );
    }
    let calls = trace(&run)
        .iter()
        .filter(|e| e["type"] == "model_call")
        .count();
    assert_eq!(calls, 0, "a refused request is not a model call");
}

#[test]
fn the_trial_s_endpoints_answer_only_under_its_secret_path() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let seen = tmp.path().join("seen");
    let program = tmp.path().join("probe.sh");
    std::fs::write(
        &program,
        format!(
            "init='{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{{}},\"clientInfo\":{{\"name\":\"p\",\"version\":\"0\"}}}}}}'\n\
             hostport=$(echo \"$CLAWRUN_MCP_URL\" | cut -d/ -f3)\n\
             post() {{ curl -s -o /dev/null -w '%{{http_code}}\\n' -X POST -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d \"$init\" \"$1\"; }}\n\
             post \"http://$hostport/mcp\" >> {seen}\n\
             post \"http://$hostport/v1/chat/completions\" >> {seen}\n\
             post \"$CLAWRUN_MCP_URL\" >> {seen}\n\
             echo \"$CLAWRUN_MCP_URL\" >> {seen}\n\
             echo \"$OPENAI_BASE_URL\" >> {seen}\n",
            seen = seen.display()
        ),
    )
    .unwrap();
    let agent = format!("cmd:sh {}", program.display());
    let out = one_trial(&run, &agent, "", "none", &[], &[]);
    ok(&out);
    let seen = std::fs::read_to_string(&seen).unwrap();
    let lines: Vec<&str> = seen.lines().collect();
    assert_eq!(&lines[..3], ["404", "404", "200"], "{seen}");
    // http://127.0.0.1:PORT/SECRET/mcp and http://127.0.0.1:PORT/SECRET/v1.
    let secret = lines[3].split('/').nth(3).unwrap();
    assert_eq!(secret.len(), 32, "{seen}");
    assert_eq!(
        lines[3],
        format!(
            "http://{}/{secret}/mcp",
            lines[3].split('/').nth(2).unwrap()
        )
    );
    assert!(lines[4].ends_with(&format!("/{secret}/v1")), "{seen}");
    // The secret is nowhere in the run folder.
    for (path, bytes) in files_under(&run) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains(secret),
            "the secret is in {}",
            path.display()
        );
    }
}

#[test]
fn recipe_files_that_leave_the_scratch_folders_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("outside.txt");
    for (name, path) in [
        ("climb", "{home}/../../escaped.txt".to_string()),
        ("absolute", target.display().to_string()),
        ("relative", "escaped.txt".to_string()),
    ] {
        let recipe = tmp.path().join(format!("{name}.yaml"));
        std::fs::write(
            &recipe,
            format!("command: [sh, -c, 'true']\nfiles:\n  {path:?}: written\n"),
        )
        .unwrap();
        let run = tmp.path().join(format!("run-{name}"));
        let out = one_trial(
            &run,
            &format!("cmd:{}", recipe.display()),
            "",
            "none",
            &[],
            &[],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}.yaml: files: {path:?}: must")),
            "{name}: {err}"
        );
        assert!(!run.exists(), "{name}: a run folder was made");
    }
    assert!(!target.exists());
    assert!(!tmp.path().join("escaped.txt").exists());

    // A placeholder's value climbing out (the model's name here) is checked once filled in:
    // RUN/T002_email_triage/0/agent/home/../../../../.. is the temporary folder.
    let recipe = tmp.path().join("filled.yaml");
    std::fs::write(
        &recipe,
        "command: [sh, -c, 'true']\nfiles:\n  '{home}/{model}.txt': written\n",
    )
    .unwrap();
    let run = tmp.path().join("run-filled");
    let _ = one_trial(
        &run,
        &format!("cmd:{}", recipe.display()),
        "openai:../../../../../escaped-model",
        "none",
        &["--no-probe"],
        &[("OPENAI_API_KEY", "sk-test-not-used".as_ref())],
    );
    assert!(!tmp.path().join("escaped-model.txt").exists());
    let text = std::fs::read_to_string(run.join("journal.jsonl")).unwrap();
    assert!(
        text.contains("is not inside the agent's scratch folders"),
        "{text}"
    );
}
