//! The failure page's traces: the twin's and the perturbed trial's events side by side,
//! aligned by assistant turn, the first turn where tool calls or results differ marked.

use std::fmt::Write as _;

use super::*;

/// One trace cut into rows: the start (the prompt), one per assistant turn, the end.
pub(super) struct Rows<'e> {
    /// `trace_start`, and whatever came before the first assistant message (the prompt).
    start: Vec<&'e Event>,
    /// Each assistant message with the events after it, up to the next.
    turns: Vec<Vec<&'e Event>>,
    /// The Judge phase's events and `trace_end`.
    end: Vec<&'e Event>,
}

impl<'e> Rows<'e> {
    /// `events` cut into rows.
    fn new(events: &'e [Event]) -> Self {
        let mut rows = Rows {
            start: Vec::new(),
            turns: Vec::new(),
            end: Vec::new(),
        };
        for event in events {
            match &event.kind {
                EventKind::TraceStart { .. } => rows.start.push(event),
                EventKind::Message {
                    role: Role::Assistant,
                    ..
                } => rows.turns.push(vec![event]),
                EventKind::Snapshot { .. }
                | EventKind::Audit { .. }
                | EventKind::TraceEnd { .. } => rows.end.push(event),
                _ => match rows.turns.last_mut() {
                    Some(turn) => turn.push(event),
                    None => rows.start.push(event),
                },
            }
        }
        rows
    }
}

/// What the comparison of two rows looks at: tool calls, tool results, user replies, the end.
#[derive(PartialEq)]
pub(super) enum Step<'e> {
    /// A tool call: name, input.
    Call(&'e str, &'e Value),
    /// A tool result: name, output, error, status.
    Result(&'e str, &'e str, bool, Option<u16>),
    /// A user's text (the prompt, a simulated user's reply).
    User(&'e str),
    /// How the trial ended: outcome, final text.
    End(Outcome, &'e str),
}

/// The steps of one row, in order (a call recorded both as an assistant `tool_use` block and
/// as a `tool_call` event counts once).
pub(super) fn steps<'e>(row: &[&'e Event]) -> Vec<Step<'e>> {
    let announced = announced_calls(row);
    let mut out = Vec::new();
    for event in row {
        match &event.kind {
            EventKind::Message { role, content, .. } => {
                for block in content {
                    match (role, block) {
                        (_, Block::ToolUse { name, input, .. }) => {
                            out.push(Step::Call(name, input))
                        }
                        (Role::User, Block::Text { text }) => out.push(Step::User(text)),
                        (
                            _,
                            Block::ToolResult {
                                content, is_error, ..
                            },
                        ) => {
                            for b in content {
                                if let Block::Text { text } = b {
                                    out.push(Step::Result("", text, *is_error, None));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            EventKind::ToolCall { id, name, input } if !announced.contains(&id.as_str()) => {
                out.push(Step::Call(name, input))
            }
            EventKind::ToolResult {
                name,
                output,
                is_error,
                status,
                ..
            } => out.push(Step::Result(name, output, *is_error, *status)),
            EventKind::UserTurn { text, .. } => out.push(Step::User(text)),
            EventKind::TraceEnd {
                outcome,
                final_text,
                ..
            } => out.push(Step::End(*outcome, final_text)),
            _ => {}
        }
    }
    out
}

/// The ids of the tool calls a row's assistant message announced as `tool_use` blocks.
pub(super) fn announced_calls<'e>(row: &[&'e Event]) -> Vec<&'e str> {
    let mut ids = Vec::new();
    for event in row {
        if let EventKind::Message { content, .. } = &event.kind {
            for block in content {
                if let Block::ToolUse { id, .. } = block {
                    ids.push(id.as_str());
                }
            }
        }
    }
    ids
}

/// One row of the aligned traces: its label, the twin's events, the perturbed trial's (`None`
/// where that side has no such row: it shows an empty cell).
type Aligned<'r, 'e> = (
    String,
    Option<&'r Vec<&'e Event>>,
    Option<&'r Vec<&'e Event>>,
);

/// The two traces aligned by assistant turn.
pub(super) fn traces(h: &mut String, page: &FailurePage<'_>) {
    let twin = Rows::new(page.twin.events);
    let perturbed = Rows::new(page.perturbed.events);
    let turns = twin.turns.len().max(perturbed.turns.len());
    let empty: Vec<&Event> = Vec::new();
    let mut rows: Vec<Aligned<'_, '_>> = Vec::new();
    rows.push((
        "start".to_string(),
        Some(&twin.start),
        Some(&perturbed.start),
    ));
    for k in 0..turns {
        rows.push((
            format!("turn {}", k + 1),
            twin.turns.get(k),
            perturbed.turns.get(k),
        ));
    }
    rows.push(("end".to_string(), Some(&twin.end), Some(&perturbed.end)));
    let first = rows
        .iter()
        .position(|(_, a, b)| a.map(|r| steps(r)) != b.map(|r| steps(r)));

    h.push_str("<h2>Traces</h2>\n");
    match first {
        Some(i) => {
            let _ = writeln!(
                h,
                "<p>The tool calls or results first differ at <a href=\"#first-divergence\">{}</a>.</p>",
                esc(&rows[i].0)
            );
        }
        None => {
            h.push_str("<p>The two traces' tool calls and results are the same throughout.</p>\n")
        }
    }
    let _ = write!(
        h,
        "<table class=\"trace\">\n<colgroup><col class=\"turn\"><col><col></colgroup>\n\
         <tr><th></th><th>{}</th><th>{}</th></tr>\n",
        esc(page.twin.title),
        esc(page.perturbed.title)
    );
    for (i, (label, a, b)) in rows.iter().enumerate() {
        if first == Some(i) {
            let _ = write!(
                h,
                "<tr class=\"diverge\" id=\"first-divergence\"><th>{}<br><span class=\"diverge-mark\">first divergence</span></th>",
                esc(label)
            );
        } else {
            let _ = write!(h, "<tr><th>{}</th>", esc(label));
        }
        cell(h, "twin", a.unwrap_or(&empty), a.is_none());
        cell(h, "perturbed", b.unwrap_or(&empty), b.is_none());
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

/// One side's cell of a row.
pub(super) fn cell(h: &mut String, side: &str, row: &[&Event], missing: bool) {
    if missing {
        let _ = write!(h, "<td class=\"side {side} empty\">—</td>");
        return;
    }
    let _ = write!(h, "<td class=\"side {side}\">");
    let announced = announced_calls(row);
    for event in row {
        event_html(h, event, &announced);
    }
    h.push_str("</td>");
}

/// One event's HTML (nothing for a `tool_call` its assistant message already showed).
pub(super) fn event_html(h: &mut String, event: &Event, announced: &[&str]) {
    match &event.kind {
        EventKind::TraceStart { seed, agent, .. } => {
            let _ = write!(
                h,
                "<div class=\"ev meta\">seed <code>{seed}</code> · agent <code>{}</code></div>",
                esc(agent)
            );
        }
        EventKind::Message {
            role,
            content,
            cached,
            ..
        } => {
            let (class, who) = match role {
                Role::Assistant => ("assistant", "assistant"),
                Role::User => ("user", "user"),
            };
            let cached = if *cached { " (cached)" } else { "" };
            let _ = write!(
                h,
                "<div class=\"ev {class}\"><div class=\"who\">{who}{cached}</div>"
            );
            for block in content {
                block_html(h, block);
            }
            h.push_str("</div>");
        }
        EventKind::ToolCall { id, name, input } => {
            if !announced.contains(&id.as_str()) {
                call_html(h, name, input);
            }
        }
        EventKind::ModelCall {
            n,
            wire,
            status,
            fault,
            ..
        } => {
            let fault = fault.as_ref().map_or(String::new(), |f| {
                format!(" (fault <code>{}</code>)", esc(f))
            });
            let _ = write!(
                h,
                "<div class=\"ev meta\">model call {n} over <code>{}</code>: HTTP {status}{fault}</div>",
                esc(wire)
            );
        }
        EventKind::Fault {
            point,
            rule,
            kind,
            call,
        } => {
            let _ = write!(
                h,
                "<div class=\"ev fault\">⚡ fault <code>{}</code> at <code>{}</code>, call {call} (rule {})</div>",
                esc(kind),
                esc(point),
                esc(rule)
            );
        }
        EventKind::ToolResult {
            name,
            output,
            is_error,
            status,
            images,
            exit_code,
            truncated,
            ..
        } => {
            let _ = write!(
                h,
                "<div class=\"ev result{}\"><div class=\"who\">← {}",
                if *is_error { " error" } else { "" },
                esc(name)
            );
            if let Some(status) = status {
                let _ = write!(h, " · HTTP {status}");
            }
            if let Some(code) = exit_code {
                let _ = write!(h, " · exit {code}");
            }
            if *is_error {
                h.push_str(" · error");
            }
            h.push_str("</div>");
            let _ = write!(h, "<pre>{}</pre>", cut(output, TEXT_LIMIT));
            if *truncated > 0 {
                let _ = write!(
                    h,
                    "<div class=\"more\">the tool cut {truncated} characters</div>"
                );
            }
            if !images.is_empty() {
                let _ = write!(h, "<div class=\"more\">{} image(s)</div>", images.len());
            }
            h.push_str("</div>");
        }
        EventKind::UserTurn { round, text, done } => {
            let _ = write!(
                h,
                "<div class=\"ev user\"><div class=\"who\">simulated user, round {round}{}</div><pre>{}</pre></div>",
                if *done { " (done)" } else { "" },
                cut(text, TEXT_LIMIT)
            );
        }
        EventKind::Snapshot {
            commands,
            files,
            tampering,
            ..
        } => {
            let _ = write!(
                h,
                "<div class=\"ev meta\">snapshot: {} command(s), {} file(s)",
                commands.len(),
                files.len()
            );
            if !tampering.is_empty() {
                let _ = write!(
                    h,
                    "; <span class=\"fail\">tampering: {}</span>",
                    esc(&tampering.join(", "))
                );
            }
            h.push_str("</div>");
        }
        EventKind::Audit { service, .. } => {
            let _ = write!(h, "<div class=\"ev meta\">audit: {}</div>", esc(service));
        }
        EventKind::TraceEnd {
            outcome,
            turns,
            user_rounds,
            faults,
            final_text,
            error,
            limits,
            ..
        } => {
            let _ = write!(
                h,
                "<div class=\"ev end\"><div class=\"who\">end: {} · {turns} turn(s)",
                esc(&outcome_name(*outcome))
            );
            if *user_rounds > 0 {
                let _ = write!(h, " · {user_rounds} user round(s)");
            }
            let _ = write!(h, " · {faults} fault(s)</div>");
            if let Some(error) = error {
                let _ = write!(h, "<div class=\"error\">{}</div>", cut(error, TEXT_LIMIT));
            }
            if !limits.is_empty() {
                let _ = write!(
                    h,
                    "<div class=\"error\">limits hit: {}</div>",
                    esc(&limits.join(", "))
                );
            }
            if !final_text.is_empty() {
                let _ = write!(h, "<pre>{}</pre>", cut(final_text, TEXT_LIMIT));
            }
            h.push_str("</div>");
        }
    }
}

/// One message block's HTML.
pub(super) fn block_html(h: &mut String, block: &Block) {
    match block {
        Block::Text { text } => {
            let _ = write!(h, "<pre>{}</pre>", cut(text, TEXT_LIMIT));
        }
        Block::Image { media_type, data } => {
            let _ = write!(
                h,
                "<div class=\"more\">image {} ({} base64 characters)</div>",
                esc(media_type),
                data.len()
            );
        }
        Block::ToolUse { name, input, .. } => call_html(h, name, input),
        Block::ToolResult {
            content, is_error, ..
        } => {
            let _ = write!(
                h,
                "<div class=\"ev result{}\">",
                if *is_error { " error" } else { "" }
            );
            for b in content {
                block_html(h, b);
            }
            h.push_str("</div>");
        }
    }
}

/// A tool call's HTML: its name and compact JSON input.
pub(super) fn call_html(h: &mut String, name: &str, input: &Value) {
    let _ = write!(
        h,
        "<div class=\"ev call\">→ <b>{}</b> <code>{}</code></div>",
        esc(name),
        cut(&input.to_string(), INPUT_LIMIT)
    );
}
