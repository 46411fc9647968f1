//! `curl` and `wget` over the host's `wasi:http` (the only network a guest has: clawrun's
//! in-process router, which serves the trial's services and refuses every other host as
//! "destination not found").
//!
//! Each request is buffered whole: [`Transport::send`] takes a [`Request`] and returns the
//! [`Response`] or a [`NetError`]. [`wasi::WasiHttp`] is the real transport; tests use fakes.

pub mod curl;
mod meter;
pub mod url;
pub mod wasi;
pub mod wget;

use std::time::{Duration, Instant};

use self::url::Url;

/// One HTTP request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, ... (any token).
    pub method: String,
    /// Where it goes.
    pub url: Url,
    /// Header lines in the order they are sent (the `Host` header comes from the URL).
    pub headers: Vec<(String, String)>,
    /// The body (empty for none).
    pub body: Vec<u8>,
    /// Time allowed for connecting, if limited.
    pub connect_timeout: Option<Duration>,
    /// Time allowed for the whole exchange, if limited.
    pub timeout: Option<Duration>,
}

/// One HTTP response, body included.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Header fields in the order received (names as the transport gives them).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The `Content-Length`, if present and a number.
    pub fn content_length(&self) -> Option<u64> {
        self.header("content-length")?.trim().parse().ok()
    }

    /// Whether this is a redirect a client may follow (3xx with a `Location`).
    pub fn redirect_location(&self) -> Option<&str> {
        matches!(self.status, 301 | 302 | 303 | 307 | 308)
            .then(|| self.header("location"))
            .flatten()
    }
}

/// Why a request got no response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetError {
    /// The host does not exist (the sandbox's "destination not found" for names).
    Resolve,
    /// Nothing accepted the connection.
    Connect,
    /// Connecting took too long.
    ConnectTimeout,
    /// The response took too long.
    Timeout,
    /// The connection broke off.
    Reset,
    /// TLS failed.
    Tls,
    /// The request cannot be sent as written (a header or method HTTP does not allow).
    Invalid(String),
    /// Anything else, with the transport's description.
    Other(String),
}

/// Sends requests somewhere, and keeps the time transfers take.
pub trait Transport {
    /// Sends one request and waits for the whole response.
    fn send(&mut self, request: &Request) -> Result<Response, NetError>;

    /// Starts timing a transfer (the sandbox's monotonic clock, which is virtual).
    fn stopwatch(&self) -> Stopwatch {
        Stopwatch(Some(Instant::now()))
    }

    /// Waits before retrying (moves the sandbox's virtual clock).
    fn pause(&mut self, time: Duration) {
        std::thread::sleep(time);
    }
}

/// Time since a transfer started; a frozen one (tests) always reads zero.
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch(pub Option<Instant>);

impl Stopwatch {
    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.0.map_or(Duration::ZERO, |start| start.elapsed())
    }
}

/// The transport of this build: `wasi:http` in the component; natively (unit tests, the
/// native differential harness) there is no network at all.
pub fn system_transport() -> Box<dyn Transport> {
    if cfg!(all(target_arch = "wasm32", target_os = "wasi")) {
        Box::new(wasi::WasiHttp)
    } else {
        Box::new(Offline)
    }
}

/// A transport that reaches nothing: every host is unknown.
#[derive(Clone, Copy, Debug, Default)]
pub struct Offline;

impl Transport for Offline {
    fn send(&mut self, _: &Request) -> Result<Response, NetError> {
        Err(NetError::Resolve)
    }
}

/// How a redirect changes the method: 303 makes everything but `HEAD` a body-less `GET`;
/// 301 and 302 do so for `POST` (what browsers, curl and wget do); 307 and 308 keep both.
/// Returns the new method and whether the body is kept.
pub fn redirected_method(status: u16, method: &str) -> (String, bool) {
    match status {
        303 if method != "HEAD" => ("GET".into(), false),
        301 | 302 if method == "POST" => ("GET".into(), false),
        _ => (method.to_string(), true),
    }
}

/// `content-type` → `Content-Type`: header names as HTTP/1.1 servers usually spell them (the
/// transport hands them over lower-cased).
pub fn title_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = true;
    for c in name.chars() {
        out.push(if upper { c.to_ascii_uppercase() } else { c });
        upper = c == '-';
    }
    out
}

/// The standard reason phrase of a status code (the transport does not carry the server's).
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        205 => "Reset Content",
        206 => "Partial Content",
        207 => "Multi-Status",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        407 => "Proxy Authentication Required",
        408 => "Request Timeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "Length Required",
        412 => "Precondition Failed",
        413 => "Payload Too Large",
        414 => "URI Too Long",
        415 => "Unsupported Media Type",
        416 => "Range Not Satisfiable",
        417 => "Expectation Failed",
        418 => "I'm a teapot",
        422 => "Unprocessable Entity",
        425 => "Too Early",
        426 => "Upgrade Required",
        428 => "Precondition Required",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

/// The status line and header block of `response` as an HTTP/1.1 server sends it (CRLF line
/// ends, blank line last): what `curl -i` prints and `-D` saves.
pub fn header_block(response: &Response) -> String {
    let mut out = format!(
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason_phrase(response.status)
    );
    for (k, v) in &response.headers {
        out.push_str(&format!("{}: {v}\r\n", title_case(k)));
    }
    out.push_str("\r\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_names_and_block() {
        assert_eq!(title_case("content-type"), "Content-Type");
        assert_eq!(title_case("x-request-id"), "X-Request-Id");
        let r = Response {
            status: 404,
            headers: vec![("content-length".into(), "2".into())],
            body: b"no".to_vec(),
        };
        assert_eq!(
            header_block(&r),
            "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\n"
        );
        assert_eq!(r.content_length(), Some(2));
    }

    #[test]
    fn redirects_change_methods_like_curl() {
        assert_eq!(redirected_method(302, "POST"), ("GET".into(), false));
        assert_eq!(redirected_method(307, "POST"), ("POST".into(), true));
        assert_eq!(redirected_method(303, "PUT"), ("GET".into(), false));
        assert_eq!(redirected_method(303, "HEAD"), ("HEAD".into(), true));
        assert_eq!(redirected_method(301, "GET"), ("GET".into(), true));
    }
}
