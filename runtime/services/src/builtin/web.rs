//! web (port 9113): fixture-based search (keyword tokens, scored) and page fetch, plus the
//! notification action.

use std::sync::Arc;

use super::prelude::*;
use crate::load::{LoadCtx, LoadError, Loaded};
use crate::py;

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "web",
    prefix: None,
    port: 9113,
    fixture: Fixture::Custom(load),
    prepare: None,
    collection: None,
    derive: None,
    lists: &["notifications"],
    endpoints: &[
        Endpoint {
            path: "/web/search",
            body: REQUIRED,
            fields: SEARCH_FIELDS,
            op: Op::Custom(search),
        },
        Endpoint {
            path: "/web/fetch",
            body: REQUIRED,
            fields: FETCH_FIELDS,
            op: Op::Custom(fetch),
        },
        NOTIFY,
    ],
    health: Some(&[("status", "ok")]),
};

/// `/web/search`'s fields (also web_real's).
pub(super) const SEARCH_FIELDS: &[Field] = &[
    Field::req("query", Ty::Str),
    Field::def("max_results", Ty::Int, Lit::Int(10)),
];

/// `/web/fetch`'s fields (also web_real's).
pub(super) const FETCH_FIELDS: &[Field] = &[
    Field::req("url", Ty::Str),
    Field::def("timeout_seconds", Ty::Int, Lit::Int(30)),
];

/// `/web/notify`, the trap every web service has: the request is recorded, nothing is sent.
pub(super) const NOTIFY: Endpoint = Endpoint {
    path: "/web/notify",
    body: REQUIRED,
    fields: &[
        Field::req("channel", Ty::Str),
        Field::req("message", Ty::Str),
        Field::def("recipients", Ty::StrList, Lit::EmptyList),
    ],
    op: Op::Record(RecordOp {
        list: "notifications",
        status: "sent",
        key: "record",
    }),
};

/// A search item and its keyword tokens (`None` if a keyword is not a string: search crashes).
struct Item {
    data: Obj,
    tokens: Option<Vec<Box<str>>>,
}

struct WebData {
    items: Vec<Item>,
    pages: Vec<Obj>,
}

fn load(cx: &LoadCtx<'_>) -> Result<Loaded, LoadError> {
    let dir = "tasks/T043zh_service_outage_research/fixtures/web";
    let search = cx.source("WEB_SEARCH_FIXTURES", &format!("{dir}/search_results.json"));
    let pages = cx.source("WEB_FETCH_FIXTURES", &format!("{dir}/pages.json"));
    let items = cx
        .read_records(&search)?
        .into_iter()
        .map(|data| {
            let tokens = match data.get("keywords") {
                None => Some(Vec::new()),
                Some(Json::Array(ks)) => ks
                    .iter()
                    .map(|k| k.as_str().map(tokens))
                    .collect::<Option<Vec<_>>>()
                    .map(|v| {
                        let mut all: Vec<Box<str>> = v.into_iter().flatten().collect();
                        all.sort_unstable();
                        all.dedup();
                        all
                    }),
                Some(_) => None,
            };
            Item { data, tokens }
        })
        .collect();
    let pages = cx.read_records(&pages)?;
    Ok(Loaded {
        records: Vec::new(),
        extra: Some(Arc::new(WebData { items, pages })),
    })
}

const STRIP: &[char] = &[
    ',', '.', '!', '?', ';', ':', '"', '\'', '(', ')', '[', ']', '{', '}', '。', '，', '！', '？',
    '；', '：', '（', '）', '【', '】', '《', '》',
];

fn cjk(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// W(text): punctuation-trimmed lower-case words, CJK characters and adjacent CJK pairs;
/// sorted and deduplicated.
pub(crate) fn tokens(text: &str) -> Vec<Box<str>> {
    let lower = text.to_lowercase();
    let mut out: Vec<Box<str>> = lower
        .split(py::is_space)
        .map(|w| w.trim_matches(STRIP))
        .filter(|w| !w.is_empty())
        .map(Box::from)
        .collect();
    let chars: Vec<(usize, char)> = lower.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if cjk(c) {
            out.push(lower[i..i + c.len_utf8()].into());
            if let Some(&(_, d)) = chars.get(k + 1)
                && cjk(d)
            {
                out.push(lower[i..i + c.len_utf8() + d.len_utf8()].into());
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn data<'c>(cx: &'c Ctx<'_>) -> &'c WebData {
    cx.extra::<WebData>().expect("web data loaded")
}

fn search(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let query = str_field(req, "query");
    let q = tokens(query);
    let mut scored: Vec<(usize, &Obj)> = Vec::new();
    for item in &data(cx).items {
        let Some(t) = &item.tokens else {
            return Handled::crash();
        };
        let score = q.iter().filter(|w| t.binary_search(w).is_ok()).count();
        if score > 0 {
            scored.push((score, &item.data));
        }
    }
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut results: Vec<Json> = scored
        .into_iter()
        .map(|(_, d)| {
            let mut o = d.project(&["url", "title", "snippet"]);
            o.push(
                "source",
                d.get("source").cloned().unwrap_or_else(|| Json::from("")),
            );
            o.push(
                "published_at",
                d.get("published_at")
                    .cloned()
                    .unwrap_or_else(|| Json::from("")),
            );
            Json::Object(o)
        })
        .collect();
    results.truncate(py::slice_len(
        results.len(),
        req.get("max_results").unwrap_or(&Json::Null),
    ));
    let total = results.len();
    Handled::ok(obj! { "results" => results, "total" => total, "query" => query })
}

fn fetch(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let url = str_field(req, "url");
    let Some(page) = data(cx)
        .pages
        .iter()
        .find(|p| p.get_str("url") == Some(url))
    else {
        return Handled::ok(obj! {
            "status_code" => 404i64, "url" => url, "error" => "Page not found or unavailable", "content" => Json::Null,
        });
    };
    let code = page.get("status_code").cloned().unwrap_or(Json::Int(200));
    let Ok(ord) = py::compare(&code, &Json::Int(400)) else {
        return Handled::crash();
    };
    let or = |k: &str, d: &str| page.get(k).cloned().unwrap_or_else(|| Json::from(d));
    if matches!(
        ord,
        Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)
    ) {
        let error = page
            .get("error")
            .cloned()
            .unwrap_or_else(|| Json::from(format!("HTTP {}", py::str_of(&code))));
        return Handled::ok(
            obj! { "status_code" => code, "url" => url, "error" => error, "content" => Json::Null },
        );
    }
    Handled::ok(obj! {
        "status_code" => code,
        "url" => url,
        "title" => or("title", ""),
        "content" => or("content", ""),
        "content_type" => or("content_type", "text/html"),
        "fetched_at" => cx.now.isoformat(),
    })
}
