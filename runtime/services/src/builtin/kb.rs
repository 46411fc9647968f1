//! kb (port 9106): knowledge-base articles, a very permissive token search (words, character
//! bigrams, CJK characters), content updates.

use std::sync::Arc;

use super::prelude::*;
use crate::py;
use crate::store::Derived;

const ID: Field = Field::req("article_id", Ty::Str);

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "kb",
    prefix: None,
    port: 9106,
    fixture: Fixture::Records {
        var: "KB_FIXTURES",
        default: "tasks/T015zh_kb_search/fixtures/kb/articles.json",
    },
    prepare: None,
    collection: Some(Collection {
        id: "article_id",
        noun: "Article",
    }),
    derive: Some(index),
    lists: &["updates"],
    endpoints: &[
        Endpoint {
            path: "/kb/search",
            body: REQUIRED,
            fields: &[
                Field::req("query", Ty::Str),
                Field::opt("category", Ty::Str),
                Field::def("max_results", Ty::Int, Lit::Int(5)),
            ],
            op: Op::Custom(search),
        },
        Endpoint {
            path: "/kb/articles/get",
            body: REQUIRED,
            fields: &[ID],
            op: Op::Get,
        },
        Endpoint {
            path: "/kb/articles/update",
            body: REQUIRED,
            fields: &[ID, Field::req("content", Ty::Str)],
            op: Op::Custom(update),
        },
    ],
    health: None,
};

/// K(text): lower-cased whitespace words, every two-code-point window that is not all
/// whitespace, and every CJK unified ideograph; sorted and deduplicated.
pub(crate) fn tokens(text: &str) -> Vec<Box<str>> {
    let lower = text.to_lowercase();
    let mut out: Vec<Box<str>> = lower
        .split(py::is_space)
        .filter(|w| !w.is_empty())
        .map(Box::from)
        .collect();
    let chars: Vec<(usize, char)> = lower.char_indices().collect();
    for w in chars.windows(2) {
        let (i, a) = w[0];
        let (j, b) = w[1];
        if !(py::is_space(a) && py::is_space(b)) {
            out.push(lower[i..j + b.len_utf8()].into());
        }
    }
    for (i, c) in &chars {
        if ('\u{4e00}'..='\u{9fff}').contains(c) {
            out.push(lower[*i..*i + c.len_utf8()].into());
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The searchable tokens of an article (`None`: the article's fields make search crash).
fn index(rec: &Obj) -> Derived {
    let text = (|| {
        let title = rec.get_str("title")?;
        let tags: Vec<&str> = match rec.get("tags")? {
            Json::Array(a) => a.iter().map(Json::as_str).collect::<Option<_>>()?,
            _ => return None,
        };
        let content = rec.get_str("content")?;
        Some(format!("{title} {} {content}", tags.join(" ")))
    })();
    Some(Arc::new(text.map(|t| tokens(&t))))
}

fn search(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let query = tokens(str_field(req, "query"));
    let category = req.get_str("category").filter(|c| !c.is_empty());
    let mut hits = Vec::new();
    for r in cx.records().iter() {
        if let Some(c) = category
            && r.data().get_str("category") != Some(c)
        {
            continue;
        }
        let Some(Some(doc)) = r.derived::<Option<Vec<Box<str>>>>() else {
            return Handled::crash();
        };
        if query.iter().any(|t| doc.binary_search(t).is_ok()) {
            let d = r.data();
            let content = d.get_str("content").unwrap_or("");
            let end = content
                .char_indices()
                .nth(150)
                .map_or(content.len(), |(i, _)| i);
            let mut o = d.project(&[
                "article_id",
                "title",
                "category",
                "tags",
                "last_updated",
                "views",
            ]);
            o.push("snippet", format!("{}...", &content[..end]));
            hits.push(Json::Object(o));
        }
    }
    hits.truncate(py::slice_len(
        hits.len(),
        req.get("max_results").unwrap_or(&Json::Null),
    ));
    let total = hits.len();
    Handled::ok(obj! { "articles" => hits, "total" => total })
}

fn update(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let id = str_field(req, "article_id");
    let Some(i) = cx.find(id) else {
        return cx.not_found(id);
    };
    let mut rec = cx.record(i).data().clone();
    rec.insert("content", req.get("content").cloned().unwrap_or(Json::Null));
    rec.insert("last_updated", cx.now.date_string());
    cx.replace(i, rec);
    cx.append(
        "updates",
        Json::Object(obj! { "article_id" => id, "timestamp" => cx.now.isoformat() }),
    );
    Handled::ok(obj! { "status" => "updated", "article_id" => id })
}
