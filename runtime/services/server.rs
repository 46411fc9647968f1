//! The loopback door: each service of a set listens on 127.0.0.1 at its task port (shifted by
//! an offset), served with hyper through the same [`ServiceSet::route`] as in-process calls and
//! guests' requests, so an agent outside the process (or curl) sees the same bytes.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use super::faulted::{Routed, route_with_faults};
use super::guest::SharedServices;
use super::http::{Method, ServiceRequest, ServiceResponse};
use super::time::Timestamp;
use crate::faults::SharedInjector;

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

/// Serves the bound listeners until the future is dropped. Every request is answered at the
/// virtual time `now`, after the fault plan (if any) has had its say: an injected reset closes
/// the connection without an answer, an injected timeout answers 504.
pub async fn serve(
    services: SharedServices,
    listeners: Vec<(Binding, TcpListener)>,
    now: Timestamp,
    faults: Option<SharedInjector>,
) {
    let mut tasks = tokio::task::JoinSet::new();
    for (binding, listener) in listeners {
        let services = services.clone();
        let faults = faults.clone();
        tasks.spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let services = services.clone();
                let faults = faults.clone();
                let name = binding.service.clone();
                tokio::spawn(async move {
                    let handler = service_fn(move |req| {
                        let services = services.clone();
                        let faults = faults.clone();
                        let name = name.clone();
                        async move { answer(&services, faults.as_ref(), &name, req, now).await }
                    });
                    // No `date` header: responses carry no wall-clock time.
                    let _ = http1::Builder::new()
                        .auto_date_header(false)
                        .serve_connection(TokioIo::new(stream), handler)
                        .await;
                });
            }
        });
    }
    while tasks.join_next().await.is_some() {}
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
    services: &SharedServices,
    faults: Option<&SharedInjector>,
    name: &str,
    req: hyper::Request<hyper::body::Incoming>,
    now: Timestamp,
) -> Result<hyper::Response<Full<Bytes>>, Reset> {
    let (parts, body) = req.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
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
    let mut set = services.lock().unwrap_or_else(|p| p.into_inner());
    let response = match route_with_faults(&mut set, faults, name, &request, now) {
        Routed::Response(response) => response,
        Routed::NoSuchService => ServiceResponse::not_found(),
        Routed::Timeout => {
            ServiceResponse::raw(504, "application/json", &br#"{"error":"timeout"}"#[..])
        }
        Routed::ConnectionReset => return Err(Reset),
    };
    Ok(to_hyper(&response))
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
