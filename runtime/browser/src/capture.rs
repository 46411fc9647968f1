//! A capture: open a page, let virtual time run, click if asked, take frames at an interval.
//! Both of Claw-Eval's uses are one: `BrowserScreenshot` (frames spread over `wait_seconds`)
//! and `take_recording.py` (a wait, an optional click, frames at an interval).

use std::time::Duration;

use clawrun_vfs::Vfs;
use serde_json::{Value, json};

use crate::error::BrowserError;
use crate::page::{Page, browser_call};
use crate::transport::Transport;
use crate::{BrowserConfig, PageWeb};

/// Frames of one capture at most.
pub const MAX_FRAMES: u32 = 120;

/// Virtual time one capture may span at most (wait, settle and every interval).
pub const MAX_VIRTUAL_WAIT: Duration = Duration::from_secs(600);

/// Characters of the body's text kept (Claw-Eval's `inner_text("body")[:2000]`).
const BODY_TEXT_CHARS: usize = 2000;

/// What to capture.
#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    /// The page: `file:///workspace/...` of the VFS handed in.
    pub url: String,
    /// The page's clock at the start: time since the Unix epoch (the trial's virtual clock).
    pub start: Duration,
    /// Virtual time let pass after the load before anything else (Playwright's `networkidle`
    /// waits for 500 ms without requests).
    pub settle: Duration,
    /// A CSS selector clicked after settling (`take_recording.py --auto-click`); a missing
    /// element is ignored, as upstream does.
    pub click: Option<String>,
    /// Virtual time after the click before the first frame.
    pub wait_before: Duration,
    /// Frames to take (at least 1).
    pub frames: u32,
    /// Virtual time between frames.
    pub interval: Duration,
}

impl Capture {
    /// Claw-Eval's `BrowserScreenshot(url, wait_seconds, frame_count)`: `frame_count` frames
    /// (at least 1), `wait_seconds / frame_count` apart, the first as the page has settled.
    pub fn screenshot(url: &str, start: Duration, wait_seconds: f64, frame_count: u32) -> Self {
        let n = frame_count.max(1);
        // The agent's number: one past what a Duration holds is past the bound [`Self::check`]
        // refuses, never a panic.
        let interval = if n > 1 && wait_seconds.is_finite() && wait_seconds > 0.0 {
            Duration::try_from_secs_f64(wait_seconds / f64::from(n)).unwrap_or(Duration::MAX)
        } else {
            Duration::ZERO
        };
        Capture {
            url: url.to_string(),
            start,
            settle: Duration::from_millis(500),
            click: None,
            wait_before: Duration::ZERO,
            frames: n,
            interval,
        }
    }

    /// Refuses numbers outside the bounds.
    pub(crate) fn check(&self) -> Result<(), BrowserError> {
        if self.frames == 0 || self.frames > MAX_FRAMES {
            return Err(BrowserError::Invalid(format!(
                "{} frames asked for: between 1 and {MAX_FRAMES}",
                self.frames
            )));
        }
        // The numbers come from an agent or a task: summed without overflow.
        let total = self
            .interval
            .checked_mul(self.frames - 1)
            .and_then(|frames| frames.checked_add(self.settle))
            .and_then(|t| t.checked_add(self.wait_before))
            .filter(|total| *total <= MAX_VIRTUAL_WAIT);
        if total.is_none() {
            let asked = self.settle.as_secs_f64()
                + self.wait_before.as_secs_f64()
                + self.interval.as_secs_f64() * f64::from(self.frames - 1);
            return Err(BrowserError::Invalid(format!(
                "the capture would span {asked} s of page time: at most {} s",
                MAX_VIRTUAL_WAIT.as_secs()
            )));
        }
        if crate::serve::workspace_path(&self.url).is_none() {
            return Err(BrowserError::Navigation {
                url: self.url.clone(),
                reason: "only file:///workspace/... pages of the sandbox can be opened".into(),
            });
        }
        Ok(())
    }
}

/// One frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Virtual time since the page settled.
    pub at: Duration,
    /// The viewport as PNG.
    pub png: Vec<u8>,
}

/// What a capture gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    /// `document.title` after the page settled.
    pub title: String,
    /// The first 2,000 characters of `document.body.innerText` after the page settled.
    pub body_text: String,
    /// The frames, in order.
    pub frames: Vec<Frame>,
    /// Requests of the page that were refused, in order.
    pub refused: Vec<String>,
}

/// Runs `request` in a fresh browser context, which is disposed of afterwards.
pub(crate) fn run(
    t: &mut Transport,
    files: &Vfs,
    web: Option<&dyn PageWeb>,
    request: &Capture,
    config: &BrowserConfig,
) -> Result<Captured, BrowserError> {
    t.drain();
    let limit = config.step_limit;
    let context = browser_call(
        t,
        "Target.createBrowserContext",
        json!({"disposeOnDetach": true}),
        limit,
    )?;
    let context = str_field(&context, "browserContextId")?;
    let result = in_context(t, files, web, request, config, &context);
    if let Err(
        e @ (BrowserError::PageHung { .. }
        | BrowserError::PageCrashed { .. }
        | BrowserError::Gone(_)
        | BrowserError::Malformed(_)),
    ) = result
    {
        // The browser is restarted after these: no context left to dispose of.
        return Err(e);
    }
    let disposed = browser_call(
        t,
        "Target.disposeBrowserContext",
        json!({"browserContextId": context}),
        limit,
    );
    let captured = result?;
    disposed?;
    Ok(captured)
}

/// The capture's steps inside browser context `context`.
fn in_context(
    t: &mut Transport,
    files: &Vfs,
    web: Option<&dyn PageWeb>,
    request: &Capture,
    config: &BrowserConfig,
    context: &str,
) -> Result<Captured, BrowserError> {
    let limit = config.step_limit;
    let (w, h) = crate::VIEWPORT;
    let target = browser_call(
        t,
        "Target.createTarget",
        json!({"url": "about:blank", "browserContextId": context, "width": w, "height": h}),
        limit,
    )?;
    let target = str_field(&target, "targetId")?;
    let attached = browser_call(
        t,
        "Target.attachToTarget",
        json!({"targetId": target, "flatten": true}),
        limit,
    )?;
    let session = str_field(&attached, "sessionId")?;
    let mut page = Page::new(t, session, files, web, limit, config.heap_mib);
    page.prepare(request.start)?;
    page.navigate(&request.url)?;
    page.advance(request.settle, "loading")?;
    page.next_frame("loading")?;
    let read = page.evaluate(
        "[document.title, document.body ? document.body.innerText : '']",
        "reading its text",
    )?;
    let title = read
        .get(0)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let body_text = read
        .get(1)
        .and_then(Value::as_str)
        .unwrap_or("")
        .chars()
        .take(BODY_TEXT_CHARS)
        .collect();
    if let Some(selector) = &request.click {
        let selector = serde_json::to_string(selector).expect("a string serialises");
        page.evaluate(
            &format!(
                "(() => {{ try {{ const e = document.querySelector({selector}); \
                 if (e) {{ e.scrollIntoView({{block: 'center'}}); e.click(); }} }} catch (_) {{}} }})()"
            ),
            "clicking",
        )?;
    }
    if !request.wait_before.is_zero() {
        page.advance(request.wait_before, "waiting")?;
    }
    let mut frames = Vec::with_capacity(request.frames as usize);
    for i in 0..request.frames {
        if i > 0 && !request.interval.is_zero() {
            page.advance(request.interval, "running between frames")?;
        }
        frames.push(Frame {
            at: request.wait_before + request.interval * i,
            png: page.screenshot()?,
        });
    }
    Ok(Captured {
        title,
        body_text,
        frames,
        refused: std::mem::take(&mut page.refused),
    })
}

/// String field `name` of a DevTools answer.
fn str_field(v: &Value, name: &str) -> Result<String, BrowserError> {
    v.get(name)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| BrowserError::Malformed(format!("an answer without {name}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "file:///workspace/output.html";

    #[test]
    fn numbers_past_any_duration_are_refused_not_panicked_on() {
        // BrowserScreenshot's `wait_seconds` from an agent: far past what a Duration holds.
        for wait in [1e300, f64::MAX, 1e20, 1201.0] {
            let capture = Capture::screenshot(PAGE, Duration::ZERO, wait, 2);
            let e = capture.check().unwrap_err().to_string();
            assert!(e.contains("of page time: at most 600 s"), "{wait}: {e}");
        }
        // take_recording.py's `--interval` and `--wait-before` from a task: each fits a
        // Duration, their product and sum do not.
        let huge = Duration::from_secs(u64::MAX / 2);
        for (interval, wait_before) in [(huge, Duration::ZERO), (Duration::ZERO, Duration::MAX)] {
            let capture = Capture {
                url: PAGE.into(),
                start: Duration::ZERO,
                settle: Duration::from_millis(500),
                click: None,
                wait_before,
                frames: MAX_FRAMES,
                interval,
            };
            let e = capture.check().unwrap_err().to_string();
            assert!(e.contains("at most 600 s"), "{e}");
        }
        // What fits is accepted.
        assert!(
            Capture::screenshot(PAGE, Duration::ZERO, 2.0, 4)
                .check()
                .is_ok()
        );
    }
}
