//! Requests and responses as a service sees them (transport-independent: the in-process router,
//! guests' `wasi:http` and the loopback server all speak these).

use std::fmt;

use super::json::{Json, Obj, obj};

/// An HTTP method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    /// `GET`.
    Get,
    /// `HEAD`.
    Head,
    /// `POST`.
    Post,
    /// `PUT`.
    Put,
    /// `DELETE`.
    Delete,
    /// `PATCH`.
    Patch,
    /// `OPTIONS`.
    Options,
    /// Any other method.
    Other,
}

impl Method {
    /// Parses a method name (case-sensitive, as HTTP requires).
    pub fn parse(s: &str) -> Method {
        match s {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "DELETE" => Method::Delete,
            "PATCH" => Method::Patch,
            "OPTIONS" => Method::Options,
            _ => Method::Other,
        }
    }

    /// The method's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Patch => "PATCH",
            Method::Options => "OPTIONS",
            Method::Other => "OTHER",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Headers: lower-case names, sorted by name (stable for repeated names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Headers(Vec<(String, String)>);

impl Headers {
    /// No headers.
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    /// Adds a header, keeping the list sorted by name.
    pub fn insert(&mut self, name: &str, value: impl Into<String>) {
        let name = name.to_ascii_lowercase();
        let at = self.0.partition_point(|(n, _)| *n <= name);
        self.0.insert(at, (name, value.into()));
    }

    /// The first value of `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// All headers, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
}

impl<N: AsRef<str>, V: Into<String>> FromIterator<(N, V)> for Headers {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(iter: I) -> Self {
        let mut h = Headers::new();
        for (n, v) in iter {
            h.insert(n.as_ref(), v);
        }
        h
    }
}

/// A request to a service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceRequest {
    /// The method.
    pub method: Method,
    /// The path, e.g. `/gmail/messages/get` (a `?query` part is ignored by routing).
    pub path: String,
    /// The headers.
    pub headers: Headers,
    /// The raw body.
    pub body: Vec<u8>,
}

impl ServiceRequest {
    /// A request without headers or body.
    pub fn new(method: Method, path: impl Into<String>) -> Self {
        Self {
            method,
            path: path.into(),
            headers: Headers::new(),
            body: Vec::new(),
        }
    }

    /// A `GET` without body.
    pub fn get(path: impl Into<String>) -> Self {
        Self::new(Method::Get, path)
    }

    /// A `POST` without body.
    pub fn post(path: impl Into<String>) -> Self {
        Self::new(Method::Post, path)
    }

    /// A `POST` with `body` as compact JSON and `content-type: application/json` (what the
    /// runner's HTTP client sends for a tool call).
    pub fn post_json(path: impl Into<String>, body: &Json) -> Self {
        Self::post(path)
            .with_header("content-type", "application/json")
            .with_body(body.to_compact())
    }

    /// Adds a header.
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.insert(name, value);
        self
    }

    /// Replaces the body.
    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// The path without its query string.
    pub fn route_path(&self) -> &str {
        self.path.split_once('?').map_or(&self.path, |(p, _)| p)
    }
}

/// A response body.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// JSON (serialised compactly, `application/json`).
    Json(Json),
    /// Plain text (`text/plain; charset=utf-8`).
    Text(String),
    /// No body.
    Empty,
    /// Bytes exactly as given (injected fault bodies, damaged bodies).
    Raw(Vec<u8>),
}

/// A service's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceResponse {
    /// The HTTP status.
    pub status: u16,
    /// Headers (content type included; content length is the transport's business).
    pub headers: Headers,
    /// The body.
    pub body: Body,
}

impl ServiceResponse {
    /// A JSON response.
    pub fn json(status: u16, body: impl Into<Json>) -> Self {
        let mut headers = Headers::new();
        headers.insert("content-type", "application/json");
        Self {
            status,
            headers,
            body: Body::Json(body.into()),
        }
    }

    /// A 200 JSON response.
    pub fn ok(body: impl Into<Json>) -> Self {
        Self::json(200, body)
    }

    /// A plain-text response.
    pub fn text(status: u16, body: impl Into<String>) -> Self {
        let mut headers = Headers::new();
        headers.insert("content-type", "text/plain; charset=utf-8");
        Self {
            status,
            headers,
            body: Body::Text(body.into()),
        }
    }

    /// `{"detail": <detail>}` with `status` (FastAPI's `HTTPException`).
    pub fn detail(status: u16, detail: impl Into<Json>) -> Self {
        Self::json(status, obj! { "detail" => detail.into() })
    }

    /// 404 `{"detail":"Not Found"}`: no such route.
    pub fn not_found() -> Self {
        Self::detail(404, "Not Found")
    }

    /// 405 `{"detail":"Method Not Allowed"}` with an `allow` header.
    pub fn method_not_allowed(allow: &str) -> Self {
        let mut r = Self::detail(405, "Method Not Allowed");
        r.headers.insert("allow", allow);
        r
    }

    /// 500 `Internal Server Error` in plain text: an exception inside a handler.
    pub fn internal_error() -> Self {
        Self::text(500, "Internal Server Error")
    }

    /// 307 redirect to `location`, without a body.
    pub fn redirect(location: &str) -> Self {
        let mut headers = Headers::new();
        headers.insert("location", location);
        Self {
            status: 307,
            headers,
            body: Body::Empty,
        }
    }

    /// A response whose body is `body` byte for byte, with `content_type`.
    pub fn raw(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        let mut headers = Headers::new();
        headers.insert("content-type", content_type);
        Self {
            status,
            headers,
            body: Body::Raw(body.into()),
        }
    }

    /// The JSON body, if any.
    pub fn json_body(&self) -> Option<&Json> {
        match &self.body {
            Body::Json(j) => Some(j),
            _ => None,
        }
    }

    /// The JSON body as an object, if it is one.
    pub fn json_obj(&self) -> Option<&Obj> {
        self.json_body().and_then(Json::as_object)
    }

    /// The body bytes as the transport sends them.
    pub fn body_bytes(&self) -> Vec<u8> {
        match &self.body {
            Body::Json(j) => j.to_compact().into_bytes(),
            Body::Text(t) => t.clone().into_bytes(),
            Body::Empty => Vec::new(),
            Body::Raw(b) => b.clone(),
        }
    }
}
