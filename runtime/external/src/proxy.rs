//! The recording model proxy of an agent program's trial: OpenAI-compatible (`/v1/chat/
//! completions`, `/v1/responses`) and Anthropic-compatible (`/v1/messages`) endpoints on
//! loopback that answer from the configured model (forwarded), a mock-llm script or a trial's
//! recording; the model-side faults of the fault plan (`model:<wire>` points) are applied here,
//! and every answer is recorded, verbatim, into the trial's trace.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use clawrun_agents::llm::{ModelConfig, Provider, install_crypto_provider};
use clawrun_agents::mock::{ScriptedModel, Wire, error_body};
use clawrun_agents::trace::EventKind;
use clawrun_faults::FaultKind;
use clawrun_faults::point::Call;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, Response};

use super::answer::read_answer;
use super::bridge::ModelLedger;
use super::command::DUMMY_KEY;
use super::server::{BodyError, Reply, Route, body, read_bounded};
use clawrun_trial::recorder::fault_event;

/// The largest model request the proxy reads (32 MiB, about Anthropic's own request limit);
/// a larger one is answered 413, neither counted nor recorded.
pub const MAX_REQUEST_BYTES: usize = 32 << 20;

/// A recorded answer (a `model_call` event's fields).
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedAnswer {
    /// The HTTP status.
    pub status: u16,
    /// The content type.
    pub content_type: String,
    /// The body; with `reset`, none was sent.
    pub body: String,
    /// The connection was reset instead.
    pub reset: bool,
}

/// Where the proxy's answers come from.
#[derive(Clone)]
pub enum ModelSource {
    /// No model was configured: every request gets a 503 saying so.
    None,
    /// A mock-llm script, answered in-process.
    Scripted(ScriptedModel),
    /// A real model endpoint the requests are forwarded to.
    Forward(Arc<Upstream>),
    /// The answers a recorded trial got, in order (replay).
    Recorded(Arc<Vec<RecordedAnswer>>),
}

/// A model endpoint to forward to.
pub struct Upstream {
    provider: Provider,
    base_url: String,
    api_key: Option<String>,
    http: reqwest::Client,
}

impl Upstream {
    /// The endpoint of `config` (its base URL and key resolved from the environment).
    pub fn new(config: &ModelConfig) -> anyhow::Result<Self> {
        let endpoint = config
            .resolve()
            .map_err(|e| anyhow::anyhow!("--model {}: {e}", config.describe()))?;
        install_crypto_provider();
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|e| anyhow::anyhow!("--model {}: {e}", config.describe()))?;
        Ok(Upstream {
            provider: config.provider,
            base_url: endpoint.base_url.trim_end_matches('/').to_string(),
            api_key: endpoint.api_key,
            http,
        })
    }

    /// The upstream URL of a request over `wire`, if the upstream speaks it.
    fn url(&self, wire: Wire) -> Option<String> {
        match (self.provider, wire) {
            (Provider::OpenAi, Wire::Chat) => Some(format!("{}/chat/completions", self.base_url)),
            (Provider::OpenAi, Wire::Responses) => Some(format!("{}/responses", self.base_url)),
            (Provider::Anthropic, Wire::Messages) => Some(format!(
                "{}/v1/messages",
                self.base_url.trim_end_matches("/v1")
            )),
            _ => None,
        }
    }
}

/// An answer as the proxy sends it.
struct Answer {
    status: u16,
    content_type: String,
    body: String,
    retry_after: Option<u32>,
}

impl Answer {
    /// What a reset connection answered: nothing (status 0).
    const RESET: Answer = Answer {
        status: 0,
        content_type: String::new(),
        body: String::new(),
        retry_after: None,
    };

    /// An error in `wire`'s shape.
    fn error(wire: Wire, status: u16, kind: &str, message: &str) -> Answer {
        Answer {
            status,
            content_type: "application/json".into(),
            body: error_body(wire.provider(), kind, message).to_string(),
            retry_after: None,
        }
    }
}

pub use clawrun_trial::FaultSlot;

/// One trial's model proxy.
pub struct ModelProxy {
    source: ModelSource,
    faults: FaultSlot,
    /// The trial's token limit (`--max-tokens`), if any.
    budget: Option<u64>,
    /// Tokens the answers so far cost.
    spent: AtomicU64,
    calls: AtomicU32,
    events: Arc<Mutex<Vec<EventKind>>>,
    ledger: Arc<Mutex<ModelLedger>>,
    /// Where the requests are logged (JSONL), if anywhere.
    requests: Option<Mutex<std::fs::File>>,
}

impl ModelProxy {
    /// A proxy answering from `source`, injecting the faults of the trial's injector (once in
    /// `faults`) at `model:` points, recording into `events` and accounting into `ledger`.
    pub fn new(
        source: ModelSource,
        faults: FaultSlot,
        events: Arc<Mutex<Vec<EventKind>>>,
        ledger: Arc<Mutex<ModelLedger>>,
    ) -> Self {
        ModelProxy {
            source,
            faults,
            budget: None,
            spent: AtomicU64::new(0),
            calls: AtomicU32::new(0),
            events,
            ledger,
            requests: None,
        }
    }

    /// Logs every request (`{"n", "wire", "path", "body"}` per line) to `file`. The requests
    /// stay out of the trace: agent programs put host paths, dates and session ids in them.
    pub fn with_request_log(mut self, file: std::fs::File) -> Self {
        self.requests = Some(Mutex::new(file));
        self
    }

    /// Appends request `n` to the request log.
    fn log_request(&self, n: u32, wire: Wire, path: &str, body: &[u8]) {
        let Some(file) = &self.requests else { return };
        let body = serde_json::from_slice::<serde_json::Value>(body)
            .unwrap_or_else(|_| String::from_utf8_lossy(body).into_owned().into());
        let line = serde_json::json!({"n": n, "wire": wire_name(wire), "path": path, "body": body});
        let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
        let _ = std::io::Write::write_all(&mut *file, format!("{line}\n").as_bytes());
    }

    /// Refuses model requests once the answers have cost `budget` tokens (the trial's
    /// `--max-tokens`; the trial then ends at its next turn as `token_limit`).
    pub fn with_budget(mut self, budget: Option<u64>) -> Self {
        self.budget = budget;
        self
    }

    /// Answers one request over `wire`; `Err` resets the connection.
    async fn serve(&self, wire: Wire, req: Request<Incoming>) -> Result<Answer, std::io::Error> {
        let headers: Vec<(String, String)> = req
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into(),
                )
            })
            .collect();
        let path = req.uri().path().to_string();
        let too_large = || {
            Answer::error(
                wire,
                413,
                "request_too_large",
                &format!(
                    "clawrun's model proxy: the request body is larger than its limit of {MAX_REQUEST_BYTES} bytes"
                ),
            )
        };
        let bytes = match read_bounded(req.into_body(), MAX_REQUEST_BYTES).await {
            Ok(bytes) => bytes,
            Err(BodyError::TooLarge) => return Ok(too_large()),
            Err(BodyError::Broken(why)) => return Err(std::io::Error::other(why)),
        };
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        self.log_request(n, wire, &path, &bytes);
        if let Some(budget) = self
            .budget
            .filter(|b| self.spent.load(Ordering::SeqCst) >= *b)
        {
            let answer = Answer::error(
                wire,
                400,
                "token_budget_exhausted",
                &format!("clawrun: this trial's token budget ({budget} tokens) is spent"),
            );
            self.record(n, wire, None, &answer);
            let mut ledger = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
            ledger.over_budget = Some(format!(
                "the model proxy refused model call {n}: {budget} tokens spent"
            ));
            return Ok(answer);
        }
        let injector = self
            .faults
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let fault = injector.and_then(|f| {
            let fault = f
                .decide(&Call::new(&format!("model:{}", wire_name(wire))))
                .map(|f| f.kind);
            // The fault's event goes into the trace beside this call, not after the next turn.
            let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
            events.extend(f.drain_events_at("model:").iter().map(fault_event));
            fault
        });
        let answer = match (&self.source, fault) {
            (ModelSource::Recorded(answers), _) => match answers.get(n as usize - 1) {
                Some(a) if a.reset => {
                    self.record(n, wire, fault, &Answer::RESET);
                    return Err(std::io::Error::other("the recorded call was reset"));
                }
                Some(a) => Answer {
                    status: a.status,
                    content_type: a.content_type.clone(),
                    body: a.body.clone(),
                    // The same seed decides the same fault again: its header too.
                    retry_after: match fault {
                        Some(FaultKind::Status429 { retry_after_secs }) => Some(retry_after_secs),
                        _ => None,
                    },
                },
                None => Answer::error(
                    wire,
                    500,
                    "replay_diverged",
                    &format!(
                        "clawrun replay: the recording has no model call {n} (the agent program asked its model more often than when recorded)"
                    ),
                ),
            },
            (_, Some(FaultKind::ConnectionReset)) => {
                self.record(n, wire, fault, &Answer::RESET);
                return Err(std::io::Error::other("connection reset (injected)"));
            }
            (_, Some(kind)) if kind.status().is_some() => {
                let status = kind.status().unwrap_or(500);
                let mut a = Answer::error(
                    wire,
                    status,
                    if status == 429 {
                        "rate_limit_error"
                    } else {
                        "api_error"
                    },
                    &format!("injected by clawrun's fault plan: HTTP {status}"),
                );
                if let FaultKind::Status429 { retry_after_secs } = kind {
                    a.retry_after = Some(retry_after_secs);
                }
                a
            }
            (_, Some(FaultKind::Timeout)) => Answer::error(
                wire,
                504,
                "timeout",
                "injected by clawrun's fault plan: the model request timed out",
            ),
            (source, fault) => {
                let mut a = self.ask(source, wire, &path, headers, bytes).await;
                match fault {
                    Some(FaultKind::TruncatedBody) => {
                        let keep = a.body.floor_char_boundary(a.body.len() / 2);
                        a.body.truncate(keep);
                    }
                    Some(FaultKind::MalformedJson) => {
                        let keep = a.body.floor_char_boundary(a.body.len() / 2);
                        a.body.truncate(keep);
                        a.body.push_str("\u{0}}{");
                    }
                    _ => {}
                }
                a
            }
        };
        self.record(n, wire, fault, &answer);
        Ok(answer)
    }

    /// The model's answer from `source`.
    async fn ask(
        &self,
        source: &ModelSource,
        wire: Wire,
        path: &str,
        headers: Vec<(String, String)>,
        bytes: Bytes,
    ) -> Answer {
        match source {
            ModelSource::None | ModelSource::Recorded(_) => Answer::error(
                wire,
                503,
                "no_model",
                "clawrun's model proxy has no model: give one with --model (scripted:FILE, openai:MODEL, anthropic:MODEL)",
            ),
            ModelSource::Scripted(model) => {
                let response = model.respond(path, headers, bytes).await;
                let status = response.status().as_u16();
                let content_type = header(&response, "content-type");
                let retry_after = header(&response, "retry-after").parse().ok();
                let body = response
                    .into_body()
                    .collect()
                    .await
                    .map(|b| String::from_utf8_lossy(&b.to_bytes()).into_owned())
                    .unwrap_or_default();
                Answer {
                    status,
                    content_type,
                    body,
                    retry_after,
                }
            }
            ModelSource::Forward(upstream) => forward(upstream, wire, &headers, bytes).await,
        }
    }

    /// Records call `n`'s answer into the trace and the ledger.
    fn record(&self, n: u32, wire: Wire, fault: Option<FaultKind>, answer: &Answer) {
        if answer.status == 200 {
            let (text, usage) = read_answer(wire, &answer.content_type, &answer.body);
            self.spent.fetch_add(usage.total(), Ordering::SeqCst);
            let mut ledger = self.ledger.lock().unwrap_or_else(|e| e.into_inner());
            ledger.usage.add(usage);
            if !text.is_empty() {
                ledger.last_text = text;
            }
        }
        let event = EventKind::ModelCall {
            n,
            wire: wire_name(wire).into(),
            status: answer.status,
            fault: fault.map(|k| k.name().to_string()),
            content_type: answer.content_type.clone(),
            body: answer.body.clone(),
        };
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(event);
    }
}

/// A header's value, or "".
fn header<B>(response: &Response<B>, name: &str) -> String {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

/// A wire's name in points and traces.
pub fn wire_name(wire: Wire) -> &'static str {
    match wire {
        Wire::Chat => "chat",
        Wire::Responses => "responses",
        Wire::Messages => "messages",
    }
}

/// The wire of a recorded name.
pub fn wire_of_name(name: &str) -> Option<Wire> {
    match name {
        "chat" => Some(Wire::Chat),
        "responses" => Some(Wire::Responses),
        "messages" => Some(Wire::Messages),
        _ => None,
    }
}

/// Forwards a request to `upstream`, with its key instead of the agent's dummy one.
async fn forward(
    upstream: &Upstream,
    wire: Wire,
    headers: &[(String, String)],
    bytes: Bytes,
) -> Answer {
    let Some(url) = upstream.url(wire) else {
        return Answer::error(
            wire,
            400,
            "wrong_protocol",
            &format!(
                "clawrun's model proxy: the agent program speaks {} but the model behind the proxy speaks {} (pick an agent or a model of the same protocol)",
                wire_name(wire),
                upstream.provider
            ),
        );
    };
    let mut request = upstream
        .http
        .post(&url)
        .header("content-type", "application/json")
        .body(bytes);
    for (name, value) in headers {
        if name == "accept" || name.starts_with("anthropic-") || name == "openai-beta" {
            request = request.header(name.as_str(), value.as_str());
        }
    }
    if let Some(key) = &upstream.api_key {
        request = match upstream.provider {
            Provider::OpenAi => request.bearer_auth(key),
            Provider::Anthropic => request.header("x-api-key", key),
        };
    }
    if upstream.provider == Provider::Anthropic
        && !headers.iter().any(|(n, _)| n == "anthropic-version")
    {
        request = request.header("anthropic-version", "2023-06-01");
    }
    match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            let content_type = response
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("application/json")
                .to_string();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok());
            let body = response.text().await.unwrap_or_default();
            // An upstream that echoes its request (the Authorization header among it) must not
            // hand the real key to the program, nor write it into the trace.
            let body = scrub(body, upstream.api_key.as_deref());
            Answer {
                status,
                content_type,
                body,
                retry_after,
            }
        }
        Err(e) => Answer::error(
            wire,
            502,
            "upstream_unreachable",
            &scrub(
                format!("clawrun's model proxy could not reach {url}: {e}"),
                upstream.api_key.as_deref(),
            ),
        ),
    }
}

/// `text` with every occurrence of the real `key` replaced by the dummy one.
fn scrub(text: String, key: Option<&str>) -> String {
    match key {
        Some(key) if !key.is_empty() && text.contains(key) => text.replace(key, DUMMY_KEY),
        _ => text,
    }
}

impl Route for ModelProxy {
    fn handle(self: Arc<Self>, req: Request<Incoming>) -> Reply {
        Box::pin(async move {
            let path = req.uri().path().to_string();
            if req.method() == hyper::Method::GET && path.ends_with("/models") {
                let list = serde_json::json!({"object": "list", "data": []});
                let mut response = Response::new(body(Bytes::from(list.to_string())));
                response
                    .headers_mut()
                    .insert("content-type", "application/json".parse().expect("valid"));
                return Ok(response);
            }
            let Some(wire) = Wire::of_path(&path) else {
                return Ok(super::server::not_found(&format!(
                    "clawrun's model proxy serves POST /v1/chat/completions, /v1/responses and /v1/messages, not {path}"
                )));
            };
            let answer = self.serve(wire, req).await?;
            let mut response = Response::new(body(Bytes::from(answer.body)));
            *response.status_mut() = hyper::StatusCode::from_u16(answer.status)
                .unwrap_or(hyper::StatusCode::BAD_GATEWAY);
            if let Ok(v) = answer.content_type.parse() {
                response.headers_mut().insert("content-type", v);
            }
            if let Some(secs) = answer.retry_after {
                response
                    .headers_mut()
                    .insert("retry-after", secs.to_string().parse().expect("valid"));
            }
            Ok(response)
        })
    }
}
