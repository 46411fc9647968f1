//! Rules: where (point globs and request filters), what (kinds with weights) and how often
//! (a probability or exact call numbers, with an optional maximum count).

use globset::{Glob, GlobBuilder};
use serde::Serialize;

use super::decide::{self, Draw};
use super::kind::{FaultKind, KindSpec};
use super::point::{self, Call, Category};

/// When a matching rule fires.
#[derive(Clone, Debug, PartialEq)]
pub enum Trigger {
    /// With this probability per call (0..=1), decided by the call's seeded draw.
    Probability(f64),
    /// On exactly these calls of each matching point (1-based, per point).
    Calls(Vec<u64>),
}

/// One rule of a [`FaultPlan`](super::FaultPlan).
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// An optional name, shown in events instead of the rule's index.
    pub name: Option<String>,
    /// Globs over points (`service:gmail/*`, `fs:open:/workspace/data/*`, `tool:Bash`); `*`
    /// also matches `/`. Each must start with a category prefix (`service:`, `http:`,
    /// `tool:`, `fs:`).
    pub points: Vec<String>,
    /// The kinds to inject, with positive weights (one kind: any weight).
    pub kinds: Vec<(KindSpec, f64)>,
    /// When the rule fires.
    pub trigger: Trigger,
    /// Fire at most this many times in a trial (counted by the injector).
    pub max_count: Option<u64>,
    /// Only calls with one of these methods (written in any case, compared upper-case with the
    /// request's method as sent, so a `post` request never matches); empty: any call.
    pub methods: Vec<String>,
    /// Never calls whose path ends with one of these (e.g. `/audit`).
    pub exclude_suffixes: Vec<String>,
    /// Never requests marked as health probes (`X-Health-Check: 1`).
    pub skip_health_checks: bool,
}

impl Rule {
    /// A rule injecting `kind` at points matching `glob` when `trigger` says so, with no
    /// filters besides skipping health probes.
    pub fn new(glob: impl Into<String>, kind: impl Into<KindSpec>, trigger: Trigger) -> Self {
        Self {
            name: None,
            points: vec![glob.into()],
            kinds: vec![(kind.into(), 1.0)],
            trigger,
            max_count: None,
            methods: Vec::new(),
            exclude_suffixes: Vec::new(),
            skip_health_checks: true,
        }
    }

    /// The same rule, named.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The same rule, also matching `glob`.
    pub fn or_point(mut self, glob: impl Into<String>) -> Self {
        self.points.push(glob.into());
        self
    }

    /// The same rule choosing among `kinds` by weight.
    pub fn with_kinds(mut self, kinds: Vec<(KindSpec, f64)>) -> Self {
        self.kinds = kinds;
        self
    }

    /// The same rule, firing at most `n` times.
    pub fn max_count(mut self, n: u64) -> Self {
        self.max_count = Some(n);
        self
    }

    /// The same rule, only for calls with one of `methods`.
    pub fn methods<S: Into<String>>(mut self, methods: impl IntoIterator<Item = S>) -> Self {
        self.methods = methods.into_iter().map(Into::into).collect();
        self
    }

    /// The same rule, never for paths ending with one of `suffixes`.
    pub fn exclude_suffixes<S: Into<String>>(
        mut self,
        suffixes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.exclude_suffixes = suffixes.into_iter().map(Into::into).collect();
        self
    }

    /// How events name this rule: its name, or `#<index>`.
    pub fn label(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("#{index}"))
    }
}

/// The field of a rule an error is about (as spelt in plan files).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleField {
    /// `points` / `point`.
    Points,
    /// `kinds` / `kind`.
    Kinds,
    /// `probability`.
    Probability,
    /// `calls`.
    Calls,
    /// `max_count`.
    MaxCount,
    /// `methods`.
    Methods,
    /// `exclude_suffixes`.
    ExcludeSuffixes,
}

impl RuleField {
    /// The field's name in plan files.
    pub fn name(self) -> &'static str {
        match self {
            RuleField::Points => "points",
            RuleField::Kinds => "kinds",
            RuleField::Probability => "probability",
            RuleField::Calls => "calls",
            RuleField::MaxCount => "max_count",
            RuleField::Methods => "methods",
            RuleField::ExcludeSuffixes => "exclude_suffixes",
        }
    }
}

/// An invalid rule: which rule, which field (and item of it), what and a hint.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("rule {rule}: {}{}: {message}{}", field.name(), item.map(|i| format!("[{i}]")).unwrap_or_default(), hint.as_ref().map(|h| format!(" (hint: {h})")).unwrap_or_default())]
pub struct RuleError {
    /// Index of the rule in its plan.
    pub rule: usize,
    /// The field at fault.
    pub field: RuleField,
    /// The item of a list field at fault.
    pub item: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

/// The hint listing point prefixes.
const POINT_HINT: &str = "points look like `service:gmail/send`, `http:gmail.local/*`, \
                          `tool:Bash` or `fs:open:/workspace/*` (`*` also matches `/`)";

/// Compiles `glob` with the options every point glob uses.
pub(crate) fn build_glob(glob: &str) -> Result<Glob, globset::Error> {
    GlobBuilder::new(glob)
        .literal_separator(false)
        .backslash_escape(true)
        .case_insensitive(false)
        .build()
}

/// A rule checked and prepared for decisions.
#[derive(Clone, Debug)]
pub(crate) struct CompiledRule {
    /// Categories the rule's globs can match.
    pub categories: [bool; Category::ALL.len()],
    /// Firing threshold for probability rules.
    pub threshold: Option<u64>,
    /// Sorted, deduplicated call numbers for call rules.
    pub calls: Vec<u64>,
    /// Kinds in order.
    pub kinds: Vec<KindSpec>,
    /// Cumulative pick thresholds of the kinds.
    pub cum: Vec<u64>,
    /// Whether deciding needs the seeded draw at all.
    pub needs_draw: bool,
    /// Method filter (empty: any).
    pub methods: Vec<String>,
    /// Excluded path suffixes.
    pub exclude_suffixes: Vec<String>,
    /// Skip health probes.
    pub skip_health_checks: bool,
    /// Cap on firings.
    pub max_count: Option<u64>,
}

impl CompiledRule {
    /// Checks rule number `index` and prepares it; also returns its compiled globs.
    pub fn new(index: usize, rule: &Rule) -> Result<(Self, Vec<Glob>), RuleError> {
        let err = |field, item, message: String, hint: Option<&str>| RuleError {
            rule: index,
            field,
            item,
            message,
            hint: hint.map(str::to_string),
        };
        if rule.points.is_empty() {
            return Err(err(
                RuleField::Points,
                None,
                "a rule needs at least one point".into(),
                Some(POINT_HINT),
            ));
        }
        let mut categories = [false; Category::ALL.len()];
        let mut globs = Vec::with_capacity(rule.points.len());
        for (i, text) in rule.points.iter().enumerate() {
            let Some(category) = Category::of(text) else {
                return Err(err(
                    RuleField::Points,
                    Some(i),
                    format!("`{text}` does not start with service:, http:, tool: or fs:"),
                    Some(POINT_HINT),
                ));
            };
            if category == Category::Fs {
                check_fs_op(text).map_err(|m| {
                    let hint = format!(
                        "fs points are `fs:<op>:<abs path>` with op one of {}",
                        point::FS_OPS.map(|op| op.name()).join(", ")
                    );
                    err(RuleField::Points, Some(i), m, Some(&hint))
                })?;
            }
            let glob = build_glob(text).map_err(|e| {
                err(
                    RuleField::Points,
                    Some(i),
                    format!("`{text}` is not a valid glob: {}", e.kind()),
                    Some(POINT_HINT),
                )
            })?;
            categories[category.index()] = true;
            globs.push(glob);
        }
        if rule.kinds.is_empty() {
            return Err(err(
                RuleField::Kinds,
                None,
                "a rule needs at least one kind".into(),
                Some("write `kind: status500` or `kinds: {status429: 1, status500: 1}`"),
            ));
        }
        for (i, (kind, weight)) in rule.kinds.iter().enumerate() {
            if !(weight.is_finite() && *weight > 0.0) {
                return Err(err(
                    RuleField::Kinds,
                    Some(i),
                    format!("the weight of `{kind}` must be a positive number, not {weight}"),
                    None,
                ));
            }
            if let Some(category) = Category::ALL
                .into_iter()
                .find(|c| categories[c.index()] && !kind.applies_to(*c))
            {
                let hint = if category == Category::Fs {
                    "fs points take eio, enospc, eacces, short_write or latency"
                } else {
                    "eio, enospc, eacces and short_write apply to fs: points only"
                };
                return Err(err(
                    RuleField::Kinds,
                    Some(i),
                    format!("`{kind}` cannot be injected at {category}: points"),
                    Some(hint),
                ));
            }
        }
        let (threshold, calls) = match &rule.trigger {
            Trigger::Probability(p) => {
                if !(0.0..=1.0).contains(p) {
                    return Err(err(
                        RuleField::Probability,
                        None,
                        format!("probability must be within 0..=1, not {p}"),
                        Some("e.g. `probability: 0.25` for one call in four"),
                    ));
                }
                (Some(decide::threshold(*p)), Vec::new())
            }
            Trigger::Calls(calls) => {
                if calls.is_empty() {
                    return Err(err(
                        RuleField::Calls,
                        None,
                        "the list of call numbers is empty".into(),
                        Some(
                            "e.g. `calls: [1, 3]` fires on the first and third call of each point",
                        ),
                    ));
                }
                if let Some(i) = calls.iter().position(|&c| c == 0) {
                    return Err(err(
                        RuleField::Calls,
                        Some(i),
                        "call numbers start at 1".into(),
                        None,
                    ));
                }
                let mut sorted = calls.clone();
                sorted.sort_unstable();
                sorted.dedup();
                (None, sorted)
            }
        };
        if rule.max_count == Some(0) {
            return Err(err(
                RuleField::MaxCount,
                None,
                "max_count must be at least 1".into(),
                Some("leave max_count out for no limit"),
            ));
        }
        if let Some(i) = rule.methods.iter().position(|m| m.trim().is_empty()) {
            return Err(err(
                RuleField::Methods,
                Some(i),
                "a method is empty".into(),
                None,
            ));
        }
        if let Some(i) = rule.exclude_suffixes.iter().position(String::is_empty) {
            return Err(err(
                RuleField::ExcludeSuffixes,
                Some(i),
                "an excluded suffix is empty (it would exclude every call)".into(),
                None,
            ));
        }
        let weights: Vec<f64> = rule.kinds.iter().map(|(_, w)| *w).collect();
        let kinds: Vec<KindSpec> = rule.kinds.iter().map(|(k, _)| *k).collect();
        let needs_draw =
            threshold.is_some() || kinds.len() > 1 || kinds.iter().any(KindSpec::needs_draw);
        Ok((
            Self {
                categories,
                threshold,
                calls,
                cum: decide::cumulative(&weights),
                kinds,
                needs_draw,
                methods: rule
                    .methods
                    .iter()
                    .map(|m| m.trim().to_ascii_uppercase())
                    .collect(),
                exclude_suffixes: rule.exclude_suffixes.clone(),
                skip_health_checks: rule.skip_health_checks,
                max_count: rule.max_count,
            },
            globs,
        ))
    }

    /// Whether the request filters (method, excluded suffixes, health probes) admit `call`.
    #[inline]
    pub fn admits(&self, call: &Call<'_>) -> bool {
        if self.skip_health_checks && call.health_check {
            return false;
        }
        if !self.methods.is_empty() {
            match call.method {
                Some(m) if self.methods.iter().any(|x| x == m) => {}
                _ => return false,
            }
        }
        !self
            .exclude_suffixes
            .iter()
            .any(|s| call.path.ends_with(s.as_str()))
    }

    /// The kind this rule injects at call number `call` with `draw`, or `None` if it does
    /// not fire. `draw` is only read when [`Self::needs_draw`] is set.
    #[inline]
    pub fn decide(&self, call: u64, draw: &Draw) -> Option<FaultKind> {
        let fires = match self.threshold {
            Some(t) => t == u64::MAX || draw.fire < t,
            None => self.calls.binary_search(&call).is_ok(),
        };
        if !fires {
            return None;
        }
        let kind = if self.kinds.len() == 1 {
            &self.kinds[0]
        } else {
            &self.kinds[decide::choose(&self.cum, draw.pick)]
        };
        Some(kind.resolve(draw.param))
    }
}

/// Checks the op segment of an fs glob (`fs:<op>:...`) when it is literal.
fn check_fs_op(glob: &str) -> Result<(), String> {
    let rest = &glob["fs:".len()..];
    let Some((op, path)) = rest.split_once(':') else {
        return Err(format!("`{glob}` has no `:<path>` after the op"));
    };
    let literal = !op.contains(['*', '?', '[', '{', '\\']);
    if literal && point::fs_op(op).is_none() {
        return Err(format!("`{op}` in `{glob}` is not a filesystem op"));
    }
    if !path.starts_with('/') && !path.starts_with(['*', '?', '[', '{']) {
        return Err(format!(
            "the path in `{glob}` must be absolute (start with `/`)"
        ));
    }
    Ok(())
}

/// The serialised form of a rule, in the plan-file schema.
#[derive(Serialize)]
pub(crate) struct RuleRepr<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    points: &'a [String],
    kinds: KindsRepr<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    probability: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    calls: Option<&'a [u64]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_count: Option<u64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    methods: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    exclude_suffixes: &'a [String],
    skip_health_checks: bool,
}

impl<'a> From<&'a Rule> for RuleRepr<'a> {
    fn from(rule: &'a Rule) -> Self {
        let (probability, calls) = match &rule.trigger {
            Trigger::Probability(p) => (Some(*p), None),
            Trigger::Calls(c) => (None, Some(c.as_slice())),
        };
        Self {
            name: rule.name.as_deref(),
            points: &rule.points,
            kinds: KindsRepr(&rule.kinds),
            probability,
            calls,
            max_count: rule.max_count,
            methods: &rule.methods,
            exclude_suffixes: &rule.exclude_suffixes,
            skip_health_checks: rule.skip_health_checks,
        }
    }
}

/// Kinds with weights as a map, in rule order (the order decides which kind a draw picks).
pub(crate) struct KindsRepr<'a>(&'a [(KindSpec, f64)]);

impl Serialize for KindsRepr<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (kind, weight) in self.0 {
            map.serialize_entry(&kind.to_string(), weight)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(rule: Rule) -> Result<CompiledRule, RuleError> {
        CompiledRule::new(3, &rule).map(|(c, _)| c)
    }

    #[test]
    fn validation_names_the_field_and_item() {
        let e = compile(Rule::new(
            "gmail/send",
            FaultKind::Status500,
            Trigger::Calls(vec![1]),
        ))
        .unwrap_err();
        assert_eq!((e.rule, e.field, e.item), (3, RuleField::Points, Some(0)));
        let e = compile(Rule::new(
            "fs:chmod:/x",
            FaultKind::Eio,
            Trigger::Calls(vec![1]),
        ))
        .unwrap_err();
        assert!(e.message.contains("`chmod`"), "{e}");
        assert!(e.hint.unwrap().contains("readdir"));
        let e = compile(Rule::new(
            "fs:open:/x",
            FaultKind::Status500,
            Trigger::Calls(vec![1]),
        ))
        .unwrap_err();
        assert_eq!(e.field, RuleField::Kinds);
        let e = compile(Rule::new(
            "tool:Bash",
            FaultKind::Eio,
            Trigger::Calls(vec![1]),
        ))
        .unwrap_err();
        assert!(e.message.contains("tool: points"), "{e}");
        let e = compile(Rule::new(
            "tool:Bash",
            FaultKind::Timeout,
            Trigger::Probability(1.5),
        ))
        .unwrap_err();
        assert_eq!(e.field, RuleField::Probability);
        let e = compile(Rule::new(
            "tool:Bash",
            FaultKind::Timeout,
            Trigger::Calls(vec![2, 0]),
        ))
        .unwrap_err();
        assert_eq!((e.field, e.item), (RuleField::Calls, Some(1)));
        let e = compile(Rule::new(
            "tool:[Bash",
            FaultKind::Timeout,
            Trigger::Calls(vec![1]),
        ))
        .unwrap_err();
        assert!(e.message.contains("not a valid glob"), "{e}");
        let e = compile(
            Rule::new("tool:Bash", FaultKind::Timeout, Trigger::Calls(vec![1])).max_count(0),
        )
        .unwrap_err();
        assert_eq!(e.field, RuleField::MaxCount);
        assert!(e.to_string().starts_with("rule 3: max_count: "), "{e}");
        // Globbed ops and latency at fs points are fine.
        compile(Rule::new(
            "fs:*:/data/*",
            FaultKind::Latency { millis: 5 },
            Trigger::Calls(vec![1]),
        ))
        .unwrap();
    }

    #[test]
    fn filters() {
        let rule = compile(
            Rule::new("service:*", FaultKind::Status500, Trigger::Probability(1.0))
                .methods(["POST"])
                .exclude_suffixes(["/audit"]),
        )
        .unwrap();
        let post = Call::service("service:gmail/send", "/gmail/send", "POST", false);
        assert!(rule.admits(&post));
        assert!(!rule.admits(&post.with_method("GET")));
        assert!(!rule.admits(&post.with_method("post")));
        assert!(!rule.admits(&post.with_health_check(true)));
        assert!(!rule.admits(&post.with_path("/gmail/audit")));
        assert!(!rule.admits(&Call::new("service:gmail/send")));
    }
}
