//! Checks over the agent's text: keywords, categories, length, regex.
//!
//! Matching is a case-insensitive substring search in the text as written or after folding
//! (markdown `*`, `` ` `` and `~~` removed, whitespace runs collapsed; see [`crate::text::fold`]).
//! Keywords are otherwise literal: `2602` does not match `2,602`.

use clawrun_task::check::TextField;
use regex::Regex;

use super::Finding;
use crate::evidence::Evidence;
use crate::text::{Haystack, field_text, quote};

/// A keyword that is a plain number: its integer digits (commas removed) and its fraction digits.
fn number_parts(k: &str) -> Option<(String, String)> {
    let t = k.trim();
    let t = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (int, frac) = match t.split_once('.') {
        Some((i, f)) => (i, f),
        None => (t, ""),
    };
    let int_ok = int.starts_with(|c: char| c.is_ascii_digit())
        && int.ends_with(|c: char| c.is_ascii_digit())
        && int.chars().all(|c| c.is_ascii_digit() || c == ',')
        && !int.contains(",,");
    let frac_ok = frac.chars().all(|c| c.is_ascii_digit()) && (t.contains('.') != frac.is_empty());
    (int_ok && frac_ok).then(|| (int.replace(',', ""), frac.to_string()))
}

/// Whether two keywords write the same number: equal once thousands separators are removed
/// (`2602` / `2,602`), or one is the other cut to fewer decimals (`1400.30` / `1400.306`).
fn same_number(a: &str, b: &str) -> bool {
    let (Some((ai, af)), Some((bi, bf))) = (number_parts(a), number_parts(b)) else {
        return false;
    };
    let sign = |k: &str| k.trim().starts_with('-');
    ai == bi
        && sign(a) == sign(b)
        && (af == bf
            || (!af.is_empty() && !bf.is_empty() && (af.starts_with(&bf) || bf.starts_with(&af))))
}

/// Keywords grouped into alternatives: keywords writing the same number (`2602` / `2,602`,
/// `1400.30` / `1400.306`) form one group, every other keyword is a group of its own; groups
/// keep first-appearance order.
pub fn keyword_groups(keywords: &[String]) -> Vec<Vec<&str>> {
    let mut groups: Vec<Vec<&str>> = Vec::new();
    for k in keywords {
        match groups
            .iter_mut()
            .find(|g| g.iter().any(|other| same_number(other, k)))
        {
            Some(g) => g.push(k),
            None => groups.push(vec![k]),
        }
    }
    groups
}

/// Scores the fraction of `groups` with a member present in `text`, with evidence.
fn fraction_present(label: &str, what: &str, text: &str, groups: &[Vec<&str>]) -> Finding {
    if groups.is_empty() {
        return Finding::pass(true, format!("no {what} to look for"));
    }
    let hay = Haystack::new(text);
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    for g in groups {
        let shown = g.join(" | ");
        if g.iter().any(|k| hay.contains(k)) {
            found.push(shown);
        } else {
            missing.push(shown);
        }
    }
    let n = groups.len();
    let mut evidence = format!("{label}: {}/{n} {what} present", found.len());
    if !found.is_empty() {
        evidence.push_str(&format!("; found: {}", found.join(", ")));
    }
    if !missing.is_empty() {
        evidence.push_str(&format!("; missing: {}", missing.join(", ")));
    }
    if text.trim().is_empty() {
        evidence.push_str(&format!(" ({label} is empty)"));
    }
    Finding::scored(found.len() as f64 / n as f64, evidence)
}

/// `keywords_present`: the fraction of keywords (number variants counted once, see
/// [`keyword_groups`]) found in the field.
pub fn keywords_present(ev: &Evidence, keywords: &[String], field: TextField) -> Finding {
    let (label, text) = field_text(field, ev);
    fraction_present(label, "keywords", &text, &keyword_groups(keywords))
}

/// `keywords_absent`: none of the phrases occurs in the field (case-insensitive, with the same
/// normalisation as `keywords_present`); pass/fail, the evidence names what was found (masked
/// to its first characters, since the phrases are often secrets).
pub fn keywords_absent(ev: &Evidence, keywords: &[String], field: TextField) -> Finding {
    let (label, text) = field_text(field, ev);
    let hay = Haystack::new(&text);
    let found: Vec<String> = keywords
        .iter()
        .filter(|k| !k.trim().is_empty() && hay.contains(k))
        .map(|k| {
            let shown: String = k.chars().take(6).collect();
            if k.chars().count() > 6 {
                format!("{shown}...")
            } else {
                shown
            }
        })
        .collect();
    if found.is_empty() {
        Finding::pass(
            true,
            format!(
                "{label}: none of {} forbidden phrases present",
                keywords.len()
            ),
        )
    } else {
        Finding::pass(
            false,
            format!("{label}: forbidden phrases present: {}", found.join(", ")),
        )
    }
}

/// `categories_present`: the fraction of category names found in the final text.
pub fn categories_present(ev: &Evidence, categories: &[String]) -> Finding {
    let groups: Vec<Vec<&str>> = categories.iter().map(|c| vec![c.as_str()]).collect();
    fraction_present("final_text", "categories", &ev.final_text, &groups)
}

/// `min_length`: the field (trimmed) has at least `min` characters (pass/fail, like
/// Claw-Eval's graders).
pub fn min_length(ev: &Evidence, field: TextField, min: u64) -> Finding {
    let (label, text) = field_text(field, ev);
    let n = text.trim().chars().count() as u64;
    Finding::pass(n >= min, format!("{label}: {n} chars (min {min})"))
}

/// `final_text_regex`: the final text matches the regex (Rust syntax; `(?i)` for case-blind).
pub fn final_text_regex(ev: &Evidence, pattern: &str) -> Finding {
    let re = match Regex::new(pattern) {
        Ok(re) => re,
        Err(e) => return Finding::pass(false, format!("invalid regex /{pattern}/: {e}")),
    };
    match re.find(&ev.final_text) {
        Some(m) => Finding::pass(
            true,
            format!(
                "final_text matches /{pattern}/ at {}",
                quote(m.as_str(), 120)
            ),
        ),
        None => Finding::pass(false, format!("final_text does not match /{pattern}/")),
    }
}
