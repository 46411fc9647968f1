//! A perturbation schedule: faults at exact calls of exact points, as the rules of a fault
//! plan and as the plan file a reproducer is.

use std::fmt;

use anyhow::{Result, anyhow};

use clawrun_faults::{FaultKind, FaultPlan, Rule, Trigger};

/// One perturbation: inject `kind` at call number `call` (1-based) of `point`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Perturbation {
    /// The fault point (`service:gmail/messages`, `tool:Bash`, `fs:open:/workspace/a.txt`).
    pub point: String,
    /// The point's call number, 1-based and counted per point.
    pub call: u64,
    /// What to inject.
    pub kind: FaultKind,
}

impl fmt::Display for Perturbation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at call {} of {}", self.kind, self.call, self.point)
    }
}

/// The name of the rules a schedule becomes (fault events in traces show it).
pub const RULE_NAME: &str = "fuzz";

/// A set of perturbations, at most one per (point, call), sorted by point then call.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Schedule(Vec<Perturbation>);

impl Schedule {
    /// The schedule of `perturbations` (sorted; of two at the same call of a point, the first
    /// given is kept).
    pub fn new(perturbations: impl IntoIterator<Item = Perturbation>) -> Self {
        let mut all: Vec<Perturbation> = Vec::new();
        for p in perturbations {
            if !all.iter().any(|q| q.point == p.point && q.call == p.call) {
                all.push(p);
            }
        }
        all.sort();
        Schedule(all)
    }

    /// The perturbations, in order.
    pub fn perturbations(&self) -> &[Perturbation] {
        &self.0
    }

    /// How many perturbations.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the schedule perturbs nothing (the unperturbed twin).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The perturbation at (`point`, `call`), if any.
    pub fn at(&self, point: &str, call: u64) -> Option<&Perturbation> {
        self.0.iter().find(|p| p.point == point && p.call == call)
    }

    /// One rule per perturbation, named [`RULE_NAME`], matching its point exactly and firing
    /// on its call only.
    pub fn rules(&self) -> Vec<Rule> {
        self.0
            .iter()
            .map(|p| {
                Rule::new(escape_glob(&p.point), p.kind, Trigger::Calls(vec![p.call]))
                    .named(RULE_NAME)
            })
            .collect()
    }

    /// The trial's plan: `base` (the task's own rules, decided first, as `clawrun run` orders
    /// a task's rules before a plan file's) followed by this schedule's rules.
    pub fn plan(&self, base: &FaultPlan) -> Result<FaultPlan> {
        let mut rules = base.rules().to_vec();
        rules.extend(self.rules());
        FaultPlan::new(base.seed(), rules)
            .map(|p| p.with_own_seed(base.own_seed()))
            .map_err(|e| anyhow!("a fuzz schedule's rules: {e}"))
    }

    /// The schedule as a fault-plan file (YAML) with fault seed `seed`, under `header`
    /// comment lines.
    pub fn to_plan_file(&self, seed: u64, header: &[String]) -> String {
        let mut out = String::new();
        for line in header {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&format!("seed: {seed}\nrules:\n"));
        if self.0.is_empty() {
            out.truncate(out.len() - "rules:\n".len());
            out.push_str("rules: []\n");
        }
        for p in &self.0 {
            let point = serde_json::to_string(&escape_glob(&p.point)).expect("a string");
            out.push_str(&format!(
                "  - name: {RULE_NAME}\n    point: {point}\n    kind: {}\n    calls: [{}]\n",
                p.kind, p.call
            ));
        }
        out
    }

    /// The schedule a plan file of [`Schedule::to_plan_file`] holds: its `fuzz` rules (each
    /// one exact point, one kind, one call); other rules are not perturbations and are
    /// ignored.
    pub fn from_plan(plan: &FaultPlan) -> Self {
        Schedule::new(plan.rules().iter().filter_map(|r| {
            let (point, kind, call) = match (&r.points[..], &r.kinds[..], &r.trigger) {
                ([point], [(clawrun_faults::KindSpec::Fixed(kind), _)], Trigger::Calls(calls))
                    if r.name.as_deref() == Some(RULE_NAME) && calls.len() == 1 =>
                {
                    (unescape_glob(point), *kind, calls[0])
                }
                _ => return None,
            };
            Some(Perturbation { point, call, kind })
        }))
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(no perturbation)");
        }
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            p.fmt(f)?;
        }
        Ok(())
    }
}

/// Characters point globs give a meaning to.
const GLOB_META: &[char] = &['\\', '*', '?', '[', ']', '{', '}'];

/// `point` as a glob matching only itself.
pub fn escape_glob(point: &str) -> String {
    let mut out = String::with_capacity(point.len());
    for c in point.chars() {
        if GLOB_META.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The point an [`escape_glob`] glob matches.
fn unescape_glob(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len());
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawrun_faults::{Call, PlanOptions, plan_from_yaml};

    fn p(point: &str, call: u64, kind: &str) -> Perturbation {
        Perturbation {
            point: point.into(),
            call,
            kind: kind.parse().unwrap(),
        }
    }

    #[test]
    fn a_plan_file_loads_back_into_the_same_schedule_and_decisions() {
        let s = Schedule::new([
            p("service:gmail/messages/msg_[1]", 2, "status500"),
            p("fs:open:/workspace/a*b.txt", 1, "eio"),
            p("service:gmail/messages/msg_[1]", 2, "timeout"),
            p("tool:Bash", 3, "inject:2@1"),
        ]);
        assert_eq!(
            s.len(),
            3,
            "one perturbation per (point, call), the first kept"
        );
        let text = s.to_plan_file(7, &["a reproducer".into()]);
        let plan = plan_from_yaml(&text, "repro.yaml", &PlanOptions::new(0)).unwrap();
        assert_eq!(plan.own_seed(), Some(7));
        assert_eq!(Schedule::from_plan(&plan), s);
        let call = Call::new("service:gmail/messages/msg_[1]");
        assert_eq!(plan.decide(&call, 1), None);
        assert_eq!(plan.decide(&call, 2).unwrap().kind, FaultKind::Status500);
        // The glob matches its point only, not what its brackets would have meant.
        assert_eq!(
            plan.decide(&Call::new("service:gmail/messages/msg_1"), 2),
            None
        );
        assert!(
            plan.decide(&Call::new("fs:open:/workspace/a*b.txt"), 1)
                .is_some()
        );
        assert_eq!(
            plan.decide(&Call::new("fs:open:/workspace/aXb.txt"), 1),
            None
        );
    }

    #[test]
    fn the_empty_schedule_is_a_valid_plan_file() {
        let text = Schedule::default().to_plan_file(0, &[]);
        let plan = plan_from_yaml(&text, "twin.yaml", &PlanOptions::new(0)).unwrap();
        assert!(plan.is_empty());
    }
}
