//! rss (port 9109): articles grouped into feeds by source, filtered listings, publishing.

use super::prelude::*;
use crate::py;

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "rss",
    prefix: None,
    port: 9109,
    fixture: Fixture::Records {
        var: "RSS_FIXTURES",
        default: "tasks/T021zh_newsletter_curation/fixtures/rss/articles.json",
    },
    prepare: None,
    collection: Some(Collection {
        id: "article_id",
        noun: "Article",
    }),
    derive: None,
    lists: &["published"],
    endpoints: &[
        Endpoint {
            path: "/rss/feeds",
            body: OPTIONAL,
            fields: &[Field::opt("category", Ty::Str)],
            op: Op::Custom(feeds),
        },
        Endpoint {
            path: "/rss/articles",
            body: OPTIONAL,
            fields: &[
                Field::opt("source", Ty::Str),
                Field::opt("category", Ty::Str),
                Field::def("max_results", Ty::Int, Lit::Int(20)),
            ],
            op: Op::List(ListOp {
                key: "articles",
                filters: &[
                    Filter::EqIfSet {
                        param: "source",
                        field: "source",
                    },
                    Filter::EqIfSet {
                        param: "category",
                        field: "category",
                    },
                ],
                project: Some(&[
                    "article_id",
                    "title",
                    "source",
                    "category",
                    "published_at",
                    "summary",
                    "word_count",
                ]),
                defaults: &[],
                limit: Some("max_results"),
            }),
        },
        Endpoint {
            path: "/rss/articles/get",
            body: REQUIRED,
            fields: &[Field::req("article_id", Ty::Str)],
            op: Op::Get,
        },
        Endpoint {
            path: "/rss/publish",
            body: REQUIRED,
            fields: &[
                Field::req("title", Ty::Str),
                Field::req("content", Ty::Str),
                Field::def("recipients", Ty::StrList, Lit::EmptyList),
            ],
            op: Op::Record(RecordOp {
                list: "published",
                status: "published",
                key: "record",
            }),
        },
    ],
    health: None,
};

/// Sources in order of first appearance, each with its distinct categories (first-appearance
/// order; upstream's order is a set's) and article count.
fn feeds(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let category = req.get_str("category").filter(|c| !c.is_empty());
    let mut groups: Vec<(Json, Vec<Json>, usize)> = Vec::new();
    for r in cx.records().iter() {
        let d = r.data();
        let cat = d.get("category").cloned().unwrap_or(Json::Null);
        if let Some(c) = category
            && cat.as_str() != Some(c)
        {
            continue;
        }
        let source = d.get("source").cloned().unwrap_or(Json::Null);
        let i = match groups.iter().position(|(s, _, _)| py::eq(s, &source)) {
            Some(i) => i,
            None => {
                groups.push((source, Vec::new(), 0));
                groups.len() - 1
            }
        };
        let g = &mut groups[i];
        if !g.1.iter().any(|c| py::eq(c, &cat)) {
            g.1.push(cat);
        }
        g.2 += 1;
    }
    let feeds: Vec<Json> = groups
        .into_iter()
        .map(|(source, categories, n)| {
            Json::Object(
                obj! { "source" => source, "categories" => categories, "article_count" => n },
            )
        })
        .collect();
    let total = feeds.len();
    Handled::ok(obj! { "feeds" => feeds, "total" => total })
}
