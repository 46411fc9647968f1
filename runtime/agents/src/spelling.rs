//! "Did you mean" for what a user typed: the closest of the known words by edit distance
//! (Damerau-Levenshtein: a swapped pair of letters is one edit), for agent kinds, providers,
//! task ids and subcommands. Here because it is the lowest crate its users (the model specs,
//! the run's agent and task choices, the CLI) share.

/// The candidate closest to `typed`, when it is close enough to be a slip: at most one edit
/// in a word of up to four letters, two up to eight, else a quarter of its letters. Case is
/// ignored; ties go to the first candidate.
pub fn closest<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let typed = typed.to_lowercase();
    let len = typed.chars().count();
    let limit = match len {
        0 => return None,
        1..=4 => 1,
        5..=8 => 2,
        _ => len / 4,
    };
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let d = strsim::damerau_levenshtein(&typed, &candidate.to_lowercase());
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// `" (did you mean X?)"` for the closest candidate, or `""` when none is close.
pub fn did_you_mean<'a>(typed: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(typed, candidates).map_or_else(String::new, |c| format!(" (did you mean {c}?)"))
}

#[cfg(test)]
mod tests {
    use super::{closest, did_you_mean};

    #[test]
    fn slips_find_their_word_and_strangers_find_none() {
        let kinds = [
            "oracle",
            "idle",
            "careless",
            "scripted",
            "replay",
            "openai",
            "anthropic",
        ];
        assert_eq!(closest("orcale", kinds), Some("oracle"));
        assert_eq!(closest("carless", kinds), Some("careless"));
        assert_eq!(closest("opnai", kinds), Some("openai"));
        assert_eq!(closest("Oracle", kinds), Some("oracle"));
        assert_eq!(closest("antropic", kinds), Some("anthropic"));
        assert_eq!(closest("gpt", kinds), None);
        assert_eq!(closest("", kinds), None);
        // Subcommands: a transposition is one edit, a dropped letter too.
        assert_eq!(closest("rnu", ["run", "report", "replay"]), Some("run"));
        assert_eq!(closest("rn", ["run", "report", "replay"]), Some("run"));
        assert_eq!(closest("xyz", ["run", "report", "replay"]), None);
        assert_eq!(
            closest("T002_email_triag", ["T002_email_triage", "T004_calendar"]),
            Some("T002_email_triage")
        );
        assert_eq!(did_you_mean("idel", kinds), " (did you mean idle?)");
        assert_eq!(did_you_mean("zzzzzz", kinds), "");
    }
}
