//! The web flags shared by `run`, `validate` and `list`: `--web`, `--web-cassette`,
//! `--web-allow`, `--web-search-url` (and the `SERP_DEV_KEY` / `SERP_API_URL` variables, as
//! upstream's web_real service reads them).

use std::path::PathBuf;

use crate::web::{AllowedHost, SearchApi, WebMode, WebOptions, live::DEFAULT_SEARCH_URL};

/// How `web_real` services and `curl`/`wget` in Bash reach the web.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct WebArgs {
    /// The web: off, live, record or replay.
    ///
    /// `off`: tasks that need it are skipped; `live`: the real network, from the host;
    /// `record`: live, every answer stored in the cassette; `replay`: only the cassette.
    /// Default: `replay` with --web-cassette, else `off`.
    #[arg(long = "web", value_name = "MODE", value_parser = parse_mode)]
    pub mode: Option<WebMode>,
    /// The cassette: a folder of recorded web answers (`record` writes RUN/web/ unless given).
    #[arg(long = "web-cassette", value_name = "DIR")]
    pub cassette: Option<PathBuf>,
    /// Lets live requests reach HOST (optionally only on PORT); repeatable.
    ///
    /// For a HOST that is loopback, private, link-local or a metadata address.
    #[arg(long = "web-allow", value_name = "HOST[:PORT]", value_parser = parse_allow)]
    pub allow: Vec<AllowedHost>,
    /// The search API: a ScraperAPI-compatible Google results endpoint.
    ///
    /// Default: $SERP_API_URL, else upstream's; its key comes from $SERP_DEV_KEY.
    #[arg(long = "web-search-url", value_name = "URL")]
    pub search_url: Option<String>,
}

impl WebArgs {
    /// The options these flags (and the environment) describe.
    pub fn options(&self) -> WebOptions {
        let url = self
            .search_url
            .clone()
            .or_else(|| std::env::var("SERP_API_URL").ok().filter(|u| !u.is_empty()))
            .unwrap_or_else(|| DEFAULT_SEARCH_URL.to_string());
        WebOptions {
            mode: self.mode,
            cassette: self.cassette.clone(),
            allow: self.allow.clone(),
            search: SearchApi {
                url,
                key: std::env::var("SERP_DEV_KEY").ok().filter(|k| !k.is_empty()),
            },
        }
    }
}

fn parse_mode(s: &str) -> Result<WebMode, crate::web::UnknownWebMode> {
    s.parse()
}

fn parse_allow(s: &str) -> Result<AllowedHost, crate::web::BadAllow> {
    s.parse()
}
