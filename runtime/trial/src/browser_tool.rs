//! `BrowserScreenshot`, Claw-Eval's browser tool, on the host: the page comes from the trial's
//! workspace (`clawrun-browser`: a VFS snapshot; `http(s)` `GET`s through the run's web layer,
//! [`super::page_web`]; anything else refused), its frames
//! reach the model as images after the text, as `Read`'s pictures do, and the text is what
//! Claw-Eval's dispatcher shows (the sandbox server's answer without the frames, plus
//! `frame_count` and `frames_shown`). The trial's clock moves on by the page time the capture
//! spans.

use anyhow::Result;
use clawrun_browser::{BrowserError, Capture};
use clawrun_faults::Call;
use clawrun_sandbox::tools::{InstallationError, ToolImage, injected_failure};
use clawrun_services::json::{Json, Obj, py_float_repr, to_python};
use serde_json::Value;

use super::page_web::TrialWeb;
use super::setup::{Harness, TrialEnv};

/// The tool's name.
pub const NAME: &str = "BrowserScreenshot";

/// What one call gives the model.
pub struct Shown {
    /// The text.
    pub output: String,
    /// The frames, after the text.
    pub images: Vec<ToolImage>,
    /// Whether it is a tool error.
    pub is_error: bool,
}

/// The arguments, checked as Claw-Eval's request model takes them.
struct Args {
    url: String,
    wait_seconds: f64,
    frame_count: u32,
}

/// `args` as [`Args`], or the message for the model.
fn parse(args: &Value) -> Result<Args, String> {
    let url = match args.get("url") {
        Some(Value::String(u)) if !u.trim().is_empty() => u.trim().to_string(),
        Some(_) => return Err("url must be a non-empty string".into()),
        None => return Err("url is required".into()),
    };
    let wait_seconds = match args.get("wait_seconds") {
        None | Some(Value::Null) => 2.0,
        Some(v) => v
            .as_f64()
            .filter(|w| w.is_finite() && *w >= 0.0)
            .ok_or("wait_seconds must be a number of seconds, 0 or more")?,
    };
    let frame_count = match args.get("frame_count") {
        None | Some(Value::Null) => 4,
        Some(v) => {
            let n = v.as_i64().ok_or("frame_count must be an integer")?.max(1);
            u32::try_from(n)
                .ok()
                .filter(|n| *n <= clawrun_browser::MAX_FRAMES)
                .ok_or(format!(
                    "frame_count must be at most {}",
                    clawrun_browser::MAX_FRAMES
                ))?
        }
    };
    Ok(Args {
        url,
        wait_seconds,
        frame_count,
    })
}

/// A tool error with `message`, in the shape of the sandbox server's error answer.
fn error(url: &str, message: &str) -> Shown {
    let mut body = Obj::new();
    body.push("error", message);
    body.push("url", url);
    Shown {
        output: to_python(&Json::Object(body)),
        images: Vec::new(),
        is_error: true,
    }
}

/// Runs one `BrowserScreenshot` call over the trial's workspace; `Err` only when the browser
/// itself failed (an installation without Chromium stops the run; a browser that died ends
/// the trial as an infrastructure error).
pub fn call(harness: &Harness, env: &mut TrialEnv, input: &Value) -> Result<Shown> {
    let point = clawrun_faults::point::tool(NAME);
    let fault = env.faults.decide(&Call::new(&point));
    let url = input.get("url").and_then(Value::as_str).unwrap_or("");
    if let Some(failed) = fault.as_ref().and_then(|f| injected_failure(NAME, &f.kind)) {
        return Ok(error(url, &failed));
    }
    let args = match parse(input) {
        Ok(a) => a,
        Err(message) => return Ok(error(url, &message)),
    };
    let capture = Capture::screenshot(
        &args.url,
        env.clock.wall(),
        args.wait_seconds,
        args.frame_count,
    );
    let web = TrialWeb(&env.web);
    let captured = match harness
        .browser
        .capture_with_web(&env.vfs, Some(&web), &capture)
    {
        Ok(c) => c,
        Err(e) if e.is_page_error() => return Ok(error(&args.url, &e.to_string())),
        Err(e @ (BrowserError::NotFound { .. } | BrowserError::Launch { .. })) => {
            return Err(InstallationError(format!("{NAME}: {e}")).into());
        }
        // A step past the real-time limit or a browser that died: the machine's doing, never
        // the page's result (an infrastructure error, `super::execution::host_failure`).
        Err(e) => {
            return Err(anyhow::Error::new(e).context(format!(
                "{NAME} of {} (the browser, not the page: an infrastructure error; `--resume` \
                 runs the trial again)",
                args.url
            )));
        }
    };
    let spanned = capture.settle + capture.interval * (capture.frames - 1);
    env.clock
        .advance(u64::try_from(spanned.as_nanos()).unwrap_or(u64::MAX));
    let n = captured.frames.len();
    let mut body = Obj::new();
    body.push("url", args.url.as_str());
    body.push("title", captured.title.as_str());
    body.push("body_text", captured.body_text.as_str());
    body.push(
        "text_summary",
        format!(
            "Page: {}. Captured {n} frame(s) over {}s.",
            captured.title,
            py_float_repr(args.wait_seconds)
        ),
    );
    body.push("frame_count", n);
    body.push("frames_shown", n);
    let output = to_python(&Json::Object(body));
    let output = match fault.and_then(|f| f.kind.transform_body(output.as_bytes())) {
        Some(damaged) => String::from_utf8_lossy(&damaged).into_owned(),
        None => output,
    };
    Ok(Shown {
        output,
        images: captured
            .frames
            .into_iter()
            .map(|f| ToolImage {
                media_type: "image/png".into(),
                bytes: f.png,
            })
            .collect(),
        is_error: false,
    })
}
