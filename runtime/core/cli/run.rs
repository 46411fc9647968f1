//! `clawrun run`: tasks × trials with an agent; journal, traces and reports in a run folder.

use super::progress;
use std::path::PathBuf;

use anyhow::Result;

use super::UsageError;
use super::model_flags::AgentModelFlags;
use super::output::outln;
use super::report::{ReportFormats, write_reports};
use super::trial_args::TrialArgs;
use clawrun_external::command::ProxyModel;
use clawrun_run::model_settings;
use clawrun_run::selection::TaskFilter;
use clawrun_run::shard::FolderShards;
use clawrun_run::trace_pack::TraceLayout;
use clawrun_run::{AgentSpec, RunOptions, Shard, run};

/// Arguments of `clawrun run`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Task folders or task ids (default: every task of the suite).
    #[arg(value_name = "TASKS")]
    tasks: Vec<String>,
    /// The suite root: the folder holding `tasks/`.
    #[arg(long, value_name = "DIR", default_value = ".", help_heading = super::help::SELECTION)]
    suite: PathBuf,
    #[command(flatten, next_help_heading = super::help::SELECTION)]
    filter: TaskFilter,
    /// The agent: oracle, careless, idle, scripted:FILE, replay:RUN_DIR, openai:MODEL,
    /// anthropic:MODEL, openrouter:MODEL, cmd:RECIPE or cmd:'COMMAND LINE' (default: oracle).
    ///
    /// `oracle` plays each task's oracle steps; `careless` each task's careless.yaml (an agent
    /// that takes the task's trap); `idle` answers at once, doing nothing; `scripted:FILE`
    /// plays a script in the oracle format; `replay:RUN_DIR` re-issues a recorded run's turns.
    /// A model is `openai:MODEL`, `anthropic:MODEL` or `openrouter:MODEL` (Inspect's spelling
    /// `openai/MODEL` too). `cmd:` starts an agent program per trial (a bundled recipe: codex,
    /// claude-code; a recipe file; or a command line) with the task's tools over MCP and its
    /// model behind clawrun's proxy. Without --agent: the `agent:` model of --model-config,
    /// else oracle.
    #[arg(long, value_parser = AgentSpec::parse, help_heading = super::help::AGENT)]
    agent: Option<AgentSpec>,
    /// With --agent cmd:...: the model behind the proxy the agent program talks to.
    ///
    /// scripted:FILE (a mock-llm script), openai:MODEL, anthropic:MODEL or openrouter:MODEL.
    /// Default: none (the program's model requests get HTTP 503).
    #[arg(long, value_name = "MODEL", value_parser = parse_proxy_model, help_heading = super::help::AGENT)]
    model: Option<ProxyModel>,
    #[command(flatten, next_help_heading = super::help::AGENT)]
    model_flags: AgentModelFlags,
    /// Trials per task (at least 1).
    #[arg(long, default_value_t = 3, value_parser = super::count::at_least_one::<u32>, help_heading = super::help::TRIALS)]
    trials: u32,
    /// Faults: claw-eval:RATE, claw-eval, a plan file, or none.
    ///
    /// `claw-eval:RATE` is Claw-Eval's middleware: 429 / 500 / 2-4 s latency on POST service
    /// calls (default rate 0.25, the rate its docs state); `claw-eval` takes the rate from
    /// ERROR_RATE, else 0, as its code does.
    #[arg(long, value_name = "PLAN", default_value = "claw-eval:0.25", help_heading = super::help::TRIALS)]
    faults: String,
    /// The run seed (fault decisions, guest randomness).
    #[arg(long, default_value_t = 0, help_heading = super::help::TRIALS)]
    seed: u64,
    #[command(flatten, next_help_heading = super::help::JUDGING)]
    trial: TrialArgs,
    /// The run folder (default: runs/<agent>-seed<N>, or the next free runs/<agent>-seed<N>-<i>).
    #[arg(long, value_name = "DIR", help_heading = super::help::OUTPUT)]
    out: Option<PathBuf>,
    /// Parallel trials (at least 1; default: the cores this process may use).
    ///
    /// The cores: its CPU affinity, cgroup quota and SLURM_CPUS_PER_TASK.
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = super::count::at_least_one::<usize>, help_heading = super::help::PARALLEL)]
    jobs: Option<usize>,
    /// Run one shard `I/N` of the (task, trial) pairs.
    ///
    /// The index is also read from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID with --shards.
    #[arg(long, value_name = "I/N", value_parser = |s: &str| s.parse::<Shard>(), help_heading = super::help::PARALLEL)]
    shard: Option<Shard>,
    /// The shard count when the shard index comes from the environment.
    #[arg(long, value_name = "N", help_heading = super::help::PARALLEL)]
    shards: Option<u32>,
    /// Continue the run in --out: skip finished trials, re-run infrastructure errors.
    #[arg(long, help_heading = super::help::OUTPUT)]
    resume: bool,
    /// With --resume: continue although a task's files changed or clawrun's version differs.
    ///
    /// A changed task's finished trials run again. Never overrides another agent, seed, fault
    /// plan, judge, user model, model temperature or base URL, --max-tokens, --cache or score
    /// setting.
    #[arg(long, requires = "resume", help_heading = super::help::OUTPUT)]
    force: bool,
    /// Bytes a trial's agent may add to its filesystem (e.g. 512MiB, 2GiB).
    ///
    /// Default: the task's `limits.disk_mib`, else 256MiB; past it, writes fail with ENOSPC.
    #[arg(long, value_name = "SIZE", value_parser = super::size::parse_size, help_heading = super::help::TRIALS)]
    disk_quota: Option<u64>,
    /// Files, folders and symlinks a trial's agent may add.
    ///
    /// Default: the task's `limits.inodes`, else 50000; past it, creation fails (EDQUOT).
    #[arg(long, value_name = "N", help_heading = super::help::TRIALS)]
    inode_quota: Option<u64>,
    /// Print the summary as JSON instead of a table.
    #[arg(long, help_heading = super::help::OUTPUT)]
    json: bool,
    /// Where to write the HTML report (default: <run>/report.html).
    #[arg(long, value_name = "FILE", help_heading = super::help::OUTPUT)]
    html: Option<PathBuf>,
    /// Fit the summary's tables in N columns (0: no limit).
    ///
    /// Default: the terminal's width when stdout is a terminal, no limit otherwise.
    #[arg(long, value_name = "N", help_heading = super::help::OUTPUT)]
    width: Option<usize>,
    /// The report files written into the run folder.
    ///
    /// `html`: report.html and report.md (above 1,000 trials the trials go to report.trials/
    /// beside the page); `md`: report.md only; `none`. The summary is printed either way;
    /// `clawrun report` writes any later.
    #[arg(long, value_enum, default_value_t = ReportFiles::Html, help_heading = super::help::OUTPUT)]
    report: ReportFiles,
    /// How traces are written.
    ///
    /// `pack`: each worker's trials' traces appended to traces/W.jsonl (the journal record
    /// names the file and the bytes); `files`: one TASK/N/trace.jsonl per trial (slower on
    /// disk). `clawrun trace RUN/TASK/N` prints one.
    #[arg(long, value_enum, default_value_t = TraceLayout::Pack, help_heading = super::help::OUTPUT)]
    traces: TraceLayout,
}

/// `--report`: which report files a run writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFiles {
    /// report.html and report.md.
    Html,
    /// report.md only.
    Md,
    /// Neither.
    None,
}

/// `-j`'s default: the cores this process may use (`cores`: Rust's `available_parallelism`,
/// which honours the CPU affinity mask and a cgroup quota), and no more than Slurm's
/// `SLURM_CPUS_PER_TASK` (`slurm`) where Slurm allots CPUs without pinning the task to them.
fn default_jobs(cores: usize, slurm: Option<&str>) -> usize {
    let allotted = slurm
        .and_then(|n| n.trim().parse::<usize>().ok())
        .filter(|&n| n > 0);
    allotted.map_or(cores, |n| n.min(cores)).max(1)
}

/// Runs `clawrun run`.
pub fn run_command(args: RunArgs, quiet: bool) -> Result<i32> {
    args.trial.check()?;
    if args.html.is_some() && args.report != ReportFiles::Html {
        return Err(UsageError(
            "--html FILE writes the HTML report, which --report md|none leaves out: drop one of them"
                .into(),
        )
        .into());
    }
    let jobs = args.jobs.unwrap_or_else(|| {
        default_jobs(
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            std::env::var("SLURM_CPUS_PER_TASK").ok().as_deref(),
        )
    });
    let models = model_settings::resolve(
        args.agent.clone(),
        args.trial.judge.clone(),
        args.trial.user_model.clone(),
        &(&args.model_flags).into(),
    )?;
    let mut agent = models.agent;
    if let AgentSpec::Command(command) = &mut agent {
        // The judge's and the user model's keys never reach the agent program.
        command.withheld = clawrun_external::environment::Withheld::new(
            [&models.judge, &models.user_model]
                .into_iter()
                .flatten()
                .filter_map(|m| m.api_key.clone()),
        );
    }
    match (&mut agent, args.model.clone()) {
        (AgentSpec::Command(command), Some(model)) => command.model = model,
        (_, Some(_)) => {
            return Err(UsageError(
                "--model sets the model behind an agent program's proxy: it needs --agent cmd:... (a model agent is --agent openai:MODEL)".into(),
            )
            .into());
        }
        _ => {}
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(&agent, args.seed, args.resume));
    // The shard: `--shard`, else the environment's index, placed by what the run folder
    // already says of its shards (a Slurm task resubmitted alone sees an array of one).
    let (shard, slurm_array) = match args.shard {
        Some(s) => (Some(s), None),
        None => {
            let folder = FolderShards::read(&out);
            match Shard::from_env(args.shards, &folder).map_err(|e| UsageError(e.to_string()))? {
                Some((shard, slurm)) => {
                    let env_count = std::env::var("SLURM_ARRAY_TASK_COUNT")
                        .ok()
                        .and_then(|c| c.trim().parse::<u32>().ok());
                    if slurm.is_some()
                        && args.shards.is_none()
                        && folder.count.is_some()
                        && env_count.is_some_and(|c| c != shard.count)
                    {
                        eprintln!(
                            "clawrun: note: SLURM_ARRAY_TASK_COUNT={} but {} holds the shards of \
                             a {}-task array: this is shard {shard} of that run",
                            env_count.unwrap_or_default(),
                            out.display(),
                            shard.count
                        );
                    }
                    (Some(shard), slurm)
                }
                None => (None, None),
            }
        }
    };
    let mut options = RunOptions::new(&args.suite, agent, out.clone());
    options.slurm_array = slurm_array;
    options.tasks = args.tasks.clone();
    options.filter = args.filter.clone();
    options.trials = args.trials;
    options.faults = Some(args.faults.clone());
    options.seed = args.seed;
    options.jobs = jobs;
    options.shard = shard;
    options.resume = args.resume;
    options.force = args.force;
    options.judge = models.judge;
    options.user_model = models.user_model;
    options.disk_quota = args.disk_quota;
    options.inode_quota = args.inode_quota;
    options.infra_retries = 2;
    options.progress = progress::Terminal::new(!args.json && !quiet, true);
    options.traces = args.traces;
    args.trial.apply(&mut options);
    let result = run(&options)?;
    let html = args.html.clone().unwrap_or_else(|| out.join("report.html"));
    let formats = ReportFormats {
        json: args.json,
        html: (args.report == ReportFiles::Html).then(|| html.clone()),
        markdown: (args.report != ReportFiles::None).then(|| out.join("report.md")),
        prices: None,
        width: args.width,
    };
    write_reports(std::slice::from_ref(&out), &formats, args.trials)?;
    if !args.json {
        outln!(
            "run folder: {}   report: {}{}{}",
            out.display(),
            match args.report {
                ReportFiles::Html => html.display().to_string(),
                ReportFiles::Md => out.join("report.md").display().to_string(),
                ReportFiles::None => "none written (clawrun report RUN writes one)".into(),
            },
            match result.skipped.len() {
                0 => String::new(),
                n => format!("   ({n} task(s) skipped: `skipped` in run.json)"),
            },
            if result.interrupted {
                "   (interrupted: continue with --resume)"
            } else {
                ""
            }
        )?;
    }
    if result.interrupted {
        return Ok(130);
    }
    // Trials that ended as infrastructure errors (after their retries) were not measured:
    // the run is incomplete, and says so in its exit status.
    let infra = result.infra_errors;
    if infra > 0 {
        super::output::error_line(format_args!(
            "clawrun: {infra} trial(s) ended as infrastructure errors and are not scored; run again with --resume --out {} to retry them (exit status 1)",
            out.display()
        ));
        return Ok(1);
    }
    Ok(0)
}

/// `--model`.
fn parse_proxy_model(text: &str) -> Result<ProxyModel, String> {
    ProxyModel::parse(text).map_err(|e| format!("{e:#}"))
}

/// A fresh run folder under `runs/` named after the agent and seed.
fn default_out(agent: &AgentSpec, seed: u64, resume: bool) -> PathBuf {
    fresh_out("", agent, seed, resume)
}

/// `runs/<prefix><agent>-seed<N>`, or (unless `reuse`) the next free `...-<i>` when it exists.
pub(super) fn fresh_out(prefix: &str, agent: &AgentSpec, seed: u64, reuse: bool) -> PathBuf {
    let agent = agent.describe().replace(
        |c: char| matches!(c, '/' | ':' | '\\') || c.is_whitespace(),
        "_",
    );
    let base = format!("{prefix}{agent}-seed{seed}");
    let mut out = PathBuf::from("runs").join(&base);
    let mut i = 2;
    while out.exists() && !reuse {
        out = PathBuf::from("runs").join(format!("{base}-{i}"));
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::default_jobs;

    #[test]
    fn jobs_default_to_the_cores_the_process_may_use_and_slurm_allots() {
        assert_eq!(default_jobs(8, None), 8);
        assert_eq!(default_jobs(8, Some("2")), 2);
        // Slurm's allotment never exceeds what the process may use; junk is ignored.
        assert_eq!(default_jobs(4, Some("16")), 4);
        assert_eq!(default_jobs(4, Some("zero")), 4);
        assert_eq!(default_jobs(4, Some("0")), 4);
        assert_eq!(default_jobs(0, None), 1);
    }
}
