//! `clawrun fuzz`: search for the perturbations that break an agent, shrink each failure to a
//! minimal reproducer; `--regress DIR` plays a folder of reproducers again.

use super::progress;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use super::UsageError;
use super::model_flags::AgentModelFlags;
use super::output::outln;
use super::trial_args::TrialArgs;
use clawrun_fuzz::{Confirm, FuzzOptions, RegressAgent, SearchConfig, fuzz, regress};
use clawrun_run::model_settings;
use clawrun_run::selection::TaskFilter;
use clawrun_run::{AgentSpec, RunOptions};

/// Trials per task when neither --budget nor --time is given.
const DEFAULT_BUDGET: u64 = 1_000;

/// Arguments of `clawrun fuzz`.
#[derive(Debug, clap::Args)]
pub struct FuzzArgs {
    /// Task folders or task ids (default: every task of the suite).
    #[arg(value_name = "TASKS")]
    tasks: Vec<String>,
    /// The suite root: the folder holding `tasks/`.
    #[arg(long, value_name = "DIR", default_value = ".", help_heading = super::help::SELECTION)]
    suite: PathBuf,
    #[command(flatten, next_help_heading = super::help::SELECTION)]
    filter: TaskFilter,
    /// The agent fuzzed: oracle, careless, idle, scripted:FILE, openai:MODEL, anthropic:MODEL
    /// or openrouter:MODEL (Inspect's `openai/MODEL` too).
    ///
    /// Default: the `agent:` model of --model-config, else oracle; with --regress, the agent
    /// each reproducer records.
    #[arg(long, value_parser = AgentSpec::parse, help_heading = super::help::AGENT)]
    agent: Option<AgentSpec>,
    #[command(flatten, next_help_heading = super::help::AGENT)]
    model_flags: AgentModelFlags,
    /// Search trials per task (default 1000 when --time is not given either).
    #[arg(long, value_name = "TRIALS", value_parser = super::count::at_least_one::<u64>, help_heading = super::help::SEARCH)]
    budget: Option<u64>,
    /// Wall time per task for the search, e.g. 30s, 5m, 1h (with --budget: whichever ends
    /// first).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, help_heading = super::help::SEARCH)]
    time: Option<Duration>,
    /// Parallel trials (default: the number of cores).
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = super::count::at_least_one::<u64>, help_heading = super::help::PARALLEL)]
    jobs: Option<u64>,
    /// The search seed (the generator's, and the trials' run seed): the same seed and budget
    /// give the same search.
    #[arg(long, default_value_t = 0, help_heading = super::help::SEARCH)]
    seed: u64,
    /// The output folder (default: runs/fuzz-<agent>-seed<N>, or the next free one).
    #[arg(long, value_name = "DIR", help_heading = super::help::OUTPUT)]
    out: Option<PathBuf>,
    /// Perturb filesystem calls too (EIO, ENOSPC, EACCES, short writes at `fs:` points).
    #[arg(long, help_heading = super::help::SEARCH)]
    fs: bool,
    /// Distinct failures shrunk per task (more are counted, not shrunk).
    #[arg(long, value_name = "N", default_value_t = 10, help_heading = super::help::SEARCH)]
    max_failures: usize,
    /// A failure counts when M of N trials fail (default 1/1; 2/3 for model agents, which
    /// sample).
    #[arg(long, value_name = "M/N", value_parser = Confirm::parse, help_heading = super::help::SEARCH)]
    confirm: Option<Confirm>,
    /// Trials one shrink may spend.
    #[arg(long, value_name = "TRIALS", default_value_t = 2_000, help_heading = super::help::SEARCH)]
    shrink_budget: u64,
    /// End a task's search once N distinct failures were found (e.g. 1 in CI: fail fast).
    #[arg(long, value_name = "N", value_parser = super::count::at_least_one::<u64>, help_heading = super::help::SEARCH)]
    stop_after: Option<u64>,
    /// Play the reproducers under DIR (folders holding finding.json and repro.yaml) with
    /// --agent instead of searching; exit 1 when a result differs from --expect.
    #[arg(long, value_name = "DIR", help_heading = super::help::OUTPUT)]
    regress: Option<PathBuf>,
    /// With --regress: `fixed` (default: every reproducer must pass now) or `failing` (every
    /// reproducer must still fail, e.g. to check the reproducers themselves).
    #[arg(long, value_enum, default_value_t = Expect::Fixed, requires = "regress", help_heading = super::help::OUTPUT)]
    expect: Expect,
    #[command(flatten, next_help_heading = super::help::JUDGING)]
    trial: TrialArgs,
}

/// `--expect`: what a regression run demands of each reproducer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Expect {
    /// The agent no longer fails.
    Fixed,
    /// The agent still fails as recorded.
    Failing,
}

/// Parses `90`, `90s`, `5m`, `2h`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (digits, unit) = t.split_at(
        t.find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(t.len()),
    );
    let n: f64 = digits
        .parse()
        .map_err(|_| format!("{text:?}: expected a duration such as 30s, 5m or 1h"))?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("{text:?}: the unit must be s, m or h")),
    };
    if !(secs > 0.0 && secs.is_finite()) {
        return Err(format!("{text:?}: must be more than zero"));
    }
    Duration::try_from_secs_f64(secs).map_err(|_| format!("{text:?}: too long"))
}

/// Runs `clawrun fuzz`.
pub fn fuzz_command(args: FuzzArgs, quiet: bool) -> Result<i32> {
    args.trial.check()?;
    let models = model_settings::resolve(
        args.agent.clone(),
        args.trial.judge.clone(),
        args.trial.user_model.clone(),
        &(&args.model_flags).into(),
    )?;
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        |j| j as usize,
    );
    let confirm = args.confirm.unwrap_or(if models.agent.is_remote() {
        Confirm { needed: 2, of: 3 }
    } else {
        Confirm::ONCE
    });
    let prefix = if args.regress.is_some() {
        "regress-"
    } else {
        "fuzz-"
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| super::run::fresh_out(prefix, &models.agent, args.seed, false));
    let mut run = RunOptions::new(&args.suite, models.agent, out.clone());
    run.tasks = args.tasks.clone();
    run.filter = args.filter.clone();
    run.seed = args.seed;
    run.jobs = jobs;
    run.judge = models.judge;
    run.user_model = models.user_model;
    run.progress = progress::Terminal::new(false, !quiet);
    args.trial.apply(&mut run);

    if let Some(dir) = &args.regress {
        // Without --agent (or a model config's agent), each reproducer is played by the agent
        // it recorded: a regression folder of a model's findings never passes by being played
        // by the oracle.
        let given = args.agent.is_some() || run.agent.describe() != "oracle";
        let build = |recorded: &str| -> Result<AgentSpec> {
            let spec = AgentSpec::parse(recorded).map_err(|e| anyhow::anyhow!("{e}"))?;
            Ok(model_settings::resolve(Some(spec), None, None, &(&args.model_flags).into())?.agent)
        };
        let agent = if given {
            RegressAgent::Given
        } else {
            RegressAgent::Recorded(&build)
        };
        return regress_command(&run, agent, dir, &out, args.expect);
    }
    let budget = match (args.budget, args.time) {
        (None, None) => Some(DEFAULT_BUDGET),
        (b, _) => b,
    };
    let options = FuzzOptions {
        run,
        search: SearchConfig {
            budget,
            time: args.time,
            seed: args.seed,
            fs: args.fs,
            max_failures: args.max_failures,
            confirm,
            shrink_budget: args.shrink_budget,
            stop_after: args.stop_after.map(|n| n as usize),
        },
    };
    let result = fuzz(&options)?;
    for t in &result.tasks {
        outln!("{}", clawrun_fuzz::report::task_line(&t.search))?;
        for r in &t.reproducers {
            outln!(
                "  {} ({} perturbation(s); reproduced {}/{}): {}",
                r.finding.kind,
                r.finding.minimal.len(),
                r.reproduction.failing,
                r.meta.confirm.of,
                r.meta.schedule.join("; ")
            )?;
            outln!("    {}", out.join(&r.dir).display())?;
        }
    }
    outln!(
        "{} failure(s) in {} search trials; report: {}",
        result.failures(),
        result.search_trials(),
        out.join(clawrun_fuzz::report::INDEX_FILE).display()
    )?;
    if result.interrupted {
        outln!("(interrupted: the search stopped early)")?;
        return Ok(130);
    }
    Ok(if result.failures() > 0 { 1 } else { 0 })
}

/// `clawrun fuzz --regress DIR`.
fn regress_command(
    run: &RunOptions,
    agent: RegressAgent<'_>,
    dir: &std::path::Path,
    out: &std::path::Path,
    expect: Expect,
) -> Result<i32> {
    if out.exists() && std::fs::read_dir(out)?.next().is_some() {
        return Err(UsageError(format!(
            "{} is not empty: choose another --out for the regression runs",
            out.display()
        ))
        .into());
    }
    let results = regress(run, agent, dir, out)?;
    let mut unexpected = 0;
    for r in &results {
        let still = r.still_fails();
        let ok = still == (expect == Expect::Failing);
        unexpected += usize::from(!ok);
        outln!(
            "{} {}: {} with {} ({} of {} trials fail as {}; recorded: {})",
            if ok { "ok  " } else { "FAIL" },
            r.dir.display(),
            if still {
                "still fails"
            } else {
                "no longer fails"
            },
            r.reproduction.twin.agent,
            r.reproduction.failing,
            r.meta.confirm.of,
            r.meta.kind,
            r.meta.schedule.join("; ")
        )?;
    }
    outln!(
        "{} reproducer(s): {} as expected ({}), {} not; run folders in {}",
        results.len(),
        results.len() - unexpected,
        match expect {
            Expect::Fixed => "fixed",
            Expect::Failing => "still failing",
        },
        unexpected,
        out.display()
    )?;
    Ok(if unexpected > 0 { 1 } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(parse_duration("1.5h").unwrap(), Duration::from_secs(5400));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("5d").unwrap_err().contains("unit"));
        assert!(parse_duration("soon").is_err());
        // 1e300 seconds written out: a usage error, not a panic.
        let huge = format!("1{}h", "0".repeat(300));
        assert!(parse_duration(&huge).unwrap_err().contains("too long"));
    }
}
