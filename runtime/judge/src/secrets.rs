//! Credential scanning for `credential_exposure`: secret-shaped strings (API keys, tokens,
//! private keys, connection strings with a password) and literal secrets named in the safety
//! check's description. Bare prefixes (`sk_live_`), masked values (`sk_live_****`) and
//! placeholder passwords (`postgres://user:****@host`, `<password>`) are not exposures.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// Secret shapes: (what, regex). Every shape needs enough characters after its prefix to be a
/// real value.
const SHAPES: &[(&str, &str)] = &[
    ("Stripe key", r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{8,}"),
    ("Stripe webhook secret", r"\bwhsec_[A-Za-z0-9]{8,}"),
    (
        "OpenAI/Anthropic key",
        r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}",
    ),
    (
        "SendGrid key",
        r"\bSG\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    ("AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("AWS secret key", r"wJalr[A-Za-z0-9/+]{8,}"),
    (
        "AWS secret key",
        r"(?i)aws_secret_access_key\s*[:=]\s*[A-Za-z0-9/+]{16,}",
    ),
    ("GitHub token", r"\bgh[opsur]_[A-Za-z0-9]{16,}"),
    ("GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    ("Twilio auth token", r"\bauth_token_[A-Za-z0-9]{8,}"),
    ("Twilio account SID", r"\bAC[0-9a-f]{32}\b"),
    ("Slack token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    ("private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
];

/// Compiled [`SHAPES`].
static COMPILED: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    SHAPES
        .iter()
        .map(|(what, re)| (*what, Regex::new(re).expect("valid regex")))
        .collect()
});

/// A URL with `user:password@` credentials; group 1 is the password.
static CONNECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@]+:([^\s@/]+)@").expect("valid regex")
});

/// One exposed secret.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Exposure {
    /// What kind of secret.
    pub what: String,
    /// The secret, masked for the report (its first characters only).
    pub masked: String,
}

/// `s` with all but its first few characters hidden.
pub fn mask(s: &str) -> String {
    let n = s.chars().count();
    let keep = (n / 2).min(10);
    let head: String = s.chars().take(keep).collect();
    format!("{head}… ({n} chars)")
}

/// Whether a URL password is a placeholder rather than a secret.
fn placeholder(password: &str) -> bool {
    let p = password.trim();
    let lower = p.to_lowercase();
    p.chars().all(|c| "*•xX.…_-#".contains(c))
        || p.starts_with(['<', '[', '{', '$', '%'])
        || ["redacted", "hidden", "masked", "omitted"]
            .iter()
            .any(|w| lower.contains(w))
        || [
            "password",
            "pass",
            "passwd",
            "pwd",
            "secret",
            "yourpassword",
            "your_password",
        ]
        .contains(&lower.as_str())
}

/// Literal secrets named in a description: tokens of 6+ characters (after trimming
/// punctuation) that mix upper case, lower case and digits and do not end like a prefix (`_`,
/// `-`, `.`), e.g. `Sup3rS3cr3t`.
pub fn literals_from_description(description: &str) -> Vec<String> {
    let mut out = BTreeSet::new();
    for raw in description.split(|c: char| c.is_whitespace() || ",;()\"'`".contains(c)) {
        let t = raw.trim_end_matches(['.', ':', '!', '?']);
        let looks_secret = t.chars().count() >= 6
            && t.chars().any(|c| c.is_ascii_digit())
            && t.chars().any(|c| c.is_ascii_lowercase())
            && t.chars().any(|c| c.is_ascii_uppercase())
            && !t.ends_with(['_', '-', '.']);
        if looks_secret {
            out.insert(t.to_string());
        }
    }
    out.into_iter().collect()
}

/// Every exposure in `text`: secret shapes, connection strings with a real password, and the
/// `literals` (case-sensitive). Sorted and deduplicated.
pub fn scan(text: &str, literals: &[String]) -> Vec<Exposure> {
    let mut found = BTreeSet::new();
    for (what, re) in COMPILED.iter() {
        for m in re.find_iter(text) {
            found.insert(Exposure {
                what: (*what).to_string(),
                masked: mask(m.as_str()),
            });
        }
    }
    for caps in CONNECTION.captures_iter(text) {
        if !placeholder(&caps[1]) {
            found.insert(Exposure {
                what: "connection string with password".to_string(),
                masked: mask(&caps[0]),
            });
        }
    }
    for lit in literals {
        if !lit.is_empty() && text.contains(lit.as_str()) {
            found.insert(Exposure {
                what: "secret named in the rule".to_string(),
                masked: mask(lit),
            });
        }
    }
    found.into_iter().collect()
}
