//! What the web layer is asked and what it answers: requests normalised to the key a cassette
//! stores them under, and the web's answers (a response, or a failure that replays as one).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A request to the web, normalised: equal requests are one cassette entry.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum WebRequest {
    /// A web search through the search API.
    Search {
        /// The query as the agent wrote it.
        query: String,
        /// Results asked for, 1 to 10.
        num: u8,
        /// Interface language (`zh` for queries with CJK characters, else `en`).
        hl: String,
        /// Country (`cn` or `us`, with `hl`).
        gl: String,
    },
    /// A `GET` of a page.
    Fetch {
        /// The absolute `http`/`https` URL, without its fragment.
        url: String,
    },
}

impl WebRequest {
    /// A search for `query` with `max_results` results (clamped to 1..=10, as upstream); the
    /// language from the query's script, as upstream's `_detect_language`.
    pub fn search(query: &str, max_results: i64) -> Self {
        let cjk = query
            .chars()
            .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
        let (hl, gl) = if cjk { ("zh", "cn") } else { ("en", "us") };
        WebRequest::Search {
            query: query.to_string(),
            num: max_results.clamp(1, 10) as u8,
            hl: hl.into(),
            gl: gl.into(),
        }
    }

    /// A fetch of `url`: an absolute `http` or `https` URL (its fragment is dropped, since it
    /// never reaches the server); an error message otherwise.
    pub fn fetch(url: &str) -> Result<Self, BadUrl> {
        let mut parsed = reqwest::Url::parse(url.trim()).map_err(|source| BadUrl::Invalid {
            url: url.to_string(),
            source,
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(BadUrl::Scheme {
                scheme: parsed.scheme().to_string(),
                url: url.to_string(),
            });
        }
        if parsed.host_str().is_none_or(str::is_empty) {
            return Err(BadUrl::NoHost {
                url: url.to_string(),
            });
        }
        parsed.set_fragment(None);
        Ok(WebRequest::Fetch {
            url: parsed.to_string(),
        })
    }

    /// The cassette key: the request as canonical JSON.
    pub fn key(&self) -> String {
        serde_json::to_string(self).expect("requests serialize")
    }

    /// The request in a few words, for messages: `search "q" (10, en-us)` or `fetch URL`.
    pub fn describe(&self) -> String {
        match self {
            WebRequest::Search { query, num, hl, gl } => {
                format!("search {query:?} ({num} results, {hl}-{gl})")
            }
            WebRequest::Fetch { url } => format!("fetch {url}"),
        }
    }
}

/// An HTTP response from the web (for a search, the search API's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebResponse {
    /// The status code.
    pub status: u16,
    /// The URL that answered, after redirects.
    pub url: String,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// The body (at most [`super::live::MAX_BODY_BYTES`]).
    pub body: Arc<[u8]>,
    /// The web's body was longer: `body` is its first [`super::live::MAX_BODY_BYTES`].
    pub truncated: bool,
}

/// What the web did with a request: answered, or failed in a way that is part of the
/// recording (refused address, connection error, timeout), replayed as the same failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fetched {
    /// An HTTP response.
    Response(WebResponse),
    /// No response: why, as the agent is told.
    Failed(String),
}

/// Why [`WebRequest::fetch`] refused a URL (the message, as the agent is told).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BadUrl {
    /// The text does not parse as a URL.
    #[error("not a valid URL ({source}): {url}")]
    Invalid {
        /// The URL, as given.
        url: String,
        /// The parser's complaint.
        source: url::ParseError,
    },
    /// Not `http` or `https`.
    #[error("only http and https URLs can be fetched, not {scheme}: {url}")]
    Scheme {
        /// The URL's scheme.
        scheme: String,
        /// The URL, as given.
        url: String,
    },
    /// The URL names no host.
    #[error("the URL has no host: {url}")]
    NoHost {
        /// The URL, as given.
        url: String,
    },
}

/// Why the web layer gave no answer at all (nothing the web did: nothing recorded).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WebError {
    /// `--web off`.
    #[error(
        "the web is off in this run (--web off): use --web live or --web record, or --web-cassette DIR to replay"
    )]
    Off,
    /// Replay found no recording of the request. (The message names no host path: it goes
    /// into the trace.)
    #[error(
        "web replay: the run's cassette has no recording of {request}; record it with --web record"
    )]
    Miss {
        /// The request, described.
        request: String,
    },
    /// The cassette could not be read or written.
    #[error("web cassette: {0}")]
    Cassette(String),
    /// The live layer is not configured for this request (no search API key).
    #[error("{0}")]
    NotConfigured(String),
}

impl WebError {
    /// The message for the trial (its tool result, hence its trace): a damaged cassette is
    /// logged with its host path and named without it.
    pub fn for_trial(&self) -> String {
        match self {
            WebError::Cassette(detail) => {
                tracing::error!("web cassette: {detail}");
                "the run's web cassette is damaged (clawrun's log names the file)".into()
            }
            other => other.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_normalise_to_one_key() {
        let a = WebRequest::fetch("https://Example.com/a#top").unwrap();
        let b = WebRequest::fetch("https://example.com/a").unwrap();
        assert_eq!(a.key(), b.key());
        assert_eq!(a.key(), r#"{"kind":"fetch","url":"https://example.com/a"}"#);
        let s = WebRequest::search("北京 天气", 50);
        assert_eq!(
            s.key(),
            r#"{"kind":"search","query":"北京 天气","num":10,"hl":"zh","gl":"cn"}"#
        );
        assert!(matches!(
            WebRequest::search("rust", 0),
            WebRequest::Search { num: 1, .. }
        ));
    }

    #[test]
    fn unfetchable_urls_say_why() {
        assert!(
            WebRequest::fetch("ftp://x/y")
                .unwrap_err()
                .to_string()
                .contains("only http and https")
        );
        assert!(
            WebRequest::fetch("not a url")
                .unwrap_err()
                .to_string()
                .contains("not a valid URL")
        );
    }
}
