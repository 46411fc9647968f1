//! Grading one trial with its Claw-Eval grader inside the Python sandbox.
//!
//! The sandbox's filesystem is built for the grading alone (never the trial's): the checkout's
//! layer (see [`Checkout::layer`]), clawrun's driver and its `pydantic` / `openai` stand-ins at
//! `/clawrun`, the evidence at `/grading`. The interpreter runs
//! `/clawrun/clawrun_grade.py`, which writes `/grading/result.json`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use clawrun_task::LoadedTask;
use clawrun_vfs::Vfs;
use serde::Deserialize;
use serde_json::Value;

use super::checkout::{Checkout, GUEST_ROOT};
use super::export::Exported;
use super::judge_door::{JudgeDoor, SPOOL};
use crate::sandbox::clock::VirtualClock;
use crate::sandbox::fs::SharedFs;
use crate::sandbox::{DEFAULT_OUTPUT_CAP, RunConfig};

/// clawrun's Python files, at `/clawrun/<name>`.
const PYTHON_FILES: [(&str, &str); 3] = [
    ("clawrun_grade.py", include_str!("python/clawrun_grade.py")),
    (
        "pydantic/__init__.py",
        include_str!("python/pydantic/__init__.py"),
    ),
    (
        "openai/__init__.py",
        include_str!("python/openai/__init__.py"),
    ),
];
/// The driver's folder in the sandbox (also `sys.path[0]`, so the stand-ins import first).
const DRIVER_DIR: &str = "/clawrun";
/// The evidence folder in the sandbox.
const EVIDENCE_DIR: &str = "/grading";
/// Fuel of one grading: importing the package and a grader takes ~1e9; graders are light.
pub const GRADING_FUEL: u64 = 100_000_000_000;
/// Memory of one grading.
const GRADING_MEMORY: usize = 1 << 30;
/// Real-time backstop of one grading without a judge (with one, judge calls take the
/// model's time, and fuel bounds the grader's own work).
const GRADING_DEADLINE: Duration = Duration::from_secs(300);

/// What a Claw-Eval grader said about a trial.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// It graded the trial.
    Graded(Graded),
    /// It used a judge and none was available; the reason.
    NeedsJudge(String),
    /// The grader (or the checkout's package) failed: its traceback, or why it did not run.
    Failed(String),
}

/// Claw-Eval's `DimensionScores` with `compute_task_score` and `is_pass`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Graded {
    /// The grader's scores (completion, robustness, communication, safety, efficiency_*).
    pub scores: BTreeMap<String, Value>,
    /// `compute_task_score(scores)`.
    pub task_score: f64,
    /// `is_pass(task_score)`.
    pub passed: bool,
    /// The `LLMJudge` call log (method, rubric preview, score, reasoning, timestamp).
    pub judge_calls: Vec<Value>,
}

impl Graded {
    /// A score of the grader by name (`completion`, `safety`, ...), 0 when absent.
    pub fn score(&self, name: &str) -> f64 {
        self.scores.get(name).and_then(Value::as_f64).unwrap_or(0.0)
    }
}

/// One grading: its outcome and the record kept in the run folder (`grading.json`).
pub struct Grading {
    /// What the grader said.
    pub outcome: Outcome,
    /// The driver's result, the judge exchanges and the interpreter's output.
    pub record: Value,
}

#[derive(Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum DriverResult {
    Graded(Graded),
    NeedsJudge { reason: String },
    Error { error: String },
}

/// Grades trials with a checkout's graders; share one per run.
pub struct ClawEvalGrader {
    checkout: Checkout,
    layers: Mutex<BTreeMap<String, Arc<(Vfs, String)>>>,
}

impl ClawEvalGrader {
    /// A grader over `checkout`.
    pub fn new(checkout: Checkout) -> Self {
        Self {
            checkout,
            layers: Mutex::new(BTreeMap::new()),
        }
    }

    /// The checkout.
    pub fn checkout(&self) -> &Checkout {
        &self.checkout
    }

    /// The task's base filesystem (built once per task, forked per grading).
    fn layer(&self, task: &LoadedTask) -> Result<Arc<(Vfs, String)>> {
        let key = task.dir.clone();
        if let Some(found) = self
            .layers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(found.clone());
        }
        let (mut vfs, task_yaml) = self.checkout.layer(task)?;
        for (name, text) in PYTHON_FILES {
            let path = format!("{DRIVER_DIR}/{name}");
            if let Some((dir, _)) = path.rsplit_once('/') {
                vfs.create_dir_all(dir)?;
            }
            vfs.write_file(&path, text.as_bytes())?;
        }
        for dir in ["/tmp", SPOOL, EVIDENCE_DIR] {
            vfs.create_dir_all(dir)?;
        }
        let built = Arc::new((vfs, task_yaml));
        self.layers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, built.clone());
        Ok(built)
    }

    /// Grades one trial's `evidence` with `task`'s grader; `judge` answers judge calls (its
    /// model, when it has one, is named `judge_model` to the grader). `Err` only when the
    /// grading could not be set up (the checkout unreadable, the interpreter missing).
    pub fn grade(
        &self,
        task: &LoadedTask,
        evidence: &Exported,
        judge: Arc<JudgeDoor>,
        judge_model: Option<&str>,
        seed: u64,
    ) -> Result<Grading> {
        let base = self.layer(task)?;
        let mut vfs = base.0.fork();
        vfs.write_file(&format!("{EVIDENCE_DIR}/trace.jsonl"), &evidence.trace)?;
        vfs.write_file(
            &format!("{EVIDENCE_DIR}/env_snapshot.json"),
            &evidence.env_snapshot,
        )?;
        let mut args = vec![
            format!("{DRIVER_DIR}/clawrun_grade.py"),
            "--checkout".into(),
            GUEST_ROOT.into(),
            "--task-yaml".into(),
            base.1.clone(),
            "--evidence".into(),
            EVIDENCE_DIR.into(),
            "--out".into(),
            format!("{EVIDENCE_DIR}/result.json"),
        ];
        if let Some(model) = judge_model {
            args.extend(["--judge-model".into(), model.to_string()]);
        }
        let clock = VirtualClock::default();
        let fs = SharedFs::new(vfs, clock.clone());
        let config = RunConfig {
            args,
            seed,
            fuel: GRADING_FUEL,
            max_memory: GRADING_MEMORY,
            stdout_cap: DEFAULT_OUTPUT_CAP,
            stderr_cap: DEFAULT_OUTPUT_CAP,
            clock,
            deadline: judge_model.is_none().then_some(GRADING_DEADLINE),
            door: Some(judge.clone()),
            ..RunConfig::default()
        };
        let run = crate::python::launcher()
            .run_python(fs.clone(), "/", config)
            .map_err(|e| anyhow!("{e}"))
            .context("running the Claw-Eval grader")?;
        let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        let written = fs
            .lock()
            .vfs
            .read_file(&format!("{EVIDENCE_DIR}/result.json"))
            .ok();
        let (outcome, result) = match written.as_deref().map(serde_json::from_slice::<Value>) {
            Some(Ok(value)) => match serde_json::from_value::<DriverResult>(value.clone()) {
                Ok(DriverResult::Graded(g)) => (Outcome::Graded(g), value),
                Ok(DriverResult::NeedsJudge { reason }) => (Outcome::NeedsJudge(reason), value),
                Ok(DriverResult::Error { error }) => (Outcome::Failed(error), value),
                Err(e) => (
                    Outcome::Failed(format!("the grading driver's result is malformed: {e}")),
                    value,
                ),
            },
            Some(Err(e)) => (
                Outcome::Failed(format!("the grading driver's result is not JSON: {e}")),
                Value::Null,
            ),
            None => {
                let why = run
                    .status
                    .message()
                    .unwrap_or_else(|| format!("exit status {}", run.status.exit_code()));
                let tail: String = stderr
                    .lines()
                    .rev()
                    .take(20)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<Vec<_>>()
                    .join("\n");
                (
                    Outcome::Failed(format!("the grader wrote no result ({why})\n{tail}")),
                    Value::Null,
                )
            }
        };
        let record = serde_json::json!({
            "grader": "claw-eval",
            "checkout_task_yaml": base.1,
            "result": result,
            "judge_exchanges": judge.exchanges(),
            "stdout": stdout,
            "stderr": stderr,
            "fuel_used": run.fuel_used,
        });
        Ok(Grading { outcome, record })
    }
}
