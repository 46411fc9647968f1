//! The fault plan: ordered rules plus a seed, and the pure decision function.

use globset::{Candidate, GlobSet, GlobSetBuilder};
use serde::Serialize;
use serde::ser::SerializeStruct;

use super::decide::{self, BlockCache, DecisionKey, Draw, PointDigest};
use super::kind::FaultKind;
use super::point::{Call, Category};
use super::rule::{CompiledRule, Rule, RuleError, RuleRepr};

/// A decided fault: what, which rule, at which call of its point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What to inject.
    pub kind: FaultKind,
    /// Index of the rule that fired.
    pub rule: usize,
    /// The point's call counter (1-based) at this call.
    pub call: u64,
}

/// Ordered rules plus a seed.
///
/// A decision is a pure function of (seed, rule index, point, the point's call counter): see
/// the [`decide` module](super::decide). Rules are tried in order and **the first rule that
/// matches the call and fires wins**; later rules are not consulted for that call.
#[derive(Clone, Debug)]
pub struct FaultPlan {
    seed: u64,
    /// The plan file's own `seed:`, which fault decisions use instead of the run's seed.
    own_seed: Option<u64>,
    rules: Vec<Rule>,
    compiled: Vec<CompiledRule>,
    globs: GlobSet,
    /// Rule index of each glob in `globs`.
    glob_rule: Vec<usize>,
    key: DecisionKey,
    covers: [bool; Category::ALL.len()],
}

impl FaultPlan {
    /// A plan of `rules` under `seed`, checked.
    pub fn new(seed: u64, rules: Vec<Rule>) -> Result<Self, RuleError> {
        let mut compiled = Vec::with_capacity(rules.len());
        let mut builder = GlobSetBuilder::new();
        let mut glob_rule = Vec::new();
        let mut covers = [false; Category::ALL.len()];
        for (index, rule) in rules.iter().enumerate() {
            let (c, globs) = CompiledRule::new(index, rule)?;
            for (cover, rule_covers) in covers.iter_mut().zip(c.categories) {
                *cover |= rule_covers;
            }
            for glob in globs {
                builder.add(glob);
                glob_rule.push(index);
            }
            compiled.push(c);
        }
        let globs = builder.build().map_err(|e| RuleError {
            rule: 0,
            field: super::rule::RuleField::Points,
            item: None,
            message: format!("the point globs do not compile together: {e}"),
            hint: None,
        })?;
        Ok(Self {
            seed,
            own_seed: None,
            rules,
            compiled,
            globs,
            glob_rule,
            key: DecisionKey::new(seed),
            covers,
        })
    }

    /// The plan that never injects anything.
    pub fn none() -> Self {
        Self::new(0, Vec::new()).expect("the empty plan is valid")
    }

    /// The seed every decision derives from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The rules, in order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Whether the plan has no rules.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The seed the plan file set (`seed:`), if it set one: trials then derive their fault
    /// decisions from it instead of from the run's seed (guest randomness keeps the run's).
    pub fn own_seed(&self) -> Option<u64> {
        self.own_seed
    }

    /// The plan with `own_seed` as the file's seed (see [`FaultPlan::own_seed`]).
    pub fn with_own_seed(mut self, own_seed: Option<u64>) -> Self {
        self.own_seed = own_seed;
        self
    }

    /// The same rules under another seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self.key = DecisionKey::new(seed);
        self
    }

    /// The plan of one trial: the same rules under a seed derived from this plan's seed, the
    /// task id and the trial index (see [`decide::trial_seed`]).
    pub fn for_trial(&self, task_id: &str, trial: u32) -> Self {
        self.clone()
            .with_seed(decide::trial_seed(self.seed, task_id, trial))
    }

    /// Whether some rule can match points of `category` (calls at other points need not even
    /// be counted).
    pub fn covers(&self, category: Category) -> bool {
        self.covers[category.index()]
    }

    /// Indices of the rules with a glob matching `point`, in order.
    pub fn matching_rules(&self, point: &str) -> Vec<usize> {
        if self.rules.is_empty() {
            return Vec::new();
        }
        let mut rules: Vec<usize> = self
            .globs
            .matches_candidate(&Candidate::from_bytes(point.as_bytes()))
            .into_iter()
            .map(|g| self.glob_rule[g])
            .collect();
        rules.sort_unstable();
        rules.dedup();
        rules
    }

    /// The digest of `point` under this plan's key.
    pub(crate) fn point_digest(&self, point: &str) -> PointDigest {
        self.key.point_digest(point)
    }

    /// The seeded draw of rule `rule` at call number `call` of the point with `digest`.
    pub(crate) fn draw_digest(&self, digest: &PointDigest, rule: usize, call: u64) -> Draw {
        self.key.draw(digest, rule, call)
    }

    /// The seeded draw of rule `rule` at call number `call` of `point`.
    pub fn draw(&self, rule: usize, point: &str, call: u64) -> Draw {
        self.key.draw(&self.key.point_digest(point), rule, call)
    }

    /// The compiled rules, for the injector.
    pub(crate) fn compiled(&self) -> &[CompiledRule] {
        &self.compiled
    }

    /// Whether rule `rule`'s trigger fires at call number `call` of `point`, and with which
    /// kind: a pure function of (seed, rule, point, call). Ignores the rule's globs, request
    /// filters and `max_count`.
    pub fn fires(&self, rule: usize, point: &str, call: u64) -> Option<FaultKind> {
        self.compiled[rule].decide(call, &self.draw(rule, point, call))
    }

    /// The fault for `call` when it is call number `counter` (1-based) at its point: the first
    /// rule whose globs match the point, whose filters admit the call and which fires. Pure;
    /// ignores `max_count`, which needs the state a [`FaultInjector`](super::FaultInjector)
    /// keeps.
    pub fn decide(&self, call: &Call<'_>, counter: u64) -> Option<Fault> {
        let category = Category::of(call.point)?;
        if !self.covers(category) {
            return None;
        }
        let digest = self.point_digest(call.point);
        self.matching_rules(call.point)
            .into_iter()
            .find_map(|rule| {
                self.decide_rule(rule, &digest, call, counter, None)
                    .map(|kind| Fault {
                        kind,
                        rule,
                        call: counter,
                    })
            })
    }

    /// Rule `rule`'s decision for `call` (already known to match the point's globs), drawing
    /// through `cache` when given.
    #[inline]
    pub(crate) fn decide_rule(
        &self,
        rule: usize,
        digest: &PointDigest,
        call: &Call<'_>,
        counter: u64,
        cache: Option<&mut BlockCache>,
    ) -> Option<FaultKind> {
        let compiled = &self.compiled[rule];
        if !compiled.admits(call) {
            return None;
        }
        let draw = match (compiled.needs_draw, cache) {
            (false, _) => Draw {
                fire: 0,
                pick: 0,
                param: 0,
            },
            (true, Some(cache)) => cache.draw(&self.key, digest, rule, counter),
            (true, None) => self.draw_digest(digest, rule, counter),
        };
        compiled.decide(counter, &draw)
    }
}

impl Default for FaultPlan {
    fn default() -> Self {
        Self::none()
    }
}

impl PartialEq for FaultPlan {
    fn eq(&self, other: &Self) -> bool {
        self.seed == other.seed && self.rules == other.rules
    }
}

/// Serialises in the plan-file schema (`seed`, `rules`), so a recorded plan loads back into an
/// equal one.
impl Serialize for FaultPlan {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let rules: Vec<RuleRepr<'_>> = self.rules.iter().map(RuleRepr::from).collect();
        let mut s = serializer.serialize_struct("FaultPlan", 2)?;
        s.serialize_field("seed", &self.seed)?;
        s.serialize_field("rules", &rules)?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Trigger;

    #[test]
    fn first_matching_rule_that_fires_wins() {
        let plan = FaultPlan::new(
            1,
            vec![
                Rule::new(
                    "service:gmail/*",
                    FaultKind::Status500,
                    Trigger::Calls(vec![2]),
                ),
                Rule::new(
                    "service:*",
                    FaultKind::Status503,
                    Trigger::Calls(vec![1, 2]),
                ),
            ],
        )
        .unwrap();
        let call = Call::new("service:gmail/send");
        assert_eq!(plan.matching_rules("service:gmail/send"), vec![0, 1]);
        assert_eq!(plan.decide(&call, 1).unwrap().kind, FaultKind::Status503);
        assert_eq!(
            plan.decide(&call, 2),
            Some(Fault {
                kind: FaultKind::Status500,
                rule: 0,
                call: 2
            })
        );
        assert_eq!(plan.decide(&call, 3), None);
        assert_eq!(plan.decide(&Call::new("tool:Bash"), 1), None);
        assert!(plan.covers(Category::Service) && !plan.covers(Category::Fs));
    }

    #[test]
    fn seeds_and_trials() {
        let plan = FaultPlan::new(
            5,
            vec![Rule::new(
                "tool:*",
                FaultKind::Timeout,
                Trigger::Probability(0.5),
            )],
        )
        .unwrap();
        let a = plan.for_trial("T001", 0);
        assert_eq!(a, plan.for_trial("T001", 0));
        assert_ne!(a.seed(), plan.for_trial("T001", 1).seed());
        let fired = |p: &FaultPlan| -> Vec<bool> {
            (1..=64)
                .map(|n| p.fires(0, "tool:Bash", n).is_some())
                .collect()
        };
        assert_eq!(fired(&a), fired(&plan.for_trial("T001", 0)));
        assert_ne!(fired(&a), fired(&plan.for_trial("T001", 1)));
    }
}
