//! Which grader judges each trial of a run (`--grader`, `--claw-eval`): clawrun's declarative
//! and native rubric, a Claw-Eval checkout's own `grader.py`, or both side by side.

use std::path::{Path, PathBuf};

use clawrun_task::LoadedTask;

use crate::claw_eval::{Checkout, ClawEvalGrader};

/// Why a run's grading could not be set up: the user's flags ask for what is not there.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct GradingError(String);

/// `--grader`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum GraderChoice {
    /// The task's Claw-Eval `grader.py` when the run has a checkout with one, else clawrun's
    /// rubric.
    #[default]
    Auto,
    /// Claw-Eval's `grader.py` (a task without one is graded by clawrun's rubric).
    ClawEval,
    /// clawrun's declarative and native rubric only.
    Clawrun,
    /// Both: the Claw-Eval grader's verdict scores the trial, clawrun's is kept beside it and
    /// the report shows where they disagree.
    Both,
}

impl GraderChoice {
    /// The flag's spelling (`auto`, `claw-eval`, `clawrun`, `both`).
    pub fn as_str(self) -> &'static str {
        match self {
            GraderChoice::Auto => "auto",
            GraderChoice::ClawEval => "claw-eval",
            GraderChoice::Clawrun => "clawrun",
            GraderChoice::Both => "both",
        }
    }
}

/// How one task's trials are graded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskGrading {
    /// clawrun's rubric.
    Native,
    /// The checkout's `grader.py`.
    ClawEval,
    /// The checkout's `grader.py`, with clawrun's verdict kept beside it.
    Both,
}

/// A run's grading: the choice and, when one is used, the checkout's grader.
pub struct Grading {
    choice: GraderChoice,
    claw_eval: Option<ClawEvalGrader>,
}

/// Where the bundled suite keeps its vendored Claw-Eval checkout (the package and the graders
/// of the ported tasks).
pub const VENDORED_CHECKOUT: &str = "third_party/claw-eval";

impl Grading {
    /// clawrun's rubric for every task.
    pub fn native() -> Self {
        Self {
            choice: GraderChoice::Clawrun,
            claw_eval: None,
        }
    }

    /// Resolves `choice` for a run over `suite`: the checkout is `checkout` when given, else the
    /// suite itself when it is a Claw-Eval checkout, else (for `claw-eval` and `both` only) the
    /// suite's vendored `third_party/claw-eval`.
    pub fn resolve(
        choice: GraderChoice,
        checkout: Option<&Path>,
        suite: &Path,
    ) -> Result<Self, GradingError> {
        if choice == GraderChoice::Clawrun {
            return Ok(Self::native());
        }
        let found: Option<PathBuf> = match checkout {
            Some(path) => Some(path.to_path_buf()),
            None if Checkout::is_checkout(suite) => Some(suite.to_path_buf()),
            None if choice != GraderChoice::Auto
                && Checkout::is_checkout(&suite.join(VENDORED_CHECKOUT)) =>
            {
                Some(suite.join(VENDORED_CHECKOUT))
            }
            None => None,
        };
        let claw_eval = match found {
            Some(path) => Some(ClawEvalGrader::new(
                Checkout::open(&path).map_err(|e| GradingError(format!("--claw-eval: {e:#}")))?,
            )),
            None if choice == GraderChoice::Auto => None,
            None => {
                return Err(GradingError(format!(
                    "--grader {} needs a Claw-Eval checkout: pass --claw-eval PATH (a clone of \
                     github.com/claw-eval/claw-eval, with src/claw_eval/ and tasks/), or run \
                     --suite on one",
                    choice.as_str()
                )));
            }
        };
        Ok(Self { choice, claw_eval })
    }

    /// The choice made.
    pub fn choice(&self) -> GraderChoice {
        self.choice
    }

    /// The checkout's folder, when the run has one.
    pub fn checkout(&self) -> Option<&Path> {
        self.claw_eval.as_ref().map(|g| g.checkout().root())
    }

    /// The checkout's grader, when the run has one.
    pub fn claw_eval(&self) -> Option<&ClawEvalGrader> {
        self.claw_eval.as_ref()
    }

    /// How `task`'s trials are graded.
    pub fn for_task(&self, task: &LoadedTask) -> TaskGrading {
        // Claw-Eval's registry: tasks/<task_id>/grader.py, else the task folder's own.
        let has_grader = self.claw_eval.as_ref().is_some_and(|g| {
            g.checkout().has_grader(&task.task.task_id) || task.read_task_file("grader.py").is_ok()
        });
        match self.choice {
            GraderChoice::Clawrun => TaskGrading::Native,
            _ if !has_grader => TaskGrading::Native,
            GraderChoice::Both => TaskGrading::Both,
            GraderChoice::Auto | GraderChoice::ClawEval => TaskGrading::ClawEval,
        }
    }
}
