//! The web layer (ARCHITECTURE.md §6): how the `web_real` services (and `curl`/`wget` in the
//! Bash tool) reach the web. Four modes: `off` (no web: tasks that need it are skipped),
//! `live` (the real network, from the host only), `record` (live, every answer stored in a
//! [`Cassette`]; an answer already in the cassette is served from it, so all trials of a run
//! see one web) and `replay` (only the cassette; a request it lacks is that call's error).
//!
//! What is recorded is the web's raw answer (status, final URL, content type, body, or the
//! failure): everything the services derive from it (extracted text, injected payloads,
//! times from the virtual clock) is recomputed on replay, so a replay gives byte-identical
//! tool results.

#![deny(missing_docs)]

pub mod cassette;
pub mod guard;
pub mod live;
pub mod request;

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

pub use cassette::Cassette;
pub use guard::{AllowProblem, AllowedHost, BadAllow, Guard, Refusal};
pub use live::{LiveWeb, SearchApi};
pub use request::{BadUrl, Fetched, WebError, WebRequest, WebResponse};

/// How a run reaches the web.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WebMode {
    /// No web: tasks that need it are skipped as "needs the web".
    Off,
    /// The live web, nothing stored.
    Live,
    /// The live web, every answer stored in the cassette (answers it holds are replayed).
    Record,
    /// Only the cassette.
    Replay,
}

impl WebMode {
    /// Every mode, in documentation order.
    pub const ALL: [WebMode; 4] = [
        WebMode::Off,
        WebMode::Live,
        WebMode::Record,
        WebMode::Replay,
    ];

    /// `off`, `live`, `record` or `replay`.
    pub fn as_str(self) -> &'static str {
        match self {
            WebMode::Off => "off",
            WebMode::Live => "live",
            WebMode::Record => "record",
            WebMode::Replay => "replay",
        }
    }

    /// The mode a run uses when `--web` is not given: `replay` with a cassette, else `off`.
    pub fn default_for(cassette: Option<&Path>) -> WebMode {
        if cassette.is_some() {
            WebMode::Replay
        } else {
            WebMode::Off
        }
    }
}

impl fmt::Display for WebMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--web` value that names no mode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a web mode (off, live, record, replay)")]
pub struct UnknownWebMode(pub String);

impl FromStr for WebMode {
    type Err = UnknownWebMode;

    fn from_str(s: &str) -> Result<Self, UnknownWebMode> {
        WebMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownWebMode(s.to_string()))
    }
}

/// How a run's web is set up (from `--web`, `--web-cassette`, `--web-allow`,
/// `--web-search-url` and `SERP_DEV_KEY`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WebOptions {
    /// The mode; `None` for the default ([`WebMode::default_for`]).
    pub mode: Option<WebMode>,
    /// The cassette folder (`record` defaults to the run folder's `web/`).
    pub cassette: Option<PathBuf>,
    /// Hosts outside the public internet that live requests may reach.
    pub allow: Vec<AllowedHost>,
    /// The search API.
    pub search: SearchApi,
}

impl WebOptions {
    /// The mode in effect.
    pub fn mode(&self) -> WebMode {
        self.mode
            .unwrap_or_else(|| WebMode::default_for(self.cassette.as_deref()))
    }
}

/// A run's web: its mode, its cassette and its live client.
pub struct Web {
    mode: WebMode,
    cassette: Option<Cassette>,
    live: Option<LiveWeb>,
}

impl Web {
    /// No web at all.
    pub fn off() -> Web {
        Web {
            mode: WebMode::Off,
            cassette: None,
            live: None,
        }
    }

    /// The web `options` describe; `default_cassette` is the cassette `record` uses when none
    /// is named (a run's `web/` folder; without one `record` needs `--web-cassette`).
    pub fn open(options: &WebOptions, default_cassette: Option<&Path>) -> Result<Web, WebError> {
        let mode = options.mode();
        let live = || LiveWeb::new(Guard::new(options.allow.clone()), options.search.clone());
        Ok(match mode {
            WebMode::Off => Web::off(),
            WebMode::Live => {
                if let Some(c) = &options.cassette {
                    return Err(WebError::NotConfigured(format!(
                        "--web live does not use a cassette ({}): use --web record to store \
                         answers, or --web replay to serve them",
                        c.display()
                    )));
                }
                Web {
                    mode,
                    cassette: None,
                    live: Some(live()?),
                }
            }
            WebMode::Record => {
                let Some(dir) = options.cassette.as_deref().or(default_cassette) else {
                    return Err(WebError::NotConfigured(
                        "--web record needs --web-cassette DIR (the folder to record into)".into(),
                    ));
                };
                Web {
                    mode,
                    cassette: Some(Cassette::create(dir)?),
                    live: Some(live()?),
                }
            }
            WebMode::Replay => {
                let Some(dir) = &options.cassette else {
                    return Err(WebError::NotConfigured(
                        "--web replay needs --web-cassette DIR (a cassette recorded with --web record)"
                            .into(),
                    ));
                };
                Web {
                    mode,
                    cassette: Some(Cassette::open(dir)?),
                    live: None,
                }
            }
        })
    }

    /// The mode.
    pub fn mode(&self) -> WebMode {
        self.mode
    }

    /// The cassette, in `record` and `replay`.
    pub fn cassette(&self) -> Option<&Cassette> {
        self.cassette.as_ref()
    }

    /// What the web answers to `request` (a fetch limited to `timeout`), per the mode.
    pub fn get(&self, request: &WebRequest, timeout: Duration) -> Result<Fetched, WebError> {
        if let Some(cassette) = &self.cassette
            && let Some(recorded) = cassette.get(request)?
        {
            return Ok(recorded);
        }
        match self.mode {
            WebMode::Off => Err(WebError::Off),
            WebMode::Replay => Err(WebError::Miss {
                request: request.describe(),
            }),
            WebMode::Live | WebMode::Record => {
                let live = self.live.as_ref().ok_or(WebError::Off)?;
                let (fetched, latency) = live.get(request, timeout)?;
                match &self.cassette {
                    Some(cassette) => cassette.put(request, &fetched, latency, unix_now()),
                    None => Ok(fetched),
                }
            }
        }
    }
}

/// Seconds since the Unix epoch on the host clock (recording metadata only).
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// One trial's access to its run's web: the web, and the trial's seed (for what services add
/// to answers, such as injected payloads).
#[derive(Clone)]
pub struct WebSession {
    web: Arc<Web>,
    seed: u64,
}

impl WebSession {
    /// Trial `seed`'s session of `web`.
    pub fn new(web: Arc<Web>, seed: u64) -> Self {
        WebSession { web, seed }
    }

    /// The run's web.
    pub fn web(&self) -> &Web {
        &self.web
    }

    /// A number in [0, 1) for draw `draw` of purpose `purpose`, a pure function of the trial's
    /// seed: what replaces upstream's unseeded `random.random()`.
    pub fn uniform(&self, purpose: &str, draw: u64) -> f64 {
        let mut material = Vec::with_capacity(16 + purpose.len());
        material.extend_from_slice(&self.seed.to_le_bytes());
        material.extend_from_slice(&draw.to_le_bytes());
        material.extend_from_slice(purpose.as_bytes());
        let key = blake3::derive_key("clawrun 2026-11 web session draw", &material);
        let x = u64::from_le_bytes(key[..8].try_into().expect("8 bytes"));
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}
