//! The flags `clawrun run` and `clawrun fuzz` share on how trials are judged and what they
//! reach: the judge and user models, the token limit, the response cache, the endpoint probe,
//! the pass threshold, the grader, the Claw-Eval checkout and the web.

use std::path::PathBuf;

use anyhow::Result;
use clawrun_agents::llm::ModelConfig;
use clawrun_judge::ScoreConfig;

use super::UsageError;
use super::web_args::WebArgs;
use clawrun_run::RunOptions;
use clawrun_trial::grading::GraderChoice;

/// How trials are judged and what they reach.
#[derive(Debug, clap::Args)]
pub struct TrialArgs {
    /// The LLM judge, e.g. openai:gpt-5-mini (default: none; judge items are reported unjudged).
    #[arg(long, value_name = "MODEL", value_parser = ModelConfig::from_spec, help_heading = super::help::JUDGING)]
    pub judge: Option<ModelConfig>,
    /// The model playing the simulated users of multi-turn tasks from their persona.
    ///
    /// Default: the tasks' `user_agent.script`, offline.
    #[arg(long, value_name = "MODEL", value_parser = ModelConfig::from_spec, help_heading = super::help::AGENT)]
    pub user_model: Option<ModelConfig>,
    /// Token limit per trial.
    #[arg(long, value_name = "N", help_heading = super::help::TRIALS)]
    pub max_tokens: Option<u64>,
    /// Serve model responses (agent, judge, user model) from the on-disk response cache.
    ///
    /// Responses are served when present and new ones cached. Entries are keyed by the request and the trial seed, so
    /// each trial stays its own sample; a rerun with the same --seed is served from the cache.
    /// Off by default: every request reaches the model.
    #[arg(long, help_heading = super::help::AGENT)]
    pub cache: bool,
    /// Skip the probe request (`GET /models`) sent to each model endpoint first.
    ///
    /// For servers without one that also reject unknown paths, or offline mocks; the probe is
    /// sent before the run folder is made.
    #[arg(long, help_heading = super::help::AGENT)]
    pub no_probe: bool,
    /// The pass threshold.
    #[arg(long, default_value_t = 0.75, help_heading = super::help::JUDGING)]
    pub pass_threshold: f64,
    /// Which grader scores the trials.
    ///
    /// `auto`: a task's Claw-Eval `grader.py` when the run has a checkout with one, else
    /// clawrun's rubric; `claw-eval`; `clawrun`; `both`: Claw-Eval's scores, clawrun's verdict
    /// kept beside them and compared in the report.
    #[arg(long, value_enum, default_value_t = GraderChoice::Auto, help_heading = super::help::JUDGING)]
    pub grader: GraderChoice,
    /// A Claw-Eval checkout (src/claw_eval/, tasks/<ID>/grader.py) whose graders are used.
    ///
    /// Default: the suite, when it is one; for --grader claw-eval|both also the suite's
    /// third_party/claw-eval.
    #[arg(long, value_name = "DIR", help_heading = super::help::JUDGING)]
    pub claw_eval: Option<PathBuf>,
    #[command(flatten, next_help_heading = super::help::WEB)]
    pub web: WebArgs,
}

impl TrialArgs {
    /// A usage error when a value is out of range (the pass threshold).
    pub fn check(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.pass_threshold) {
            return Err(UsageError(format!(
                "--pass-threshold {}: must be between 0 and 1",
                self.pass_threshold
            ))
            .into());
        }
        Ok(())
    }

    /// Sets these settings on `options` (the judge and user model come resolved with the
    /// agent's, from `model_settings::resolve`).
    pub fn apply(&self, options: &mut RunOptions) {
        options.max_tokens = self.max_tokens;
        options.cache = self.cache;
        options.score = ScoreConfig {
            pass_threshold: self.pass_threshold,
            ..ScoreConfig::default()
        };
        options.probe = !self.no_probe;
        options.grader = self.grader;
        options.claw_eval = self.claw_eval.clone();
        options.web = self.web.options();
    }
}
