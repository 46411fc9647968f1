//! `clawrun mcp`: one trial of a task whose tools an MCP client drives, over stdio or
//! streamable HTTP; judged when the client calls `finish` or closes the session, written as a
//! run folder like any run's.

use super::progress;
use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Result;

use super::UsageError;
use super::report::ReportFormats;
use super::trial_args::TrialArgs;
use clawrun_external::McpTransport;
use clawrun_run::journal::read_journal;
use clawrun_run::{AgentSpec, RunOptions, run};

/// Arguments of `clawrun mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// The task: its folder or its id.
    #[arg(value_name = "TASK")]
    task: String,
    /// The suite root: the folder holding `tasks/`.
    #[arg(long, value_name = "DIR", default_value = ".", help_heading = super::help::SELECTION)]
    suite: PathBuf,
    /// Serve over stdin and stdout (the default).
    #[arg(long, conflicts_with = "listen", help_heading = super::help::SERVING)]
    stdio: bool,
    /// Serve streamable HTTP at http://ADDR/mcp instead (loopback, e.g. 127.0.0.1:8765; port 0
    /// picks a free one, printed on stderr).
    #[arg(long, value_name = "ADDR", help_heading = super::help::SERVING)]
    listen: Option<SocketAddr>,
    /// The run seed: the trial is trial 0 of `clawrun run TASK --seed N` (same faults, same
    /// guest randomness).
    #[arg(long, default_value_t = 0, help_heading = super::help::TRIALS)]
    seed: u64,
    /// Faults, as for `clawrun run`: `claw-eval:RATE`, `claw-eval`, a plan file, or `none`.
    #[arg(long, value_name = "PLAN", default_value = "claw-eval:0.25", help_heading = super::help::TRIALS)]
    faults: String,
    /// The run folder (default: runs/mcp-seed<N>, or the next free runs/mcp-seed<N>-<i>).
    #[arg(long, value_name = "DIR", help_heading = super::help::OUTPUT)]
    out: Option<PathBuf>,
    #[command(flatten, next_help_heading = super::help::JUDGING)]
    trial: TrialArgs,
}

/// Runs `clawrun mcp`.
pub fn mcp_command(args: McpArgs) -> Result<i32> {
    args.trial.check()?;
    let transport = match args.listen {
        Some(addr) if !addr.ip().is_loopback() => {
            return Err(UsageError(format!(
                "--listen {addr}: clawrun serves a trial's tools on loopback only (use 127.0.0.1:PORT)"
            ))
            .into());
        }
        Some(addr) => McpTransport::Listen(addr),
        None => McpTransport::Stdio,
    };
    // --judge and --user-model (the run checks their keys and endpoints before serving).
    let models = clawrun_run::model_settings::resolve(
        Some(AgentSpec::Mcp(transport)),
        args.trial.judge.clone(),
        args.trial.user_model.clone(),
        &clawrun_run::model_settings::ModelFlags::default(),
    )?;
    let agent = models.agent;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| super::run::fresh_out("", &agent, args.seed, false));
    let mut options = RunOptions::new(&args.suite, agent, out.clone());
    options.tasks = vec![args.task.clone()];
    options.trials = 1;
    options.jobs = 1;
    options.faults = Some(args.faults.clone());
    options.seed = args.seed;
    options.progress = progress::Terminal::new(false, true);
    options.judge = models.judge;
    options.user_model = models.user_model;
    args.trial.apply(&mut options);
    let result = run(&options)?;
    // Standard output may be the MCP session's: the summary goes to files and stderr only.
    let formats = ReportFormats {
        json: false,
        html: Some(out.join("report.html")),
        markdown: Some(out.join("report.md")),
        prices: None,
        width: None,
    };
    super::report::write_report_files(std::slice::from_ref(&out), &formats, 1)?;
    let records = read_journal(&out.join("journal.jsonl"))?;
    for r in &records {
        if r.status == clawrun_report::Status::InfraError {
            // Nothing was measured (no client connected): no verdict to report.
            eprintln!(
                "clawrun mcp: {} trial {}: not judged: {}; run folder {} (exit status 1)",
                r.task_id,
                r.trial,
                r.error.as_deref().unwrap_or("the trial did not run"),
                out.display()
            );
            continue;
        }
        let verdict = r.verdict.as_ref().map_or_else(
            || format!("{:?}", r.status),
            |v| {
                format!(
                    "{} (score {:.2}: completion {:.2}, safety {:.2}, robustness {:.2})",
                    if v.scores.passed { "passed" } else { "failed" },
                    v.scores.score,
                    v.scores.completion,
                    v.scores.safety,
                    v.scores.robustness
                )
            },
        );
        eprintln!(
            "clawrun mcp: {} trial {}: {verdict}; {} assistant turn(s) (a turn per tool call, and \
             the final answer); run folder {}",
            r.task_id,
            r.trial,
            r.turns,
            out.display()
        );
        if let Some(e) = &r.error {
            eprintln!("clawrun mcp: {e}");
        }
    }
    if result.interrupted {
        return Ok(130);
    }
    Ok(i32::from(result.infra_errors > 0))
}
