//! The loopback HTTP server of one external trial: MCP at `/mcp` (streamable HTTP) and the
//! model proxy at `/v1/...`, on a thread and async runtime of its own so that the trial's
//! worker may block in the sandbox while the server keeps answering.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;

use anyhow::{Context, Result};
use bytes::Bytes;
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::bridge::BridgeHandle;
use super::mcp::TrialTools;
use super::session::{Secret, SessionGate};

/// A response body.
pub type Body = BoxBody<Bytes, Infallible>;

/// A route's future; an error resets the connection instead of answering.
pub type Reply = Pin<Box<dyn Future<Output = Result<Response<Body>, std::io::Error>> + Send>>;

/// A handler of the requests outside `/mcp` (the model proxy).
pub trait Route: Send + Sync + 'static {
    /// Answers `req`.
    fn handle(self: Arc<Self>, req: Request<Incoming>) -> Reply;
}

/// MCP at `/mcp`: the trial's tools, for the trial's one session ([`SessionGate`]); with
/// `end_on_delete`, that session closing (HTTP `DELETE /mcp` with its id) ends Execution
/// (`clawrun mcp --listen`; an agent program's trial ends when the program exits instead).
pub struct McpMount {
    /// The tools.
    pub tools: TrialTools,
    /// The bridge to end on `DELETE`.
    pub end_on_delete: Option<BridgeHandle>,
}

/// A running loopback server; stops when dropped.
pub struct LoopbackServer {
    addr: SocketAddr,
    /// The routes' secret prefix, if any.
    secret: Option<Secret>,
    stop: CancellationToken,
    thread: Option<JoinHandle<()>>,
}

impl LoopbackServer {
    /// Binds `addr` (port 0: any free port) and serves `mcp` at `/mcp` and `proxy` at `/v1`;
    /// with `secret`, only under `/SECRET` (`/SECRET/mcp`, `/SECRET/v1`): any other path is
    /// a 404.
    pub fn start(
        addr: SocketAddr,
        mcp: Option<McpMount>,
        proxy: Option<Arc<dyn Route>>,
        secret: Option<Secret>,
    ) -> Result<Self> {
        let std_listener =
            std::net::TcpListener::bind(addr).with_context(|| format!("binding {addr}"))?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let stop = CancellationToken::new();
        let token = stop.clone();
        let routes_secret = secret.clone();
        let thread = std::thread::Builder::new()
            .name("clawrun-loopback".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return;
                };
                rt.block_on(serve(std_listener, mcp, proxy, routes_secret, token));
            })?;
        Ok(LoopbackServer {
            addr,
            secret,
            stop,
            thread: Some(thread),
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The server's root URL (with the secret prefix, if any).
    fn root(&self) -> String {
        match &self.secret {
            Some(secret) => format!("http://{}/{}", self.addr, secret.as_str()),
            None => format!("http://{}", self.addr),
        }
    }

    /// The MCP endpoint's URL.
    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.root())
    }

    /// The model proxy's OpenAI-style base URL (`.../v1`).
    pub fn openai_base(&self) -> String {
        format!("{}/v1", self.root())
    }

    /// The model proxy's Anthropic-style base URL (the root).
    pub fn anthropic_base(&self) -> String {
        self.root()
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.stop.cancel();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// How long a stopping server lets the requests in flight finish (the answer to `finish`
/// is sent as the trial ends).
const DRAIN: std::time::Duration = std::time::Duration::from_secs(2);

/// The accept loop; on `stop`, lets the requests in flight finish (at most [`DRAIN`]), then
/// ends the MCP sessions and every connection.
async fn serve(
    listener: std::net::TcpListener,
    mcp: Option<McpMount>,
    proxy: Option<Arc<dyn Route>>,
    secret: Option<Secret>,
    stop: CancellationToken,
) {
    let Ok(listener) = TcpListener::from_std(listener) else {
        return;
    };
    let sessions = CancellationToken::new();
    let mcp = mcp.map(|m| {
        (
            m.tools.http_service(sessions.clone()),
            Arc::new(SessionGate::new(m.end_on_delete)),
        )
    });
    let in_flight = InFlight::default();
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                };
                // Small request-answer exchanges: no Nagle delay waiting on the peer's ACK.
                let _ = stream.set_nodelay(true);
                let (mcp, proxy, secret) = (mcp.clone(), proxy.clone(), secret.clone());
                let in_flight = in_flight.clone();
                connections.spawn(async move {
                    let service = service_fn(move |req: Request<Incoming>| {
                        let (mcp, proxy, secret) = (mcp.clone(), proxy.clone(), secret.clone());
                        // A standing GET stream (server-to-client events) never ends: only
                        // requests that expect an answer are waited for.
                        let guard = (req.method() != Method::GET).then(|| in_flight.enter());
                        async move {
                            let response = route(req, mcp, proxy, secret).await?;
                            Ok::<_, std::io::Error>(match guard {
                                Some(guard) => response.map(|b| GuardedBody(b, guard).boxed()),
                                None => response,
                            })
                        }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .auto_date_header(false)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    let drained = tokio::time::Instant::now() + DRAIN;
    while in_flight.count() > 0 && tokio::time::Instant::now() < drained {
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    sessions.cancel();
    connections.abort_all();
}

/// The MCP service and the gate that binds it to the trial's session.
type Mcp = (
    StreamableHttpService<TrialTools, LocalSessionManager>,
    Arc<SessionGate>,
);

/// Sends `req` to MCP (through its session gate) or to the model proxy; with `secret`, only
/// paths under it, which the routes then see without it.
async fn route(
    mut req: Request<Incoming>,
    mcp: Option<Mcp>,
    proxy: Option<Arc<dyn Route>>,
    secret: Option<Secret>,
) -> Result<Response<Body>, std::io::Error> {
    if let Some(secret) = &secret {
        let Some(rest) = secret.strip(req.uri().path()) else {
            return Ok(not_found(
                "not found: this trial's endpoints are at the URLs clawrun gave its agent program (CLAWRUN_MCP_URL, OPENAI_BASE_URL, ANTHROPIC_BASE_URL)",
            ));
        };
        let query = req.uri().query().map_or(String::new(), |q| format!("?{q}"));
        let stripped = format!("{}{query}", if rest.is_empty() { "/" } else { rest });
        match stripped.parse() {
            Ok(uri) => *req.uri_mut() = uri,
            Err(_) => return Ok(not_found("not found")),
        }
    }
    let path = req.uri().path();
    if path == "/mcp" || path.starts_with("/mcp/") {
        let Some((mcp, gate)) = mcp else {
            return Ok(not_found("this server has no MCP endpoint"));
        };
        return Ok(gate.handle(req, &mcp).await);
    }
    match proxy {
        Some(proxy) => proxy.handle(req).await,
        None => Ok(not_found("this server has no model endpoint")),
    }
}

/// Requests whose answer has not been sent in full yet.
#[derive(Clone, Default)]
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    /// One more request in flight, until the guard drops.
    fn enter(&self) -> InFlightGuard {
        self.0.fetch_add(1, Ordering::SeqCst);
        InFlightGuard(self.0.clone())
    }

    /// Requests in flight.
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// A request in flight.
struct InFlightGuard(Arc<AtomicUsize>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A response body that keeps its request in flight until it is sent (or dropped).
struct GuardedBody(Body, #[allow(dead_code)] InFlightGuard);

impl hyper::body::Body for GuardedBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.0).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.0.size_hint()
    }
}

/// Why a request body was not read.
#[derive(Debug)]
pub enum BodyError {
    /// It is larger than the limit.
    TooLarge,
    /// The connection failed while it was read.
    Broken(String),
}

/// How much of a refused body is still read (and dropped) before the refusal is sent, so
/// that the client, still sending, reads it instead of a reset connection.
const LINGER_BYTES: u64 = 64 << 20;
/// How long a refused body is still read at most.
const LINGER_TIME: std::time::Duration = std::time::Duration::from_secs(2);

/// A request body of at most `max` bytes, never holding more. A larger one is an error; the
/// rest of it is read and dropped (at most [`LINGER_BYTES`] for [`LINGER_TIME`]) so that the
/// client gets the answer.
pub async fn read_bounded(mut body: Incoming, max: usize) -> Result<Bytes, BodyError> {
    let declared = hyper::body::Body::size_hint(&body).lower();
    let mut kept = bytes::BytesMut::new();
    let mut over = declared > max as u64;
    while !over {
        match body.frame().await {
            None => return Ok(kept.freeze()),
            Some(Err(e)) => return Err(BodyError::Broken(e.to_string())),
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    if kept.len() + data.len() > max {
                        over = true;
                    } else {
                        kept.extend_from_slice(&data);
                    }
                }
            }
        }
    }
    drop(kept);
    let linger = async {
        let mut dropped = 0u64;
        while dropped < LINGER_BYTES {
            match body.frame().await {
                Some(Ok(frame)) => {
                    dropped += frame.data_ref().map_or(0, |d| d.len() as u64);
                }
                _ => break,
            }
        }
    };
    let _ = tokio::time::timeout(LINGER_TIME, linger).await;
    Err(BodyError::TooLarge)
}

/// A 404 with `message`.
pub fn not_found(message: &str) -> Response<Body> {
    text_response(404, message)
}

/// A plain-text response.
pub fn text_response(status: u16, message: &str) -> Response<Body> {
    let mut response = Response::new(body(Bytes::from(message.to_string())));
    *response.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    response
}

/// A whole body.
pub fn body(bytes: Bytes) -> Body {
    http_body_util::Full::new(bytes).boxed()
}
