//! Guests' `wasi:http` door: an [`HttpRouter`] that sends `http://<service>.local/...` and the
//! task's `http://localhost:<port>/...` URLs to the trial's services at the virtual time, and
//! refuses everything else as "destination not found".

use std::sync::{Arc, Mutex};

use crate::sandbox::clock::VirtualClock;
use crate::sandbox::http::{GuestHttpError, GuestRequest, GuestResponse, HttpRouter};

use super::http::{Method, ServiceRequest};
use super::router::Router;
use super::set::ServiceSet;
use super::time::Timestamp;

/// A trial's services shared between the host (tool dispatch, judge) and its guests.
pub type SharedServices = Arc<Mutex<ServiceSet>>;

/// Routes guests' HTTP requests to services.
pub struct GuestRouter {
    services: SharedServices,
    router: Router,
    clock: VirtualClock,
}

impl GuestRouter {
    /// Serves `services` (addressed through `router`) at `clock`'s time.
    pub fn new(services: SharedServices, router: Router, clock: VirtualClock) -> Self {
        Self {
            services,
            router,
            clock,
        }
    }
}

impl HttpRouter for GuestRouter {
    fn route(&mut self, request: &GuestRequest) -> Result<GuestResponse, GuestHttpError> {
        let url = format!(
            "{}://{}{}",
            request.scheme, request.authority, request.path_and_query
        );
        let target = self
            .router
            .resolve(&url)
            .map_err(|_| GuestHttpError::DestinationNotFound)?;
        let mut req = ServiceRequest::new(Method::parse(&request.method), target.path);
        for (name, value) in &request.headers {
            req.headers.insert(name, value.clone());
        }
        req.body.clone_from(&request.body);
        let now = Timestamp::from_duration(self.clock.wall());
        let mut services = self.services.lock().unwrap_or_else(|p| p.into_inner());
        let resp = services
            .route(&target.service, &req, now)
            .ok_or(GuestHttpError::DestinationNotFound)?;
        let body = resp.body_bytes();
        let mut headers: Vec<(String, String)> = resp
            .headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        headers.push(("content-length".into(), body.len().to_string()));
        Ok(GuestResponse {
            status: resp.status,
            headers,
            body,
        })
    }
}
