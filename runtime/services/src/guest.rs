//! Guests' `wasi:http` door: an [`HttpRouter`] that sends `http://<service>.local/...` and the
//! task's `http://localhost:<port>/...` URLs to the trial's services at the virtual time, other
//! `GET`/`HEAD` requests to the trial's web (live, recorded or replayed, as the run says), and
//! refuses everything else as "destination not found".

use std::sync::{Arc, Mutex};

use clawrun_hostcall::clock::VirtualClock;
use clawrun_hostcall::http::{GuestHttpError, GuestRequest, GuestResponse, HttpRouter};

use super::faulted::{Routed, route_with_faults};
use super::http::{Method, ServiceRequest};
use super::router::Router;
use super::set::ServiceSet;
use super::time::UtcInstant;
use clawrun_faults::SharedInjector;
use clawrun_web::{Fetched, WebError, WebMode, WebRequest, WebSession};

/// A trial's services shared between the host (tool dispatch, judge) and its guests.
pub type SharedServices = Arc<Mutex<ServiceSet>>;

/// Routes guests' HTTP requests to services, and to the web when it has one.
pub struct GuestRouter {
    services: SharedServices,
    router: Router,
    clock: VirtualClock,
    web: Option<WebSession>,
    /// Whether `/<service>/audit` and `/<service>/reset` answer (the harness's endpoints: the
    /// judge phase's commands, never the agent).
    harness: bool,
    /// The trial's faults, asked at each service call's `service:` point as for its tool.
    faults: Option<SharedInjector>,
}

impl GuestRouter {
    /// Serves `services` (addressed through `router`) at `clock`'s time.
    pub fn new(services: SharedServices, router: Router, clock: VirtualClock) -> Self {
        Self {
            services,
            router,
            clock,
            web: None,
            harness: true,
            faults: None,
        }
    }

    /// Asks `faults` at every service call's `service:<name><path>` point, as a call through
    /// the service's tool is asked: calling a service from Bash does not dodge the plan.
    pub fn with_faults(mut self, faults: SharedInjector) -> Self {
        self.faults = Some(faults);
        self
    }

    /// Refuses the harness's endpoints (`/<service>/audit`, `/<service>/reset`): an agent
    /// must not empty the audit its gates read, nor read what the judge will see.
    pub fn for_agent(mut self) -> Self {
        self.harness = false;
        self
    }

    /// Also answers other `GET` and `HEAD` requests from `web` (unless its mode is off).
    pub fn with_web(mut self, web: WebSession) -> Self {
        self.web = Some(web).filter(|w| w.web().mode() != WebMode::Off);
        self
    }

    /// A request for no service: from the web, when there is one.
    fn ask_web(&self, request: &GuestRequest, url: &str) -> Result<GuestResponse, GuestHttpError> {
        let Some(web) = &self.web else {
            return Err(GuestHttpError::DestinationNotFound);
        };
        let head = request.method.eq_ignore_ascii_case("HEAD");
        if !head && !request.method.eq_ignore_ascii_case("GET") {
            return Ok(refusal(
                403,
                &format!(
                    "clawrun's web answers only GET and HEAD requests from the sandbox, not {}",
                    request.method
                ),
            ));
        }
        let fetch = WebRequest::fetch(url).map_err(|_| GuestHttpError::DestinationNotFound)?;
        let timeout = clawrun_web::live::SEARCH_TIMEOUT + std::time::Duration::from_secs(10);
        match web.web().get(&fetch, timeout) {
            Ok(Fetched::Response(page)) => {
                let mut headers = Vec::new();
                if let Some(ct) = &page.content_type {
                    headers.push(("content-type".to_string(), ct.clone()));
                }
                headers.push(("content-length".into(), page.body.len().to_string()));
                if page.truncated {
                    // The page was longer than the web layer keeps: the guest's curl says so
                    // and fails as curl's --max-filesize does.
                    headers.push(("x-clawrun-web".into(), TRUNCATED.into()));
                }
                Ok(GuestResponse {
                    status: page.status,
                    headers,
                    body: if head { Vec::new() } else { page.body.to_vec() },
                })
            }
            Ok(Fetched::Failed(why)) if why.starts_with("timed out") => {
                Err(GuestHttpError::Timeout)
            }
            Ok(Fetched::Failed(_)) | Err(WebError::Off) => Err(GuestHttpError::DestinationNotFound),
            // A replay without the page, or a broken cassette: an answer naming why, so the
            // command's output says it.
            Err(e) => Ok(refusal(502, &e.for_trial())),
        }
    }
}

/// The `x-clawrun-web` value of a page cut at the web layer's body limit
/// ([`clawrun_web::live::MAX_BODY_BYTES`]).
pub const TRUNCATED: &str = "truncated";

/// A plain-text answer from clawrun itself (marked `x-clawrun-web: refused`): a refused
/// method or harness endpoint, a replay miss.
fn refusal(status: u16, why: &str) -> GuestResponse {
    let body = format!("{why}\n").into_bytes();
    GuestResponse {
        status,
        headers: vec![
            ("content-type".into(), "text/plain; charset=utf-8".into()),
            ("x-clawrun-web".into(), "refused".into()),
            ("content-length".into(), body.len().to_string()),
        ],
        body,
    }
}

impl HttpRouter for GuestRouter {
    fn route(&mut self, request: &GuestRequest) -> Result<GuestResponse, GuestHttpError> {
        let url = format!(
            "{}://{}{}",
            request.scheme, request.authority, request.path_and_query
        );
        let Ok(target) = self.router.resolve(&url) else {
            return self.ask_web(request, &url);
        };
        let mut services = self.services.lock().unwrap_or_else(|p| p.into_inner());
        if !self.harness
            && let Some(service) = services.get(&target.service)
        {
            let prefix = service.def().path_prefix();
            let path = target
                .path
                .split_once('?')
                .map_or(&*target.path, |(p, _)| p);
            let path = path.trim_end_matches('/');
            if path == format!("/{prefix}/audit") || path == format!("/{prefix}/reset") {
                return Ok(refusal(
                    403,
                    &format!(
                        "{path} is not reachable from the sandbox: only the harness resets \
                         services and reads their audits"
                    ),
                ));
            }
        }
        let mut req = ServiceRequest::new(Method::parse(&request.method), target.path);
        for (name, value) in &request.headers {
            req.headers.insert(name, value.clone());
        }
        req.body.clone_from(&request.body);
        let now = UtcInstant::from_duration(self.clock.wall());
        let resp = match route_with_faults(
            &mut services,
            self.faults.as_ref(),
            &target.service,
            &req,
            now,
        ) {
            Routed::Response(resp) => resp,
            Routed::ConnectionReset => return Err(GuestHttpError::ConnectionReset),
            Routed::Timeout => return Err(GuestHttpError::Timeout),
            Routed::NoSuchService => return Err(GuestHttpError::DestinationNotFound),
        };
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
