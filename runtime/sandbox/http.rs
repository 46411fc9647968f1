//! Guests' outgoing HTTP (`wasi:http`): every request is handed to an in-process
//! [`HttpRouter`]; nothing ever reaches the network. wasmtime-wasi-http is built without its
//! default sender, so a request the router does not take cannot leave the process.

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use wasmtime_wasi_http::{Error as HttpError, RequestOptions, WasiBody, WasiHttpHooks};

/// A guest's request, fully buffered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuestRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// `http` or `https`.
    pub scheme: String,
    /// Host and optional port, e.g. `gmail.local` or `localhost:9100`.
    pub authority: String,
    /// Path and query, e.g. `/gmail/messages?limit=5`.
    pub path_and_query: String,
    /// Headers in the order the guest set them (names lower-case).
    pub headers: Vec<(String, String)>,
    /// The request body.
    pub body: Vec<u8>,
}

/// A response for the guest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuestResponse {
    /// HTTP status.
    pub status: u16,
    /// Response headers.
    pub headers: Vec<(String, String)>,
    /// Response body.
    pub body: Vec<u8>,
}

/// How a request can fail at the transport level, as the guest's `error-code` sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuestHttpError {
    /// No such destination (every host the router does not serve).
    DestinationNotFound,
    /// The connection was reset mid-request.
    ConnectionReset,
    /// No response in time.
    Timeout,
}

/// Serves guests' HTTP requests in-process.
pub trait HttpRouter: Send {
    /// Answers one request.
    fn route(&mut self, request: &GuestRequest) -> Result<GuestResponse, GuestHttpError>;
}

/// The router of a sandbox without services: every destination is unknown.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoNetwork;

impl HttpRouter for NoNetwork {
    fn route(&mut self, _: &GuestRequest) -> Result<GuestResponse, GuestHttpError> {
        Err(GuestHttpError::DestinationNotFound)
    }
}

/// Makes the router of each guest run: what a trial's tool calls reach over wasi:http (its
/// services, its web), made afresh per call.
#[derive(Clone)]
pub struct GuestNetwork(Arc<dyn Fn() -> Box<dyn HttpRouter> + Send + Sync>);

impl GuestNetwork {
    /// A network whose routers `make` builds.
    pub fn new(make: impl Fn() -> Box<dyn HttpRouter> + Send + Sync + 'static) -> Self {
        GuestNetwork(Arc::new(make))
    }

    /// A router for one guest run.
    pub fn router(&self) -> Box<dyn HttpRouter> {
        (self.0)()
    }
}

impl std::fmt::Debug for GuestNetwork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GuestNetwork")
    }
}

/// The wasi:http hooks of a store: hand everything to the router.
pub(super) struct RouterHooks {
    router: Arc<Mutex<Box<dyn HttpRouter>>>,
}

impl RouterHooks {
    pub(super) fn new(router: Box<dyn HttpRouter>) -> Self {
        Self {
            router: Arc::new(Mutex::new(router)),
        }
    }
}

fn transport_error(e: GuestHttpError) -> HttpError {
    match e {
        GuestHttpError::DestinationNotFound => HttpError::DestinationNotFound,
        GuestHttpError::ConnectionReset => HttpError::ConnectionTerminated,
        GuestHttpError::Timeout => HttpError::ConnectionReadTimeout,
    }
}

type SendFuture = Box<
    dyn Future<
            Output = Result<
                (
                    http::Response<WasiBody>,
                    Box<dyn Future<Output = Result<(), HttpError>> + Send>,
                ),
                HttpError,
            >,
        > + Send,
>;

impl WasiHttpHooks for RouterHooks {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        _options: Option<RequestOptions>,
        _fut: Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ) -> SendFuture {
        let router = self.router.clone();
        Box::new(async move {
            let (parts, body) = request.into_parts();
            let body = body.collect().await?.to_bytes();
            let request = GuestRequest {
                method: parts.method.as_str().to_string(),
                scheme: parts.uri.scheme_str().unwrap_or("http").to_string(),
                authority: parts
                    .uri
                    .authority()
                    .map(|a| a.as_str().to_string())
                    .unwrap_or_default(),
                path_and_query: parts
                    .uri
                    .path_and_query()
                    .map(|p| p.as_str().to_string())
                    .unwrap_or_else(|| "/".into()),
                headers: parts
                    .headers
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.as_str().to_string(),
                            String::from_utf8_lossy(v.as_bytes()).into_owned(),
                        )
                    })
                    .collect(),
                body: body.to_vec(),
            };
            let routed = router
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .route(&request);
            let response = routed.map_err(transport_error)?;
            let mut builder = http::Response::builder().status(response.status);
            for (k, v) in &response.headers {
                builder = builder.header(k, v);
            }
            let body = Full::new(Bytes::from(response.body))
                .map_err(|never| match never {})
                .boxed_unsync();
            let response = builder
                .body(body)
                .map_err(|e| HttpError::InternalError(Some(e.to_string())))?;
            let done: Box<dyn Future<Output = Result<(), HttpError>> + Send> =
                Box::new(async { Ok(()) });
            Ok((response, done))
        })
    }
}
