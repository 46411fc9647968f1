//! What one fuzz trial showed: how it ended, its verdict, whether it failed where its
//! unperturbed twin did not (and how), and the signature of its behaviour that guides the
//! search.

use std::fmt;
use std::sync::Arc;

use clawrun_agents::trace::Outcome;
use clawrun_judge::{Evidence, Verdict};
use clawrun_report::Status;
use serde::{Deserialize, Serialize};

/// How a perturbed trial failed, against its unperturbed twin; in order of precedence (a
/// trial that crashed is a crash whatever its score).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The agent crashed: its output was unusable or the trial ended on an agent error.
    Crash,
    /// The agent ran to a limit (turns, virtual time, tokens) where the twin finished.
    Limit,
    /// A safety gate the twin kept was broken.
    Unsafe,
    /// The score fell below the pass threshold where the twin passed.
    Failed,
    /// A judge-visible difference: a rubric item the twin passed failed, though the trial
    /// still passes.
    Degraded,
}

impl FailureKind {
    /// Every kind, in precedence order.
    pub const ALL: [FailureKind; 5] = [
        FailureKind::Crash,
        FailureKind::Limit,
        FailureKind::Unsafe,
        FailureKind::Failed,
        FailureKind::Degraded,
    ];

    /// The kind's name in reports and file names.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Crash => "crash",
            FailureKind::Limit => "limit",
            FailureKind::Unsafe => "unsafe",
            FailureKind::Failed => "failed",
            FailureKind::Degraded => "degraded",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One trial as the fuzzer sees it.
#[derive(Clone, Debug)]
pub struct Observation {
    /// How Execution ended.
    pub outcome: Outcome,
    /// The trial's status (scored, task error, infrastructure error).
    pub status: Status,
    /// The verdict, when the trial was judged.
    pub verdict: Option<Verdict>,
    /// The error the trial ended on, if any.
    pub error: Option<String>,
    /// Faults injected.
    pub faults: u32,
    /// The shape of the tool-call sequence: each call's tool and whether it failed, and the
    /// outcome (blake3).
    pub shape: [u8; 32],
    /// The state the trial left for the judge: the workspace root hash, the size of each
    /// service's audit log (what was recorded, not when: latency moves audit timestamps) and
    /// the final answer (blake3).
    pub state: [u8; 32],
    /// Every point called and how many times.
    pub census: Arc<[(Arc<str>, u64)]>,
}

impl Observation {
    /// The observation of a trial that ended with `outcome` and `status`, left `evidence` and
    /// the workspace hash `root_hash`, was judged `verdict`.
    pub fn new(
        outcome: Outcome,
        status: Status,
        verdict: Option<Verdict>,
        error: Option<String>,
        evidence: &Evidence,
        root_hash: &str,
        census: Vec<(Arc<str>, u64)>,
    ) -> Self {
        let mut shape = blake3::Hasher::new();
        for call in &evidence.calls {
            shape.update(call.name.as_bytes());
            shape.update(&[0, u8::from(call.is_error)]);
        }
        shape.update(format!("{outcome:?}").as_bytes());
        let mut state = blake3::Hasher::new();
        state.update(root_hash.as_bytes());
        for (service, text) in evidence.audits.texts() {
            state.update(service.as_bytes());
            state.update(&[0]);
            state.update(&(text.len() as u64).to_le_bytes());
        }
        state.update(evidence.final_text.as_bytes());
        Observation {
            outcome,
            status,
            faults: evidence.faults_seen,
            verdict,
            error,
            shape: *shape.finalize().as_bytes(),
            state: *state.finalize().as_bytes(),
            census: census.into(),
        }
    }

    /// The behaviour's coverage key (64 bits of the shape's and state's hash): a new key is
    /// a new behaviour.
    pub fn coverage_key(&self) -> u64 {
        let mut key = blake3::Hasher::new();
        key.update(&self.shape);
        key.update(&self.state);
        u64::from_le_bytes(key.finalize().as_bytes()[..8].try_into().expect("8 bytes"))
    }

    /// Whether the model behind the agent failed (not the agent's doing: never a finding).
    pub fn is_infra(&self) -> bool {
        self.status == Status::InfraError
    }

    /// The score, when judged.
    pub fn score(&self) -> Option<f64> {
        self.verdict.as_ref().map(|v| v.scores.score)
    }

    /// How this trial failed where `twin` (the unperturbed trial) did not, if it did.
    pub fn failure_against(&self, twin: &Observation) -> Option<FailureKind> {
        if self.is_infra() {
            return None;
        }
        let crashed = |o: &Observation| {
            o.outcome == Outcome::AgentError
                || o.outcome == Outcome::TaskError
                || o.status == Status::TaskError
        };
        if crashed(self) && !crashed(twin) {
            return Some(FailureKind::Crash);
        }
        let limited = |o: &Observation| {
            matches!(
                o.outcome,
                Outcome::MaxTurns | Outcome::Timeout | Outcome::TokenLimit
            )
        };
        if limited(self) && !limited(twin) {
            return Some(FailureKind::Limit);
        }
        let (Some(mine), Some(theirs)) = (&self.verdict, &twin.verdict) else {
            return None;
        };
        if mine.scores.safety < theirs.scores.safety {
            return Some(FailureKind::Unsafe);
        }
        if !mine.scores.passed && theirs.scores.passed {
            return Some(FailureKind::Failed);
        }
        let lost_item = theirs
            .items
            .iter()
            .filter(|i| i.passed == Some(true))
            .any(|i| {
                mine.items
                    .iter()
                    .find(|m| m.name == i.name && m.source == i.source)
                    .is_some_and(|m| m.passed == Some(false))
            });
        lost_item.then_some(FailureKind::Degraded)
    }

    /// One line on how the trial ended, for reports.
    pub fn summary(&self) -> String {
        match &self.verdict {
            Some(v) => format!(
                "{:?}, score {:.3} (completion {:.3}, safety {:.0}, robustness {:.3}){}",
                self.outcome,
                v.scores.score,
                v.scores.completion,
                v.scores.safety,
                v.scores.robustness,
                if v.scores.passed {
                    ", passed"
                } else {
                    ", failed"
                }
            ),
            None => format!(
                "{:?}, not judged{}",
                self.outcome,
                self.error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ),
        }
    }
}
