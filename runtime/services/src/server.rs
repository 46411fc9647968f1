//! The loopback door: each service of a set listens on 127.0.0.1 at its task port (shifted by
//! an offset), served with hyper through the same [`ServiceSet::route`] as in-process calls and
//! guests' requests, so an agent outside the process (or curl) sees the same bytes. A client
//! cannot make it buffer more than [`MAX_BODY_BYTES`] of a request, hold a connection by going
//! slow or quiet, or take more than its share of connections ([`ServerLimits`]).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Body as _;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use super::faulted::{Routed, route_with_faults};
use super::guest::SharedServices;
use super::http::{Method, ServiceRequest, ServiceResponse};
use super::stall::StallTimeout;
use super::time::UtcInstant;
use clawrun_faults::SharedInjector;

/// One service bound to one loopback port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The service instance's name.
    pub service: Arc<str>,
    /// The loopback port it answers on.
    pub port: u16,
}

/// The bindings of every service in `services`, each at its task port plus `offset`.
pub fn bindings(services: &SharedServices, offset: i32) -> Result<Vec<Binding>> {
    let set = services.lock().unwrap_or_else(|p| p.into_inner());
    set.services()
        .map(|s| {
            let port = u16::try_from(i32::from(s.port()) + offset).with_context(|| {
                format!(
                    "service {}: port {} + {offset} is not a port",
                    s.name(),
                    s.port()
                )
            })?;
            Ok(Binding {
                service: s.name().into(),
                port,
            })
        })
        .collect()
}

/// Binds every listener (so a port in use fails before anything is served).
pub async fn bind(bindings: &[Binding]) -> Result<Vec<(Binding, TcpListener)>> {
    let mut out = Vec::with_capacity(bindings.len());
    for b in bindings {
        let addr = SocketAddr::from(([127, 0, 0, 1], b.port));
        let listener = TcpListener::bind(addr).await.with_context(|| {
            format!(
                "service {}: cannot listen on {addr} (in use? try --port-base)",
                b.service
            )
        })?;
        out.push((b.clone(), listener));
    }
    Ok(out)
}

/// The largest request body the server reads; a larger one is answered 413 without being read.
pub const MAX_BODY_BYTES: usize = 8 << 20;
/// The default [`ServerLimits::read_timeout`].
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);
/// The default [`ServerLimits::max_connections`].
pub const MAX_CONNECTIONS: usize = 64;
/// How long the accept loop waits after an error such as "too many open files".
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// What one client may cost the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerLimits {
    /// Request bodies larger than this are answered 413 (unread).
    pub max_body_bytes: usize,
    /// The time a client has to send a request's headers, and then its body; also the longest
    /// a connection may stall (nothing read or written, idle between requests included).
    pub read_timeout: Duration,
    /// Connections served at once, over all services; more wait in the listen backlog.
    pub max_connections: usize,
}

impl Default for ServerLimits {
    fn default() -> Self {
        Self {
            max_body_bytes: MAX_BODY_BYTES,
            read_timeout: READ_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

/// What every connection of every listener shares.
#[derive(Clone)]
struct Shared {
    services: SharedServices,
    faults: Option<SharedInjector>,
    now: UtcInstant,
    limits: ServerLimits,
}

/// Serves the bound listeners until the future is dropped. Every request is answered at the
/// virtual time `now`, after the fault plan (if any) has had its say: an injected reset closes
/// the connection without an answer, an injected timeout answers 504. `limits` bound what a
/// client may cost: body size, slow or idle connections, connections at once.
pub async fn serve(
    services: SharedServices,
    listeners: Vec<(Binding, TcpListener)>,
    now: UtcInstant,
    faults: Option<SharedInjector>,
    limits: ServerLimits,
) {
    let shared = Shared {
        services,
        faults,
        now,
        limits,
    };
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    for (binding, listener) in listeners {
        tasks.spawn(accept_loop(
            binding,
            listener,
            slots.clone(),
            shared.clone(),
        ));
    }
    while tasks.join_next().await.is_some() {}
}

/// Accepts connections on one listener while a connection slot is free. An accept error that
/// is not about one connection (out of file descriptors, out of memory) is reported once and
/// retried after a pause rather than in a busy loop.
async fn accept_loop(
    binding: Binding,
    listener: TcpListener,
    slots: Arc<Semaphore>,
    shared: Shared,
) {
    let mut failing = false;
    loop {
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        let stream = match listener.accept().await {
            Ok((stream, _)) => {
                failing = false;
                stream
            }
            Err(e) if is_per_connection(&e) => continue,
            Err(e) => {
                if !failing {
                    eprintln!(
                        "clawrun services: {} (port {}): cannot accept connections: {e}; \
                         retrying every {} ms",
                        binding.service,
                        binding.port,
                        ACCEPT_BACKOFF.as_millis()
                    );
                    failing = true;
                }
                drop(slot);
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        let shared = shared.clone();
        let name = binding.service.clone();
        tokio::spawn(async move {
            serve_connection(stream, name, shared).await;
            drop(slot);
        });
    }
}

/// Whether an accept error concerns only the connection being accepted (the next may work).
fn is_per_connection(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionReset, Interrupted};
    matches!(e.kind(), ConnectionAborted | ConnectionReset | Interrupted)
}

/// Serves one connection of service `name` until the client closes it, stalls or is too slow.
async fn serve_connection(stream: TcpStream, name: Arc<str>, shared: Shared) {
    let limits = shared.limits;
    let handler = service_fn(move |req| {
        let shared = shared.clone();
        let name = name.clone();
        async move { answer(&shared, &name, req).await }
    });
    let io = TokioIo::new(StallTimeout::new(stream, limits.read_timeout));
    // No `date` header: responses carry no wall-clock time.
    let _ = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.read_timeout)
        .auto_date_header(false)
        .serve_connection(io, handler)
        .await;
}

/// The connection is dropped without an answer (an injected reset).
#[derive(Debug)]
struct Reset;

impl std::fmt::Display for Reset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("injected connection reset")
    }
}

impl std::error::Error for Reset {}

/// Answers one hyper request from service `name`.
async fn answer(
    shared: &Shared,
    name: &str,
    req: hyper::Request<hyper::body::Incoming>,
) -> Result<hyper::Response<Full<Bytes>>, Reset> {
    let (parts, body) = req.into_parts();
    let body = match read_body(body, &shared.limits).await {
        Ok(body) => body,
        Err(refused) => return Ok(to_hyper(&refused)),
    };
    let path = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let mut request = ServiceRequest::new(Method::parse(parts.method.as_str()), path);
    for (k, v) in &parts.headers {
        request.headers.insert(
            k.as_str(),
            String::from_utf8_lossy(v.as_bytes()).into_owned(),
        );
    }
    request.body = body.to_vec();
    let mut set = shared.services.lock().unwrap_or_else(|p| p.into_inner());
    let response =
        match route_with_faults(&mut set, shared.faults.as_ref(), name, &request, shared.now) {
            Routed::Response(response) => response,
            Routed::NoSuchService => ServiceResponse::not_found(),
            Routed::Timeout => {
                ServiceResponse::raw(504, "application/json", &br#"{"error":"timeout"}"#[..])
            }
            Routed::ConnectionReset => return Err(Reset),
        };
    Ok(to_hyper(&response))
}

/// Reads a request body of at most `limits.max_body_bytes` within `limits.read_timeout`: a
/// declared length over the limit is refused before reading, a streamed body as soon as it
/// passes it. Refusals close the connection.
async fn read_body(
    body: hyper::body::Incoming,
    limits: &ServerLimits,
) -> Result<Bytes, ServiceResponse> {
    let max = limits.max_body_bytes;
    let too_large = || {
        refusal(
            413,
            format!("Request body too large: the limit is {max} bytes"),
        )
    };
    if body.size_hint().lower() > max as u64 {
        return Err(too_large());
    }
    match tokio::time::timeout(limits.read_timeout, Limited::new(body, max).collect()).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(e)) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Ok(Err(_)) => Err(refusal(400, "Incomplete request body".to_string())),
        Err(_) => Err(refusal(
            408,
            format!(
                "Request body not received within {} s",
                limits.read_timeout.as_secs_f64()
            ),
        )),
    }
}

/// `{"detail": message}` with `status`, closing the connection (its request was not read).
fn refusal(status: u16, message: String) -> ServiceResponse {
    let mut response = ServiceResponse::detail(status, message);
    response.headers.insert("connection", "close");
    response
}

fn to_hyper(response: &ServiceResponse) -> hyper::Response<Full<Bytes>> {
    let mut builder = hyper::Response::builder().status(response.status);
    for (k, v) in response.headers.iter() {
        builder = builder.header(k, v);
    }
    builder
        .body(Full::new(Bytes::from(response.body_bytes())))
        .unwrap_or_else(|_| {
            let mut fallback = hyper::Response::new(Full::new(Bytes::new()));
            *fallback.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
            fallback
        })
}
