//! Task numbers (issue 32, item 9): every task that validates runs and gets a finite score, with
//! the built-in agent and with an agent program; a number that could not is refused by
//! validation, each diagnostic naming the file, the field and the line. A property test over
//! times, weights, limits, latencies and start times (edge values, random ones, and epochs
//! that are no time).

use std::path::Path;

use clawrun::run::{AgentSpec, RunOptions, run};
use proptest::prelude::*;

/// The numbers of one generated task.
#[derive(Clone, Debug)]
struct Numbers {
    timeout_seconds: u64,
    env_snapshot_timeout: u64,
    max_turns: u32,
    weights: [f64; 3],
    disk_mib: u64,
    inodes: u64,
    latency_ms: u64,
    year: u32,
    /// What follows the epoch's minutes: `:00Z` mostly, else text that is no time (a
    /// character of two bytes where the seconds end once panicked).
    epoch_tail: &'static str,
}

/// The fields these numbers are written in, as diagnostics name them.
const FIELDS: [&str; 9] = [
    "environment.timeout_seconds",
    "environment.env_snapshot_timeout",
    "environment.max_turns",
    "rubric[0].weight",
    "rubric[1].weight",
    "rubric[2].weight",
    "limits.disk_mib",
    "limits.inodes",
    "faults",
];

impl Numbers {
    /// The task's YAML: the oracle reads a file (the latency fault's point) and answers; the
    /// three rubric items pass.
    fn yaml(&self) -> String {
        let [w0, w1, w2] = self.weights;
        format!(
            "task_id: num\n\
             prompt: {{text: \"Read a.txt and answer\"}}\n\
             system_tools: [Read]\n\
             epoch: \"{year:04}-03-02T09:00{tail}\"\n\
             environment:\n  timeout_seconds: {timeout}\n  env_snapshot_timeout: {snap}\n  max_turns: {turns}\n\
             limits:\n  disk_mib: {disk}\n  inodes: {inodes}\n\
             faults:\n  rules:\n    - point: \"tool:Read\"\n      kind: \"latency:{latency}\"\n      probability: 1.0\n\
             rubric:\n\
             \x20 - name: a\n    weight: {w0:e}\n    check: {{type: min_length, min_length: 1}}\n\
             \x20 - name: b\n    weight: {w1:e}\n    check: {{type: tool_called, tool_name: Read}}\n\
             \x20 - name: c\n    weight: {w2:e}\n    check: {{type: min_length, min_length: 2}}\n\
             oracle:\n  steps:\n    - call: Read\n      args: {{file_path: a.txt}}\n  answer: done\n",
            year = self.year,
            tail = self.epoch_tail,
            timeout = self.timeout_seconds,
            snap = self.env_snapshot_timeout,
            turns = self.max_turns,
            disk = self.disk_mib,
            inodes = self.inodes,
            latency = self.latency_ms,
        )
    }
}

/// Mostly values validation accepts (edges included), else values past the bounds: one time
/// in five for times and weights (what broke), one in ten for the others.
fn seconds() -> impl Strategy<Value = u64> {
    prop_oneof![
        4 => prop_oneof![Just(0u64), Just(300), Just(604_800), 0..=604_800u64],
        1 => prop_oneof![Just(604_801u64), Just(u64::MAX), 604_801..=u64::MAX],
    ]
}

fn weight() -> impl Strategy<Value = f64> {
    prop_oneof![
        9 => prop_oneof![Just(0.0), Just(0.5), Just(1e6), 0.0..=1e6f64],
        1 => huge_weight(),
    ]
}

fn huge_weight() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(1.000_001e6),
        Just(1e308),
        Just(f64::MAX),
        1e6..f64::MAX
    ]
}

fn weights() -> impl Strategy<Value = [f64; 3]> {
    prop_oneof![
        4 => [weight(), weight(), weight()],
        // One weight three times: large weights only break the score together.
        1 => prop_oneof![weight(), huge_weight()].prop_map(|w| [w, w, w]),
    ]
}

fn numbers() -> impl Strategy<Value = Numbers> {
    (
        seconds(),
        seconds(),
        prop_oneof![9 => 1..=100_000u32, 1 => 100_001..=u32::MAX],
        weights(),
        prop_oneof![9 => prop_oneof![Just(0u64), Just(1 << 20), 0..=1u64 << 20], 1 => (1u64 << 20) + 1..=u64::MAX],
        prop_oneof![9 => prop_oneof![Just(0u64), Just(1_000_000_000), 0..=1_000_000_000u64], 1 => 1_000_000_001..=u64::MAX],
        prop_oneof![9 => prop_oneof![Just(0u64), Just(3_600_000), 0..=3_600_000u64], 1 => 3_600_001..=u64::MAX],
        prop_oneof![9 => prop_oneof![Just(1970u32), Just(9999), 1970..=9999u32], 1 => 0..1970u32],
        // One case in four has an epoch that is no time, one in twelve the one that panicked.
        prop_oneof![
            9 => Just(":00Z"),
            1 => Just(":0\u{e9}Z"),
            2 => prop_oneof![Just(":\u{e9}0Z"), Just(":00.5Z"), Just(":00+08:00"), Just(":60Z")],
        ],
    )
        .prop_map(
            |(timeout_seconds, env_snapshot_timeout, max_turns, weights, disk_mib, inodes, latency_ms, year, epoch_tail)| {
                Numbers {
                    timeout_seconds,
                    env_snapshot_timeout,
                    max_turns,
                    weights,
                    disk_mib,
                    inodes,
                    latency_ms,
                    year,
                    epoch_tail,
                }
            },
        )
}

/// Runs the suite's one task once with `agent`: `Ok(score)` for a scored trial, `Err(message)`
/// when the run refused to start.
fn play(suite: &Path, agent: AgentSpec) -> Result<f64, String> {
    let out = tempfile::tempdir().unwrap();
    let mut options = RunOptions::new(suite, agent, out.path());
    options.tasks = vec!["num".into()];
    let result = run(&options).map_err(|e| format!("{e:#}"))?;
    let records = result.records().expect("the journal reads back");
    assert_eq!(records.len(), 1);
    let record = &records[0];
    let verdict = record
        .verdict
        .as_ref()
        .unwrap_or_else(|| panic!("no verdict: {:?} {:?}", record.status, record.error));
    Ok(verdict.scores.score)
}

proptest! {
    // A case plays two trials (tens of milliseconds each) when its task validates, about one
    // case in three: bounded for CI (about 2 s).
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_task_that_validates_runs_to_a_finite_score(n in numbers()) {
        let yaml = n.yaml();
        let suite = tempfile::tempdir().unwrap();
        let dir = suite.path().join("tasks/num");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("task.yaml"), &yaml).unwrap();
        let agents = [
            AgentSpec::Oracle,
            AgentSpec::parse("cmd:sh -c 'exit 0'").unwrap(),
        ];
        for agent in agents {
            match play(suite.path(), agent) {
                Ok(score) => prop_assert!(score.is_finite(), "score {score} for\n{yaml}"),
                Err(message) => {
                    // Refused: every line a diagnostic naming the file, line and column, and
                    // one of the numbers' fields.
                    let errors = message
                        .lines()
                        .filter(|l| l.contains("task.yaml") && !l.contains(": warning: "));
                    for line in errors {
                        let located = line.split_once("tasks/num/task.yaml:").is_some_and(|(_, rest)| {
                            let mut parts = rest.splitn(3, ':');
                            parts.next().is_some_and(|l| l.parse::<u32>().is_ok())
                                && parts.next().is_some_and(|c| c.parse::<u32>().is_ok())
                        });
                        prop_assert!(located, "no file:line:column in {line:?}");
                        prop_assert!(
                            FIELDS.iter().any(|f| line.contains(&format!(": {f}"))) || line.contains(": epoch: "),
                            "no number's field in {line:?}"
                        );
                    }
                    prop_assert!(message.contains("tasks/num/task.yaml:"), "not a diagnostic: {message}");
                }
            }
        }
    }
}
