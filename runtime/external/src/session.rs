//! Who may act on a trial over streamable HTTP: the trial's one MCP session. The first client
//! to initialise binds the trial to its `Mcp-Session-Id`; every later request must carry that
//! id. Other initialisations are refused (409), requests with another id or none (404, 400)
//! never reach the trial, and only a `DELETE` with the trial's id closes it. Requests without
//! a session (the stateless MCP revision) are refused: a trial is a session.
//!
//! For agent programs the server's routes also sit under a per-trial secret path
//! ([`Secret`]), so that another local process cannot even reach the endpoint.

use std::io::Read;
use std::sync::Mutex;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde_json::{Value, json};

use super::bridge::BridgeHandle;
use super::mcp::TrialTools;
use super::server::{Body, BodyError, body, read_bounded};

/// The session header of MCP's streamable HTTP transport.
pub const SESSION_HEADER: &str = "mcp-session-id";

/// The largest MCP request body read (rmcp's own limit for streamable HTTP, 4 MiB).
pub const MAX_REQUEST_BYTES: usize = 4 << 20;

/// A per-trial secret: 128 random bits from the OS, hex. It lives only in the URLs an agent
/// program is given; never in a trace, a log of clawrun's or a message.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// A fresh secret.
    pub fn new() -> std::io::Result<Secret> {
        let mut bytes = [0u8; 16];
        std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
        Ok(Secret(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// The secret's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `path` without the secret's `/SECRET` prefix, when it has it (compared in constant time).
    pub fn strip<'a>(&self, path: &'a str) -> Option<&'a str> {
        let rest = path.strip_prefix('/')?;
        let n = self.0.len();
        let (head, tail) = (rest.get(..n)?, rest.get(n..)?);
        let differ = head
            .bytes()
            .zip(self.0.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        (differ == 0 && (tail.is_empty() || tail.starts_with('/'))).then_some(tail)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// The binding of the trial's MCP endpoint to its session.
#[derive(Debug, Default)]
enum Binding {
    /// No session yet.
    #[default]
    Free,
    /// The first `initialize` is being answered.
    Initialising,
    /// The trial's session.
    Bound(String),
}

/// The trial's MCP endpoint, bound to its first session.
pub struct SessionGate {
    binding: Mutex<Binding>,
    /// Ended when the trial's session is closed (`clawrun mcp --listen`).
    end_on_delete: Option<BridgeHandle>,
}

impl SessionGate {
    /// A gate with no session yet; with `end_on_delete`, closing the trial's session ends it.
    pub fn new(end_on_delete: Option<BridgeHandle>) -> Self {
        SessionGate {
            binding: Mutex::new(Binding::Free),
            end_on_delete,
        }
    }

    fn binding(&self) -> std::sync::MutexGuard<'_, Binding> {
        self.binding.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Answers `req` through `mcp` when it belongs to the trial's session, else refuses it.
    pub async fn handle(
        &self,
        req: Request<Incoming>,
        mcp: &StreamableHttpService<TrialTools, LocalSessionManager>,
    ) -> Response<Body> {
        let session = req
            .headers()
            .get(SESSION_HEADER)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        match (req.method().clone(), session) {
            (method, Some(id)) => {
                let ours = matches!(&*self.binding(), Binding::Bound(b) if *b == id);
                if !ours {
                    return refusal(
                        404,
                        None,
                        "clawrun: no such MCP session. This trial is played by one session (the first to initialise); its requests carry that session's Mcp-Session-Id",
                    );
                }
                let response = mcp.handle(req).await;
                if method == Method::DELETE
                    && response.status().is_success()
                    && let Some(end) = &self.end_on_delete
                {
                    end.end(None).await;
                }
                response
            }
            (Method::POST, None) => self.initialise(req, mcp).await,
            (_, None) => refusal(
                400,
                None,
                "clawrun: this request needs the Mcp-Session-Id of the trial's session (send initialize first); without it nothing is served or closed",
            ),
        }
    }

    /// A POST without a session: the trial's first `initialize` binds the trial to the session
    /// it opens; anything else is refused.
    async fn initialise(
        &self,
        req: Request<Incoming>,
        mcp: &StreamableHttpService<TrialTools, LocalSessionManager>,
    ) -> Response<Body> {
        let (parts, incoming) = req.into_parts();
        let bytes = match read_limited(incoming, MAX_REQUEST_BYTES).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        let message: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let id = message.get("id").cloned();
        if message.get("method").and_then(Value::as_str) != Some("initialize") {
            return refusal(
                400,
                id,
                "clawrun: this MCP endpoint serves one session per trial: send initialize first, then every request with its Mcp-Session-Id (the stateless MCP revision is not served)",
            );
        }
        {
            let mut binding = self.binding();
            if !matches!(*binding, Binding::Free) {
                return refusal(
                    409,
                    id,
                    "clawrun: this trial already has its MCP session (a trial is played by the first client to initialise); start another trial for another client",
                );
            }
            *binding = Binding::Initialising;
        }
        // Should this request go away unanswered (its client disconnected), the trial is free
        // again for the next initialize.
        let claim = Claim(self);
        let response = mcp
            .handle(Request::from_parts(parts, Full::new(bytes)))
            .await;
        let session = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if let Some(id) = session.filter(|_| response.status().is_success()) {
            *self.binding() = Binding::Bound(id);
            if let Some(trial) = &self.end_on_delete {
                trial.connected();
            }
        }
        drop(claim);
        response
    }
}

/// The first `initialize` being answered: unless it bound the trial, the trial is free again
/// when it ends (answered, failed or dropped).
struct Claim<'a>(&'a SessionGate);

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut binding = self.0.binding();
        if matches!(*binding, Binding::Initialising) {
            *binding = Binding::Free;
        }
    }
}

/// A request body of at most `max` bytes; a larger one is answered 413.
async fn read_limited(body: Incoming, max: usize) -> Result<Bytes, Response<Body>> {
    read_bounded(body, max).await.map_err(|e| match e {
        BodyError::TooLarge => refusal(
            413,
            None,
            &format!("clawrun: the request body is larger than the limit of {max} bytes"),
        ),
        BodyError::Broken(why) => refusal(
            400,
            None,
            &format!("clawrun: the request body could not be read: {why}"),
        ),
    })
}

/// A JSON-RPC error (code -32600, Invalid Request) with HTTP `status`, answering request `id`
/// when it is known.
fn refusal(status: u16, id: Option<Value>, message: &str) -> Response<Body> {
    let mut error = json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": message}});
    if let Some(id) = id.filter(|id| id.is_string() || id.is_number()) {
        error["id"] = id;
    }
    let mut response = Response::new(body(Bytes::from(error.to_string())));
    *response.status_mut() =
        hyper::StatusCode::from_u16(status).unwrap_or(hyper::StatusCode::BAD_REQUEST);
    response
        .headers_mut()
        .insert("content-type", "application/json".parse().expect("valid"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_initialize_that_goes_away_unanswered_frees_the_trial() {
        let gate = SessionGate::new(None);
        *gate.binding() = Binding::Initialising;
        drop(Claim(&gate));
        assert!(matches!(*gate.binding(), Binding::Free));
        *gate.binding() = Binding::Bound("s".into());
        drop(Claim(&gate));
        assert!(matches!(&*gate.binding(), Binding::Bound(s) if s == "s"));
    }

    #[test]
    fn a_secret_prefix_is_stripped_only_when_it_is_whole() {
        let secret = Secret("abc123".into());
        assert_eq!(secret.strip("/abc123/mcp"), Some("/mcp"));
        assert_eq!(secret.strip("/abc123"), Some(""));
        assert_eq!(secret.strip("/abc124/mcp"), None);
        assert_eq!(secret.strip("/abc1234/mcp"), None);
        assert_eq!(secret.strip("/abc12"), None);
        assert_eq!(secret.strip("/mcp"), None);
        assert_eq!(secret.strip("/é"), None);
        let fresh = Secret::new().unwrap();
        assert_eq!(fresh.as_str().len(), 32);
        assert_ne!(fresh.as_str(), Secret::new().unwrap().as_str());
    }
}
