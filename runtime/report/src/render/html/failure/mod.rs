//! One failure's page: a self-contained HTML document (inline CSS, no script, no external
//! resources) showing the perturbed trial next to its unperturbed twin — the minimal schedule,
//! the verdicts' rubric items side by side, and the two traces aligned by assistant turn with
//! the first turn where the tool calls or results differ marked. Deterministic: the same
//! inputs give the same bytes (no clock, no host paths).

use std::fmt::Write as _;

use crate::render::html::esc;
use clawrun_agents::conversation::{Block, Role};
use clawrun_agents::trace::{Event, EventKind, Outcome};
use clawrun_judge::Verdict;
use clawrun_judge::verdict::ItemResult;
use serde_json::Value;

mod trace_columns;

use self::trace_columns::*;

/// Characters of text (assistant text, tool output, final answer) shown before cutting.
const TEXT_LIMIT: usize = 600;
/// Characters of a tool call's compact JSON input shown before cutting.
const INPUT_LIMIT: usize = 300;

/// One side of the page: a trial's trace and how it was judged.
pub struct Side<'a> {
    /// "unperturbed twin" / "perturbed trial".
    pub title: &'a str,
    /// The trial's trace events, in order.
    pub events: &'a [Event],
    /// The verdict, when the trial was judged.
    pub verdict: Option<&'a Verdict>,
    /// One line on how it ended (outcome, score).
    pub summary: &'a str,
}

/// Everything the page shows.
pub struct FailurePage<'a> {
    /// The task's id.
    pub task_id: &'a str,
    /// The agent under test.
    pub agent: &'a str,
    /// The failure kind's name: crash, limit, unsafe, failed or degraded.
    pub kind: &'a str,
    /// One line per perturbation of the minimal schedule (e.g. "status500 at call 1 of service:gmail/messages").
    pub schedule: &'a [String],
    /// Notes: how confirmed, trials spent shrinking, etc. (each a line).
    pub notes: &'a [String],
    /// The command that reproduces it.
    pub reproduce: &'a str,
    /// The unperturbed twin (left column).
    pub twin: Side<'a>,
    /// The perturbed trial (right column).
    pub perturbed: Side<'a>,
}

/// The page's inline style sheet.
const STYLE: &str = "\
body{font:14px system-ui,sans-serif;margin:2em;color:#222}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}\
table{border-collapse:collapse;width:100%}\
td,th{border:1px solid #ccc;padding:.3em .5em;text-align:left;vertical-align:top}\
table.trace{table-layout:fixed}table.trace col.turn{width:7em}\
th{background:#f4f4f4}\
code,pre{font:12px ui-monospace,monospace;background:#f6f6f6}\
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.2em 0;padding:.3em}\
.badge{font-weight:bold;padding:.1em .5em;border-radius:.3em;color:#fff;background:#777}\
.k-crash{background:#b00020}.k-limit{background:#6a3fb5}.k-unsafe{background:#7a0010}\
.k-failed{background:#d9480f}.k-degraded{background:#b08800}\
tr.diff td,tr.diff th{background:#fff3bf}\
tr.diverge td{border-top:3px solid #d9480f}\
.diverge-mark{display:inline-block;margin-top:.3em;font-weight:bold;color:#d9480f}\
.ev{margin:.3em 0;padding:.2em .4em;border-left:3px solid #ccc;overflow-wrap:anywhere}\
.ev .who{font-size:.85em;font-weight:bold;color:#555}\
.assistant{border-color:#1c7ed6}.user{border-color:#37b24d}\
.call{border-color:#1c7ed6;background:#f1f7fd}\
.result{border-color:#aaa}.result.error{border-color:#c92a2a;color:#c92a2a}\
.fault{border-color:#e8590c;background:#fff0e0;color:#a23b00;font-weight:bold}\
.end{border-color:#555;background:#f4f4f4}.end .error{color:#c92a2a}\
.meta{border-color:#ddd;color:#666}\
.more{color:#888;font-style:italic}\
td.empty{color:#aaa;background:#fafafa}\
.pass{color:#2b8a3e}.fail{color:#c92a2a}.unjudged{color:#888}";

/// The page's HTML.
pub fn render(page: &FailurePage<'_>) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>clawrun fuzz: {kind} in {task}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        kind = esc(page.kind),
        task = esc(page.task_id),
    );
    header(&mut h, page);
    rubric(&mut h, page);
    traces(&mut h, page);
    h.push_str("</body>\n</html>\n");
    h
}

/// The header: task, agent, kind, schedule, notes, the reproducing command.
fn header(h: &mut String, page: &FailurePage<'_>) {
    let _ = write!(
        h,
        "<header>\n<h1>{task} <span class=\"badge {class}\">{kind}</span></h1>\n\
         <p>agent <code>{agent}</code></p>\n",
        task = esc(page.task_id),
        class = kind_class(page.kind),
        kind = esc(page.kind),
        agent = esc(page.agent),
    );
    h.push_str("<h2>Minimal schedule</h2>\n<ol class=\"schedule\">\n");
    if page.schedule.is_empty() {
        h.push_str("<li>(no perturbation)</li>\n");
    }
    for line in page.schedule {
        let _ = writeln!(h, "<li><code>{}</code></li>", esc(line));
    }
    h.push_str("</ol>\n");
    if !page.notes.is_empty() {
        h.push_str("<ul class=\"notes\">\n");
        for line in page.notes {
            let _ = writeln!(h, "<li>{}</li>", esc(line));
        }
        h.push_str("</ul>\n");
    }
    let _ = write!(
        h,
        "<h2>Reproduce</h2>\n<pre><code>{}</code></pre>\n",
        esc(page.reproduce)
    );
    let _ = write!(
        h,
        "<table class=\"sides\">\n<tr><th>{}</th><th>{}</th></tr>\n<tr><td>{}</td><td>{}</td></tr>\n</table>\n</header>\n",
        esc(page.twin.title),
        esc(page.perturbed.title),
        esc(page.twin.summary),
        esc(page.perturbed.summary)
    );
}

/// The badge's CSS class for a failure kind.
fn kind_class(kind: &str) -> &'static str {
    match kind {
        "crash" => "k-crash",
        "limit" => "k-limit",
        "unsafe" => "k-unsafe",
        "failed" => "k-failed",
        "degraded" => "k-degraded",
        _ => "k-other",
    }
}

/// The rubric items of both verdicts side by side, rows that differ highlighted.
fn rubric(h: &mut String, page: &FailurePage<'_>) {
    h.push_str("<h2>Rubric</h2>\n");
    let (twin, perturbed) = (page.twin.verdict, page.perturbed.verdict);
    if twin.is_none() && perturbed.is_none() {
        h.push_str("<p>Neither trial was judged.</p>\n");
        return;
    }
    let _ = write!(
        h,
        "<table class=\"rubric\">\n<tr><th>item</th><th>{}</th><th>{}</th></tr>\n",
        esc(page.twin.title),
        esc(page.perturbed.title)
    );
    for (name, a, b) in item_pairs(twin, perturbed) {
        let differs = twin.is_some() && perturbed.is_some() && !same_item(a, b);
        let _ = writeln!(
            h,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td></tr>",
            if differs { " class=\"diff\"" } else { "" },
            esc(name),
            item_cell(twin.is_some(), a),
            item_cell(perturbed.is_some(), b)
        );
    }
    let differs = match (twin, perturbed) {
        (Some(a), Some(b)) => {
            a.scores.passed != b.scores.passed || !close(a.scores.score, b.scores.score)
        }
        _ => false,
    };
    let _ = write!(
        h,
        "<tr{}><th>trial score</th><th>{}</th><th>{}</th></tr>\n</table>\n",
        if differs { " class=\"diff\"" } else { "" },
        score_cell(twin),
        score_cell(perturbed)
    );
}

/// The items of both verdicts paired by name (the n-th item of a name with the other's n-th):
/// the twin's in order, then those only the perturbed trial has.
fn item_pairs<'v>(
    twin: Option<&'v Verdict>,
    perturbed: Option<&'v Verdict>,
) -> Vec<(&'v str, Option<&'v ItemResult>, Option<&'v ItemResult>)> {
    let items = |v: Option<&'v Verdict>| v.map(|v| v.items.as_slice()).unwrap_or_default();
    let (a, b) = (items(twin), items(perturbed));
    let nth = |list: &'v [ItemResult], name: &str, n: usize| {
        list.iter().filter(|i| i.name == name).nth(n)
    };
    let occurrence =
        |list: &[ItemResult], i: usize| list[..i].iter().filter(|x| x.name == list[i].name).count();
    let mut pairs = Vec::new();
    for (i, item) in a.iter().enumerate() {
        pairs.push((
            item.name.as_str(),
            Some(item),
            nth(b, &item.name, occurrence(a, i)),
        ));
    }
    for (i, item) in b.iter().enumerate() {
        if nth(a, &item.name, occurrence(b, i)).is_none() {
            pairs.push((item.name.as_str(), None, Some(item)));
        }
    }
    pairs
}

/// Whether two items came out the same (both absent, or same pass and score).
fn same_item(a: Option<&ItemResult>, b: Option<&ItemResult>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.passed == b.passed
                && match (a.score, b.score) {
                    (Some(x), Some(y)) => close(x, y),
                    (x, y) => x.is_none() && y.is_none(),
                }
        }
        _ => false,
    }
}

/// Whether two scores are equal up to rounding.
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// One item's cell: passed?/score.
fn item_cell(judged: bool, item: Option<&ItemResult>) -> String {
    let Some(item) = item else {
        return if judged {
            "<span class=\"unjudged\">absent</span>".to_string()
        } else {
            "<span class=\"unjudged\">not judged</span>".to_string()
        };
    };
    let (class, word) = match item.passed {
        Some(true) => ("pass", if item.gate { "✓ held" } else { "✓ pass" }),
        Some(false) => (
            "fail",
            if item.gate {
                "✗ violated"
            } else {
                "✗ fail"
            },
        ),
        None => ("unjudged", "unjudged"),
    };
    let score = item.score.map(|s| format!(" {s:.2}")).unwrap_or_default();
    let gate = if item.gate { " (gate)" } else { "" };
    format!("<span class=\"{class}\">{word}</span>{score}{gate}")
}

/// A verdict's overall score cell.
fn score_cell(verdict: Option<&Verdict>) -> String {
    match verdict {
        None => "<span class=\"unjudged\">not judged</span>".to_string(),
        Some(v) => {
            let (class, word) = if v.scores.passed {
                ("pass", "passed")
            } else {
                ("fail", "failed")
            };
            format!(
                "{:.2} <span class=\"{class}\">{word}</span>",
                v.scores.score
            )
        }
    }
}

/// An outcome's name as the trace writes it.
fn outcome_name(outcome: Outcome) -> String {
    match serde_json::to_value(outcome) {
        Ok(Value::String(name)) => name,
        _ => format!("{outcome:?}"),
    }
}

/// `text` escaped, cut after `limit` characters with a note of how many were left out.
fn cut(text: &str, limit: usize) -> String {
    let total = text.chars().count();
    if total <= limit {
        return esc(text);
    }
    let kept: String = text.chars().take(limit).collect();
    format!(
        "{}<span class=\"more\">… ({} more characters)</span>",
        esc(&kept),
        total - limit
    )
}

#[cfg(test)]
mod tests {
    use clawrun_agents::conversation::Usage;
    use clawrun_judge::verdict::{ItemSource, Scores};
    use serde_json::json;

    use super::*;

    /// Events numbered in order.
    fn numbered(kinds: Vec<EventKind>) -> Vec<Event> {
        kinds
            .into_iter()
            .enumerate()
            .map(|(i, kind)| Event {
                seq: i as u64,
                t_ns: 1_767_225_600_000_000_000 + i as u64,
                kind,
            })
            .collect()
    }

    fn start() -> EventKind {
        EventKind::TraceStart {
            version: 2,
            task_id: "T01".into(),
            task_hash: "ab".into(),
            trial: 0,
            seed: 42,
            agent: "scripted".into(),
            system: "SECRET SYSTEM PROMPT".into(),
            tools: vec!["gmail_send".into()],
            faults: vec![],
            root_hash: "00".into(),
        }
    }

    fn message(role: Role, content: Vec<Block>) -> EventKind {
        EventKind::Message {
            role,
            content,
            usage: None,
            cached: false,
        }
    }

    fn call(id: &str, name: &str, input: Value) -> Vec<EventKind> {
        vec![
            message(
                Role::Assistant,
                vec![Block::ToolUse {
                    id: id.into(),
                    name: name.into(),
                    input: input.clone(),
                }],
            ),
            EventKind::ToolCall {
                id: id.into(),
                name: name.into(),
                input,
            },
        ]
    }

    fn result(id: &str, name: &str, output: &str, status: u16) -> EventKind {
        EventKind::ToolResult {
            id: id.into(),
            name: name.into(),
            output: output.into(),
            is_error: status >= 400,
            status: Some(status),
            root_hash: None,
            images: vec![],
            exit_code: None,
            truncated: 0,
        }
    }

    fn end(outcome: Outcome, text: &str) -> EventKind {
        EventKind::TraceEnd {
            outcome,
            turns: 3,
            user_rounds: 0,
            usage: Usage::default(),
            faults: 0,
            final_text: text.into(),
            root_hash: "ff".into(),
            error: None,
            limits: vec![],
        }
    }

    /// The twin lists, sends, then answers; the perturbed trial lists, meets a fault on send
    /// (turn 2), and gives up.
    fn traces() -> (Vec<Event>, Vec<Event>) {
        let prompt = message(
            Role::User,
            vec![Block::text("Send the report. <script>alert(1)</script>")],
        );
        let mut twin = vec![start(), prompt.clone()];
        twin.extend(call("c1", "gmail_list", json!({"q": "report"})));
        twin.push(result("c1", "gmail_list", "[{\"id\":1}]", 200));
        twin.extend(call("c2", "gmail_send", json!({"to": "boss@x.com"})));
        twin.push(result("c2", "gmail_send", "sent", 200));
        twin.push(message(Role::Assistant, vec![Block::text("Done.")]));
        twin.push(end(Outcome::FinalAnswer, "Done."));

        let mut perturbed = vec![start(), prompt];
        perturbed.extend(call("c1", "gmail_list", json!({"q": "report"})));
        perturbed.push(result("c1", "gmail_list", "[{\"id\":1}]", 200));
        perturbed.extend(call("c2", "gmail_send", json!({"to": "boss@x.com"})));
        perturbed.push(EventKind::Fault {
            point: "service:gmail/gmail/send".into(),
            rule: "fuzz-0".into(),
            kind: "http_500".into(),
            call: 1,
        });
        perturbed.push(result("c2", "gmail_send", "internal error", 500));
        perturbed.push(message(
            Role::Assistant,
            vec![Block::text(format!(
                "I could not send it <script>x()</script>{}",
                "z".repeat(700)
            ))],
        ));
        perturbed.push(end(Outcome::FinalAnswer, "I could not send it"));
        (numbered(twin), numbered(perturbed))
    }

    fn item(name: &str, passed: bool) -> ItemResult {
        ItemResult {
            name: name.into(),
            source: ItemSource::Rubric,
            check: "tool_called".into(),
            weight: 1.0,
            gate: false,
            score: Some(if passed { 1.0 } else { 0.0 }),
            passed: Some(passed),
            evidence: String::new(),
        }
    }

    fn verdict(sent: bool) -> Verdict {
        Verdict {
            scores: Scores {
                completion: if sent { 1.0 } else { 0.5 },
                safety: 1.0,
                robustness: 1.0,
                score: if sent { 1.0 } else { 0.5 },
                passed: sent,
            },
            items: vec![item("listed inbox", true), item("sent report", sent)],
            unjudged_weight: 0.0,
            failed_calls: 0,
            faults_seen: 0,
        }
    }

    fn page_html() -> String {
        let (twin, perturbed) = traces();
        let (va, vb) = (verdict(true), verdict(false));
        let schedule = vec!["http_500 at call 1 of service:gmail/gmail/send".to_string()];
        let notes = vec!["confirmed 3/3".to_string()];
        render(&FailurePage {
            task_id: "T01",
            agent: "scripted",
            kind: "failed",
            schedule: &schedule,
            notes: &notes,
            reproduce: "clawrun run --task T01 --faults plan.yaml",
            twin: Side {
                title: "unperturbed twin",
                events: &twin,
                verdict: Some(&va),
                summary: "final_answer, score 1.00",
            },
            perturbed: Side {
                title: "perturbed trial",
                events: &perturbed,
                verdict: Some(&vb),
                summary: "final_answer, score 0.50",
            },
        })
    }

    /// The `<tr>` rows of the table whose opening tag contains `class`.
    fn table_rows<'h>(html: &'h str, class: &str) -> Vec<&'h str> {
        let start = html
            .find(&format!("<table class=\"{class}\""))
            .expect("table");
        let table = &html[start..];
        let table = &table[..table.find("</table>").unwrap()];
        table.split("<tr").skip(1).collect()
    }

    /// The cell of `side` in a trace row.
    fn side_cell<'h>(row: &'h str, side: &str) -> &'h str {
        let at = row.find(&format!("<td class=\"side {side}")).expect("cell");
        let cell = &row[at..];
        &cell[..cell.find("</td>").unwrap()]
    }

    #[test]
    fn the_fault_shows_in_the_perturbed_column_only() {
        let html = page_html();
        let rows = table_rows(&html, "trace");
        let turn2 = rows.iter().find(|r| r.contains("turn 2")).unwrap();
        let perturbed = side_cell(turn2, "perturbed");
        assert!(perturbed.contains("class=\"ev fault\""), "{perturbed}");
        assert!(perturbed.contains("http_500"));
        assert!(perturbed.contains("service:gmail/gmail/send"));
        assert!(perturbed.contains("class=\"ev result error\""));
        assert!(!side_cell(turn2, "twin").contains("fault"));
        assert_eq!(html.matches("class=\"ev fault\"").count(), 1);
    }

    #[test]
    fn text_is_escaped_and_cut() {
        let html = page_html();
        assert!(!html.contains("<script"), "unescaped script");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("more characters)"));
        assert!(!html.contains(&"z".repeat(650)));
        assert!(!html.contains("SECRET SYSTEM PROMPT"));
        assert!(html.contains("seed <code>42</code>"));
    }

    #[test]
    fn the_first_divergence_is_marked_at_the_turn_where_results_differ() {
        let html = page_html();
        let rows = table_rows(&html, "trace");
        let marked: Vec<&&str> = rows
            .iter()
            .filter(|r| r.contains("first divergence"))
            .collect();
        assert_eq!(marked.len(), 1);
        assert!(marked[0].starts_with(" class=\"diverge\""));
        assert!(marked[0].contains("<th>turn 2<br>"), "{}", marked[0]);
        // The tool calls of turn 1 are shown once each (the tool_call event repeats the block).
        let turn1 = rows.iter().find(|r| r.contains("turn 1")).unwrap();
        assert_eq!(
            side_cell(turn1, "twin").matches("gmail_list</b>").count(),
            1
        );
    }

    #[test]
    fn rubric_items_that_differ_are_highlighted() {
        let html = page_html();
        let rows = table_rows(&html, "rubric");
        let sent = rows.iter().find(|r| r.contains("sent report")).unwrap();
        let listed = rows.iter().find(|r| r.contains("listed inbox")).unwrap();
        assert!(sent.starts_with(" class=\"diff\""), "{sent}");
        assert!(sent.contains("✓ pass") && sent.contains("✗ fail"));
        assert!(!listed.contains("class=\"diff\""), "{listed}");
        let score = rows.iter().find(|r| r.contains("trial score")).unwrap();
        assert!(score.starts_with(" class=\"diff\""));
    }

    #[test]
    fn identical_traces_have_no_divergence_and_output_is_deterministic() {
        let (twin, _) = traces();
        let page = FailurePage {
            task_id: "T01",
            agent: "a",
            kind: "crash",
            schedule: &[],
            notes: &[],
            reproduce: "x",
            twin: Side {
                title: "unperturbed twin",
                events: &twin,
                verdict: None,
                summary: "",
            },
            perturbed: Side {
                title: "perturbed trial",
                events: &twin,
                verdict: None,
                summary: "",
            },
        };
        let html = render(&page);
        assert!(!html.contains("first divergence"));
        assert!(html.contains("Neither trial was judged."));
        assert_eq!(html, render(&page));
        assert_eq!(page_html(), page_html());
    }
}
