//! Fault points: the places a fault can be injected, named by structured strings.
//!
//! | category | point | example |
//! |---|---|---|
//! | service call | `service:<name><endpoint>` | `service:gmail/send` |
//! | guest `wasi:http` request | `http:<host><path>` | `http:gmail.local/gmail/send` |
//! | agent tool call | `tool:<ToolName>` | `tool:Bash` |
//! | filesystem host call | `fs:<op>:<abs path>` | `fs:open:/workspace/data/input.txt` |
//!
//! A service's endpoint is the request path with a leading `/<name>` segment removed (Claw-Eval
//! mounts every endpoint of service `gmail` under `/gmail/...`), so `POST /gmail/send` on service
//! `gmail` is `service:gmail/send`. Query strings are never part of a point. The method, the raw
//! request path and the health-check header travel beside the point in a [`Call`].

use std::fmt::Write as _;

use clawrun_hostcall::fault::FsOp;

/// The four kinds of fault point, told apart by their prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// A call to a mock service (`service:`).
    Service,
    /// A guest's outgoing `wasi:http` request (`http:`).
    Http,
    /// An agent tool call (`tool:`).
    Tool,
    /// A filesystem host call (`fs:`).
    Fs,
    /// A request of an agent program to its model through clawrun's model proxy (`model:`,
    /// e.g. `model:responses`).
    Model,
}

impl Category {
    /// Every category, in prefix order.
    pub const ALL: [Category; 5] = [
        Category::Service,
        Category::Http,
        Category::Tool,
        Category::Fs,
        Category::Model,
    ];

    /// The point prefix, colon included (e.g. `service:`).
    pub fn prefix(self) -> &'static str {
        match self {
            Category::Service => "service:",
            Category::Http => "http:",
            Category::Tool => "tool:",
            Category::Fs => "fs:",
            Category::Model => "model:",
        }
    }

    /// The category's name (the prefix without its colon).
    pub fn name(self) -> &'static str {
        let prefix = self.prefix();
        &prefix[..prefix.len() - 1]
    }

    /// The category of a point (or of a glob over points), from its prefix.
    pub fn of(point: &str) -> Option<Category> {
        Category::ALL
            .into_iter()
            .find(|c| point.starts_with(c.prefix()))
    }

    /// A small dense index (0..5), for per-category tables.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Every filesystem op the sandbox reports, in [`FsOp`] order.
pub const FS_OPS: [FsOp; 15] = [
    FsOp::Open,
    FsOp::Read,
    FsOp::Write,
    FsOp::Stat,
    FsOp::ReadDir,
    FsOp::Mkdir,
    FsOp::Rmdir,
    FsOp::Unlink,
    FsOp::Rename,
    FsOp::Symlink,
    FsOp::Link,
    FsOp::Readlink,
    FsOp::Truncate,
    FsOp::SetTimes,
    FsOp::Sync,
];

/// The [`FsOp`] named `name` in points (`open`, `write`, `readdir`, ...).
pub fn fs_op(name: &str) -> Option<FsOp> {
    FS_OPS.into_iter().find(|op| op.name() == name)
}

/// Drops a `?query` (and `#fragment`) from a request path.
fn strip_query(path: &str) -> &str {
    match path.bytes().position(|b| b == b'?' || b == b'#') {
        Some(i) => &path[..i],
        None => path,
    }
}

/// The endpoint of `request_path` on service `name`: the path without a leading `/<name>`
/// segment and without its query (`/gmail/send` on `gmail` -> `/send`).
pub fn service_endpoint<'a>(name: &str, request_path: &'a str) -> &'a str {
    let path = strip_query(request_path);
    match path
        .strip_prefix('/')
        .and_then(|rest| rest.strip_prefix(name))
    {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
        _ => path,
    }
}

/// The point of a call to service `name` at `request_path` (e.g. `service:gmail/send`).
pub fn service(name: &str, request_path: &str) -> String {
    let endpoint = service_endpoint(name, request_path);
    let mut point = String::with_capacity(8 + name.len() + endpoint.len() + 1);
    point.push_str("service:");
    point.push_str(name);
    if !endpoint.is_empty() && !endpoint.starts_with('/') {
        point.push('/');
    }
    point.push_str(endpoint);
    point
}

/// The point of a guest's `wasi:http` request to `host` at `path` (e.g.
/// `http:gmail.local/gmail/send`); a port in `host` is kept, the query is dropped.
pub fn http(host: &str, path: &str) -> String {
    let path = strip_query(path);
    let mut point = String::with_capacity(5 + host.len() + path.len() + 1);
    point.push_str("http:");
    point.push_str(host);
    if !path.starts_with('/') {
        point.push('/');
    }
    point.push_str(path);
    point
}

/// The point of a call to the agent tool `name` (e.g. `tool:Bash`).
pub fn tool(name: &str) -> String {
    format!("tool:{name}")
}

/// The point of filesystem op `op` on the absolute guest path `path` (e.g. `fs:open:/data/x`).
pub fn fs(op: FsOp, path: &str) -> String {
    let mut point = String::new();
    write_fs(&mut point, op, path);
    point
}

/// Writes the point of `op` on `path` into `buf` (cleared first), without allocating when
/// `buf` is large enough.
pub(crate) fn write_fs(buf: &mut String, op: FsOp, path: &str) {
    buf.clear();
    let _ = write!(buf, "fs:{}:{path}", op.name());
}

/// The part of a point that excluded path suffixes are tested against when a [`Call`] does not
/// say otherwise: the endpoint of a service point, the path of an http point, the file path of
/// an fs point, nothing for a tool point.
pub fn default_path(point: &str) -> &str {
    match Category::of(point) {
        Some(Category::Service) => {
            let rest = &point["service:".len()..];
            rest.find('/').map_or("", |i| &rest[i..])
        }
        Some(Category::Http) => {
            let rest = &point["http:".len()..];
            rest.find('/').map_or("", |i| &rest[i..])
        }
        Some(Category::Fs) => {
            let rest = &point["fs:".len()..];
            rest.find(':').map_or("", |i| &rest[i + 1..])
        }
        Some(Category::Tool | Category::Model) | None => "",
    }
}

/// The request header Claw-Eval's harness sets on its health probes.
pub const HEALTH_CHECK_HEADER: &str = "X-Health-Check";

/// Whether a request's [`HEALTH_CHECK_HEADER`] value marks it as a health probe (the value
/// must be exactly `1`, as in Claw-Eval's middleware).
pub fn is_health_check(header_value: Option<&str>) -> bool {
    header_value == Some("1")
}

/// One call at a fault point, as the injector is asked about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call<'a> {
    /// The point, e.g. `service:gmail/send`.
    pub point: &'a str,
    /// The request method (service and http calls), e.g. `POST`; compared case-sensitively.
    pub method: Option<&'a str>,
    /// What rules' excluded suffixes are tested against: the raw request path for service and
    /// http calls (e.g. `/gmail/audit`), the file path for fs calls.
    pub path: &'a str,
    /// The request carried `X-Health-Check: 1`.
    pub health_check: bool,
}

impl<'a> Call<'a> {
    /// A call at `point` with no method, no health-check header and the point's
    /// [`default_path`].
    pub fn new(point: &'a str) -> Self {
        Self {
            point,
            method: None,
            path: default_path(point),
            health_check: false,
        }
    }

    /// A service call: `point` from [`service`], the raw request path, method and whether the
    /// request was a health probe (see [`is_health_check`]).
    pub fn service(point: &'a str, request_path: &'a str, method: &'a str, health: bool) -> Self {
        Self {
            point,
            method: Some(method),
            path: strip_query(request_path),
            health_check: health,
        }
    }

    /// A guest `wasi:http` request: `point` from [`http()`], the request path and method.
    pub fn http(point: &'a str, path: &'a str, method: &'a str) -> Self {
        Self {
            point,
            method: Some(method),
            path: strip_query(path),
            health_check: false,
        }
    }

    /// The same call with method `method`.
    pub fn with_method(mut self, method: &'a str) -> Self {
        self.method = Some(method);
        self
    }

    /// The same call with `path` for the excluded-suffix tests.
    pub fn with_path(mut self, path: &'a str) -> Self {
        self.path = path;
        self
    }

    /// The same call, marked (or not) as a health probe.
    pub fn with_health_check(mut self, health: bool) -> Self {
        self.health_check = health;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_points_strip_the_service_segment_and_the_query() {
        assert_eq!(service("gmail", "/gmail/send"), "service:gmail/send");
        assert_eq!(
            service("gmail", "/gmail/messages/get?x=1"),
            "service:gmail/messages/get"
        );
        assert_eq!(
            service("ocr_paper", "/ocr/extract"),
            "service:ocr_paper/ocr/extract"
        );
        assert_eq!(
            service("gmail", "/gmailx/send"),
            "service:gmail/gmailx/send"
        );
        assert_eq!(service("gmail", "/gmail"), "service:gmail");
        assert_eq!(service("gmail", "send"), "service:gmail/send");
    }

    #[test]
    fn other_points() {
        assert_eq!(
            http("gmail.local", "/gmail/send?a"),
            "http:gmail.local/gmail/send"
        );
        assert_eq!(http("localhost:9100", ""), "http:localhost:9100/");
        assert_eq!(tool("Bash"), "tool:Bash");
        assert_eq!(fs(FsOp::ReadDir, "/data"), "fs:readdir:/data");
    }

    #[test]
    fn categories_and_default_paths() {
        assert_eq!(Category::of("service:gmail/send"), Some(Category::Service));
        assert_eq!(Category::of("fs:open:/x"), Some(Category::Fs));
        assert_eq!(Category::of("gmail/send"), None);
        assert_eq!(Category::Fs.name(), "fs");
        assert_eq!(default_path("service:gmail/messages/get"), "/messages/get");
        assert_eq!(default_path("http:h.local/a/b"), "/a/b");
        assert_eq!(default_path("fs:open:/data/x:y"), "/data/x:y");
        assert_eq!(default_path("tool:Bash"), "");
        let call = Call::http("http:h.local/a/b", "/a/b?q", "GET");
        assert_eq!((call.path, call.method), ("/a/b", Some("GET")));
    }

    #[test]
    fn every_fs_op_has_a_unique_name() {
        for op in FS_OPS {
            assert_eq!(fs_op(op.name()), Some(op));
        }
        assert_eq!(fs_op("chmod"), None);
    }

    #[test]
    fn health_check_header_must_be_exactly_one() {
        assert!(is_health_check(Some("1")));
        assert!(!is_health_check(Some("true")));
        assert!(!is_health_check(Some(" 1")));
        assert!(!is_health_check(None));
    }
}
