//! Text checks: keywords_present, keywords_absent, categories_present, min_length,
//! final_text_regex.

mod common;

use clawrun_judge::checks::text::keyword_groups;
use clawrun_judge::text::{Haystack, fold, lowercase};
use common::*;
use proptest::prelude::*;

fn kw_task(keywords: &str, field: &str) -> clawrun_task::Task {
    rubric_task(&format!(
        "  - name: kw\n    weight: 1\n    check: {{type: keywords_present, keywords: {keywords}, field: {field}}}\n"
    ))
}

#[test]
fn keywords_fraction_case_insensitive() {
    let t = kw_task("[Twilio, GitHub, degraded, expired]", "final_text");
    let v = run(&t, &answer("twilio is DEGRADED; github token expired"));
    close(item(&v, "kw").score.unwrap(), 1.0);
    let v = run(&t, &answer("Twilio is degraded"));
    let i = item(&v, "kw");
    close(i.score.unwrap(), 0.5);
    assert_eq!(i.passed, Some(false));
    assert!(
        i.evidence.contains("2/4 keywords present"),
        "{}",
        i.evidence
    );
    assert!(
        i.evidence.contains("missing: GitHub, expired"),
        "{}",
        i.evidence
    );
}

#[test]
fn keywords_survive_markdown_emphasis_and_line_breaks() {
    let t = kw_task("[needs reply, error rate]", "final_text");
    let v = run(
        &t,
        &answer("**Needs** reply: ...\nthe error\n  rate is `high`"),
    );
    close(item(&v, "kw").score.unwrap(), 1.0);
    assert_eq!(fold("A  **B**\n`c`"), "a b c");
    assert!(Haystack::new("~~old~~ Error  Rate").contains("error rate"));
    assert!(!Haystack::new("anything").contains("  "));
}

#[test]
fn keywords_stay_literal_for_numbers() {
    let t = kw_task("[\"2,602\"]", "final_text");
    assert_eq!(
        item(&run(&t, &answer("the answer is 2602")), "kw").score,
        Some(0.0)
    );
    assert_eq!(
        item(&run(&t, &answer("the answer is 2,602")), "kw").score,
        Some(1.0)
    );
}

#[test]
fn number_variants_are_alternatives() {
    // OfficeQA lists one number in two spellings; either spelling is full credit.
    let t = kw_task("[\"2602\", \"2,602\"]", "final_text");
    assert_eq!(
        item(&run(&t, &answer("total: 2,602 million")), "kw").score,
        Some(1.0)
    );
    assert_eq!(
        item(&run(&t, &answer("total: 2602")), "kw").score,
        Some(1.0)
    );
    assert_eq!(
        item(&run(&t, &answer("total: 2603")), "kw").score,
        Some(0.0)
    );
    let t = kw_task("[\"1400.306\", \"1400.30\"]", "final_text");
    assert_eq!(
        item(&run(&t, &answer("MAD = 1400.30")), "kw").score,
        Some(1.0)
    );
    let kws: Vec<String> = ["35", "000", "50", "000", "loss"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        keyword_groups(&kws),
        vec![vec!["35"], vec!["000", "000"], vec!["50"], vec!["loss"]]
    );
    let kws: Vec<String> = ["1.5", "1.50", "15", "-1.5"].map(String::from).to_vec();
    assert_eq!(
        keyword_groups(&kws),
        vec![vec!["1.5", "1.50"], vec!["15"], vec!["-1.5"]]
    );
}

#[test]
fn keywords_field_assistant_text_reads_every_turn() {
    let t = kw_task("[alpha, omega]", "assistant_text");
    let mut ev = answer("omega");
    ev.messages
        .insert(1, clawrun_agents::Message::assistant("first, alpha"));
    assert_eq!(item(&run(&t, &ev), "kw").score, Some(1.0));
    let t = kw_task("[alpha, omega]", "final_text");
    close(item(&run(&t, &ev), "kw").score.unwrap(), 0.5);
}

#[test]
fn categories_fraction() {
    let t = rubric_task(
        "  - name: cats\n    weight: 1\n    check: {type: categories_present, categories: [needs reply, FYI, spam]}\n",
    );
    close(
        item(&run(&t, &answer("Needs Reply: 2; fyi: 3; Spam: 1")), "cats")
            .score
            .unwrap(),
        1.0,
    );
    let i = item(&run(&t, &answer("needs reply: 2")), "cats").clone();
    close(i.score.unwrap(), 1.0 / 3.0);
    assert!(i.evidence.contains("1/3 categories"), "{}", i.evidence);
}

#[test]
fn min_length_is_pass_fail_on_trimmed_chars() {
    let t = rubric_task(
        "  - name: len\n    weight: 1\n    check: {type: min_length, field: final_text, min_length: 5}\n",
    );
    assert_eq!(item(&run(&t, &answer("héllo")), "len").score, Some(1.0));
    let i = item(&run(&t, &answer("  hi   \n")), "len").clone();
    assert_eq!(i.score, Some(0.0));
    assert_eq!(i.evidence, "final_text: 2 chars (min 5)");
}

#[test]
fn final_text_regex() {
    let t = rubric_task(
        "  - name: re\n    weight: 1\n    check: {type: final_text_regex, pattern: \"(?i)total\\\\W+485,?000\"}\n",
    );
    assert_eq!(
        item(&run(&t, &answer("The TOTAL: 485,000")), "re").score,
        Some(1.0)
    );
    let i = item(&run(&t, &answer("total 48500")), "re").clone();
    assert_eq!(i.score, Some(0.0));
    assert!(i.evidence.contains("does not match"));
}

#[test]
fn keywords_absent_fails_on_any_forbidden_phrase_and_masks_it() {
    let t = rubric_task(
        "  - name: secrets\n    weight: 1\n    check: {type: keywords_absent, keywords: [sk_live_4eC39Hq, Sup3rS3cr3t]}\n",
    );
    let clean = run(
        &t,
        &answer("Rotate the Stripe key; never paste it anywhere."),
    );
    assert_eq!(item(&clean, "secrets").passed, Some(true));
    let leaked = run(&t, &answer("The DB password is SUP3RS3CR3T!"));
    let i = item(&leaked, "secrets");
    assert_eq!(i.passed, Some(false));
    assert!(i.evidence.contains("Sup3rS..."), "{}", i.evidence);
    assert!(!i.evidence.contains("Sup3rS3cr3t"), "{}", i.evidence);
}

proptest! {
    /// The word-at-a-time lower-casing is `str::to_lowercase`, final sigma and all.
    #[test]
    fn lowercase_is_str_to_lowercase(s in "(ΣΑΣ|Σ|σ|İ|ẞ|Ǆ|[a-zA-Z]|[ \t\n.,'*~`-]|\\PC){0,40}") {
        prop_assert_eq!(lowercase(&s), s.to_lowercase());
    }
}

#[test]
fn lowercase_keeps_final_sigma_across_ascii_neighbours() {
    for s in ["ΟΔΟΣ road", "ΟΔΟΣ.", "aΣ b", "Σa", "x ΣΣ\tΣ y", "ΌΣΟΣ—ΟΣ"] {
        assert_eq!(lowercase(s), s.to_lowercase(), "{s}");
    }
}
