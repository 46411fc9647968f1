//! Grading one trial with its Claw-Eval grader inside the Python sandbox.
//!
//! The sandbox's filesystem is built for grading alone (never a trial's): the checkout's layer
//! (see [`Checkout::base_layer`]), clawrun's driver and its `pydantic` / `openai` stand-ins at
//! `/clawrun`, the task's folder and the evidence at `/grading`. Gradings run in warm
//! interpreters ([`server`](super::server)), one per worker, each of which has imported the
//! package once; the driver `/clawrun/clawrun_grade.py` writes `/grading/result.json`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use anyhow::Result;
use clawrun_task::LoadedTask;
use clawrun_vfs::Vfs;
use serde::Deserialize;
use serde_json::Value;

use super::checkout::{Checkout, GUEST_ROOT, TaskFiles, put};
use super::export::Exported;
use super::judge_door::{JudgeDoor, SPOOL};
use super::server::{Job, Server};

/// clawrun's Python files, at `/clawrun/<name>`.
const PYTHON_FILES: [(&str, &str); 4] = [
    ("clawrun_grade.py", include_str!("python/clawrun_grade.py")),
    (
        "clawrun_grade_server.py",
        include_str!("python/clawrun_grade_server.py"),
    ),
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

/// What a Claw-Eval grader said about a trial.
#[derive(Clone, Debug, PartialEq)]
pub enum GraderOutcome {
    /// It graded the trial.
    Graded(Graded),
    /// It used a judge and none was available; the reason.
    NeedsJudge(String),
    /// The grader (or the checkout's package) raised, or left no result: its traceback.
    Failed(String),
    /// The grading interpreter itself died (out of fuel, a trap, not installed): why.
    Died(String),
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
pub struct GraderRun {
    /// What the grader said.
    pub outcome: GraderOutcome,
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
    base: Mutex<Option<Arc<Vfs>>>,
    tasks: Mutex<BTreeMap<String, Arc<TaskFiles>>>,
    /// Idle warm interpreters.
    servers: Mutex<Vec<Server>>,
}

impl ClawEvalGrader {
    /// A grader over `checkout`.
    pub fn new(checkout: Checkout) -> Self {
        Self {
            checkout,
            base: Mutex::new(None),
            tasks: Mutex::new(BTreeMap::new()),
            servers: Mutex::new(Vec::new()),
        }
    }

    /// The checkout.
    pub fn checkout(&self) -> &Checkout {
        &self.checkout
    }

    /// The layer every server starts from (built once).
    fn base(&self) -> Result<Arc<Vfs>> {
        let mut base = self.base.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = base.as_ref() {
            return Ok(found.clone());
        }
        let mut vfs = self.checkout.base_layer()?;
        for (name, text) in PYTHON_FILES {
            put(&mut vfs, &format!("{DRIVER_DIR}/{name}"), text.as_bytes())?;
        }
        for dir in ["/tmp", SPOOL, EVIDENCE_DIR] {
            vfs.create_dir_all(dir)?;
        }
        let built = Arc::new(vfs);
        *base = Some(built.clone());
        Ok(built)
    }

    /// The task's folder files and its task.yaml's guest path (read once per task).
    fn task(&self, task: &LoadedTask) -> Result<Arc<TaskFiles>> {
        let key = task.dir.clone();
        if let Some(found) = self
            .tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(found.clone());
        }
        let built = Arc::new(self.checkout.task_files(task)?);
        self.tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, built.clone());
        Ok(built)
    }

    /// Grades one trial's `evidence` with `task`'s grader; `judge` answers judge calls (its
    /// model, when it has one, is named `judge_model` to the grader). `Err` only when the
    /// grading could not be set up (the checkout unreadable).
    pub fn grade(
        &self,
        task: &LoadedTask,
        evidence: &Exported,
        judge: Arc<JudgeDoor>,
        judge_model: Option<&str>,
        seed: u64,
    ) -> Result<GraderRun> {
        let base = self.base()?;
        let files = self.task(task)?;
        let out = format!("{EVIDENCE_DIR}/result.json");
        let mut args = vec![
            "--checkout".into(),
            GUEST_ROOT.into(),
            "--task-yaml".into(),
            files.task_yaml.clone(),
            "--evidence".into(),
            EVIDENCE_DIR.into(),
            "--out".into(),
            out.clone(),
        ];
        if let Some(model) = judge_model {
            args.extend(["--judge-model".into(), model.to_string()]);
        }
        let task_dir = files.task_yaml.trim_end_matches("/task.yaml").to_string();
        let mut job_files = files.files.clone();
        job_files.push((
            format!("{EVIDENCE_DIR}/trace.jsonl"),
            evidence.trace.clone(),
        ));
        job_files.push((
            format!("{EVIDENCE_DIR}/env_snapshot.json"),
            evidence.env_snapshot.clone(),
        ));
        let job = Job {
            files: job_files,
            task_dir,
            args,
            out,
            seed,
            judge: judge.clone(),
            fuel: GRADING_FUEL,
        };
        let mut server = self
            .servers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .unwrap_or_else(|| {
                Server::start(
                    &base,
                    &format!("{DRIVER_DIR}/clawrun_grade_server.py"),
                    GUEST_ROOT,
                )
            });
        let done = server.run(job);
        let (outcome, mut result) = match done {
            Ok(done) => {
                self.servers
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(server);
                read_result(done.result.as_deref())
            }
            // The interpreter died (out of fuel, a trap): this grading failed, the next one
            // gets a fresh server.
            Err(why) => (GraderOutcome::Died(why.to_string()), Value::Null),
        };
        // What the grader printed is kept beside its result, not in it. (Fuel is not recorded:
        // a warm interpreter's cost depends on what it graded before.)
        let mut take = |key: &str| {
            result
                .as_object_mut()
                .and_then(|o| o.remove(key))
                .unwrap_or(Value::Null)
        };
        let (stdout, stderr) = (take("stdout"), take("stderr"));
        let record = serde_json::json!({
            "grader": "claw-eval",
            "checkout_task_yaml": files.task_yaml,
            "result": result,
            "judge_exchanges": judge.exchanges(),
            "stdout": stdout,
            "stderr": stderr,
        });
        Ok(GraderRun { outcome, record })
    }
}

/// The driver's result file as an outcome, and the result without its captured output (which
/// the record keeps beside it).
fn read_result(written: Option<&[u8]>) -> (GraderOutcome, Value) {
    let Some(bytes) = written else {
        return (
            GraderOutcome::Failed("the grader wrote no result".into()),
            Value::Null,
        );
    };
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            return (
                GraderOutcome::Failed(format!("the grading driver's result is not JSON: {e}")),
                Value::Null,
            );
        }
    };
    let outcome = match serde_json::from_value::<DriverResult>(value.clone()) {
        Ok(DriverResult::Graded(g)) => GraderOutcome::Graded(g),
        Ok(DriverResult::NeedsJudge { reason }) => GraderOutcome::NeedsJudge(reason),
        Ok(DriverResult::Error { error }) => GraderOutcome::Failed(error),
        Err(e) => GraderOutcome::Failed(format!("the grading driver's result is malformed: {e}")),
    };
    (outcome, value)
}
