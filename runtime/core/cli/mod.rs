//! The `clawrun` command line.

pub mod output;

mod cassette;
mod completions;
mod count;
mod exec;
mod export;
mod fuzz;
mod judge;
mod list;
mod logging;
mod mcp;
mod mock_llm;
mod model_flags;
mod progress;
mod replay;
pub mod report;
mod report_html;
mod run;
mod services;
mod setup;
mod size;
mod tool;
mod trace;
mod trial_args;
mod validate;
mod view;
mod web_args;
mod write_back;

use clap::{Parser, Subcommand};

/// Exit status for bad input (flags, files), as clap uses for usage errors.
pub const EXIT_USAGE: i32 = 2;

/// What `clawrun --version` prints after the name: the package version and, when the build
/// knew it, the commit and its date (`0.1.0 (401b58b 2026-11-25)`; see `build/commit.rs`).
/// Never part of a trace, hash, score or run.json.
pub const VERSION: &str = env!("CLAWRUN_VERSION");

/// clawrun: evaluate LLM agents in wasmtime sandboxes, without Docker.
#[derive(Debug, Parser)]
#[command(name = "clawrun", version = VERSION, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    verbosity: logging::Verbosity,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a WASI program (component or wasip1 module) over an in-memory copy of host folders.
    Exec(exec::ExecArgs),
    /// Run one agent tool (Bash, Read, Write, Edit, Glob, Grep) on a workspace and print what
    /// the model would see.
    Tool(tool::ToolArgs),
    /// Serve a task's mock services on loopback (its task.yaml ports, or shifted with
    /// --port-base) until interrupted.
    Services(services::ServicesArgs),
    /// Run tasks × trials with an agent; journal, traces and reports go to a run folder.
    Run(Box<run::RunArgs>),
    /// Search for the perturbations (faults, injected content) that break an agent; shrink
    /// each failure to a minimal reproducer (`--regress DIR` plays reproducers again).
    Fuzz(Box<fuzz::FuzzArgs>),
    /// Serve one trial of a task to an MCP client (stdio or streamable HTTP): its tools and
    /// `finish`; judged when the client finishes or closes the session.
    Mcp(Box<mcp::McpArgs>),
    /// Summarise run folders (shards merged): table, JSON, Markdown, HTML.
    Report(report::ReportArgs),
    /// A local page over a folder of runs: each run's status and report, any two compared.
    View(view::ViewArgs),
    /// Export a run as an Inspect log, Harbor trajectories (ATIF) or OTLP/JSON spans.
    Export(export::ExportArgs),
    /// Re-run recorded trials from their traces and demand identical hashes and scores.
    Replay(replay::ReplayArgs),
    /// Print recorded traces (JSONL) of a run, a task or one trial (`RUN/TASK/TRIAL`).
    Trace(trace::TraceArgs),
    /// Re-score a finished run with an LLM judge from its traces (no agent runs again) into
    /// a new run folder.
    Judge(Box<judge::JudgeArgs>),
    /// Check tasks: schema, judge firewall, the oracle passes, a do-nothing agent fails.
    Validate(validate::ValidateArgs),
    /// List the tasks of a suite.
    List(list::ListArgs),
    /// Show or merge recorded web cassettes (`run --web record`).
    Cassette(cassette::CassetteArgs),
    /// Serve a scripted mock LLM (OpenAI and Anthropic protocols) on loopback.
    MockLlm(mock_llm::MockLlmArgs),
    /// Get and precompile what the sandbox runs besides the tools (`setup python`).
    Setup(setup::SetupArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Print the man page clawrun(1), or write it and one page per command into a folder.
    Man(completions::ManArgs),
}

/// A user-facing error: printed as one line, exit status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Parses the command line, runs it and returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    logging::init(&cli.verbosity);
    let quiet = cli.verbosity.quiet;
    let result = match cli.command {
        Command::Exec(args) => exec::run(args),
        Command::Tool(args) => tool::run(args),
        Command::Services(args) => services::run(args),
        Command::Run(args) => run::run_command(*args, quiet),
        Command::Fuzz(args) => fuzz::fuzz_command(*args, quiet),
        Command::Mcp(args) => mcp::mcp_command(*args),
        Command::Report(args) => report::report_command(args),
        Command::View(args) => view::view_command(args),
        Command::Export(args) => export::export_command(args),
        Command::Replay(args) => replay::replay_command(args),
        Command::Trace(args) => trace::trace_command(args),
        Command::Judge(args) => judge::judge_command(*args, quiet),
        Command::Validate(args) => validate::validate_command(args),
        Command::List(args) => list::list_command(args),
        Command::Cassette(args) => cassette::cassette_command(args),
        Command::MockLlm(args) => mock_llm::mock_llm_command(args),
        Command::Setup(args) => setup::run(args),
        Command::Completions(args) => completions::completions_command(&args),
        Command::Man(args) => completions::man_command(&args),
    };
    match result {
        Ok(code) => code,
        // The reader of stdout went away (`clawrun list | head -1`): stop quietly, status 0.
        Err(e) if e.downcast_ref::<output::StdoutClosed>().is_some() => 0,
        Err(e) => {
            output::error_line(format_args!("clawrun: error: {e:#}"));
            let setup = e.downcast_ref::<clawrun_run::preflight::SetupError>();
            if e.downcast_ref::<UsageError>().is_some()
                || e.downcast_ref::<clawrun_trial::grading::GradingError>()
                    .is_some()
                || matches!(setup, Some(clawrun_run::preflight::SetupError::Usage(_)))
            {
                EXIT_USAGE
            } else {
                1
            }
        }
    }
}
