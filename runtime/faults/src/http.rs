//! Faults on guests' outgoing HTTP: a [`FaultyRouter`] sits in front of the router that really
//! answers and asks the injector about every request at its `http:<host><path>` point.

use clawrun_hostcall::http::{GuestHttpError, GuestRequest, GuestResponse, HttpRouter};

use super::fs::SharedInjector;
use super::kind::FaultKind;
use super::point::{self, Call, HEALTH_CHECK_HEADER};

/// An [`HttpRouter`] that injects the plan's faults before (or after) the inner router.
pub struct FaultyRouter {
    inner: Box<dyn HttpRouter>,
    injector: SharedInjector,
}

impl FaultyRouter {
    /// Wraps `inner`; decisions and events go through `injector`.
    pub fn new(inner: Box<dyn HttpRouter>, injector: SharedInjector) -> Self {
        Self { inner, injector }
    }
}

impl HttpRouter for FaultyRouter {
    fn route(&mut self, request: &GuestRequest) -> Result<GuestResponse, GuestHttpError> {
        let point = point::http(&request.authority, &request.path_and_query);
        let health = request
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(HEALTH_CHECK_HEADER))
            .map(|(_, v)| v.as_str());
        let call = Call::http(&point, &request.path_and_query, &request.method)
            .with_health_check(point::is_health_check(health));
        let Some(fault) = self.injector.decide(&call) else {
            return self.inner.route(request);
        };
        if let Some(injected) = fault.kind.response() {
            return Ok(GuestResponse {
                status: injected.status,
                headers: injected
                    .headers
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
                body: injected.body.into_bytes(),
            });
        }
        match fault.kind {
            FaultKind::ConnectionReset => Err(GuestHttpError::ConnectionReset),
            FaultKind::Timeout => Err(GuestHttpError::Timeout),
            // The injector already moved the virtual clock for latency; serve normally.
            _ => {
                let mut response = self.inner.route(request)?;
                if let Some(body) = fault.kind.transform_body(&response.body) {
                    response.body = body;
                }
                Ok(response)
            }
        }
    }
}
