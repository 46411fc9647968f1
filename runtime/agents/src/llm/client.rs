//! [`LlmClient`]: one model endpoint with retries, limits, a response cache and token counts;
//! [`LlmAgent`]: the client as an [`Agent`].

use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::CONTENT_TYPE;
use serde_json::Value;
use tokio::sync::Semaphore;

use super::cache::ResponseCache;
use super::config::{ModelConfig, Provider, ResolvedEndpoint};
use super::{anthropic, control, io, limits, openai, retry};
use crate::agent::{Agent, AgentError, Complete, Reply};
use crate::conversation::{Conversation, Message, Usage};

/// Why [`LlmClient::probe`] found the endpoint unusable (one line naming the endpoint).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// The run was cancelled while probing.
    #[error("{model}: cancelled")]
    Cancelled {
        /// The model, as `provider:model`.
        model: String,
    },
    /// The endpoint answered 401 or 403.
    #[error(
        "{model} at {base_url}: the API key was refused (HTTP {status}: {message}); check the key \
         variable or the config's api_key"
    )]
    KeyRefused {
        /// The model, as `provider:model`.
        model: String,
        /// The endpoint's base URL.
        base_url: String,
        /// The HTTP status.
        status: u16,
        /// The endpoint's error message.
        message: String,
    },
    /// No connection could be made, after retries.
    #[error(
        "{model} at {base_url}: {last} ({attempts} attempts); start the server or fix the base \
         URL (or pass --no-probe to skip this check)"
    )]
    Unreachable {
        /// The model, as `provider:model`.
        model: String,
        /// The endpoint's base URL.
        base_url: String,
        /// The last connection error.
        last: String,
        /// How many connections were tried.
        attempts: u32,
    },
}

/// Why a model's response body is unusable: the part it lacks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ResponseError {
    /// OpenAI: no `choices[0].message`.
    #[error("response has no choices[0].message")]
    Choice,
    /// Anthropic: no `content` array.
    #[error("response has no content array")]
    ContentArray,
    /// OpenAI: tool call `i` has no `function`.
    #[error("tool_calls[{0}] has no function")]
    Function(usize),
    /// OpenAI: tool call `i` has no function name.
    #[error("tool_calls[{0}] has no function name")]
    FunctionName(usize),
    /// Anthropic: content block `i` (a `tool_use`) has no name.
    #[error("content[{0}] (tool_use) has no name")]
    ToolName(usize),
}

/// Counters of one client (and its clones) since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientStats {
    /// `complete` calls that returned a reply.
    pub replies: u64,
    /// Replies served from the cache (no HTTP request).
    pub cache_hits: u64,
    /// HTTP requests sent (first attempts and retries).
    pub http_requests: u64,
    /// Retries after a failed attempt.
    pub retries: u64,
    /// Tokens of all replies, cached ones included (they report their recorded usage).
    pub usage: Usage,
}

/// A client for one model endpoint; cheap to clone (clones share counters).
#[derive(Clone)]
pub struct LlmClient {
    /// The shared state.
    inner: Arc<Inner>,
    /// The trial seed this client's requests belong to: part of the cache key, so each trial
    /// is its own sample even when the cache is on.
    sample: Option<u64>,
}

/// What clones of a client share.
struct Inner {
    /// The configuration as given.
    config: ModelConfig,
    /// Base URL, key and cache folder after consulting the environment.
    endpoint: ResolvedEndpoint,
    /// The full request URL.
    url: String,
    /// The HTTP client (connection pool).
    http: reqwest::Client,
    /// The response cache, when enabled and a folder is known.
    cache: Option<ResponseCache>,
    /// The endpoint's process-wide concurrency limit.
    limit: Arc<Semaphore>,
    /// Counters.
    stats: Mutex<ClientStats>,
}

/// How one HTTP attempt ended.
enum Attempt {
    /// A 2xx response with a JSON body.
    Done(Value),
    /// A failure worth retrying, with the server's requested wait.
    Retry(String, Option<Duration>),
    /// A failure retrying cannot fix.
    Fatal(String),
    /// No connection could be made (refused, DNS failure): retried a few times only.
    Unreachable(String),
}

impl LlmClient {
    /// A client for `config`, reading unset endpoint settings from the environment.
    pub fn new(config: ModelConfig) -> Result<Self, AgentError> {
        let endpoint = config.resolve()?;
        Self::with_endpoint(config, endpoint)
    }

    /// A client for `config` sending to an already resolved endpoint.
    pub fn with_endpoint(
        config: ModelConfig,
        endpoint: ResolvedEndpoint,
    ) -> Result<Self, AgentError> {
        let url = match config.provider {
            Provider::OpenAi => format!("{}{}", endpoint.base_url, openai::PATH),
            Provider::Anthropic => {
                // Accept a base that already ends in /v1, as some gateways document it.
                let base = endpoint.base_url.trim_end_matches("/v1");
                format!("{base}{}", anthropic::PATH)
            }
        };
        install_crypto_provider();
        let mut builder = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout.min(Duration::from_secs(30)))
            .user_agent(concat!("clawrun/", env!("CARGO_PKG_VERSION")));
        if is_loopback(&endpoint.base_url) {
            builder = builder.no_proxy();
        }
        // Plain HTTP needs no certificates: skip loading the platform's (a hundred-odd files
        // per client).
        if endpoint.base_url.starts_with("http://") {
            builder = builder.tls_certs_only(Vec::<reqwest::Certificate>::new());
        }
        let http = builder.build().map_err(|e| {
            AgentError::Infra(format!(
                "{}: cannot build HTTP client: {}",
                config.describe(),
                chain(&e)
            ))
        })?;
        let cache = if config.cache_enabled() {
            endpoint.cache_dir.clone().map(ResponseCache::new)
        } else {
            None
        };
        let limit = limits::semaphore(config.provider, &endpoint.base_url, config.concurrency);
        Ok(LlmClient {
            inner: Arc::new(Inner {
                config,
                endpoint,
                url,
                http,
                cache,
                limit,
                stats: Mutex::default(),
            }),
            sample: None,
        })
    }

    /// This client for the requests of the trial with seed `seed` (sharing the counters):
    /// cached responses are keyed by the request and this seed.
    pub fn for_sample(&self, seed: u64) -> Self {
        LlmClient {
            inner: Arc::clone(&self.inner),
            sample: Some(seed),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.inner.config
    }

    /// The resolved endpoint (base URL, key, cache folder).
    pub fn endpoint(&self) -> &ResolvedEndpoint {
        &self.inner.endpoint
    }

    /// `provider:model`, e.g. `openai:gpt-4o`.
    pub fn describe(&self) -> String {
        self.inner.config.describe()
    }

    /// The counters so far.
    pub fn stats(&self) -> ClientStats {
        *self.inner.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Tokens of all replies so far.
    pub fn usage(&self) -> Usage {
        self.stats().usage
    }

    /// The JSON body this client would send for `conversation` (its images as
    /// [`visible`](super::images::visible) leaves them).
    pub fn request_body(&self, conversation: &Conversation) -> Value {
        let conversation = &*super::images::visible(conversation);
        match self.inner.config.provider {
            Provider::OpenAi => openai::request_body(&self.inner.config, conversation),
            Provider::Anthropic => anthropic::request_body(&self.inner.config, conversation),
        }
    }

    /// The model's next assistant message for `conversation`: from the cache when enabled
    /// and present, else over HTTP with bounded retries (then cached). Fails with
    /// [`AgentError::Infra`] when retries run out, on a non-retryable status (naming it and
    /// the provider's message), or when the endpoint is unusable.
    pub async fn complete(&self, conversation: &Conversation) -> Result<Reply, AgentError> {
        let config = &self.inner.config;
        let body = self.request_body(conversation);
        let turn = conversation.turns();
        let key = ResponseCache::key(
            config.provider,
            &self.inner.endpoint.base_url,
            &config.model,
            &body,
            self.sample,
        );
        if let Some(cache) = &self.inner.cache
            && let Some(response) = cache.get(&key)
            && let Ok((message, usage)) = self.parse(&response, turn)
        {
            self.count(|s| s.cache_hits += 1);
            return Ok(Reply {
                cached: true,
                ..self.reply(message, usage)
            });
        }
        let bytes = serde_json::to_vec(&body).expect("JSON values serialize");
        let url = &self.inner.url;
        let (mut attempt, mut unreachable) = (0u32, 0u32);
        loop {
            if let Some(reason) = control::unreachable(url) {
                return Err(AgentError::Infra(format!(
                    "{}: {reason}",
                    config.describe()
                )));
            }
            let sent = control::cancellable(self.send(&bytes)).await;
            let (error, retry_after) = match sent {
                None => return Err(cancelled(config)),
                Some(Attempt::Done(response)) => match self.parse(&response, turn) {
                    Ok((message, usage)) => {
                        if let Some(cache) = &self.inner.cache {
                            // A cache that cannot be written only costs a later HTTP call.
                            let _ = cache.put(&key, config.provider, &config.model, &response);
                        }
                        return Ok(self.reply(message, usage));
                    }
                    Err(e) => (
                        format!("unusable response: {e}: {}", excerpt(&response)),
                        None,
                    ),
                },
                Some(Attempt::Retry(error, retry_after)) => (error, retry_after),
                Some(Attempt::Unreachable(error)) => {
                    unreachable += 1;
                    if unreachable > retry::UNREACHABLE_RETRIES.min(config.max_retries) {
                        let reason =
                            format!("cannot reach {url} after {} attempts: {error}", attempt + 1);
                        control::mark_unreachable(url, &reason);
                        return Err(AgentError::Infra(format!(
                            "{}: {reason}",
                            config.describe()
                        )));
                    }
                    (error, None)
                }
                Some(Attempt::Fatal(error)) => {
                    return Err(AgentError::Infra(format!("{}: {error}", config.describe())));
                }
            };
            if attempt >= config.max_retries {
                return Err(AgentError::Infra(format!(
                    "{}: gave up after {} attempts; last error: {error}",
                    config.describe(),
                    attempt + 1
                )));
            }
            let wait = retry::delay(config, attempt, key.as_bytes(), retry_after);
            let budget = if unreachable > 0 {
                retry::UNREACHABLE_RETRIES.min(config.max_retries) + 1
            } else {
                config.max_retries + 1
            };
            control::report_retry(
                &config.describe(),
                &format!(
                    "clawrun: {}: attempt {} of at most {budget} failed ({error}); retrying in {:.1} s",
                    config.describe(),
                    attempt + 1,
                    wait.as_secs_f64()
                ),
            );
            if control::cancellable(tokio::time::sleep(wait))
                .await
                .is_none()
            {
                return Err(cancelled(config));
            }
            attempt += 1;
            self.count(|s| s.retries += 1);
        }
    }

    /// Checks that the endpoint answers before a run starts: `GET {base}/models` (Anthropic:
    /// `{base}/v1/models`) with the credentials, retried briefly when the connection fails. Any
    /// answer but 401/403 counts (some servers have no model list); a connection that cannot be
    /// made and a refused key are one-line errors naming the endpoint.
    pub async fn probe(&self) -> Result<(), ProbeError> {
        let inner = &self.inner;
        let config = &inner.config;
        let url = match config.provider {
            Provider::OpenAi => format!("{}/models", inner.endpoint.base_url),
            Provider::Anthropic => format!(
                "{}/v1/models",
                inner.endpoint.base_url.trim_end_matches("/v1")
            ),
        };
        let mut last = String::new();
        let mut silent = 0;
        for attempt in 0..=retry::UNREACHABLE_RETRIES {
            if attempt > 0 {
                let wait = retry::probe_delay(attempt);
                let sleep = control::cancellable(tokio::time::sleep(wait)).await;
                if sleep.is_none() {
                    return Err(ProbeError::Cancelled {
                        model: config.describe(),
                    });
                }
            }
            let limit = retry::PROBE_TIMEOUT.min(config.timeout);
            let request = self.authorize(inner.http.get(&url)).timeout(limit);
            // On the model-HTTP runtime (see `send`); only the status and body are kept.
            let send = io::run(async move {
                let response = request.send().await?;
                let status = response.status().as_u16();
                let bytes = response.bytes().await.unwrap_or_default();
                Ok::<_, reqwest::Error>((status, bytes))
            });
            tokio::pin!(send);
            // A wait of more than a few seconds says what it waits for.
            let sent = tokio::select! {
                sent = control::cancellable(&mut send) => sent,
                () = tokio::time::sleep(retry::PROBE_NOTICE_AFTER) => {
                    control::report_retry(&config.describe(), &format!(
                        "clawrun: waiting for {} at {} to answer the probe `GET {url}` \
                         (attempt {} of {}, up to {} s; --no-probe skips it)",
                        config.describe(),
                        inner.endpoint.base_url,
                        attempt + 1,
                        retry::UNREACHABLE_RETRIES + 1,
                        limit.as_secs_f64()
                    ));
                    control::cancellable(&mut send).await
                }
            };
            let (status, bytes) = match sent {
                None => {
                    return Err(ProbeError::Cancelled {
                        model: config.describe(),
                    });
                }
                Some(Err(e)) => {
                    last = e;
                    continue;
                }
                Some(Ok(Ok(answer))) => answer,
                Some(Ok(Err(e))) if e.is_timeout() => {
                    silent += 1;
                    last = format!(
                        "no answer to `GET {url}` within {} s (the server accepts connections \
                         but does not answer)",
                        limit.as_secs_f64()
                    );
                    if silent >= retry::PROBE_SILENT_TRIES {
                        return Err(ProbeError::Unreachable {
                            model: config.describe(),
                            base_url: inner.endpoint.base_url.clone(),
                            last,
                            attempts: attempt + 1,
                        });
                    }
                    continue;
                }
                Some(Ok(Err(e))) => {
                    last = transport_error(&e, &url);
                    continue;
                }
            };
            if status == 401 || status == 403 {
                return Err(ProbeError::KeyRefused {
                    model: config.describe(),
                    base_url: inner.endpoint.base_url.clone(),
                    status,
                    message: error_message(&bytes),
                });
            }
            return Ok(());
        }
        Err(ProbeError::Unreachable {
            model: config.describe(),
            base_url: inner.endpoint.base_url.clone(),
            last,
            attempts: retry::UNREACHABLE_RETRIES + 1,
        })
    }

    /// Whether requests to this client's endpoint were given up as unreachable, and why.
    pub fn unreachable(&self) -> Option<String> {
        control::unreachable(&self.inner.url)
    }

    /// Forgets an earlier "unreachable" verdict on this client's endpoint.
    pub fn clear_unreachable(&self) {
        control::clear_unreachable(&self.inner.url);
    }

    /// `request` with the provider's headers and the API key.
    fn authorize(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match (self.inner.config.provider, &self.inner.endpoint.api_key) {
            (Provider::OpenAi, Some(key)) => request = request.bearer_auth(key),
            (Provider::OpenAi, None) => {}
            (Provider::Anthropic, key) => {
                request = request.header("anthropic-version", anthropic::VERSION);
                if let Some(key) = key {
                    request = request.header("x-api-key", key);
                }
            }
        }
        request
    }

    /// Parses a response body with the provider's parser.
    fn parse(&self, response: &Value, turn: usize) -> Result<(Message, Usage), ResponseError> {
        match self.inner.config.provider {
            Provider::OpenAi => openai::parse_response(response, turn),
            Provider::Anthropic => anthropic::parse_response(response, turn),
        }
    }

    /// Counts a reply and wraps it.
    fn reply(&self, message: Message, usage: Usage) -> Reply {
        self.count(|s| {
            s.replies += 1;
            s.usage.add(usage);
        });
        Reply {
            message,
            usage,
            wait_ns: 0,
            cached: false,
        }
    }

    /// Updates the counters.
    fn count(&self, f: impl FnOnce(&mut ClientStats)) {
        f(&mut self.inner.stats.lock().unwrap_or_else(|e| e.into_inner()));
    }

    /// One HTTP attempt, holding a permit of the endpoint's limit while it runs.
    async fn send(&self, body: &[u8]) -> Attempt {
        let inner = &self.inner;
        let _permit = inner
            .limit
            .acquire()
            .await
            .expect("limits are never closed");
        self.count(|s| s.http_requests += 1);
        let request = self.authorize(
            inner
                .http
                .post(&inner.url)
                .header(CONTENT_TYPE, "application/json")
                .body(body.to_vec()),
        );
        // On the model-HTTP runtime, whose connections never wait on a worker's runtime.
        let url = inner.url.clone();
        let exchange = io::run(async move {
            let response = match request.send().await {
                Ok(r) => r,
                // Connection refused, DNS failure: nobody is listening (bounded retries).
                Err(e) if e.is_connect() => {
                    return Err(Attempt::Unreachable(transport_error(&e, &url)));
                }
                Err(e) => return Err(Attempt::Retry(transport_error(&e, &url), None)),
            };
            let status = response.status().as_u16();
            let retry_after = retry::retry_after(response.headers());
            match response.bytes().await {
                Ok(bytes) => Ok((status, retry_after, bytes)),
                Err(e) => Err(Attempt::Retry(transport_error(&e, &url), None)),
            }
        });
        let (status, retry_after, bytes) = match exchange.await {
            Ok(Ok(answer)) => answer,
            Ok(Err(attempt)) => return attempt,
            Err(e) => return Attempt::Retry(e, None),
        };
        if (200..300).contains(&status) {
            return match serde_json::from_slice(&bytes) {
                Ok(v) => Attempt::Done(v),
                Err(e) => Attempt::Retry(
                    format!(
                        "HTTP {status} with a body that is not JSON ({e}): {}",
                        text_excerpt(&bytes)
                    ),
                    None,
                ),
            };
        }
        let error = format!(
            "HTTP {status} from {}: {}",
            inner.url,
            error_message(&bytes)
        );
        if retry::is_retryable(status) {
            Attempt::Retry(error, retry_after)
        } else {
            Attempt::Fatal(error)
        }
    }
}

impl std::fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("model", &self.describe())
            .field("url", &self.inner.url)
            .finish_non_exhaustive()
    }
}

/// An LLM under evaluation: each step is one [`LlmClient::complete`] call.
#[derive(Clone, Debug)]
pub struct LlmAgent {
    /// The client.
    client: LlmClient,
}

impl LlmAgent {
    /// An agent for `config` (endpoint settings may come from the environment).
    pub fn new(config: ModelConfig) -> Result<Self, AgentError> {
        Ok(LlmAgent {
            client: LlmClient::new(config)?,
        })
    }

    /// An agent driving an existing client.
    pub fn from_client(client: LlmClient) -> Self {
        LlmAgent { client }
    }

    /// The client (for its counters).
    pub fn client(&self) -> &LlmClient {
        &self.client
    }
}

#[async_trait]
impl Agent for LlmAgent {
    fn describe(&self) -> String {
        self.client.describe()
    }

    async fn step(&mut self, conversation: &Conversation) -> Result<Reply, AgentError> {
        self.client.complete(conversation).await
    }
}

#[async_trait]
impl Complete for LlmClient {
    fn describe(&self) -> String {
        LlmClient::describe(self)
    }

    async fn complete(&self, conversation: &Conversation) -> Result<(String, Usage), AgentError> {
        let reply = LlmClient::complete(self, conversation).await?;
        Ok((reply.message.text(), reply.usage))
    }
}

/// Makes rustls' ring provider the process default unless a provider is already installed
/// (reqwest is built without one; call this before building another reqwest client).
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // Losing a race to another installer is fine: any provider will do.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}

/// Whether `url`'s host is this machine (such requests never go through a proxy).
fn is_loopback(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default()
    };
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The error of a request cancelled by [`control::cancel_requests`] (Ctrl-C).
fn cancelled(config: &ModelConfig) -> AgentError {
    AgentError::Infra(format!("{}: cancelled (Ctrl-C)", config.describe()))
}

/// A transport failure as text, with its causes.
fn transport_error(e: &reqwest::Error, url: &str) -> String {
    if e.is_timeout() {
        format!("request to {url} timed out")
    } else if e.is_connect() {
        // The innermost cause says it best (`Connection refused (os error 111)`, DNS errors).
        let mut source: &dyn std::error::Error = e;
        while let Some(s) = source.source() {
            source = s;
        }
        format!("cannot connect to {url}: {source}")
    } else {
        format!("request to {url} failed: {}", chain(e))
    }
}

/// An error and its sources, joined by `: `.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

/// The provider's error message in an error body (`error.message` in both protocols, or
/// `error` as a string), else an excerpt of the body.
fn error_message(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        let message = v
            .pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .and_then(Value::as_str);
        if let Some(m) = message {
            return m.to_string();
        }
    }
    text_excerpt(body)
}

/// At most 300 characters of a body.
fn text_excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    match text.char_indices().nth(300) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.into_owned(),
    }
}

/// At most 300 characters of a JSON value.
fn excerpt(value: &Value) -> String {
    text_excerpt(value.to_string().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        assert!(is_loopback("http://127.0.0.1:8080/v1"));
        assert!(is_loopback("http://localhost"));
        assert!(is_loopback("http://[::1]:9/x"));
        assert!(is_loopback("http://u:p@127.0.0.2"));
        assert!(!is_loopback("https://api.openai.com/v1"));
        assert!(!is_loopback("http://10.0.0.1:80"));
    }

    #[test]
    fn error_messages() {
        assert_eq!(
            error_message(br#"{"error": {"message": "bad model", "type": "x"}}"#),
            "bad model"
        );
        assert_eq!(
            error_message(
                br#"{"type": "error", "error": {"type": "invalid_request_error", "message": "m"}}"#
            ),
            "m"
        );
        assert_eq!(error_message(br#"{"error": "plain"}"#), "plain");
        assert_eq!(error_message(b"<html>oops</html>"), "<html>oops</html>");
        let long = "x".repeat(1000);
        assert_eq!(text_excerpt(long.as_bytes()).len(), 303);
    }
}
