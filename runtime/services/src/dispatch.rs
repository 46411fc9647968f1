//! Claw-Eval's tool dispatch as pure functions: a tool call's arguments become the request body
//! unchanged, and the response becomes the text the model sees (SERVICES.md §3.2).

use super::faulted::{Routed, route_with_faults};
use super::http::{Body, Method, ServiceRequest, ServiceResponse};
use super::json::{self, DecodeError, Json, Obj};
use super::router::Router;
use super::set::ServiceSet;
use super::spec::ToolEndpoint;
use super::time::UtcInstant;
use clawrun_faults::SharedInjector;

/// A tool result as the runner presents it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Presented {
    /// The tool message content the model receives.
    pub text: String,
    /// The runner's internal error flag (status >= 400 or no JSON).
    pub is_error: bool,
    /// The status recorded in the trace.
    pub status: u16,
}

/// The model's function-call arguments as the runner reads them: JSON text, or `{}` if it does
/// not parse.
pub fn parse_arguments(text: &str) -> Json {
    json::parse(text).unwrap_or_else(|_| Json::Object(Obj::new()))
}

/// The HTTP request the runner sends for a tool call: the endpoint's method, the URL's path and
/// the arguments as the JSON body, unchanged.
pub fn tool_request(endpoint: &ToolEndpoint, path: &str, arguments: &Json) -> ServiceRequest {
    ServiceRequest::new(Method::parse(&endpoint.method.to_ascii_uppercase()), path)
        .with_header("content-type", "application/json")
        .with_body(arguments.to_compact())
}

/// What the model sees for a service response.
pub fn present(resp: &ServiceResponse) -> Presented {
    match &resp.body {
        Body::Json(j) => Presented {
            text: json::to_python(j),
            is_error: resp.status >= 400,
            status: resp.status,
        },
        _ => present_bytes(resp.status, &resp.body_bytes()),
    }
}

/// What the model sees for a status and raw body (e.g. a body truncated by a fault): the body
/// re-serialised Python-style, or `Error: <decoder message>` (recorded as status 500).
pub fn present_bytes(status: u16, body: &[u8]) -> Presented {
    match json::decode_body(body) {
        Ok(j) => Presented {
            text: json::to_python(&j),
            is_error: status >= 400,
            status,
        },
        Err(e) => {
            let msg = match e {
                DecodeError::Syntax(e) => e.to_string(),
                DecodeError::Encoding => "'utf-8' codec can't decode the response body".to_string(),
                DecodeError::TooDeep => "maximum recursion depth exceeded while decoding a JSON array from a unicode string".to_string(),
            };
            transport_error(&msg)
        }
    }
}

/// A tool name missing from `tool_endpoints` (recorded as 404).
pub fn unknown_tool(name: &str) -> Presented {
    Presented {
        text: format!("Error: unknown tool '{name}'"),
        is_error: true,
        status: 404,
    }
}

/// A request that failed below HTTP (connection refused, timeout, reset): `Error: <text>`,
/// recorded as 500.
pub fn transport_error(text: &str) -> Presented {
    Presented {
        text: format!("Error: {text}"),
        is_error: true,
        status: 500,
    }
}

/// The message of a refused connection (a URL that leads to no service).
pub const CONNECTION_REFUSED: &str = "[Errno 111] Connection refused";

/// What httpx says when the server drops the connection (an injected reset).
pub const SERVER_DISCONNECTED: &str = "Server disconnected without sending a response.";

/// What httpx says when no response arrives in time (an injected timeout).
pub const TIMED_OUT: &str = "timed out";

/// One dispatched tool call, as the trace records it.
#[derive(Clone, Debug)]
pub struct Dispatch {
    /// The endpoint URL (empty for an unknown tool).
    pub url: String,
    /// The model's arguments (the request body).
    pub request_body: Json,
    /// The service's response, if a service answered.
    pub response: Option<ServiceResponse>,
    /// What the model sees.
    pub presented: Presented,
}

/// Dispatches tool `tool` with `arguments` through `endpoints` to `services` at `now`.
pub fn dispatch(
    services: &mut ServiceSet,
    router: &Router,
    endpoints: &[ToolEndpoint],
    tool: &str,
    arguments: &Json,
    now: UtcInstant,
) -> Dispatch {
    dispatch_with_faults(services, router, endpoints, tool, arguments, now, None)
}

/// Like [`dispatch`], with the fault plan in front of the service (Claw-Eval's middleware):
/// see [`route_with_faults`]. A reset or timeout reaches the model as the transport error
/// httpx would raise.
pub fn dispatch_with_faults(
    services: &mut ServiceSet,
    router: &Router,
    endpoints: &[ToolEndpoint],
    tool: &str,
    arguments: &Json,
    now: UtcInstant,
    faults: Option<&SharedInjector>,
) -> Dispatch {
    let Some(ep) = endpoints.iter().find(|e| e.tool_name == tool) else {
        return Dispatch {
            url: String::new(),
            request_body: arguments.clone(),
            response: None,
            presented: unknown_tool(tool),
        };
    };
    let failed = |text: &str| Dispatch {
        url: ep.url.clone(),
        request_body: arguments.clone(),
        response: None,
        presented: transport_error(text),
    };
    let Ok(target) = router.resolve(&ep.url) else {
        return failed(CONNECTION_REFUSED);
    };
    let req = tool_request(ep, &target.path, arguments);
    let resp = match route_with_faults(services, faults, &target.service, &req, now) {
        Routed::Response(resp) => resp,
        Routed::NoSuchService => return failed(CONNECTION_REFUSED),
        Routed::ConnectionReset => return failed(SERVER_DISCONNECTED),
        Routed::Timeout => return failed(TIMED_OUT),
    };
    let presented = present(&resp);
    Dispatch {
        url: ep.url.clone(),
        request_body: arguments.clone(),
        response: Some(resp),
        presented,
    }
}
