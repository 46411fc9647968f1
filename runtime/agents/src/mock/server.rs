//! The mock LLM's HTTP server (hyper 1, HTTP/1.1, no `date` header).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, RETRY_AFTER};
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::task::{JoinHandle, JoinSet};

use super::script::Script;
use super::wire::{RequestView, Wire, error_body, success_body};
use crate::llm::Provider;

/// One request the mock received.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedRequest {
    /// The request path.
    pub path: String,
    /// The protocol its path selects (`None` for unknown paths).
    pub protocol: Option<Provider>,
    /// Its headers (lower-case names, in order; values lossily decoded).
    pub headers: Vec<(String, String)>,
    /// Its JSON body (`Null` when the body was not JSON).
    pub body: Value,
    /// Assistant messages in the request.
    pub turn: usize,
    /// The index of the rule that answered, if one did.
    pub rule: Option<usize>,
    /// The status answered.
    pub status: u16,
}

impl RecordedRequest {
    /// The first header named `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A running mock LLM server; dropping it stops the server.
pub struct MockLlm {
    /// Where it listens.
    addr: SocketAddr,
    /// What its handlers share.
    state: Arc<State>,
    /// The accept loop (owning the connection tasks).
    accept: JoinHandle<()>,
}

/// State shared by the handlers.
struct State {
    /// The script.
    script: Script,
    /// Requests each rule answered (for `times`).
    used: Vec<AtomicU32>,
    /// Every request, in the order rules were chosen.
    requests: Mutex<Vec<RecordedRequest>>,
    /// Requests in flight now.
    in_flight: Mutex<usize>,
    /// The in-flight count right after each request arrived, in arrival order.
    levels: Mutex<Vec<usize>>,
    /// Signalled when a request arrives.
    arrived: Notify,
    /// Whether to log each request to stderr.
    log: bool,
}

/// Starts a mock LLM serving `script` on `addr` (port 0 = any free port).
pub async fn serve_mock_llm(script: Script, addr: SocketAddr) -> std::io::Result<MockLlm> {
    serve(script, addr, false).await
}

/// Starts the server; `log` prints one line per request to stderr.
pub(crate) async fn serve(script: Script, addr: SocketAddr, log: bool) -> std::io::Result<MockLlm> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let state = Arc::new(State::new(script, log));
    let shared = state.clone();
    let accept = tokio::spawn(async move {
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else {
                        // Out of descriptors or similar: back off briefly, keep serving.
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    };
                    let state = shared.clone();
                    connections.spawn(async move {
                        let service = service_fn(move |req| handle(state.clone(), req));
                        let _ = hyper::server::conn::http1::Builder::new()
                            .auto_date_header(false)
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
    });
    Ok(MockLlm {
        addr,
        state,
        accept,
    })
}

impl MockLlm {
    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://ADDR` (an OpenAI base URL may add `/v1`; an Anthropic one uses it as is).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state.requests).clone()
    }

    /// The most requests that were in flight at once.
    pub fn max_in_flight(&self) -> usize {
        lock(&self.state.levels).iter().copied().max().unwrap_or(0)
    }

    /// Stops the server (also done on drop).
    pub fn shutdown(self) {}
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// Locks a mutex, ignoring poisoning (the data stays usable).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Counts a request as in flight until dropped.
struct InFlight<'a>(&'a State);

impl<'a> InFlight<'a> {
    /// Enters; returns the guard and the request's arrival index.
    fn enter(state: &'a State) -> (Self, usize) {
        let level = {
            let mut n = lock(&state.in_flight);
            *n += 1;
            *n
        };
        let seq = {
            let mut levels = lock(&state.levels);
            levels.push(level);
            levels.len() - 1
        };
        state.arrived.notify_waiters();
        (InFlight(state), seq)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        *lock(&self.0.in_flight) -= 1;
    }
}

impl State {
    /// Fresh state for `script`.
    fn new(script: Script, log: bool) -> Self {
        State {
            used: script.rules.iter().map(|_| AtomicU32::new(0)).collect(),
            script,
            requests: Mutex::default(),
            in_flight: Mutex::new(0),
            levels: Mutex::default(),
            arrived: Notify::new(),
            log,
        }
    }

    /// The first rule matching the request whose `times` is not used up (and uses it).
    fn choose(&self, protocol: Provider, view: &RequestView) -> Option<usize> {
        self.script.rules.iter().enumerate().find_map(|(i, rule)| {
            let m = &rule.when;
            if m.protocol.is_some_and(|p| p.provider() != protocol) || !view.matches(m) {
                return None;
            }
            match rule.times {
                None => Some(i),
                Some(limit) => self.used[i]
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                        (n < limit).then_some(n + 1)
                    })
                    .ok()
                    .map(|_| i),
            }
        })
    }

    /// Waits until `target` requests were in flight at once at some moment since request
    /// `seq` arrived, or until `limit` passed.
    async fn wait_for_level(&self, seq: usize, target: usize, limit: Duration) {
        let reached = || lock(&self.levels)[seq..].iter().any(|&l| l >= target);
        let _ = tokio::time::timeout(limit, async {
            loop {
                let notified = self.arrived.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if reached() {
                    return;
                }
                notified.await;
            }
        })
        .await;
    }

    /// Appends to the request log.
    fn record(&self, request: RecordedRequest) {
        if self.log {
            let rule = request
                .rule
                .map_or("no rule".to_string(), |i| self.script.rules[i].label());
            eprintln!(
                "mock-llm: {} turn {} -> {rule} -> {}",
                request.path, request.turn, request.status
            );
        }
        lock(&self.requests).push(request);
    }
}

/// Answers one request.
async fn handle(
    state: Arc<State>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = req.uri().path().to_string();
    let method = req.method().clone();
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
    let bytes = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => Bytes::new(),
    };
    Ok(answer(&state, path, method, headers, bytes).await)
}

/// A scripted model answering requests in-process, without a server of its own (clawrun's
/// model proxy serves an agent program from it).
#[derive(Clone)]
pub struct ScriptedModel {
    state: Arc<State>,
}

impl ScriptedModel {
    /// A model answering from `script` (its `times` counters start at zero).
    pub fn new(script: Script) -> Self {
        ScriptedModel {
            state: Arc::new(State::new(script, false)),
        }
    }

    /// The answer to a `POST` of `body` to `path` with `headers`, as the server would send it.
    pub async fn respond(
        &self,
        path: &str,
        headers: Vec<(String, String)>,
        body: Bytes,
    ) -> Response<Full<Bytes>> {
        answer(&self.state, path.to_string(), Method::POST, headers, body).await
    }
}

/// The answer to one request.
async fn answer(
    state: &State,
    path: String,
    method: Method,
    headers: Vec<(String, String)>,
    bytes: Bytes,
) -> Response<Full<Bytes>> {
    let (_guard, seq) = InFlight::enter(state);
    let wire = Wire::of_path(&path);
    let protocol = wire.map(Wire::provider);
    let mut record = RecordedRequest {
        path: path.clone(),
        protocol,
        headers,
        body: Value::Null,
        turn: 0,
        rule: None,
        status: 0,
    };
    let (Some(protocol), Some(wire)) = (protocol, wire) else {
        record.status = 404;
        state.record(record);
        let message = format!(
            "mock-llm: no route {path} (use /v1/chat/completions, /chat/completions, /v1/responses or /v1/messages)"
        );
        return json_response(
            StatusCode::NOT_FOUND,
            &error_body(Provider::OpenAi, "not_found_error", &message),
            None,
        );
    };
    let body: Value = match (method == Method::POST, serde_json::from_slice(&bytes)) {
        (true, Ok(v)) => v,
        (post, parsed) => {
            let message = if post {
                format!(
                    "mock-llm: the body is not JSON: {}",
                    parsed.err().map(|e| e.to_string()).unwrap_or_default()
                )
            } else {
                format!("mock-llm: {method} {path}: only POST is served")
            };
            record.status = 400;
            state.record(record);
            return json_response(
                StatusCode::BAD_REQUEST,
                &error_body(protocol, "invalid_request_error", &message),
                None,
            );
        }
    };
    let view = RequestView::of_wire(wire, &body);
    let stream = body.get("stream").and_then(Value::as_bool) == Some(true);
    let chosen = state.choose(protocol, &view);
    record.body = body;
    record.turn = view.turn;
    record.rule = chosen;
    let Some(index) = chosen else {
        record.status = 500;
        state.record(record);
        let last: String = view.last.chars().take(300).collect();
        let message = format!(
            "mock-llm: no rule matched the request ({protocol}, model `{}`, turn {}, last message: {last:?})",
            view.model, view.turn
        );
        return json_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &error_body(protocol, "mock_no_match", &message),
            None,
        );
    };
    let reply = &state.script.rules[index].reply;
    record.status = reply.status.unwrap_or(200);
    state.record(record);
    if let Some(ms) = reply.delay_ms {
        let limit = Duration::from_millis(ms);
        match reply.until_in_flight {
            Some(target) => state.wait_for_level(seq, target, limit).await,
            None => tokio::time::sleep(limit).await,
        }
    }
    match reply.status {
        Some(status) => {
            let kind = match status {
                429 => "rate_limit_error",
                400..=499 => "invalid_request_error",
                _ => "api_error",
            };
            let message = reply
                .message
                .clone()
                .unwrap_or_else(|| format!("mock-llm: scripted HTTP {status}"));
            json_response(
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                &error_body(protocol, kind, &message),
                reply.retry_after,
            )
        }
        None if stream => {
            let events = super::stream::sse(wire, &success_body(wire, &view, reply, bytes.len()));
            Response::builder()
                .status(StatusCode::OK)
                .header(CONTENT_TYPE, "text/event-stream")
                .body(Full::new(Bytes::from(events)))
                .expect("a valid response")
        }
        None => json_response(
            StatusCode::OK,
            &success_body(wire, &view, reply, bytes.len()),
            None,
        ),
    }
}

/// A JSON response, with `Retry-After` when given.
fn json_response(
    status: StatusCode,
    body: &Value,
    retry_after: Option<u64>,
) -> Response<Full<Bytes>> {
    let mut builder = Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "application/json");
    if let Some(s) = retry_after {
        builder = builder.header(RETRY_AFTER, s.to_string());
    }
    builder
        .body(Full::new(Bytes::from(body.to_string())))
        .expect("a valid response")
}
