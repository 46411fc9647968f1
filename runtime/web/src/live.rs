//! The live web, reached from the host only (never from a guest): a search API client and page
//! fetches, with every connection checked by the [`Guard`] (names are resolved by clawrun and
//! refused addresses never dialled; every redirect is checked again), a time limit per request
//! and a size limit per body.

use std::error::Error as StdError;
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::guard::{Guard, Refusal};
use super::request::{Fetched, WebError, WebRequest, WebResponse};

/// The largest body kept (bytes); the rest of a longer body is dropped.
pub const MAX_BODY_BYTES: usize = 10 << 20;
/// The `User-Agent` of page fetches (upstream's).
pub const USER_AGENT: &str = "Mozilla/5.0 (compatible; AgentEval/1.0)";
/// The search API upstream's `search_serp` calls unless `SERP_API_URL` says otherwise.
pub const DEFAULT_SEARCH_URL: &str = "https://scraperapi.novada.com/search";
/// The search API's time limit (upstream's).
pub const SEARCH_TIMEOUT: Duration = Duration::from_secs(20);
/// Redirects followed at most (httpx's default).
pub const MAX_REDIRECTS: usize = 20;

/// The search API: a ScraperAPI-compatible Google results endpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchApi {
    /// The endpoint (`GET` with `engine, api_key, q, num, hl, gl, start`).
    pub url: String,
    /// The key (`SERP_DEV_KEY`); never stored or shown.
    pub key: Option<String>,
}

/// A client of the live web.
pub struct LiveWeb {
    runtime: tokio::runtime::Runtime,
    client: reqwest::Client,
    guard: Arc<Guard>,
    search: SearchApi,
}

/// A refusal by the guard, carried through reqwest's error chain.
#[derive(Debug)]
struct Refused(String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl StdError for Refused {}

/// Resolves names itself and drops the addresses the guard refuses, so a name that resolves
/// to a private address is never dialled (and a second lookup cannot rebind it).
struct GuardedResolver {
    guard: Arc<Guard>,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        let guard = Arc::clone(&self.guard);
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| Refused(format!("could not resolve host {host}: {e}")))?
                .collect();
            let (admitted, refused): (Vec<SocketAddr>, Vec<SocketAddr>) =
                found.into_iter().partition(|a| guard.admits(&host, a.ip()));
            if admitted.is_empty() {
                let Some(first) = refused.first() else {
                    return Err(Refused(format!("could not resolve host {host}")).into());
                };
                let class = super::guard::restricted(first.ip()).unwrap_or("restricted");
                return Err(Refused(format!(
                    "{host} resolves to a {class} address ({}), which clawrun does not fetch \
                     from the live web; allow it with --web-allow {host}",
                    first.ip()
                ))
                .into());
            }
            Ok(Box::new(admitted.into_iter()) as Addrs)
        })
    }
}

impl LiveWeb {
    /// A client admitting what `guard` allows, searching through `search`.
    pub fn new(guard: Guard, search: SearchApi) -> Result<Self, WebError> {
        clawrun_agents::llm::install_crypto_provider();
        let guard = Arc::new(guard);
        let redirect_guard = Arc::clone(&guard);
        let policy = reqwest::redirect::Policy::custom(move |attempt| {
            if attempt.previous().len() >= MAX_REDIRECTS {
                return attempt.error(Refused(format!("more than {MAX_REDIRECTS} redirects")));
            }
            match check(&redirect_guard, attempt.url()) {
                Ok(()) => attempt.follow(),
                Err(why) => attempt.error(Refused(why.to_string())),
            }
        });
        let client = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .redirect(policy)
            // A proxy would resolve names itself, past the guard.
            .no_proxy()
            .connect_timeout(Duration::from_secs(10))
            .dns_resolver(Arc::new(GuardedResolver {
                guard: Arc::clone(&guard),
            }))
            .build()
            .map_err(|e| WebError::NotConfigured(format!("cannot build the web client: {e}")))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("clawrun-web")
            .enable_all()
            .build()
            .map_err(|e| WebError::NotConfigured(format!("cannot start the web client: {e}")))?;
        Ok(LiveWeb {
            runtime,
            client,
            guard,
            search,
        })
    }

    /// Sends `request` (a fetch with time limit `timeout`) and returns what the web did, and
    /// the latency in milliseconds. Callable from any thread, inside an async context or not.
    pub fn get(&self, request: &WebRequest, timeout: Duration) -> Result<(Fetched, u64), WebError> {
        let (url, timeout, search) = match request {
            WebRequest::Fetch { url } => (url.clone(), timeout, false),
            WebRequest::Search { query, num, hl, gl } => {
                let Some(key) = self.search.key.clone().filter(|k| !k.is_empty()) else {
                    return Err(WebError::NotConfigured(
                        "SERP_DEV_KEY is not set: the live web search needs the search API's key \
                         (the API is --web-search-url, default SERP_API_URL or upstream's)"
                            .into(),
                    ));
                };
                let mut url = reqwest::Url::parse(&self.search.url).map_err(|e| {
                    WebError::NotConfigured(format!(
                        "--web-search-url {}: not a URL ({e})",
                        self.search.url
                    ))
                })?;
                url.query_pairs_mut()
                    .append_pair("engine", "google")
                    .append_pair("api_key", &key)
                    .append_pair("q", query)
                    .append_pair("num", &num.to_string())
                    .append_pair("hl", hl)
                    .append_pair("gl", gl)
                    .append_pair("start", "1");
                (url.to_string(), SEARCH_TIMEOUT, true)
            }
        };
        let started = Instant::now();
        let job = fetch(
            self.client.clone(),
            Arc::clone(&self.guard),
            url,
            timeout.max(Duration::from_secs(1)),
        );
        let (tx, rx) = std::sync::mpsc::channel();
        self.runtime.spawn(async move {
            let _ = tx.send(job.await);
        });
        let mut fetched = rx
            .recv()
            .unwrap_or_else(|_| Fetched::Failed("the web client stopped".into()));
        let latency = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        if search {
            fetched = self.scrub(fetched);
        }
        Ok((fetched, latency))
    }

    /// A search API answer without the key: the URL cut to the endpoint, the key masked in the
    /// body (an API may echo its request).
    fn scrub(&self, fetched: Fetched) -> Fetched {
        let key = self.search.key.as_deref().unwrap_or_default();
        match fetched {
            Fetched::Response(mut r) => {
                if let Ok(mut url) = reqwest::Url::parse(&r.url) {
                    url.set_query(None);
                    r.url = url.to_string();
                }
                if !key.is_empty() && contains(&r.body, key.as_bytes()) {
                    let text = String::from_utf8_lossy(&r.body).replace(key, "SERP_DEV_KEY");
                    r.body = Arc::from(text.into_bytes());
                }
                Fetched::Response(r)
            }
            Fetched::Failed(e) if !key.is_empty() => {
                Fetched::Failed(e.replace(key, "SERP_DEV_KEY"))
            }
            other => other,
        }
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Whether `url` may be requested at all (its host and port against the allow list, an IP
/// address against the restricted ranges).
fn check(guard: &Guard, url: &reqwest::Url) -> Result<(), Refusal> {
    let host = url.host_str().ok_or_else(|| Refusal::NoHost {
        url: url.to_string(),
    })?;
    let port = url.port_or_known_default().unwrap_or(80);
    guard.check_url(host, port)
}

/// One `GET` with redirects, its body capped at [`MAX_BODY_BYTES`] (a longer one is cut there
/// and marked `truncated`).
async fn fetch(
    client: reqwest::Client,
    guard: Arc<Guard>,
    url: String,
    timeout: Duration,
) -> Fetched {
    let parsed = match reqwest::Url::parse(&url) {
        Ok(u) => u,
        Err(e) => return Fetched::Failed(format!("not a valid URL ({e}): {url}")),
    };
    if let Err(why) = check(&guard, &parsed) {
        return Fetched::Failed(why.to_string());
    }
    let attempt = async {
        let mut response = client.get(parsed).send().await?;
        let status = response.status().as_u16();
        let final_url = response.url().to_string();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response.chunk().await? {
            let room = MAX_BODY_BYTES - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok::<_, reqwest::Error>(WebResponse {
            status,
            url: final_url,
            content_type,
            body: Arc::from(body),
            truncated,
        })
    };
    match tokio::time::timeout(timeout, attempt).await {
        Ok(Ok(r)) => Fetched::Response(r),
        Ok(Err(e)) => Fetched::Failed(describe(&e, timeout)),
        Err(_) => Fetched::Failed(format!("timed out after {} s", timeout.as_secs())),
    }
}

/// A failed request in a line: the guard's refusal when it was one, else the root cause.
fn describe(e: &reqwest::Error, timeout: Duration) -> String {
    let mut source: Option<&(dyn StdError + 'static)> = Some(e);
    let mut root = e.to_string();
    while let Some(s) = source {
        if let Some(refused) = s.downcast_ref::<Refused>() {
            return refused.0.clone();
        }
        root = s.to_string();
        source = s.source();
    }
    if e.is_timeout() {
        return format!("timed out after {} s", timeout.as_secs());
    }
    if e.is_connect() {
        let host = e.url().and_then(|u| u.host_str()).unwrap_or("the host");
        return format!("could not connect to {host}: {root}");
    }
    root
}
