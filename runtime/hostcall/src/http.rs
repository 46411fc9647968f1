//! Guests' outgoing HTTP: a request, fully buffered, is handed to an in-process
//! [`HttpRouter`] (the trial's services and web, with the fault plan in front); nothing ever
//! reaches the network from here.

use std::sync::Arc;

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
