//! The LLM clients against the mock server, in both protocols.

mod common;

use clawrun_agents::llm::{CacheMode, LlmAgent, ModelConfig, Provider, invalid_arguments};
use clawrun_agents::{Agent, AgentError, Block, Complete, Usage};
use common::{client, config, conversation, mock, mock_at, tool_result};
use serde_json::{Value, json};

const PROTOCOLS: [Provider; 2] = [Provider::OpenAi, Provider::Anthropic];

const TWO_TURNS: &str = r#"
rules:
  - name: read
    match: {turn: 0, tools_include: [Read], last_contains: "describe", system_contains: "test agent"}
    reply:
      text: Reading.
      tool_calls: [{name: Read, arguments: {file_path: /w/a.png}}]
      usage: {input_tokens: 100, output_tokens: 10}
  - name: answer
    match: {turn: 1, last_contains: "a red square"}
    reply:
      text: It is a red square.
      usage: {input_tokens: 150, output_tokens: 8}
"#;

/// Runs the two-turn exchange; returns the second request's body.
async fn two_turns(provider: Provider, accepts_images: bool) -> Value {
    let server = mock(TWO_TURNS).await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(provider, &server, dir.path());
    cfg.accepts_images = accepts_images;
    let mut agent = LlmAgent::from_client(client(cfg));
    assert_eq!(agent.describe(), format!("{provider}:mock-model"));

    let mut conv = conversation("Please describe /w/a.png");
    let first = agent.step(&conv).await.unwrap();
    assert_eq!(first.message.text(), "Reading.");
    let calls: Vec<_> = first.message.tool_calls().collect();
    assert_eq!(
        calls,
        vec![("call_0_0", "Read", &json!({"file_path": "/w/a.png"}))]
    );
    conv.messages.push(first.message.clone());
    conv.messages.push(tool_result("call_0_0", "a red square"));
    let second = agent.step(&conv).await.unwrap();
    assert_eq!(second.message.text(), "It is a red square.");
    assert_eq!(second.message.tool_calls().count(), 0);

    // Usage per call and in total.
    assert_eq!(
        (first.usage.input_tokens, first.usage.output_tokens),
        (100, 10)
    );
    assert_eq!(
        second.usage,
        Usage {
            input_tokens: 150,
            output_tokens: 8,
            cached_input_tokens: 0,
        }
    );
    let stats = agent.client().stats();
    assert_eq!(
        stats.usage,
        Usage {
            input_tokens: 250,
            output_tokens: 18,
            cached_input_tokens: 0,
        }
    );
    assert_eq!(
        (stats.replies, stats.http_requests, stats.retries),
        (2, 2, 0)
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests.iter().map(|r| r.rule).collect::<Vec<_>>(),
        [Some(0), Some(1)]
    );
    let first_body = &requests[0].body;
    assert_eq!(first_body["model"], "mock-model");
    assert_eq!(first_body["temperature"], 0.0);
    match provider {
        Provider::OpenAi => {
            assert_eq!(requests[0].path, "/v1/chat/completions");
            assert_eq!(requests[0].header("authorization"), Some("Bearer test-key"));
            assert_eq!(
                first_body["tools"],
                json!([{"type": "function", "function": {"name": "Read",
                    "description": "Read a file",
                    "parameters": {"type": "object",
                        "properties": {"file_path": {"type": "string"}}}}}])
            );
            assert_eq!(
                first_body["messages"][0],
                json!({"role": "system",
                "content": "You are a test agent."})
            );
        }
        Provider::Anthropic => {
            assert_eq!(requests[0].path, "/v1/messages");
            assert_eq!(requests[0].header("x-api-key"), Some("test-key"));
            assert_eq!(requests[0].header("anthropic-version"), Some("2023-06-01"));
            assert_eq!(requests[0].header("authorization"), None);
            assert_eq!(first_body["system"], "You are a test agent.");
            assert_eq!(first_body["max_tokens"], 4096);
            assert_eq!(
                first_body["tools"],
                json!([{"name": "Read", "description": "Read a file",
                    "input_schema": {"type": "object",
                        "properties": {"file_path": {"type": "string"}}}}])
            );
        }
    }
    requests[1].body.clone()
}

#[tokio::test]
async fn openai_two_turn_tool_use() {
    let body = two_turns(Provider::OpenAi, false).await;
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4, "{body:#}");
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "content": "Reading.", "tool_calls": [{"id": "call_0_0",
            "type": "function",
            "function": {"name": "Read", "arguments": "{\"file_path\":\"/w/a.png\"}"}}]})
    );
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_call_id"], "call_0_0");
    let content = messages[3]["content"].as_str().unwrap();
    assert!(
        content.starts_with("a red square\n[image omitted: image/png"),
        "{content}"
    );
    assert!(
        !body.to_string().contains("iVBORw0KGgo="),
        "no image without accepts_images"
    );

    let body = two_turns(Provider::OpenAi, true).await;
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 5, "{body:#}");
    assert_eq!(
        messages[3]["content"],
        "a red square\n[image 1 attached below]"
    );
    assert_eq!(messages[4]["role"], "user");
    assert_eq!(
        messages[4]["content"][1],
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}})
    );
}

#[tokio::test]
async fn anthropic_two_turn_tool_use() {
    let body = two_turns(Provider::Anthropic, true).await;
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{body:#}");
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "call_0_0", "name": "Read",
             "input": {"file_path": "/w/a.png"}}]})
    );
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_0_0",
            "content": [{"type": "text", "text": "a red square"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                    "data": "iVBORw0KGgo="}}]}]})
    );

    let body = two_turns(Provider::Anthropic, false).await;
    assert!(!body.to_string().contains("iVBORw0KGgo="));
    assert_eq!(
        body["messages"][2]["content"][0]["content"][1]["text"],
        "[image omitted: image/png; this model does not accept images]"
    );
}

#[tokio::test]
async fn default_usage_is_counted() {
    for provider in PROTOCOLS {
        let server = mock("rules:\n  - reply: {text: hello there}\n").await;
        let dir = tempfile::tempdir().unwrap();
        let c = client(config(provider, &server, dir.path()));
        let a = c.complete(&conversation("hi")).await.unwrap();
        let b = c.complete(&conversation("hi12345678")).await.unwrap();
        // bytes / 4, rounded up: "hello there" is 11 bytes.
        assert_eq!(a.usage.output_tokens, 3);
        assert!(a.usage.input_tokens > 10, "{:?}", a.usage);
        assert_eq!(
            b.usage.input_tokens,
            a.usage.input_tokens + 2,
            "{provider}: 8 more bytes, 2 more tokens"
        );
        let mut total = a.usage;
        total.add(b.usage);
        assert_eq!(c.usage(), total);
        // Clones share the counters.
        assert_eq!(c.clone().stats().replies, 2);
    }
}

#[tokio::test]
async fn retry_after_then_success() {
    for provider in PROTOCOLS {
        let server = mock(
            "rules:\n  - times: 2\n    reply: {status: 429, retry_after: 1, message: slow down}\n  - reply: {text: ok}\n",
        )
        .await;
        let dir = tempfile::tempdir().unwrap();
        // retry_after_cap (5 ms) bounds the 1 s the server asks for.
        let c = client(config(provider, &server, dir.path()));
        let reply = c.complete(&conversation("hi")).await.unwrap();
        assert_eq!(reply.message.text(), "ok");
        let statuses: Vec<u16> = server.requests().iter().map(|r| r.status).collect();
        assert_eq!(statuses, [429, 429, 200], "{provider}");
        let stats = c.stats();
        assert_eq!(
            (stats.http_requests, stats.retries, stats.replies),
            (3, 2, 1)
        );
        // Retries resend the same body.
        let bodies: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
        assert!(bodies.windows(2).all(|w| w[0] == w[1]));
    }
}

#[tokio::test]
async fn server_errors_exhaust_retries() {
    for provider in PROTOCOLS {
        let server =
            mock("rules:\n  - reply: {status: 503, message: overloaded right now}\n").await;
        let dir = tempfile::tempdir().unwrap();
        let c = client(config(provider, &server, dir.path()));
        let err = c.complete(&conversation("hi")).await.unwrap_err();
        let AgentError::Infra(text) = &err else {
            panic!("expected an infra error, got {err:?}")
        };
        assert!(text.contains("gave up after 4 attempts"), "{text}");
        assert!(text.contains("HTTP 503"), "{text}");
        assert!(text.contains("overloaded right now"), "{text}");
        assert_eq!(server.requests().len(), 4, "1 attempt + max_retries 3");
        assert_eq!(c.stats().retries, 3);
    }
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    for provider in PROTOCOLS {
        let server =
            mock("rules:\n  - reply: {status: 400, message: \"model `x` does not exist\"}\n").await;
        let dir = tempfile::tempdir().unwrap();
        let c = client(config(provider, &server, dir.path()));
        let err = c.complete(&conversation("hi")).await.unwrap_err();
        let AgentError::Infra(text) = &err else {
            panic!("expected an infra error, got {err:?}")
        };
        assert!(text.contains("HTTP 400"), "{text}");
        assert!(text.contains("model `x` does not exist"), "{text}");
        assert!(!text.contains("gave up"), "{text}");
        assert_eq!(server.requests().len(), 1);
    }
}

#[tokio::test]
async fn timeouts_are_retried_then_reported() {
    let server = mock("rules:\n  - reply: {text: late, delay_ms: 5000}\n").await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(Provider::OpenAi, &server, dir.path());
    cfg.timeout = std::time::Duration::from_millis(50);
    cfg.max_retries = 1;
    let err = client(cfg).complete(&conversation("hi")).await.unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("timed out") && text.contains("gave up after 2"),
        "{text}"
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn unreachable_endpoint_is_an_infra_error() {
    // Bind then drop a listener: nothing listens on that port any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = mock("rules:\n  - reply: {text: x}\n").await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(Provider::Anthropic, &server, dir.path());
    cfg.base_url = Some(format!("http://127.0.0.1:{port}"));
    cfg.max_retries = 1;
    let err = client(cfg).complete(&conversation("hi")).await.unwrap_err();
    assert!(matches!(err, AgentError::Infra(_)), "{err:?}");
    // One line naming the endpoint it could not reach.
    assert!(
        err.to_string()
            .contains(&format!("cannot reach http://127.0.0.1:{port}/v1/messages")),
        "{err}"
    );
}

#[tokio::test]
async fn cache_hits_skip_http() {
    for provider in PROTOCOLS {
        let server =
            mock("rules:\n  - reply: {text: cached answer, tool_calls: [{name: Read}]}\n").await;
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(provider, &server, dir.path());
        cfg.cache = CacheMode::Auto; // temperature 0 => on
        let c = client(cfg.clone());
        let a = c.complete(&conversation("same")).await.unwrap();
        let b = c.complete(&conversation("same")).await.unwrap();
        assert_eq!((&a.message, a.usage), (&b.message, b.usage));
        assert!(!a.cached && b.cached, "the hit is marked");
        assert_eq!(server.requests().len(), 1, "the second call is a cache hit");
        assert_eq!(c.stats().cache_hits, 1);
        assert_eq!(c.usage().input_tokens, 2 * a.usage.input_tokens);
        // A new client (a new process, say) hits the files too.
        let fresh = client(cfg.clone());
        assert_eq!(
            fresh.complete(&conversation("same")).await.unwrap().message,
            a.message
        );
        assert_eq!(server.requests().len(), 1);
        // Each trial seed is its own sample: the same request for two trials goes out twice,
        // and each trial's entry serves only that trial afterwards.
        let (t1, t2) = (c.for_sample(1), c.for_sample(2));
        assert!(!t1.complete(&conversation("same")).await.unwrap().cached);
        assert!(!t2.complete(&conversation("same")).await.unwrap().cached);
        assert_eq!(server.requests().len(), 3);
        assert!(t1.complete(&conversation("same")).await.unwrap().cached);
        assert!(
            c.for_sample(2)
                .complete(&conversation("same"))
                .await
                .unwrap()
                .cached
        );
        assert_eq!(server.requests().len(), 3);
        // A different request misses.
        c.complete(&conversation("different")).await.unwrap();
        assert_eq!(server.requests().len(), 4);
        // One file per key, under a two-hex-digit folder.
        let files: Vec<_> = walk(dir.path());
        assert_eq!(files.len(), 4, "{files:?}");
        for f in &files {
            let name = f.file_stem().unwrap().to_str().unwrap();
            assert_eq!(name.len(), 64);
            assert_eq!(
                f.parent().unwrap().file_name().unwrap().to_str().unwrap(),
                &name[..2]
            );
        }

        // Off: every call goes out.
        let mut off = cfg.clone();
        off.cache = CacheMode::Off;
        let c = client(off);
        c.complete(&conversation("same")).await.unwrap();
        c.complete(&conversation("same")).await.unwrap();
        assert_eq!(server.requests().len(), 6);
        // Auto with a non-zero temperature: off too.
        let mut warm = cfg.clone();
        warm.temperature = Some(0.7);
        let c = client(warm);
        c.complete(&conversation("same")).await.unwrap();
        c.complete(&conversation("same")).await.unwrap();
        assert_eq!(server.requests().len(), 8);
        assert_eq!(c.stats().cache_hits, 0);
    }
}

#[tokio::test]
async fn errors_are_not_cached() {
    let server =
        mock("rules:\n  - times: 1\n    reply: {status: 400}\n  - reply: {text: fine}\n").await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(Provider::OpenAi, &server, dir.path());
    cfg.cache = CacheMode::On;
    let c = client(cfg);
    assert!(c.complete(&conversation("x")).await.is_err());
    assert_eq!(
        c.complete(&conversation("x")).await.unwrap().message.text(),
        "fine"
    );
    assert_eq!(
        c.complete(&conversation("x")).await.unwrap().message.text(),
        "fine"
    );
    assert_eq!(server.requests().len(), 2);
}

/// Every file under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// Four concurrent calls from four clients of one endpoint, through a mock that holds each
/// request until 4 are in flight (or `delay_ms` passes).
async fn concurrent_calls(addr: &str, limit: usize, delay_ms: u64) -> usize {
    let yaml =
        format!("rules:\n  - reply: {{text: ok, until_in_flight: 4, delay_ms: {delay_ms}}}\n");
    let server = mock_at(&yaml, addr).await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(Provider::OpenAi, &server, dir.path());
    cfg.concurrency = limit;
    let clients: Vec<_> = (0..4).map(|_| client(cfg.clone())).collect();
    let conv = conversation("hi");
    let (a, b, c, d) = tokio::join!(
        clients[0].complete(&conv),
        clients[1].complete(&conv),
        clients[2].complete(&conv),
        clients[3].complete(&conv),
    );
    for r in [a, b, c, d] {
        assert_eq!(r.unwrap().message.text(), "ok");
    }
    assert_eq!(server.requests().len(), 4);
    server.max_in_flight()
}

#[tokio::test]
async fn concurrency_limit_is_shared_per_endpoint() {
    // Own loopback addresses, so no other test's endpoint (and limit) can share the key.
    assert_eq!(concurrent_calls("127.0.0.7:0", 1, 20).await, 1);
    // The control: without the limit the mock does see all four at once.
    assert_eq!(concurrent_calls("127.0.0.8:0", 4, 20_000).await, 4);
}

#[tokio::test]
async fn malformed_tool_arguments_are_kept_and_sent_back() {
    let yaml = r#"
rules:
  - match: {turn: 0}
    reply:
      tool_calls: [{name: Read, arguments_raw: "{\"file_path\": ", id: ""}]
  - match: {turn: 1, last_contains: "not valid JSON"}
    reply: {text: sorry}
"#;
    for provider in PROTOCOLS {
        let server = mock(yaml).await;
        let dir = tempfile::tempdir().unwrap();
        let c = client(config(provider, &server, dir.path()));
        let mut conv = conversation("read it");
        let reply = c.complete(&conv).await.unwrap();
        let (id, name, input) = reply.message.tool_calls().next().unwrap();
        // No id from the server: the client names the call.
        assert_eq!((id, name), ("call_0_0", "Read"));
        assert_eq!(
            invalid_arguments(input),
            Some("{\"file_path\": "),
            "{provider}"
        );
        let id = id.to_string();
        conv.messages.push(reply.message.clone());
        conv.messages.push(clawrun_agents::Message {
            role: clawrun_agents::Role::User,
            content: vec![Block::ToolResult {
                tool_use_id: id,
                content: vec![Block::text("arguments were not valid JSON")],
                is_error: true,
            }],
        });
        assert_eq!(c.complete(&conv).await.unwrap().message.text(), "sorry");
        let body = &server.requests()[1].body;
        if provider == Provider::OpenAi {
            // The model's own text goes back verbatim.
            assert_eq!(
                body["messages"][2]["tool_calls"][0]["function"]["arguments"],
                "{\"file_path\": "
            );
        } else {
            assert_eq!(body["messages"][2]["content"][0]["is_error"], true);
        }
    }
}

#[tokio::test]
async fn unmatched_requests_name_the_turn_and_last_message() {
    let server = mock("rules:\n  - match: {turn: 5}\n    reply: {text: x}\n").await;
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(Provider::Anthropic, &server, dir.path());
    cfg.max_retries = 0;
    let err = client(cfg)
        .complete(&conversation("what now?"))
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("no rule matched"), "{text}");
    assert!(text.contains("turn 0"), "{text}");
    assert!(text.contains("what now?"), "{text}");
    assert_eq!(server.requests()[0].status, 500);
    assert_eq!(server.requests()[0].rule, None);
}

#[tokio::test]
async fn judge_style_complete() {
    // The judge and the simulated user build a system prompt and one user message.
    let server = mock(
        "rules:\n  - match: {system_contains: evaluation judge, any_contains: Rubric}\n    reply: {text: '{\"score\": 0.5, \"reasoning\": \"half\"}'}\n",
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let c = client(config(Provider::OpenAi, &server, dir.path()));
    let conv = clawrun_agents::Conversation {
        system: "You are an evaluation judge.".into(),
        tools: Default::default(),
        messages: vec![clawrun_agents::Message::user("## Rubric\nbe good")],
    };
    let reply = c.complete(&conv).await.unwrap();
    let v: Value = serde_json::from_str(&reply.message.text()).unwrap();
    assert_eq!(v["score"], 0.5);
    // The same through the `Complete` trait the judge and the simulated user take.
    let model: &dyn Complete = &c;
    let (text, usage) = model.complete(&conv).await.unwrap();
    assert_eq!((text, usage), (reply.message.text(), reply.usage));
    assert_eq!(model.describe(), "openai:mock-model");
    assert!(server.requests()[0].body.get("tools").is_none());
}

/// One client used from several async runtimes, as `clawrun judge`'s workers (each on a runtime
/// of its own) shared the judge's: a pooled connection made while runtime A ran must serve
/// runtime B's request though A is idle, and after A is gone. A connection driven by A's
/// runtime waits for A to run again, and fails with "dispatch task is gone: runtime dropped the
/// dispatch task" once A is dropped.
#[test]
fn one_client_serves_requests_from_several_runtimes() {
    let current = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    };
    // The mock runs on a runtime of its own, always polled.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        current().block_on(async {
            let server = mock("rules:\n  - reply: {text: hello there}\n").await;
            tx.send(server.url()).unwrap();
            std::future::pending::<()>().await;
        });
    });
    let url = rx.recv().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut c = ModelConfig::new(Provider::OpenAi, "mock-model");
    c.base_url = Some(format!("{url}/v1"));
    c.api_key = Some("test-key".into());
    c.cache_dir = Some(dir.path().to_path_buf());
    c.max_retries = 0;
    c.timeout = std::time::Duration::from_secs(20);
    let client = client(c);
    let a = current();
    let first = a.block_on(client.complete(&conversation("one"))).unwrap();
    assert_eq!(first.message.text(), "hello there");
    // A is idle (not polled) while B sends: its idle connection must not be waiting on A.
    let b = std::thread::spawn({
        let client = client.clone();
        move || current().block_on(client.complete(&conversation("two")))
    });
    let second = b.join().unwrap().expect("B's request, with A idle");
    assert_eq!(second.message.text(), "hello there");
    drop(a);
    let third = current()
        .block_on(client.complete(&conversation("three")))
        .expect("a request after A's runtime is gone");
    assert_eq!(third.message.text(), "hello there");
    assert_eq!(client.stats().replies, 3);
}
