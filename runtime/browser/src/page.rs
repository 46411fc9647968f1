//! One page in its own browser context: the DevTools session, the requests it makes (each
//! answered from the VFS snapshot or refused, [`crate::serve`]), virtual time, and what is
//! read from it (frames, title, text).

use std::time::{Duration, Instant};

use base64::Engine as _;
use clawrun_vfs::Vfs;
use serde_json::{Value, json};

use crate::error::BrowserError;
use crate::serve::{self, Answer};
use crate::transport::{Incoming, Transport};
use crate::web::PageWeb;

/// The viewport every page is shown in (Claw-Eval's Playwright viewport).
pub const VIEWPORT: (u32, u32) = (1080, 720);

/// The session of one page, and what it has seen so far.
pub(crate) struct Page<'a> {
    t: &'a mut Transport,
    session: String,
    files: &'a Vfs,
    web: Option<&'a dyn PageWeb>,
    /// Real time one step may take.
    limit: Duration,
    heap_mib: u64,
    /// Requests refused, in the order the page made them.
    pub refused: Vec<String>,
    budget_expired: bool,
}

/// Sends a browser-level command and waits for its answer, dropping events meanwhile.
pub(crate) fn browser_call(
    t: &mut Transport,
    method: &str,
    params: Value,
    limit: Duration,
) -> Result<Value, BrowserError> {
    let id = t.send(method, params, None)?;
    let deadline = Instant::now() + limit;
    loop {
        match t.next(deadline)? {
            Some(Incoming::Answer { id: got, result }) if got == id => {
                return result.map_err(|message| BrowserError::Protocol {
                    method: method.to_string(),
                    message,
                });
            }
            Some(_) => {}
            None => {
                return Err(BrowserError::Gone(format!(
                    "no answer to {method} within {} s",
                    limit.as_secs()
                )));
            }
        }
    }
}

impl<'a> Page<'a> {
    /// A page attached as `session`, its requests answered from `files`.
    pub(crate) fn new(
        t: &'a mut Transport,
        session: String,
        files: &'a Vfs,
        web: Option<&'a dyn PageWeb>,
        limit: Duration,
        heap_mib: u64,
    ) -> Self {
        Page {
            t,
            session,
            files,
            web,
            limit,
            heap_mib,
            refused: Vec::new(),
            budget_expired: false,
        }
    }

    /// Sends `method` to the page and waits for its answer, serving the page's requests
    /// meanwhile; `step` names what the page was doing if the wait runs out.
    pub(crate) fn call(
        &mut self,
        method: &str,
        params: Value,
        step: &'static str,
    ) -> Result<Value, BrowserError> {
        let id = self.t.send(method, params, Some(&self.session))?;
        let deadline = Instant::now() + self.limit;
        loop {
            match self.t.next(deadline)? {
                Some(Incoming::Answer { id: got, result }) if got == id => {
                    return result.map_err(|message| BrowserError::Protocol {
                        method: method.to_string(),
                        message,
                    });
                }
                Some(Incoming::Answer { .. }) => {}
                Some(Incoming::Event {
                    method: m,
                    params,
                    session,
                }) => self.on_event(&m, params, session.as_deref())?,
                None => return Err(self.hung(step)),
            }
        }
    }

    /// The page-hang error for `step`.
    fn hung(&self, step: &'static str) -> BrowserError {
        BrowserError::PageHung {
            step,
            limit: self.limit,
        }
    }

    /// Handles one event: a paused request is answered, a crash ends the page.
    fn on_event(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<(), BrowserError> {
        if session != Some(self.session.as_str()) {
            return Ok(());
        }
        match method {
            "Fetch.requestPaused" => self.answer_request(&params),
            "Inspector.targetCrashed" => Err(BrowserError::PageCrashed {
                heap_mib: self.heap_mib,
            }),
            "Emulation.virtualTimeBudgetExpired" => {
                self.budget_expired = true;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Fulfils or fails one paused request (the answer's own answer is not waited for).
    fn answer_request(&mut self, params: &Value) -> Result<(), BrowserError> {
        let Some(id) = params.get("requestId").and_then(Value::as_str) else {
            return Err(BrowserError::Malformed(
                "Fetch.requestPaused without requestId".into(),
            ));
        };
        let url = params
            .pointer("/request/url")
            .and_then(Value::as_str)
            .unwrap_or("");
        let id = id.to_string();
        let method = params
            .pointer("/request/method")
            .and_then(Value::as_str)
            .unwrap_or("GET");
        let answer = match (serve::answer(self.files, url), self.web) {
            (Answer::Refuse(_), Some(web))
                if method == "GET"
                    && (url.starts_with("http://") || url.starts_with("https://")) =>
            {
                match web.get(url) {
                    Ok(got) => return self.fulfil(&id, got.status, &got.content_type, &got.body),
                    Err(why) => Answer::Refuse(format!("{url}: refused by the web layer ({why})")),
                }
            }
            (answer, _) => answer,
        };
        match answer {
            Answer::Serve {
                status,
                content_type,
                body,
            } => self.fulfil(&id, status, content_type, &body)?,
            Answer::Refuse(reason) => {
                tracing::debug!(target: "clawrun_browser", "{reason}");
                self.refused.push(reason);
                self.t.send(
                    "Fetch.failRequest",
                    json!({"requestId": id, "errorReason": "AccessDenied"}),
                    Some(&self.session),
                )?;
            }
        }
        Ok(())
    }

    /// Answers paused request `id` with `status`, `content_type` and `body`.
    fn fulfil(
        &mut self,
        id: &str,
        status: u16,
        content_type: &str,
        body: &[u8],
    ) -> Result<(), BrowserError> {
        let body = base64::engine::general_purpose::STANDARD.encode(body);
        self.t.send(
            "Fetch.fulfillRequest",
            json!({
                "requestId": id,
                "responseCode": status,
                "responseHeaders": [
                    {"name": "Content-Type", "value": content_type},
                    {"name": "Cache-Control", "value": "no-store"},
                ],
                "body": body,
            }),
            Some(&self.session),
        )?;
        Ok(())
    }

    /// Sets up the page: interception of every request, the viewport, virtual time paused at
    /// `start` (seconds since the Unix epoch).
    pub(crate) fn prepare(&mut self, start: Duration) -> Result<(), BrowserError> {
        self.call("Inspector.enable", json!({}), "starting")?;
        self.call("Page.enable", json!({}), "starting")?;
        self.call(
            "Fetch.enable",
            json!({"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}),
            "starting",
        )?;
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": VIEWPORT.0, "height": VIEWPORT.1, "deviceScaleFactor": 1, "mobile": false}),
            "starting",
        )?;
        self.call("Animation.enable", json!({}), "starting")?;
        self.call(
            "Animation.setPlaybackRate",
            json!({"playbackRate": 0}),
            "starting",
        )?;
        self.call(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": crate::animations::SYNC_SCRIPT}),
            "starting",
        )?;
        self.call(
            "Emulation.setVirtualTimePolicy",
            json!({"policy": "pause", "initialVirtualTime": start.as_secs_f64()}),
            "starting",
        )?;
        Ok(())
    }

    /// Lets `budget` of virtual time pass (paused while the page's requests are pending) and
    /// waits until it has.
    pub(crate) fn advance(
        &mut self,
        budget: Duration,
        step: &'static str,
    ) -> Result<(), BrowserError> {
        self.budget_expired = false;
        let ms = budget.as_secs_f64() * 1000.0;
        self.call(
            "Emulation.setVirtualTimePolicy",
            json!({"policy": "pauseIfNetworkFetchesPending", "budget": ms}),
            step,
        )?;
        let deadline = Instant::now() + self.limit;
        while !self.budget_expired {
            match self.t.next(deadline)? {
                Some(Incoming::Event {
                    method,
                    params,
                    session,
                }) => self.on_event(&method, params, session.as_deref())?,
                Some(Incoming::Answer { .. }) => {}
                None => return Err(self.hung(step)),
            }
        }
        Ok(())
    }

    /// Opens `url`; a navigation error (the URL refused, a file not loadable) is the page's.
    pub(crate) fn navigate(&mut self, url: &str) -> Result<(), BrowserError> {
        let answer = self.call("Page.navigate", json!({"url": url}), "loading")?;
        if let Some(err) = answer.get("errorText").and_then(Value::as_str) {
            let reason = match self.refused.first() {
                Some(refusal) => refusal.clone(),
                None => err.to_string(),
            };
            return Err(BrowserError::Navigation {
                url: url.to_string(),
                reason,
            });
        }
        Ok(())
    }

    /// The value of `expression` evaluated in the page (by value).
    pub(crate) fn evaluate(
        &mut self,
        expression: &str,
        step: &'static str,
    ) -> Result<Value, BrowserError> {
        let answer = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            step,
        )?;
        if let Some(ex) = answer.get("exceptionDetails") {
            return Err(BrowserError::Protocol {
                method: "Runtime.evaluate".into(),
                message: ex
                    .pointer("/exception/description")
                    .and_then(Value::as_str)
                    .unwrap_or("exception")
                    .to_string(),
            });
        }
        Ok(answer
            .pointer("/result/value")
            .cloned()
            .unwrap_or(Value::Null))
    }

    /// Waits for the page's next rendering frame, so that its `requestAnimationFrame`
    /// callbacks have seen the current virtual time.
    pub(crate) fn next_frame(&mut self, step: &'static str) -> Result<(), BrowserError> {
        self.evaluate("new Promise(r => requestAnimationFrame(() => r()))", step)
            .map(|_| ())
    }

    /// A PNG of the viewport, its animations set to the virtual time first.
    pub(crate) fn screenshot(&mut self) -> Result<Vec<u8>, BrowserError> {
        self.evaluate(crate::animations::SYNC_NOW, "drawing a frame")?;
        let answer = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "fromSurface": true, "captureBeyondViewport": false}),
            "drawing a frame",
        )?;
        let data = answer
            .get("data")
            .and_then(Value::as_str)
            .ok_or_else(|| BrowserError::Malformed("a screenshot without data".into()))?;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| BrowserError::Malformed(format!("a screenshot's base64: {e}")))
    }
}
