//! Text helpers shared by the checks: which text a check reads, the loose matching used for
//! keywords, guest paths, and size bounds for evidence.

use clawrun_agents::{Message, Role};
use clawrun_task::check::TextField;

use crate::evidence::Evidence;

/// Every assistant message's text, joined with blank lines (tool calls left out).
pub fn assistant_text(messages: &[Message]) -> String {
    let parts: Vec<String> = messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .map(Message::text)
        .filter(|t| !t.trim().is_empty())
        .collect();
    parts.join("\n\n")
}

/// The text a check reads and its name: the final answer, or all assistant text.
pub fn field_text(field: TextField, ev: &Evidence) -> (&'static str, String) {
    match field {
        TextField::FinalText => ("final_text", ev.final_text.clone()),
        TextField::AssistantText => ("assistant_text", assistant_text(&ev.messages)),
    }
}

/// `s` lower-cased exactly as [`str::to_lowercase`] does: ASCII stretches are copied whole and
/// lower-cased in place, only the words holding a non-ASCII character go through the Unicode
/// tables (the final-sigma rule looks no further than the next whitespace, so words can be
/// lower-cased one at a time).
pub fn lowercase(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    // `s[..done]` is written, lower-cased.
    let mut done = 0;
    while let Some(at) = bytes[done..].iter().position(|b| !b.is_ascii()) {
        let at = done + at;
        let word_start = bytes[done..at]
            .iter()
            .rposition(u8::is_ascii_whitespace)
            .map_or(done, |w| done + w + 1);
        let word_end = bytes[at..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .map_or(bytes.len(), |w| at + w);
        push_ascii_lowercase(&mut out, &s[done..word_start]);
        out.push_str(&s[word_start..word_end].to_lowercase());
        done = word_end;
    }
    push_ascii_lowercase(&mut out, &s[done..]);
    out
}

/// Appends `ascii` (ASCII text) to `out`, lower-cased.
fn push_ascii_lowercase(out: &mut String, ascii: &str) {
    let start = out.len();
    out.push_str(ascii);
    out[start..].make_ascii_lowercase();
}

/// Text folded for keyword matching: lower-cased, markdown emphasis and code marks (`*`, `` ` ``,
/// `~~`) removed, whitespace runs collapsed to one space.
pub fn fold(s: &str) -> String {
    fold_lowered(&lowercase(s))
}

/// [`fold`] of a text already lower-cased.
fn fold_lowered(lower: &str) -> String {
    let lower = lower.replace("~~", "");
    let mut out = String::with_capacity(lower.len());
    let mut space = false;
    for c in lower.chars() {
        if c == '*' || c == '`' {
            continue;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out
}

/// A text prepared once for many [`Haystack::contains`] look-ups.
pub struct Haystack {
    /// The text lower-cased.
    lower: String,
    /// The text [`fold`]ed, made on the first look-up the lower-cased text does not answer.
    folded: std::cell::OnceCell<String>,
}

impl Haystack {
    /// Prepares `text`.
    pub fn new(text: &str) -> Self {
        Haystack {
            lower: lowercase(text),
            folded: std::cell::OnceCell::new(),
        }
    }

    /// Whether `needle` occurs, case-insensitively, in the text as written or once both are
    /// [`fold`]ed (so `**Needs** reply` contains `needs reply`). An empty needle never matches.
    pub fn contains(&self, needle: &str) -> bool {
        let lower = lowercase(needle);
        if !lower.trim().is_empty() && self.lower.contains(&lower) {
            return true;
        }
        let folded = fold_lowered(&lower);
        !folded.is_empty()
            && self
                .folded
                .get_or_init(|| fold_lowered(&self.lower))
                .contains(&folded)
    }
}

/// A guest path: absolute paths as written, relative ones under `/workspace`.
pub fn guest_path(path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/workspace/{}", path.trim_start_matches("./"))
    }
}

/// `s` cut to at most `max` characters, with a marker saying how much was dropped.
pub fn truncate(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max).collect();
    format!("{head}… [truncated {} chars]", n - max)
}

/// `s` cut to at most `max` characters by dropping its middle (the end of a conversation holds
/// the final answer), with a marker.
pub fn truncate_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let head_len = max / 4;
    let tail_len = max - head_len;
    let head: String = s.chars().take(head_len).collect();
    let tail: String = s.chars().skip(n - tail_len).collect();
    format!(
        "{head}\n… [truncated {} chars] …\n{tail}",
        n - head_len - tail_len
    )
}

/// A JSON value as compact text (strings without quotes).
pub fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `s` quoted and cut to `max` characters, for evidence lines.
pub fn quote(s: &str, max: usize) -> String {
    format!("{:?}", truncate(s, max))
}
