//! A trial's web for the pages of its browser: a page's `http(s)` `GET`s are asked of the run's
//! web layer through the trial's session (`--web` off: refused; replay: the cassette;
//! record and live: the network behind the web layer's address guard), as `curl` in Bash is.

use std::time::Duration;

use clawrun_browser::{PageWeb, WebAnswer};
use clawrun_web::{Fetched, WebRequest, WebSession};

/// How long one page request may take in `live` and `record` (replay answers at once).
const TIMEOUT: Duration = Duration::from_secs(30);

/// The trial's web, as a page's.
pub struct TrialWeb<'a>(pub &'a WebSession);

impl PageWeb for TrialWeb<'_> {
    fn get(&self, url: &str) -> Result<WebAnswer, String> {
        let request = WebRequest::fetch(url).map_err(|e| e.to_string())?;
        match self.0.web().get(&request, TIMEOUT) {
            Ok(Fetched::Response(r)) => Ok(WebAnswer {
                status: r.status,
                content_type: r
                    .content_type
                    .unwrap_or_else(|| "application/octet-stream".into()),
                body: r.body.to_vec(),
            }),
            Ok(Fetched::Failed(why)) => Err(why),
            Err(e) => Err(e.to_string()),
        }
    }
}
