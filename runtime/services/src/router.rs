//! URL routing: a task's original `http://localhost:<port>/<path>` URLs and
//! `http://<service>.local/<path>` both lead to a service instance; everything else is refused.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::set::ServiceSet;

/// The parts of an `http://` URL that routing needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Url<'a> {
    /// Lower-case host without brackets.
    pub host: &'a str,
    /// Explicit port.
    pub port: Option<u16>,
    /// Path and query (`/` if empty), fragment removed.
    pub path: &'a str,
}

/// Splits an `http://host[:port][/path][?query]` URL (`None` for other schemes or bad ports).
pub(crate) fn split_url(url: &str) -> Option<Url<'_>> {
    let (scheme, rest) = url.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("http") {
        return None;
    }
    let rest = rest.split_once('#').map_or(rest, |(r, _)| r);
    let split = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(split);
    let path = if path.is_empty() { "/" } else { path };
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, after) = v6.split_once(']')?;
        (h, after.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match port {
        Some(p) => Some(p.parse().ok()?),
        None => None,
    };
    Some(Url { host, port, path })
}

/// Where a URL leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The service instance name.
    pub service: Arc<str>,
    /// The path (with query) to request.
    pub path: String,
}

/// A URL that leads to no service.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("destination not found: {0}")]
pub struct NotFound(pub String);

/// Maps URLs to service instances.
#[derive(Clone, Debug, Default)]
pub struct Router {
    ports: BTreeMap<u16, Arc<str>>,
    hosts: BTreeMap<String, Arc<str>>,
}

const LOOPBACK: [&str; 4] = ["localhost", "127.0.0.1", "::1", "0.0.0.0"];

impl Router {
    /// Routes for `set` on the ports its task names.
    pub fn new(set: &ServiceSet) -> Self {
        Self::with_port_offset(set, 0)
    }

    /// Routes for `set` with every port shifted by `offset` (parallel runs, `--port-base`).
    pub fn with_port_offset(set: &ServiceSet, offset: i32) -> Self {
        let mut r = Router::default();
        let mut kinds: BTreeMap<&str, Vec<Arc<str>>> = BTreeMap::new();
        for s in set.services() {
            let name: Arc<str> = s.name().into();
            if let Ok(port) = u16::try_from(i32::from(s.port()) + offset) {
                r.ports.insert(port, name.clone());
            }
            r.hosts.insert(
                format!("{}.local", s.name().to_ascii_lowercase()),
                name.clone(),
            );
            kinds.entry(s.kind()).or_default().push(name);
        }
        for (kind, names) in kinds {
            if let [only] = names.as_slice() {
                r.hosts
                    .entry(format!("{kind}.local"))
                    .or_insert_with(|| only.clone());
            }
        }
        r
    }

    /// The service and path `url` leads to.
    pub fn resolve(&self, url: &str) -> Result<Target, NotFound> {
        let not_found = || NotFound(url.to_string());
        let u = split_url(url).ok_or_else(not_found)?;
        let host = u.host.to_ascii_lowercase();
        let service = if LOOPBACK.contains(&host.as_str()) {
            self.ports.get(&u.port.unwrap_or(80))
        } else if matches!(u.port, None | Some(80)) {
            self.hosts.get(&host)
        } else {
            None
        };
        let service = service.ok_or_else(not_found)?.clone();
        Ok(Target {
            service,
            path: u.path.to_string(),
        })
    }
}
