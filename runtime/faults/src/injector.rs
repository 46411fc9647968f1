//! The injector: a plan plus the state decisions need (per-point call counters, per-rule fire
//! counts), the trial's virtual clock, and the events of every fault it injected.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::decide::{BlockCache, PointDigest};
use super::kind::FaultKind;
use super::plan::{Fault, FaultPlan};
use super::point::{self, Call, Category};
use clawrun_hostcall::clock::VirtualClock;
use clawrun_hostcall::fault::{FsCall, FsFault, FsFaultHook};

/// One injected fault, for the trace and the judge. Strings are shared with the injector, so
/// recording an event does not allocate them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultEvent {
    /// Where (e.g. `service:gmail/send`).
    #[serde(with = "arc_str")]
    pub point: Arc<str>,
    /// Index of the rule that fired.
    pub rule: usize,
    /// The rule's name, if it has one (the preset's is `claw-eval`).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_arc_str")]
    pub rule_name: Option<Arc<str>>,
    /// What (e.g. `status429:2`, `latency:2731`).
    pub kind: FaultKind,
    /// The point's call counter at this call (1-based).
    pub call: u64,
    /// Virtual time of the decision, ns since the clock's epoch (before any injected latency).
    pub at_virtual_ns: u64,
}

/// (De)serialises an `Arc<str>` as a string.
mod arc_str {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Arc<str>, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(value)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Arc<str>, D::Error> {
        String::deserialize(deserializer).map(Arc::from)
    }
}

/// (De)serialises an `Option<Arc<str>>` as an optional string.
mod opt_arc_str {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(
        value: &Option<Arc<str>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => serializer.serialize_some(&**v),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Arc<str>>, D::Error> {
        Ok(Option::<String>::deserialize(deserializer)?.map(Arc::from))
    }
}

/// What the injector keeps per point it has seen.
#[derive(Clone, Debug)]
struct PointState {
    /// The point (shared with its events).
    point: Arc<str>,
    /// Calls so far.
    calls: u64,
    /// The point's digest under the plan's key.
    digest: PointDigest,
    /// Rules whose globs match the point, in order.
    rules: Box<[usize]>,
    /// The last draw block of each of those rules.
    blocks: Box<[BlockCache]>,
}

/// Decides, call by call, which faults to inject, and records them.
///
/// Every call at a point of a category some rule covers increments that point's counter
/// (1-based), whether or not a fault is injected; calls at other points are not counted,
/// unless the census is on ([`Self::with_census`]): then every call at every point is. The
/// decision for call `n` at a point is the plan's pure decision for (point, `n`) — rules in
/// order, the first that matches and fires wins — except that a rule which has already fired
/// `max_count` times is passed over. A latency fault advances the virtual clock; nothing
/// sleeps.
#[derive(Debug)]
pub struct FaultInjector {
    plan: FaultPlan,
    points: BTreeMap<Arc<str>, PointState>,
    fired: Vec<u64>,
    rule_names: Vec<Option<Arc<str>>>,
    events: Vec<FaultEvent>,
    clock: VirtualClock,
    scratch: String,
    /// Count calls at points of every category, not only those the plan covers.
    census: bool,
}

impl FaultInjector {
    /// An injector for `plan` with a clock of its own (see [`Self::with_clock`]).
    pub fn new(plan: FaultPlan) -> Self {
        Self {
            fired: vec![0; plan.rules().len()],
            rule_names: plan
                .rules()
                .iter()
                .map(|r| r.name.as_deref().map(Arc::from))
                .collect(),
            plan,
            points: BTreeMap::new(),
            events: Vec::new(),
            clock: VirtualClock::default(),
            scratch: String::new(),
            census: false,
        }
    }

    /// The same injector with the census on: calls at points of every category are counted
    /// (see [`Self::census`]), those no rule covers still getting no fault.
    pub fn with_census(mut self) -> Self {
        self.census = true;
        self
    }

    /// Whether the census is on.
    pub fn census_on(&self) -> bool {
        self.census
    }

    /// The same injector on the trial's `clock` (event times, latency faults).
    pub fn with_clock(mut self, clock: VirtualClock) -> Self {
        self.clock = clock;
        self
    }

    /// Switches to the trial's `clock`.
    pub fn set_clock(&mut self, clock: VirtualClock) {
        self.clock = clock;
    }

    /// The clock event times come from.
    pub fn clock(&self) -> &VirtualClock {
        &self.clock
    }

    /// The plan.
    pub fn plan(&self) -> &FaultPlan {
        &self.plan
    }

    /// Decides whether to inject a fault into `call`, counts the call, and records the event
    /// (advancing the clock for a latency).
    pub fn decide(&mut self, call: &Call<'_>) -> Option<Fault> {
        let category = Category::of(call.point)?;
        if !self.plan.covers(category) {
            if self.census {
                self.count_only(call.point);
            }
            return None;
        }
        let state = match self.points.get_mut(call.point) {
            Some(state) => state,
            None => {
                let point: Arc<str> = Arc::from(call.point);
                let rules = self.plan.matching_rules(call.point);
                let state = PointState {
                    point: point.clone(),
                    calls: 0,
                    digest: self.plan.point_digest(call.point),
                    blocks: vec![BlockCache::default(); rules.len()].into_boxed_slice(),
                    rules: rules.into_boxed_slice(),
                };
                self.points.entry(point).or_insert(state)
            }
        };
        state.calls += 1;
        let counter = state.calls;
        let compiled = self.plan.compiled();
        let digest = &state.digest;
        let fault =
            state
                .rules
                .iter()
                .zip(state.blocks.iter_mut())
                .find_map(|(&rule, block)| {
                    if compiled[rule]
                        .max_count
                        .is_some_and(|max| self.fired[rule] >= max)
                    {
                        return None;
                    }
                    self.plan
                        .decide_rule(rule, digest, call, counter, Some(block))
                        .map(|kind| Fault {
                            kind,
                            rule,
                            call: counter,
                        })
                })?;
        self.fired[fault.rule] += 1;
        self.events.push(FaultEvent {
            point: state.point.clone(),
            rule: fault.rule,
            rule_name: self.rule_names[fault.rule].clone(),
            kind: fault.kind,
            call: counter,
            at_virtual_ns: self.clock.elapsed_ns(),
        });
        if let FaultKind::Latency { millis } = fault.kind {
            self.clock.advance(millis.saturating_mul(1_000_000));
        }
        Some(fault)
    }

    /// Decides for a filesystem host call (point `fs:<op>:<path>`) and maps the kind to what
    /// the sandbox does; a latency advances the clock and lets the call proceed.
    pub fn decide_fs(&mut self, call: &FsCall<'_>) -> Option<FsFault> {
        if !self.census && !self.plan.covers(Category::Fs) {
            return None;
        }
        let mut buf = std::mem::take(&mut self.scratch);
        point::write_fs(&mut buf, call.op, call.path);
        let fault = self.decide(&Call {
            point: &buf,
            method: None,
            path: call.path,
            health_check: false,
        });
        self.scratch = buf;
        fault.and_then(|f| f.kind.fs_fault())
    }

    /// Counts a call at `point`, of a category no rule covers (census only).
    fn count_only(&mut self, point: &str) {
        if let Some(state) = self.points.get_mut(point) {
            state.calls += 1;
            return;
        }
        let state = PointState {
            point: Arc::from(point),
            calls: 1,
            digest: self.plan.point_digest(point),
            rules: Box::default(),
            blocks: Box::default(),
        };
        self.points.insert(state.point.clone(), state);
    }

    /// Every point seen so far with its call count, sorted by point: with the census on,
    /// every point called, whatever its category.
    pub fn census(&self) -> Vec<(Arc<str>, u64)> {
        self.points
            .iter()
            .map(|(point, state)| (point.clone(), state.calls))
            .collect()
    }

    /// Calls counted so far at `point`.
    pub fn calls(&self, point: &str) -> u64 {
        self.points.get(point).map_or(0, |s| s.calls)
    }

    /// Every point seen so far with its call count, in point order.
    pub fn call_counts(&self) -> impl Iterator<Item = (&str, u64)> {
        self.points.iter().map(|(p, s)| (&**p, s.calls))
    }

    /// How often rule `rule` has fired.
    pub fn fired(&self, rule: usize) -> u64 {
        self.fired.get(rule).copied().unwrap_or(0)
    }

    /// The events recorded and not yet drained.
    pub fn events(&self) -> &[FaultEvent] {
        &self.events
    }

    /// Takes the recorded events.
    pub fn drain_events(&mut self) -> Vec<FaultEvent> {
        std::mem::take(&mut self.events)
    }

    /// Takes the recorded events at points starting with `prefix`, leaving the others (the
    /// model proxy records its own faults beside its calls, in order).
    pub fn drain_events_at(&mut self, prefix: &str) -> Vec<FaultEvent> {
        let (taken, kept) = std::mem::take(&mut self.events)
            .into_iter()
            .partition(|e| e.point.starts_with(prefix));
        self.events = kept;
        taken
    }
}

impl FsFaultHook for FaultInjector {
    fn on_call(&mut self, call: &FsCall<'_>) -> Option<FsFault> {
        self.decide_fs(call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::{Rule, Trigger};
    use clawrun_hostcall::fault::{FsErrno, FsOp};

    #[test]
    fn counters_max_count_events_and_latency() {
        let plan = FaultPlan::new(
            3,
            vec![
                Rule::new("tool:Bash", FaultKind::Timeout, Trigger::Probability(1.0))
                    .named("bash")
                    .max_count(2),
                Rule::new(
                    "tool:*",
                    FaultKind::Latency { millis: 1500 },
                    Trigger::Calls(vec![3]),
                ),
            ],
        )
        .unwrap();
        let clock = VirtualClock::default();
        let mut inj = FaultInjector::new(plan).with_clock(clock.clone());
        let bash = Call::new("tool:Bash");
        let kinds: Vec<_> = (0..4).map(|_| inj.decide(&bash).map(|f| f.kind)).collect();
        assert_eq!(
            kinds,
            [
                Some(FaultKind::Timeout),
                Some(FaultKind::Timeout),
                Some(FaultKind::Latency { millis: 1500 }),
                None
            ]
        );
        assert_eq!(inj.calls("tool:Bash"), 4);
        assert_eq!((inj.fired(0), inj.fired(1)), (2, 1));
        assert_eq!(clock.elapsed_ns(), 1_500_000_000);
        let events = inj.drain_events();
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].rule_name.as_deref(), Some("bash"));
        assert_eq!((events[2].rule, events[2].call), (1, 3));
        assert_eq!(events[2].at_virtual_ns, 0);
        assert!(inj.events().is_empty());
    }

    #[test]
    fn fs_calls_map_to_sandbox_faults() {
        let plan = FaultPlan::new(
            0,
            vec![Rule::new(
                "fs:write:/data/*",
                FaultKind::Enospc,
                Trigger::Calls(vec![2]),
            )],
        )
        .unwrap();
        let mut inj = FaultInjector::new(plan);
        let call = FsCall {
            op: FsOp::Write,
            path: "/data/out.txt",
        };
        assert_eq!(inj.on_call(&call), None);
        assert_eq!(inj.on_call(&call), Some(FsFault::Error(FsErrno::NoSpace)));
        assert_eq!(inj.calls("fs:write:/data/out.txt"), 2);
        // Service calls are not counted by a plan without service rules.
        assert_eq!(inj.decide(&Call::new("service:gmail/send")), None);
        assert_eq!(inj.calls("service:gmail/send"), 0);
    }

    #[test]
    fn census_counts_every_category_under_an_empty_plan() {
        let mut inj = FaultInjector::new(FaultPlan::none()).with_census();
        assert!(inj.census_on());
        let write = FsCall {
            op: FsOp::Write,
            path: "/workspace/out.txt",
        };
        for _ in 0..3 {
            assert_eq!(inj.decide(&Call::new("tool:Bash")), None);
        }
        assert_eq!(inj.decide(&Call::new("service:gmail/messages")), None);
        assert_eq!(inj.on_call(&write), None);
        assert_eq!(inj.on_call(&write), None);
        assert_eq!(inj.decide(&Call::new("http:gmail.local/gmail/send")), None);
        // Not a point at all: not counted.
        assert_eq!(inj.decide(&Call::new("nowhere")), None);
        let census: Vec<(String, u64)> = inj
            .census()
            .into_iter()
            .map(|(p, n)| (p.to_string(), n))
            .collect();
        assert_eq!(
            census,
            [
                ("fs:write:/workspace/out.txt".to_string(), 2),
                ("http:gmail.local/gmail/send".to_string(), 1),
                ("service:gmail/messages".to_string(), 1),
                ("tool:Bash".to_string(), 3),
            ]
        );
        assert!(inj.events().is_empty());
        // Without the census, nothing is counted under the empty plan.
        let mut plain = FaultInjector::new(FaultPlan::none());
        assert!(!plain.census_on());
        plain.decide(&Call::new("tool:Bash"));
        plain.on_call(&write);
        assert!(plain.census().is_empty());
    }

    #[test]
    fn census_leaves_decisions_unchanged() {
        let plan = || {
            FaultPlan::new(
                11,
                vec![
                    Rule::new("tool:*", FaultKind::Timeout, Trigger::Probability(0.4)),
                    Rule::new(
                        "service:gmail/*",
                        FaultKind::Status500,
                        Trigger::Probability(0.3),
                    )
                    .max_count(3),
                    Rule::new(
                        "tool:Bash",
                        FaultKind::Latency { millis: 10 },
                        Trigger::Calls(vec![2, 5]),
                    ),
                ],
            )
            .unwrap()
        };
        let run = |mut inj: FaultInjector| {
            let mut out = Vec::new();
            for i in 0..60 {
                let point = ["tool:Bash", "service:gmail/send", "tool:Read"][i % 3];
                out.push(inj.decide(&Call::new(point)));
                let fs = inj.on_call(&FsCall {
                    op: FsOp::Read,
                    path: "/workspace/in.txt",
                });
                assert_eq!(fs, None);
            }
            (out, inj.drain_events(), inj.census())
        };
        let (plain, plain_events, plain_census) = run(FaultInjector::new(plan()));
        let (census, census_events, counted) = run(FaultInjector::new(plan()).with_census());
        assert!(plain.iter().any(Option::is_some));
        assert_eq!(plain, census);
        assert_eq!(plain_events, census_events);
        // The census adds the fs point the plan does not cover; the rest agree.
        assert_eq!(plain_census.len(), 3);
        assert_eq!(counted.len(), 4);
        assert!(counted.contains(&(Arc::from("fs:read:/workspace/in.txt"), 60)));
        for entry in &plain_census {
            assert!(counted.contains(entry));
        }
    }
}
