//! A service call with the fault plan in front, as Claw-Eval's error-injection middleware sits
//! in front of its mock servers: a status fault answers instead of the service (which never
//! sees the request, so its audit log does not record it), latency moves the virtual clock and
//! then serves normally, a mangled-body fault serves and then damages the body, and transport
//! faults (reset, timeout) leave no response at all.

use clawrun_faults::point::{self, Call, HEALTH_CHECK_HEADER};
use clawrun_faults::{FaultKind, SharedInjector};

use super::http::{Body, ServiceRequest, ServiceResponse};
use super::set::ServiceSet;
use super::time::UtcInstant;

/// What a faulted service call produced.
#[derive(Clone, Debug, PartialEq)]
pub enum Routed {
    /// An HTTP response (the service's, an injected one, or a damaged one).
    Response(ServiceResponse),
    /// The connection was reset before any response.
    ConnectionReset,
    /// No response in time.
    Timeout,
    /// No service of that name.
    NoSuchService,
}

/// Sends `request` to service `name` at the virtual time `now`, after asking `injector` (if
/// any) at the request's `service:<name><endpoint>` point.
pub fn route_with_faults(
    set: &mut ServiceSet,
    injector: Option<&SharedInjector>,
    name: &str,
    request: &ServiceRequest,
    now: UtcInstant,
) -> Routed {
    let fault = injector.and_then(|injector| {
        let path = request.route_path();
        let point = point::service(name, path);
        let health = point::is_health_check(request.headers.get(HEALTH_CHECK_HEADER));
        let call = Call::service(&point, path, request.method.as_str(), health);
        injector.decide(&call)
    });
    let Some(fault) = fault else {
        return serve(set, name, request, now);
    };
    if let Some(injected) = fault.kind.response() {
        let mut response = ServiceResponse::raw(
            injected.status,
            "application/json",
            injected.body.into_bytes(),
        );
        for (k, v) in injected.headers {
            response.headers.insert(k, v);
        }
        return Routed::Response(response);
    }
    match fault.kind {
        FaultKind::ConnectionReset => Routed::ConnectionReset,
        FaultKind::Timeout => Routed::Timeout,
        kind => match serve(set, name, request, now) {
            Routed::Response(mut response) => {
                if let Some(body) = kind.transform_body(&response.body_bytes()) {
                    response.body = Body::Raw(body);
                }
                Routed::Response(response)
            }
            other => other,
        },
    }
}

fn serve(set: &mut ServiceSet, name: &str, request: &ServiceRequest, now: UtcInstant) -> Routed {
    match set.route(name, request, now) {
        Some(response) => Routed::Response(response),
        None => Routed::NoSuchService,
    }
}
