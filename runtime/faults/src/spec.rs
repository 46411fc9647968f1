//! Plans written as data: a task's `faults:` section or a plan file (YAML or JSON).
//!
//! ```yaml
//! seed: 42                     # optional; default: the run's seed
//! preset: claw-eval            # optional; Claw-Eval's middleware after the rules below
//! rate: 0.3                    # optional, the preset's rate (default: $ERROR_RATE, else 0)
//! rules:
//!   - name: flaky-send         # optional; events use it instead of the index
//!     point: service:gmail/send            # or points: [glob, ...]
//!     kind: status500                      # or kinds: {status429: 1, latency:100-500: 2}
//!     probability: 0.5                     # or calls: [1, 3] (1-based, per point)
//!     max_count: 2                         # optional
//!     methods: [POST]                      # optional
//!     exclude_suffixes: [/audit]           # optional
//!     skip_health_checks: true             # optional, default true
//! ```
//!
//! [`FaultsSection`] deserialises from any YAML value (so a task loader can embed it); checking
//! happens in [`FaultsSection::compile`], whose errors name the origin, the field path and, when
//! the text came through serde-saphyr, the line:column.

use serde::Deserialize;

use super::error::{PlanError, plan_error};
use super::kind::{KindError, KindSpec};
use super::plan::FaultPlan;
use super::preset::{self, CLAW_EVAL};
use super::rule::{Rule, RuleError, RuleField, Trigger};
use super::yaml::{Node, Value};
use clawrun_task::did_you_mean;

/// Fields of a plan.
const PLAN_FIELDS: &[&str] = &["seed", "preset", "rate", "rules"];
/// Fields of a rule.
const RULE_FIELDS: &[&str] = &[
    "name",
    "point",
    "points",
    "kind",
    "kinds",
    "probability",
    "calls",
    "max_count",
    "methods",
    "exclude_suffixes",
    "skip_health_checks",
];

/// A task's `faults:` section (or a whole plan file), as written; see the module docs.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct FaultsSection {
    node: Node,
}

/// Where a section came from, for errors.
#[derive(Clone, Copy, Debug)]
pub struct PlanSource<'a> {
    /// The file (or `--faults`).
    pub origin: &'a str,
    /// The section's field path in that file (`faults` in a task file, empty for a plan file).
    pub field: &'a str,
}

/// What a plan needs from outside its text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlanOptions {
    /// The seed of plans that do not set `seed:` (the run's seed).
    pub seed: u64,
    /// The value of `ERROR_RATE`, the `claw-eval` preset's rate when none is written.
    pub error_rate: Option<String>,
}

impl PlanOptions {
    /// Options with `seed` and no `ERROR_RATE`.
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            error_rate: None,
        }
    }

    /// Options with `seed` and `ERROR_RATE` read from the process environment.
    pub fn from_env(seed: u64) -> Self {
        Self {
            seed,
            error_rate: std::env::var(preset::ERROR_RATE_ENV).ok(),
        }
    }
}

impl FaultsSection {
    /// Parses YAML (or JSON) text holding a whole section; syntax errors carry line:column
    /// (the task loader's YAML reading, so plans and tasks report them alike).
    pub fn from_yaml(text: &str, origin: &str) -> Result<Self, PlanError> {
        clawrun_task::parse_yaml(text, origin)
            .map(|node| FaultsSection { node })
            .map_err(|e| match &e {
                // The loader's own diagnostic, about the plan's origin.
                clawrun_task::Error::Invalid(diags) if !diags.is_empty() => PlanError {
                    file: origin.to_string(),
                    field: String::new(),
                    ..diags[0].clone()
                },
                _ => plan_error(origin, "", e.to_string()),
            })
    }

    /// A section from an already parsed node (a task file's `faults:`).
    pub fn from_node(node: Node) -> Self {
        FaultsSection { node }
    }

    /// Whether the section is empty (`faults:` with nothing after it).
    pub fn is_empty(&self) -> bool {
        self.node.value == Value::Null
    }

    /// Checks the section and builds its plan.
    pub fn compile(
        &self,
        source: PlanSource<'_>,
        options: &PlanOptions,
    ) -> Result<FaultPlan, PlanError> {
        Compiler { source }.plan(&self.node, options)
    }
}

/// Turns a section's nodes into a plan, naming fields relative to `source`.
struct Compiler<'a> {
    /// Where the section came from.
    source: PlanSource<'a>,
}

/// A rule as read, with the nodes its fields came from (for mapping rule errors back).
struct ReadRule<'n> {
    /// The rule.
    rule: Rule,
    /// The rule's mapping.
    node: &'n Node,
    /// `point` or `points`, and its value.
    points: Option<(&'static str, &'n Node)>,
    /// `kind` or `kinds`, and its value.
    kinds: Option<(&'static str, &'n Node)>,
    /// Other checked fields and their values.
    fields: Vec<(&'static str, &'n Node)>,
}

impl<'a> Compiler<'a> {
    fn path(&self, rel: &str) -> String {
        match (self.source.field.is_empty(), rel.is_empty()) {
            (true, _) => rel.to_string(),
            (false, true) => self.source.field.to_string(),
            (false, false) => format!("{}.{rel}", self.source.field),
        }
    }

    fn err(&self, rel: &str, node: &Node, message: impl Into<String>) -> PlanError {
        plan_error(self.source.origin, &self.path(rel), message).at(node.pos)
    }

    fn expected(&self, rel: &str, node: &Node, what: &str) -> PlanError {
        self.err(
            rel,
            node,
            format!("expected {what}, found {}", node.value.describe()),
        )
    }

    fn map<'n>(
        &self,
        rel: &str,
        node: &'n Node,
        what: &str,
    ) -> Result<&'n [(Node, Node)], PlanError> {
        match &node.value {
            Value::Map(entries) => Ok(entries),
            _ => Err(self.expected(rel, node, what)),
        }
    }

    fn key<'n>(&self, rel: &str, key: &'n Node, valid: &[&str]) -> Result<&'n str, PlanError> {
        let Some(name) = key.as_str() else {
            return Err(self.expected(rel, key, "a field name"));
        };
        if valid.contains(&name) {
            return Ok(name);
        }
        let field = if rel.is_empty() {
            name.to_string()
        } else {
            format!("{rel}.{name}")
        };
        let mut e = self.err(&field, key, format!("unknown field `{name}`"));
        let hint = match did_you_mean(name, valid) {
            Some(m) => format!("did you mean `{m}`? valid fields: {}", valid.join(", ")),
            None => format!("valid fields: {}", valid.join(", ")),
        };
        e.hint = Some(hint);
        Err(e)
    }

    fn string<'n>(&self, rel: &str, node: &'n Node) -> Result<&'n str, PlanError> {
        node.as_str()
            .ok_or_else(|| self.expected(rel, node, "a string"))
    }

    /// A string or a list of strings.
    fn strings(&self, rel: &str, node: &Node) -> Result<Vec<String>, PlanError> {
        match &node.value {
            Value::Str(s) => Ok(vec![s.clone()]),
            Value::Seq(items) => items
                .iter()
                .enumerate()
                .map(|(i, n)| self.string(&format!("{rel}[{i}]"), n).map(str::to_string))
                .collect(),
            _ => Err(self.expected(rel, node, "a string or a list of strings")),
        }
    }

    fn count(&self, rel: &str, node: &Node) -> Result<u64, PlanError> {
        node.as_u64()
            .ok_or_else(|| self.expected(rel, node, "a whole number"))
    }

    fn plan(&self, root: &Node, options: &PlanOptions) -> Result<FaultPlan, PlanError> {
        if root.value == Value::Null {
            return Ok(FaultPlan::new(options.seed, Vec::new()).expect("empty plan"));
        }
        let entries = self.map("", root, "a mapping with seed, preset, rate and rules")?;
        let mut own_seed = None;
        let mut preset: Option<(&str, &Node)> = None;
        let mut rate: Option<(f64, &Node)> = None;
        let mut read = Vec::new();
        for (key, value) in entries {
            match self.key("", key, PLAN_FIELDS)? {
                "seed" => {
                    own_seed = Some(value.as_u64().ok_or_else(|| {
                        self.expected(
                            "seed",
                            value,
                            "a whole number within 0..=18446744073709551615",
                        )
                    })?)
                }
                "preset" => preset = Some((self.string("preset", value)?, value)),
                "rate" => {
                    let r = value
                        .as_f64()
                        .ok_or_else(|| self.expected("rate", value, "a number within 0..=1"))?;
                    preset::check_rate(r).map_err(|e| self.err("rate", value, e.0))?;
                    rate = Some((r, value));
                }
                "rules" => {
                    let Value::Seq(items) = &value.value else {
                        return Err(self.expected("rules", value, "a list of rules"));
                    };
                    for (i, item) in items.iter().enumerate() {
                        read.push(self.rule(i, item)?);
                    }
                }
                _ => unreachable!("checked against PLAN_FIELDS"),
            }
        }
        let mut rules: Vec<Rule> = read.iter().map(|r| r.rule.clone()).collect();
        match (preset, rate) {
            (Some((name, node)), rate) => {
                let rate = self.preset_rate(name, node, rate, options)?;
                rules.push(preset::claw_eval_rule(rate));
            }
            (None, Some((_, node))) => {
                return Err(self
                    .err(
                        "rate",
                        node,
                        "`rate` is the rate of a preset, but there is no preset",
                    )
                    .hint("add `preset: claw-eval`, or give each rule its own `probability`"));
            }
            (None, None) => {}
        }
        let plan = FaultPlan::new(own_seed.unwrap_or(options.seed), rules)
            .map_err(|e| self.rule_error(&read, e))?;
        Ok(plan.with_own_seed(own_seed))
    }

    /// The preset's rate: from `rate:`, from `preset: claw-eval:RATE`, or the default.
    fn preset_rate(
        &self,
        name: &str,
        node: &Node,
        rate: Option<(f64, &Node)>,
        options: &PlanOptions,
    ) -> Result<f64, PlanError> {
        let hint = "the only preset is `claw-eval` (optionally `claw-eval:RATE`)";
        let inline = match name.strip_prefix(CLAW_EVAL) {
            Some("") => None,
            Some(rest) if rest.starts_with(':') => {
                Some(preset::parse_rate(&rest[1..]).map_err(|e| self.err("preset", node, e.0))?)
            }
            _ => {
                return Err(self
                    .err("preset", node, format!("unknown preset `{name}`"))
                    .hint(hint));
            }
        };
        match (inline, rate) {
            (Some(_), Some((_, rate_node))) => Err(self
                .err(
                    "rate",
                    rate_node,
                    "the rate is given twice (in `preset` and in `rate`)",
                )
                .hint("keep one of them")),
            (Some(r), None) | (None, Some((r, _))) => Ok(r),
            (None, None) => preset::default_rate(options.error_rate.as_deref())
                .map_err(|e| self.err("preset", node, e.0)),
        }
    }

    fn rule<'n>(&self, index: usize, node: &'n Node) -> Result<ReadRule<'n>, PlanError> {
        let here = format!("rules[{index}]");
        let entries = self.map(
            &here,
            node,
            "a rule (a mapping with point, kind, probability or calls)",
        )?;
        let mut r = ReadRule {
            rule: Rule {
                name: None,
                points: Vec::new(),
                kinds: Vec::new(),
                trigger: Trigger::Calls(Vec::new()),
                max_count: None,
                methods: Vec::new(),
                exclude_suffixes: Vec::new(),
                skip_health_checks: true,
            },
            node,
            points: None,
            kinds: None,
            fields: Vec::new(),
        };
        let mut trigger: Option<(&'static str, &Node)> = None;
        for (key, value) in entries {
            let name = self.key(&here, key, RULE_FIELDS)?;
            let at = format!("{here}.{name}");
            match name {
                "name" => r.rule.name = Some(self.string(&at, value)?.to_string()),
                "point" | "points" => {
                    let field = if name == "point" { "point" } else { "points" };
                    if let Some((other, _)) = r.points {
                        return Err(self
                            .err(&at, key, format!("`{field}` given after `{other}`"))
                            .hint("give either `point: GLOB` or `points: [GLOB, ...]`"));
                    }
                    r.rule.points = if field == "point" {
                        vec![self.string(&at, value)?.to_string()]
                    } else {
                        self.strings(&at, value)?
                    };
                    r.points = Some((field, value));
                }
                "kind" | "kinds" => {
                    let field = if name == "kind" { "kind" } else { "kinds" };
                    if let Some((other, _)) = r.kinds {
                        return Err(self
                            .err(&at, key, format!("`{field}` given after `{other}`"))
                            .hint("give either `kind: KIND` or `kinds: {KIND: WEIGHT, ...}`"));
                    }
                    r.rule.kinds = if field == "kind" {
                        vec![(self.kind(&at, value)?, 1.0)]
                    } else {
                        self.weighted_kinds(&at, value)?
                    };
                    r.kinds = Some((field, value));
                }
                "probability" | "calls" => {
                    let field = if name == "probability" {
                        "probability"
                    } else {
                        "calls"
                    };
                    if let Some((other, _)) = trigger {
                        return Err(self
                            .err(&at, key, format!("`{field}` given after `{other}`"))
                            .hint("a rule fires either by `probability: P` or on `calls: [N, ...]`, not both"));
                    }
                    r.rule.trigger =
                        if field == "probability" {
                            Trigger::Probability(value.as_f64().ok_or_else(|| {
                                self.expected(&at, value, "a number within 0..=1")
                            })?)
                        } else {
                            Trigger::Calls(self.calls(&at, value)?)
                        };
                    trigger = Some((field, value));
                    r.fields.push((field, value));
                }
                "max_count" => {
                    r.rule.max_count = Some(self.count(&at, value)?);
                    r.fields.push(("max_count", value));
                }
                "methods" => {
                    r.rule.methods = self
                        .strings(&at, value)?
                        .into_iter()
                        .map(|m| m.trim().to_ascii_uppercase())
                        .collect();
                    r.fields.push(("methods", value));
                }
                "exclude_suffixes" => {
                    r.rule.exclude_suffixes = self.strings(&at, value)?;
                    r.fields.push(("exclude_suffixes", value));
                }
                "skip_health_checks" => {
                    r.rule.skip_health_checks = match value.value {
                        Value::Bool(b) => b,
                        _ => return Err(self.expected(&at, value, "true or false")),
                    }
                }
                _ => unreachable!("checked against RULE_FIELDS"),
            }
        }
        let missing = |what: &str, hint: &str| {
            Err(self
                .err(&here, node, format!("the rule has no {what}"))
                .hint(hint.to_string()))
        };
        if r.points.is_none() {
            return missing(
                "`point` or `points`",
                "e.g. `point: service:gmail/send`, `point: tool:Bash` or `points: [fs:write:/workspace/*]`",
            );
        }
        if r.kinds.is_none() {
            return missing(
                "`kind` or `kinds`",
                "e.g. `kind: status500` or `kinds: {status429: 1, status500: 1}`",
            );
        }
        if trigger.is_none() {
            return missing(
                "`probability` or `calls`",
                "e.g. `probability: 0.25`, or `calls: [1]` for the first call of each point",
            );
        }
        Ok(r)
    }

    fn kind(&self, rel: &str, node: &Node) -> Result<KindSpec, PlanError> {
        let text = self.string(rel, node)?;
        text.parse::<KindSpec>().map_err(|e: KindError| {
            let mut err = self.err(rel, node, e.to_string()).hint(e.hint());
            if let KindError::UnknownName(name) = &e
                && let Some(m) = did_you_mean(name, super::kind::KIND_NAMES)
            {
                err.hint = Some(format!("did you mean `{m}`? {}", e.hint()));
            }
            err
        })
    }

    fn weighted_kinds(&self, rel: &str, node: &Node) -> Result<Vec<(KindSpec, f64)>, PlanError> {
        match &node.value {
            Value::Map(entries) => entries
                .iter()
                .map(|(k, w)| {
                    let at = format!("{rel}.{}", self.string(rel, k)?);
                    let kind = self.kind(&at, k)?;
                    let weight = w
                        .as_f64()
                        .ok_or_else(|| self.expected(&at, w, "a positive weight"))?;
                    Ok((kind, weight))
                })
                .collect(),
            Value::Seq(items) => items
                .iter()
                .enumerate()
                .map(|(i, k)| Ok((self.kind(&format!("{rel}[{i}]"), k)?, 1.0)))
                .collect(),
            _ => Err(self.expected(
                rel,
                node,
                "a mapping of kinds to weights, e.g. {status429: 1, status500: 1}",
            )),
        }
    }

    fn calls(&self, rel: &str, node: &Node) -> Result<Vec<u64>, PlanError> {
        let one = |at: &str, n: &Node| {
            self.count(at, n)
                .map_err(|e| e.hint("call numbers are whole numbers from 1, e.g. `calls: [1, 3]`"))
        };
        match &node.value {
            Value::Seq(items) => items
                .iter()
                .enumerate()
                .map(|(i, n)| one(&format!("{rel}[{i}]"), n))
                .collect(),
            _ => Ok(vec![one(rel, node)?]),
        }
    }

    /// Maps an error of the plan checker back to the rule's field in the text.
    fn rule_error(&self, read: &[ReadRule<'_>], e: RuleError) -> PlanError {
        let Some(r) = read.get(e.rule) else {
            return plan_error(self.source.origin, &self.path(""), e.message);
        };
        let here = format!("rules[{}]", e.rule);
        let field = match e.field {
            RuleField::Points => r.points,
            RuleField::Kinds => r.kinds,
            other => r.fields.iter().find(|(n, _)| *n == other.name()).copied(),
        };
        let (rel, node) = match field {
            None => (here, r.node),
            Some((name, node)) => {
                let at = format!("{here}.{name}");
                match (e.item, &node.value) {
                    (Some(i), Value::Seq(items)) if i < items.len() => {
                        (format!("{at}[{i}]"), &items[i])
                    }
                    (Some(i), Value::Map(entries)) if i < entries.len() => {
                        let key = entries[i].0.as_str().unwrap_or_default();
                        (format!("{at}.{key}"), &entries[i].0)
                    }
                    _ => (at, node),
                }
            }
        };
        let mut err = self.err(&rel, node, e.message);
        err.hint = e.hint;
        err
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_field() {
        assert_eq!(did_you_mean("probabilty", RULE_FIELDS), Some("probability"));
        assert_eq!(did_you_mean("max_cout", RULE_FIELDS), Some("max_count"));
        assert_eq!(did_you_mean("zzz", RULE_FIELDS), None);
    }
}
