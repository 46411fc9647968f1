//! Reading checks from task.yaml nodes: the `type:` tag picks the variant; each type's fields
//! are read with their field paths, unknown ones warned about.

use std::collections::BTreeMap;

use crate::check::{
    CHECK_TYPES, Check, EvidenceSource, Matcher, NumberSource, RowSelector, TextField,
};
use crate::read::{Cx, FromNode, Map, join};
use crate::yaml::{Node, Value};

impl FromNode for TextField {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        match String::read(cx, n, path)?.as_str() {
            "final_text" => Some(TextField::FinalText),
            "assistant_text" => Some(TextField::AssistantText),
            other => {
                let msg = format!("unknown text field `{other}`");
                cx.error(
                    path,
                    n.pos,
                    msg,
                    Some("valid: final_text, assistant_text".into()),
                );
                None
            }
        }
    }
}

impl FromNode for EvidenceSource {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let s = String::read(cx, n, path)?;
        match s.as_str() {
            "conversation" => Some(EvidenceSource::Conversation),
            "audit" => Some(EvidenceSource::Audit),
            _ => match s.strip_prefix("file:") {
                Some(p) if !p.is_empty() => Some(EvidenceSource::File(p.to_string())),
                _ => {
                    let msg = format!("unknown evidence `{s}`");
                    let hint = "valid: conversation, audit, file:/path".to_string();
                    cx.error(path, n.pos, msg, Some(hint));
                    None
                }
            },
        }
    }
}

impl FromNode for Matcher {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        if let Value::Map(entries) = &n.value
            && entries.len() == 1
            && entries[0].0.as_str() == Some("regex")
        {
            return String::read(cx, &entries[0].1, &join(path, "regex")).map(Matcher::Regex);
        }
        serde_json::Value::read(cx, n, path).map(Matcher::Equals)
    }
}

/// A mapping of name -> T read in source order into a sorted map.
fn read_map<T: FromNode>(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<BTreeMap<String, T>> {
    let mut m = Map::open(cx, n, path)?;
    let mut out = BTreeMap::new();
    let mut ok = true;
    for (k, v) in m.rest() {
        match T::read(m.cx, &v, &join(path, &k)) {
            Some(t) => {
                out.insert(k, t);
            }
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// Fields every check may have besides its own.
const COMMON: &[&str] = &["type", "description"];

impl FromNode for Check {
    fn read(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Self> {
        let mut m = Map::open(cx, n, path)?;
        let types = CHECK_TYPES.join(", ");
        let kind: String = m.req("type", &format!("add `type:`, one of: {types}"))?;
        let need = |what: &str| format!("`{kind}` checks need `{what}`");
        let (check, fields): (Option<Check>, &[&str]) = match kind.as_str() {
            "tool_called" => {
                let tool_name = m.req("tool_name", &need("tool_name"));
                let min_calls = m.or("min_calls", 1);
                (
                    tool_name.map(|tool_name| Check::ToolCalled {
                        tool_name,
                        min_calls,
                    }),
                    &["tool_name", "min_calls"],
                )
            }
            "keywords_present" => {
                let keywords = m.req("keywords", &need("keywords: [...]"));
                let field = m.or_default("field");
                (
                    keywords.map(|keywords| Check::KeywordsPresent { keywords, field }),
                    &["keywords", "field"],
                )
            }
            "keywords_absent" => {
                let keywords = m.req("keywords", &need("keywords: [...]"));
                let field = m.or_default("field");
                (
                    keywords.map(|keywords| Check::KeywordsAbsent { keywords, field }),
                    &["keywords", "field"],
                )
            }
            "categories_present" => (
                m.req("categories", &need("categories: [...]"))
                    .map(|categories| Check::CategoriesPresent { categories }),
                &["categories"],
            ),
            "min_length" => {
                let min_length = m.req("min_length", &need("min_length: N"));
                let field = m.or_default("field");
                (
                    min_length.map(|min_length| Check::MinLength { field, min_length }),
                    &["field", "min_length"],
                )
            }
            "llm_judge" => {
                let description: Option<String> = m.opt("description");
                let rubric: Option<String> = m.opt("rubric");
                if description.is_none() && rubric.is_none() {
                    let p = m.field("rubric");
                    let hint = "say what the judge should look for in `rubric:`".to_string();
                    m.cx.error(
                        &p,
                        m.pos,
                        "llm_judge needs `rubric` or `description`",
                        Some(hint),
                    );
                }
                let evidence = m
                    .opt("evidence")
                    .unwrap_or_else(|| vec![EvidenceSource::Conversation]);
                (
                    Some(Check::LlmJudge {
                        description,
                        rubric,
                        evidence,
                    }),
                    &["rubric", "evidence"],
                )
            }
            "tool_not_called" => (
                m.req("tool_name", &need("tool_name"))
                    .map(|tool_name| Check::ToolNotCalled { tool_name }),
                &["tool_name"],
            ),
            "tool_order" => (
                m.req("tools", &need("tools: [first, second, ...]"))
                    .map(|tools| Check::ToolOrder { tools }),
                &["tools"],
            ),
            "distinct_args" => {
                let tool_name = m.req("tool_name", &need("tool_name"));
                let field = m.req("field", &need("field (the argument name)"));
                let min = m.req("min", &need("min: N"));
                (
                    tool_name
                        .zip(field)
                        .zip(min)
                        .map(|((tool_name, field), min)| Check::DistinctArgs {
                            tool_name,
                            field,
                            min,
                        }),
                    &["tool_name", "field", "min"],
                )
            }
            "final_text_regex" => (
                m.req("pattern", &need("pattern: REGEX"))
                    .map(|pattern| Check::FinalTextRegex { pattern }),
                &["pattern"],
            ),
            "audit" => {
                let service = m.req("service", &need("service (the instance name)"));
                let key = m.req("key", &need("key (the audit key, e.g. sent_messages)"));
                let where_ = match m.node("where") {
                    Some(w) => read_map::<Matcher>(m.cx, w, &join(path, "where")),
                    None => Some(BTreeMap::new()),
                };
                let max: Option<u64> = m.opt("max");
                // `max: 0` alone means "no such record" (min defaults to 1 otherwise).
                let min = m.or("min", u64::from(max != Some(0)));
                (
                    service
                        .zip(key)
                        .zip(where_)
                        .map(|((service, key), where_)| Check::Audit {
                            service,
                            key,
                            where_,
                            min,
                            max,
                        }),
                    &["service", "key", "where", "min", "max"],
                )
            }
            "file_exists" => (
                m.req("path", &need("path"))
                    .map(|path| Check::FileExists { path }),
                &["path"],
            ),
            "file_absent" => (
                m.req("path", &need("path"))
                    .map(|path| Check::FileAbsent { path }),
                &["path"],
            ),
            "file_regex" => {
                let p = m.req("path", &need("path"));
                let pattern = m.req("pattern", &need("pattern: REGEX"));
                (
                    p.zip(pattern)
                        .map(|(path, pattern)| Check::FileRegex { path, pattern }),
                    &["path", "pattern"],
                )
            }
            "json_path" => {
                let p = m.req("path", &need("path"));
                let pointer = m.req("pointer", &need("pointer (RFC 6901, e.g. /total)"));
                let equals = m
                    .node("equals")
                    .and_then(|e| serde_json::Value::read(m.cx, e, &join(path, "equals")));
                let regex = m.opt("regex");
                let approx = m.opt("approx");
                let tolerance = m.opt("tolerance");
                let check = p.zip(pointer).map(|(path, pointer)| Check::JsonPath {
                    path,
                    pointer,
                    equals,
                    regex,
                    approx,
                    tolerance,
                });
                (
                    check,
                    &["path", "pointer", "equals", "regex", "approx", "tolerance"],
                )
            }
            "csv_cell" => {
                let p = m.req("path", &need("path"));
                let row = match (m.node("row"), m.node("match")) {
                    (Some(r), None) => {
                        u64::read(m.cx, r, &join(path, "row")).map(RowSelector::Index)
                    }
                    (None, Some(mm)) => {
                        read_map::<String>(m.cx, mm, &join(path, "match")).map(RowSelector::Match)
                    }
                    _ => {
                        let f = m.field("row");
                        let hint = "give `row: N` (0-based data row) or `match: {column: value}`"
                            .to_string();
                        let msg = "csv_cell needs exactly one of `row`, `match`";
                        m.cx.error(&f, m.pos, msg, Some(hint));
                        None
                    }
                };
                let column = m.req("column", &need("column (a header name)"));
                let equals = m.opt("equals");
                let approx = m.opt("approx");
                let tolerance = m.opt("tolerance");
                let check = p
                    .zip(row)
                    .zip(column)
                    .map(|((path, row), column)| Check::CsvCell {
                        path,
                        row,
                        column,
                        equals,
                        approx,
                        tolerance,
                    });
                (
                    check,
                    &[
                        "path",
                        "row",
                        "match",
                        "column",
                        "equals",
                        "approx",
                        "tolerance",
                    ],
                )
            }
            "number_within" => {
                let source = m.req::<String>("source", &need("source: final_text or a file path"));
                let value = m.req("value", &need("value: NUMBER"));
                let tolerance = m.req("tolerance", &need("tolerance: NUMBER (absolute)"));
                let source = source.map(|s| match s.as_str() {
                    "final_text" => NumberSource::FinalText,
                    _ => NumberSource::File(s),
                });
                (
                    source
                        .zip(value)
                        .zip(tolerance)
                        .map(|((source, value), tolerance)| Check::NumberWithin {
                            source,
                            value,
                            tolerance,
                        }),
                    &["source", "value", "tolerance"],
                )
            }
            "interval_iou" => {
                let p = m.req("path", &need("path"));
                let pointer = m.req("pointer", &need("pointer"));
                let start = m.req("start", &need("start: NUMBER"));
                let end = m.req("end", &need("end: NUMBER"));
                let min_iou = m.req("min_iou", &need("min_iou: 0..1"));
                let check = p.zip(pointer).zip(start.zip(end)).zip(min_iou).map(
                    |(((path, pointer), (start, end)), min_iou)| Check::IntervalIou {
                        path,
                        pointer,
                        start,
                        end,
                        min_iou,
                    },
                );
                (check, &["path", "pointer", "start", "end", "min_iou"])
            }
            "command" => {
                let command = m.req("command", &need("command: SHELL LINE"));
                let exit = m.or("exit", 0);
                let stdout_regex = m.opt("stdout_regex");
                (
                    command.map(|command| Check::Command {
                        command,
                        exit,
                        stdout_regex,
                    }),
                    &["command", "exit", "stdout_regex"],
                )
            }
            other => {
                let f = m.field("type");
                let pos = m.node("type").and_then(|t| t.pos);
                let hint = match crate::read::did_you_mean(other, CHECK_TYPES) {
                    Some(s) => format!("did you mean `{s}`? valid types: {types}"),
                    None => format!("valid types: {types}"),
                };
                m.cx.error(&f, pos, format!("unknown check type `{other}`"), Some(hint));
                return None;
            }
        };
        // `description` is documentation on every check.
        m.node("description");
        let valid: Vec<&str> = COMMON.iter().chain(fields).copied().collect();
        m.finish(&valid);
        check
    }
}
