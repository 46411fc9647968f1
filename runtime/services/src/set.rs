//! The services of one task: loaded once, forked per trial, addressed by instance name.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::builtin;
use super::engine::{Fixture, Service};
use super::http::{Method, ServiceRequest, ServiceResponse};
use super::json::{Json, Obj};
use super::load::{Base, FixtureOptions, FixtureRoot, LoadCtx, LoadError, load_records};
use super::spec::ServiceSpec;
use super::store::Records;
use super::time::UtcInstant;
use clawrun_web::WebSession;

/// A readiness probe: method and path.
type Probe = (Method, String);

/// A task's running services. Cloning (or [`fork`](Self::fork)) is O(number of services): each
/// service is shared until a fork first writes to it, and even then its records are persistent.
#[derive(Clone, Default)]
pub struct ServiceSet {
    /// Sorted by name.
    services: Vec<Arc<Service>>,
    /// Readiness probes (`health_check` of the task), by service index.
    probes: Vec<Option<Probe>>,
}

impl ServiceSet {
    /// No services.
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads `specs` (a task's `services:`) with fixtures under the host folder `root` (the
    /// Claw-Eval root), applying load-time date shifts relative to `now`.
    ///
    /// Fixture paths follow the host's rules, as Claw-Eval's services read them (absolute
    /// paths, `..` anywhere): ambient authority, so the caller passes cap-std's token
    /// (`clawrun services`, tests). Trials use [`ServiceSet::load_in`].
    pub fn load(
        root: &Path,
        specs: &[ServiceSpec],
        options: &FixtureOptions,
        now: UtcInstant,
        authority: cap_std::AmbientAuthority,
    ) -> Result<Self, LoadError> {
        let root = std::path::absolute(root).map_err(|source| LoadError::Root {
            root: root.to_path_buf(),
            source,
        })?;
        Self::load_from(FixtureRoot::Host(&root, authority), specs, options, now)
    }

    /// Like [`ServiceSet::load`], reading every fixture through the capability `suite` (the
    /// folder holding `tasks/`): nothing outside it can be read, at load time or later.
    pub fn load_in(
        suite: &cap_std::fs::Dir,
        specs: &[ServiceSpec],
        options: &FixtureOptions,
        now: UtcInstant,
    ) -> Result<Self, LoadError> {
        Self::load_from(FixtureRoot::Dir(suite), specs, options, now)
    }

    /// Loads `specs` with fixtures under `root`.
    fn load_from(
        root: FixtureRoot<'_>,
        specs: &[ServiceSpec],
        options: &FixtureOptions,
        now: UtcInstant,
    ) -> Result<Self, LoadError> {
        let mut by_name: BTreeMap<&str, (Arc<Service>, Option<Probe>)> = BTreeMap::new();
        let mut ports: BTreeMap<u16, &str> = BTreeMap::new();
        for spec in specs {
            let kind = spec.kind();
            let def = builtin::lookup(kind).ok_or_else(|| LoadError::UnknownKind {
                name: spec.name.clone(),
                kind: kind.into(),
            })?;
            if by_name.contains_key(spec.name.as_str()) {
                return Err(LoadError::Duplicate {
                    name: spec.name.clone(),
                });
            }
            let port = spec
                .port
                .or_else(|| spec.env.get("PORT").and_then(|p| p.trim().parse().ok()))
                .or_else(|| {
                    spec.health_check
                        .as_deref()
                        .and_then(|u| super::router::split_url(u).and_then(|u| u.port))
                })
                .unwrap_or(def.port);
            if let Some(first) = ports.insert(port, &spec.name) {
                return Err(LoadError::PortClash {
                    port,
                    first: first.into(),
                    second: spec.name.clone(),
                });
            }
            let cx = LoadCtx {
                root,
                spec,
                options,
                now,
            };
            let (loaded, src) = match &def.fixture {
                Fixture::Records { var, default } => {
                    let (l, s) = load_records(&cx, var, default)?;
                    (l, Some(s))
                }
                Fixture::Custom(f) => (f(&cx)?, None),
            };
            let base = Base::new(loaded);
            let objs = match def.prepare {
                Some(prepare) => prepare(&base.raw, now).map_err(|e| match &src {
                    Some(s) => cx.bad(s, e.to_string()),
                    None => LoadError::Fixture {
                        service: spec.name.clone(),
                        file: cx.root_path(),
                        message: e.to_string(),
                    },
                })?,
                None => base.raw.clone(),
            };
            let records = Records::new(objs, def.derive);
            let service = Service::new(
                spec.name.as_str().into(),
                def,
                port,
                Arc::new(base),
                records,
            );
            let probe = spec
                .health_check
                .as_deref()
                .and_then(super::router::split_url)
                .map(|u| {
                    let method = spec
                        .health_check_method
                        .as_deref()
                        .map_or(Method::Post, |m| Method::parse(&m.to_ascii_uppercase()));
                    (method, u.path.to_string())
                });
            by_name.insert(&spec.name, (Arc::new(service), probe));
        }
        let (services, probes) = by_name.into_values().unzip();
        Ok(Self { services, probes })
    }

    /// An independent copy sharing all unchanged state (O(number of services)).
    pub fn fork(&self) -> Self {
        self.clone()
    }

    /// Gives the services that reach the web (`web_real`, `web_real_injection`) the trial's
    /// web.
    pub fn attach_web(&mut self, web: &WebSession) {
        for s in &mut self.services {
            if builtin::needs_web(s.kind()) {
                Arc::make_mut(s).attach_web(web.clone());
            }
        }
    }

    /// The instance names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.services.iter().map(|s| s.name())
    }

    /// The services, sorted by name.
    pub fn services(&self) -> impl Iterator<Item = &Service> {
        self.services.iter().map(|s| &**s)
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.services.binary_search_by(|s| s.name().cmp(name)).ok()
    }

    /// The service named `name`.
    pub fn get(&self, name: &str) -> Option<&Service> {
        self.index(name).map(|i| &*self.services[i])
    }

    /// Mutable access to service `name` (copying it first if a fork shares it).
    pub fn get_mut(&mut self, name: &str) -> Option<&mut Service> {
        let i = self.index(name)?;
        Some(Arc::make_mut(&mut self.services[i]))
    }

    /// Sends `req` to service `name` at virtual time `now` (`None` if there is no such service).
    pub fn route(
        &mut self,
        name: &str,
        req: &ServiceRequest,
        now: UtcInstant,
    ) -> Option<ServiceResponse> {
        Some(self.get_mut(name)?.call(req, now))
    }

    /// The audit of service `name`, as `GET /<kind>/audit` returns it.
    pub fn audit(&self, name: &str) -> Option<Json> {
        self.get(name).map(Service::audit)
    }

    /// Every service's audit keyed by instance name (the graders' `audit_data`).
    pub fn audits(&self) -> Obj {
        self.services
            .iter()
            .map(|s| (Arc::from(s.name()), s.audit()))
            .collect()
    }

    /// Every service's [`Service::audit_text`] with its instance name, in the set's order.
    pub fn audit_texts(&self) -> impl Iterator<Item = (&str, String)> {
        self.services.iter().map(|s| (s.name(), s.audit_text()))
    }

    /// Resets every service at `now` (what the runner does between trials).
    pub fn reset_all(&mut self, now: UtcInstant) {
        for s in &mut self.services {
            // A failing re-shift answers 500 upstream and leaves the service as it was.
            let _ = Arc::make_mut(s).reset(now);
        }
    }

    /// Runs the runner's readiness probes: each service's `health_check` request with
    /// `X-Health-Check: 1` and no body. Business services log it like a call (the first trial's
    /// audit starts with that entry upstream). Returns each probed service and its status.
    pub fn probe_health(&mut self, now: UtcInstant) -> Vec<(String, u16)> {
        let mut out = Vec::new();
        for (s, probe) in self.services.iter_mut().zip(&self.probes) {
            let Some((method, path)) = probe else {
                continue;
            };
            let req = ServiceRequest::new(*method, path.clone()).with_header("x-health-check", "1");
            let status = Arc::make_mut(s).call(&req, now).status;
            out.push((s.name().to_string(), status));
        }
        out
    }
}
