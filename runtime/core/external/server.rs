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

/// A response body.
pub type Body = BoxBody<Bytes, Infallible>;

/// A route's future; an error resets the connection instead of answering.
pub type Reply = Pin<Box<dyn Future<Output = Result<Response<Body>, std::io::Error>> + Send>>;

/// A handler of the requests outside `/mcp` (the model proxy).
pub trait Route: Send + Sync + 'static {
    /// Answers `req`.
    fn handle(self: Arc<Self>, req: Request<Incoming>) -> Reply;
}

/// MCP at `/mcp`: the trial's tools; with `end_on_delete`, a client closing its session
/// (HTTP `DELETE /mcp`) ends Execution (`clawrun mcp --listen`; an agent program's trial ends
/// when the program exits instead).
pub struct McpMount {
    /// The tools.
    pub tools: TrialTools,
    /// The bridge to end on `DELETE`.
    pub end_on_delete: Option<BridgeHandle>,
}

/// A running loopback server; stops when dropped.
pub struct LoopbackServer {
    addr: SocketAddr,
    stop: CancellationToken,
    thread: Option<JoinHandle<()>>,
}

impl LoopbackServer {
    /// Binds `addr` (port 0: any free port) and serves `mcp` at `/mcp` and `proxy` at `/v1`.
    pub fn start(
        addr: SocketAddr,
        mcp: Option<McpMount>,
        proxy: Option<Arc<dyn Route>>,
    ) -> Result<Self> {
        let std_listener =
            std::net::TcpListener::bind(addr).with_context(|| format!("binding {addr}"))?;
        std_listener.set_nonblocking(true)?;
        let addr = std_listener.local_addr()?;
        let stop = CancellationToken::new();
        let token = stop.clone();
        let thread = std::thread::Builder::new()
            .name("clawrun-loopback".into())
            .spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                else {
                    return;
                };
                rt.block_on(serve(std_listener, mcp, proxy, token));
            })?;
        Ok(LoopbackServer {
            addr,
            stop,
            thread: Some(thread),
        })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The MCP endpoint's URL.
    pub fn mcp_url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The model proxy's OpenAI-style base URL (`.../v1`).
    pub fn openai_base(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The model proxy's Anthropic-style base URL (the root).
    pub fn anthropic_base(&self) -> String {
        format!("http://{}", self.addr)
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
    stop: CancellationToken,
) {
    let Ok(listener) = TcpListener::from_std(listener) else {
        return;
    };
    let end_on_delete = mcp.as_ref().and_then(|m| m.end_on_delete.clone());
    let sessions = CancellationToken::new();
    let mcp = mcp.map(|m| m.tools.http_service(sessions.clone()));
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
                let (mcp, proxy, end) = (mcp.clone(), proxy.clone(), end_on_delete.clone());
                let in_flight = in_flight.clone();
                connections.spawn(async move {
                    let service = service_fn(move |req: Request<Incoming>| {
                        let (mcp, proxy, end) = (mcp.clone(), proxy.clone(), end.clone());
                        // A standing GET stream (server-to-client events) never ends: only
                        // requests that expect an answer are waited for.
                        let guard = (req.method() != Method::GET).then(|| in_flight.enter());
                        async move {
                            let response = route(req, mcp, proxy, end).await?;
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

/// Sends `req` to MCP or to the model proxy.
async fn route(
    req: Request<Incoming>,
    mcp: Option<StreamableHttpService<TrialTools, LocalSessionManager>>,
    proxy: Option<Arc<dyn Route>>,
    end: Option<BridgeHandle>,
) -> Result<Response<Body>, std::io::Error> {
    let path = req.uri().path();
    if path == "/mcp" || path.starts_with("/mcp/") {
        let Some(mcp) = mcp else {
            return Ok(not_found("this server has no MCP endpoint"));
        };
        let delete = req.method() == Method::DELETE;
        let response = mcp.handle(req).await;
        if let (true, Some(end)) = (delete, end) {
            end.end(None).await;
        }
        return Ok(response);
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
