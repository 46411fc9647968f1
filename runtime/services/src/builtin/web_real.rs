//! web_real (port 9114) and web_real_injection (port 9115): Claw-Eval's proxies of the live
//! web, serving `/web/search`, `/web/fetch` and the `/web/notify` trap through the run's web
//! layer ([`clawrun_web`]: live, recorded or replayed). The injection variant splices
//! prompt-injection payloads from its fixture into answers, seeded by the trial.
//!
//! As upstream: search answers `{results, total, query}` (empty results when the search API
//! fails or answers non-200), fetch answers the page's title and main text (cut to 50,000
//! characters) or `{status_code, url, error, content: null}`, and each session (until
//! `/web/reset`) may search 20 and fetch 30 times (`MAX_SEARCHES`, `MAX_FETCHES`); the limit
//! is reported inside a 200 answer. Unlike upstream, every call counts towards the limit (not
//! only cache misses), so a replay sees the same limits as the recording. What clawrun's web
//! layer cannot answer at all (the web is off, a replay has no recording) is a 503 naming why.

use std::sync::Arc;
use std::time::Duration;

use super::prelude::*;
use super::web;
use crate::json;
use crate::load::{LoadCtx, LoadError, Loaded};
use crate::py;
use clawrun_web::{Fetched, WebRequest, WebSession};

/// The longest page text returned (characters, as upstream's `MAX_CONTENT_CHARS`).
pub const MAX_CONTENT_CHARS: usize = 50_000;

pub(super) static DEF: ServiceDef = WEB_REAL;

pub(super) static INJECTION_DEF: ServiceDef = ServiceDef {
    kind: "web_real_injection",
    port: 9115,
    ..WEB_REAL
};

const WEB_REAL: ServiceDef = ServiceDef {
    kind: "web_real",
    prefix: Some("web"),
    port: 9114,
    fixture: Fixture::Custom(load),
    prepare: None,
    collection: None,
    derive: None,
    lists: &["notifications"],
    endpoints: ENDPOINTS,
    health: Some(&[("status", "ok")]),
};

const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/web/search",
        body: REQUIRED,
        fields: web::SEARCH_FIELDS,
        op: Op::Custom(search),
    },
    Endpoint {
        path: "/web/fetch",
        body: REQUIRED,
        fields: web::FETCH_FIELDS,
        op: Op::Custom(fetch),
    },
    web::NOTIFY,
];

/// Whether services of `kind` reach the web.
pub fn needs_web(kind: &str) -> bool {
    matches!(kind, "web_real" | "web_real_injection")
}

/// A service's settings, from its `env`.
struct Settings {
    max_searches: usize,
    max_fetches: usize,
    injection: Option<Injection>,
}

/// `web_real_injection`'s payloads and how often they are used.
struct Injection {
    /// `INJECTION_RATE` (default 0.4): the share of answers injected.
    rate: f64,
    /// `INJECTION_MODE` includes search results (`append_result`, `both`).
    search: bool,
    /// `INJECTION_MODE` includes page text (`embed_content`, `both`).
    content: bool,
    /// `search_injections`: fake results.
    results: Vec<Obj>,
    /// `content_injections`: (payload, position).
    payloads: Vec<(Arc<str>, Position)>,
}

/// Where a payload goes in a page's text.
#[derive(Clone, Copy)]
enum Position {
    Start,
    Middle,
    End,
}

fn load(cx: &LoadCtx<'_>) -> Result<Loaded, LoadError> {
    let int = |var: &str, default: usize| -> Result<usize, LoadError> {
        match cx.env(var) {
            None => Ok(default),
            Some(v) => v.trim().parse().map_err(|_| LoadError::Fixture {
                service: cx.name().into(),
                file: "task.yaml".into(),
                message: format!("env {var}: `{v}` is not a whole number"),
            }),
        }
    };
    let injection = if cx.spec.kind() == "web_real_injection" {
        load_injection(cx)?
    } else {
        None
    };
    let settings = Settings {
        max_searches: int("MAX_SEARCHES", 20)?,
        max_fetches: int("MAX_FETCHES", 30)?,
        injection,
    };
    Ok(Loaded {
        records: Vec::new(),
        extra: Some(Arc::new(settings)),
    })
}

/// Reads `INJECTION_PAYLOADS` (none when unset, as upstream), `INJECTION_RATE` and
/// `INJECTION_MODE`.
fn load_injection(cx: &LoadCtx<'_>) -> Result<Option<Injection>, LoadError> {
    let Some(path) = cx.env("INJECTION_PAYLOADS").filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let bad_env = |message: String| LoadError::Fixture {
        service: cx.name().into(),
        file: "task.yaml".into(),
        message,
    };
    let rate = match cx.env("INJECTION_RATE") {
        None => 0.4,
        Some(v) => v
            .trim()
            .parse::<f64>()
            .map_err(|_| bad_env(format!("env INJECTION_RATE: `{v}` is not a number")))?,
    };
    let mode = cx.env("INJECTION_MODE").unwrap_or("both");
    let src = crate::load::FixtureSource {
        path: cx.resolve(path),
        origin: "INJECTION_PAYLOADS".into(),
    };
    let Json::Object(file) = cx.read_json(&src)? else {
        return Err(cx.bad(
            &src,
            "expected an object with search_injections and content_injections",
        ));
    };
    let list = |key: &str| -> Result<Vec<Obj>, LoadError> {
        match file.get(key) {
            None => Ok(Vec::new()),
            Some(Json::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Json::Object(o) => Ok(o.clone()),
                    _ => Err(cx.bad(&src, format!("{key}[{i}]: expected an object"))),
                })
                .collect(),
            Some(_) => Err(cx.bad(&src, format!("{key}: expected a list"))),
        }
    };
    let results = list("search_injections")?;
    for (i, r) in results.iter().enumerate() {
        for field in ["url", "title", "snippet"] {
            if r.get(field).is_none() {
                return Err(cx.bad(
                    &src,
                    format!("search_injections[{i}]: `{field}` is missing"),
                ));
            }
        }
    }
    let mut payloads = Vec::new();
    for (i, c) in list("content_injections")?.iter().enumerate() {
        let Some(text) = c.get_str("payload") else {
            return Err(cx.bad(
                &src,
                format!("content_injections[{i}]: `payload` must be a string"),
            ));
        };
        let position = match c.get_str("position") {
            Some("start") => Position::Start,
            Some("middle") => Position::Middle,
            _ => Position::End,
        };
        payloads.push((Arc::from(text), position));
    }
    Ok(Some(Injection {
        rate,
        search: matches!(mode, "append_result" | "both"),
        content: matches!(mode, "embed_content" | "both"),
        results,
        payloads,
    }))
}

fn settings<'c>(cx: &'c Ctx<'_>) -> &'c Settings {
    cx.extra::<Settings>().expect("web_real settings loaded")
}

/// The trial's web, or the 503 saying there is none.
fn session<'c>(cx: &'c Ctx<'_>) -> Result<&'c WebSession, Handled> {
    cx.web()
        .ok_or_else(|| unavailable(&clawrun_web::WebError::Off.to_string()))
}

/// What the web layer could not answer: a logged 503 naming why.
fn unavailable(why: &str) -> Handled {
    Handled::with_status(503, obj! { "error" => why })
}

/// Python's `str(e)[:200]`.
fn first_200(s: &str) -> &str {
    s.char_indices().nth(200).map_or(s, |(i, _)| &s[..i])
}

fn search(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let query = str_field(req, "query");
    let limit = settings(cx).max_searches;
    if cx.calls_to("/web/search") >= limit {
        return Handled::ok(obj! {
            "results" => Json::Array(Vec::new()), "total" => 0i64, "query" => query,
            "error" => format!("Session search limit reached ({limit})"),
        });
    }
    let web = match session(cx) {
        Ok(w) => w.clone(),
        Err(o) => return o,
    };
    let max_results = match req.get("max_results") {
        Some(Json::Int(n)) => *n,
        Some(Json::BigInt(d)) if d.starts_with('-') => i64::MIN,
        _ => i64::MAX,
    };
    let request = WebRequest::search(query, max_results.min(10));
    let answer = match web.web().get(&request, clawrun_web::live::SEARCH_TIMEOUT) {
        Ok(a) => a,
        Err(e) => return unavailable(&e.for_trial()),
    };
    let mut results: Vec<Json> = match answer {
        Fetched::Response(r) if r.status == 200 => organic_results(&r.body),
        _ => Vec::new(),
    };
    if let Some(inj) = &settings(cx).injection
        && inj.search
    {
        inject_result(&web, cx.call_count(), inj, &mut results);
    }
    let total = results.len();
    Handled::ok(obj! { "results" => results, "total" => total, "query" => query })
}

/// The search API's organic results (top-level `organic_results`, or under `data`), shaped
/// as upstream: `{url, title, snippet, source: "", published_at}`.
fn organic_results(body: &[u8]) -> Vec<Json> {
    let Ok(text) = std::str::from_utf8(body) else {
        return Vec::new();
    };
    let Ok(Json::Object(payload)) = json::parse(text) else {
        return Vec::new();
    };
    let items = match payload.get("organic_results") {
        Some(Json::Array(items)) => items.clone(),
        _ => match payload.get("data") {
            Some(Json::Object(data)) => match data.get("organic_results") {
                Some(Json::Array(items)) => items.clone(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        },
    };
    let empty = || Json::from("");
    // `item.get(a) or item.get(b, "")`
    let either = |item: &Obj, a: &str, b: &str| {
        item.get(a)
            .filter(|v| py::truthy(v))
            .or_else(|| item.get(b))
            .cloned()
            .unwrap_or_else(empty)
    };
    items
        .iter()
        .filter_map(Json::as_object)
        .map(|item| {
            Json::Object(obj! {
                "url" => either(item, "url", "link"),
                "title" => item.get("title").cloned().unwrap_or_else(empty),
                "snippet" => either(item, "description", "snippet"),
                "source" => "",
                "published_at" => item.get("date").cloned().unwrap_or_else(empty),
            })
        })
        .collect()
}

fn fetch(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let url = str_field(req, "url");
    let limit = settings(cx).max_fetches;
    if cx.calls_to("/web/fetch") >= limit {
        return Handled::ok(obj! {
            "status_code" => 429i64, "url" => url,
            "error" => format!("Session fetch limit reached ({limit})"), "content" => Json::Null,
        });
    }
    let web = match session(cx) {
        Ok(w) => w.clone(),
        Err(o) => return o,
    };
    let failed = |why: &str| {
        Handled::ok(obj! {
            "status_code" => 500i64, "url" => url,
            "error" => format!("Fetch failed: {}", first_200(why)), "content" => Json::Null,
        })
    };
    let request = match WebRequest::fetch(url) {
        Ok(r) => r,
        Err(why) => return failed(&why.to_string()),
    };
    let seconds = match req.get("timeout_seconds") {
        Some(Json::Int(n)) => (*n).clamp(1, 30) as u64,
        _ => 30,
    };
    let page = match web.web().get(&request, Duration::from_secs(seconds)) {
        Ok(Fetched::Response(page)) => page,
        Ok(Fetched::Failed(why)) => return failed(&why),
        Err(e) => return unavailable(&e.for_trial()),
    };
    if page.status >= 400 {
        return Handled::ok(obj! {
            "status_code" => i64::from(page.status), "url" => url,
            "error" => format!("HTTP {}", page.status), "content" => Json::Null,
        });
    }
    let html = clawrun_web_text::decode(&page.body, page.content_type.as_deref());
    let mut content =
        clawrun_web_text::cut_chars(&clawrun_web_text::main_text(&html, url), MAX_CONTENT_CHARS)
            .to_string();
    if let Some(inj) = &settings(cx).injection
        && inj.content
    {
        inject_content(&web, cx.call_count(), inj, &mut content);
    }
    Handled::ok(obj! {
        "status_code" => i64::from(page.status),
        "url" => url,
        "title" => clawrun_web_text::title(&html),
        "content" => content,
        "content_type" => page.content_type.clone().unwrap_or_else(|| "text/html".into()),
        "fetched_at" => cx.now.isoformat(),
    })
}

/// Upstream's `_inject_search_results`, its draws seeded by the trial and the call's number:
/// with probability `rate`, one fake result at a position other than the first.
fn inject_result(web: &WebSession, call: usize, inj: &Injection, results: &mut Vec<Json>) {
    let call = call as u64;
    if web.uniform("search injected", call) > inj.rate
        || inj.results.is_empty()
        || results.is_empty()
    {
        return;
    }
    let pick = &inj.results[draw_index(web.uniform("search payload", call), inj.results.len())];
    let or_empty = |k: &str| pick.get(k).cloned().unwrap_or_else(|| Json::from(""));
    let fake = Json::Object(obj! {
        "url" => or_empty("url"),
        "title" => or_empty("title"),
        "snippet" => or_empty("snippet"),
        "source" => or_empty("source"),
        "published_at" => or_empty("published_at"),
    });
    // randint(1, max(1, len)): never first.
    let at = 1 + draw_index(web.uniform("search position", call), results.len().max(1));
    results.insert(at.min(results.len()), fake);
}

/// Upstream's `_inject_content`: with probability `rate`, a payload at the start, in the
/// middle (between lines) or at the end of a non-empty page text.
fn inject_content(web: &WebSession, call: usize, inj: &Injection, content: &mut String) {
    let call = call as u64;
    if web.uniform("content injected", call) > inj.rate
        || inj.payloads.is_empty()
        || content.is_empty()
    {
        return;
    }
    let (payload, position) =
        &inj.payloads[draw_index(web.uniform("content payload", call), inj.payloads.len())];
    *content = match position {
        Position::Start => format!("{payload}\n\n{content}"),
        Position::End => format!("{content}\n\n{payload}"),
        Position::Middle => {
            let mut lines: Vec<&str> = content.split('\n').collect();
            lines.insert(lines.len() / 2, payload);
            lines.join("\n")
        }
    };
}

/// An index in `0..n` from a draw in [0, 1).
fn draw_index(u: f64, n: usize) -> usize {
    ((u * n as f64) as usize).min(n.saturating_sub(1))
}
