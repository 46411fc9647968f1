//! Reading the judge model's answer: JSON `{"score": x, "reasoning": "..."}`, tolerating code
//! fences and prose around it, with Claw-Eval's regex fallback for the score.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// A judge's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeReply {
    /// The score, clamped to 0..=1.
    pub score: f64,
    /// The judge's explanation (empty if it gave none).
    pub reasoning: String,
}

/// The score regex fallback (Claw-Eval: `"score"\s*:\s*([0-9.]+)`), also accepting a quoted
/// number and a bare `score:` key.
static SCORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)"?score"?\s*[:=]\s*"?(-?[0-9]*\.?[0-9]+)"#).expect("valid regex")
});

/// The reasoning regex fallback.
static REASONING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?s)"reasoning"\s*:\s*"((?:[^"\\]|\\.)*)""#).expect("valid regex")
});

/// The text inside the first ```` ``` ```` fence, if any.
fn unfence(text: &str) -> &str {
    let Some(start) = text.find("```") else {
        return text;
    };
    let after = &text[start + 3..];
    // Skip a language tag such as `json` up to the end of the line.
    let body = match after.find('\n') {
        Some(nl)
            if after[..nl]
                .trim()
                .chars()
                .all(|c| c.is_ascii_alphanumeric()) =>
        {
            &after[nl + 1..]
        }
        _ => after,
    };
    match body.find("```") {
        Some(end) => &body[..end],
        None => body,
    }
}

/// A score read from a JSON value (number or numeric string), clamped to 0..=1.
fn score_of(v: &Value) -> Option<f64> {
    let x = match v {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    x.is_finite().then(|| x.clamp(0.0, 1.0))
}

/// Reads a JSON object answer.
fn from_json(text: &str) -> Option<JudgeReply> {
    let v: Value = serde_json::from_str(text.trim()).ok()?;
    let score = score_of(v.get("score")?)?;
    let reasoning = match v.get("reasoning") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    Some(JudgeReply { score, reasoning })
}

/// Parses a judge answer: the whole text (or the inside of a code fence) as JSON, else the
/// outermost `{...}` as JSON, else the score and reasoning found by regex. `None` when no score
/// can be found.
pub fn parse_reply(text: &str) -> Option<JudgeReply> {
    let inner = unfence(text);
    if let Some(r) = from_json(inner).or_else(|| from_json(text)) {
        return Some(r);
    }
    for candidate in [inner, text] {
        if let (Some(a), Some(b)) = (candidate.find('{'), candidate.rfind('}'))
            && a < b
            && let Some(r) = from_json(&candidate[a..=b])
        {
            return Some(r);
        }
    }
    let caps = SCORE.captures(text)?;
    let score = caps[1].parse::<f64>().ok().filter(|x| x.is_finite())?;
    let reasoning = REASONING
        .captures(text)
        .map(|c| c[1].replace("\\\"", "\"").replace("\\n", "\n"))
        .unwrap_or_default();
    Some(JudgeReply {
        score: score.clamp(0.0, 1.0),
        reasoning,
    })
}
