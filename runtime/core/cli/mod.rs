//! The `clawrun` command line.

pub mod output;

mod cassette;
mod completions;
mod count;
mod exec;
mod export;
mod fuzz;
mod help;
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
mod setup_media;
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
#[command(name = "clawrun", version = VERSION, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    verbosity: logging::Verbosity,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a WASI program (component or wasip1 module) over an in-memory copy of host folders.
    #[command(after_help = help::EXEC)]
    Exec(exec::ExecArgs),
    /// Run one agent tool (Bash, Read, Write, Edit, Glob, Grep, ReadMedia, Download) on a
    /// workspace and print what the model would see.
    #[command(after_help = help::TOOL)]
    Tool(tool::ToolArgs),
    /// Serve a task's mock services on loopback (its task.yaml ports, or shifted with
    /// --port-base) until interrupted.
    #[command(after_help = help::SERVICES)]
    Services(services::ServicesArgs),
    /// Run tasks × trials with an agent; journal, traces and reports go to a run folder.
    #[command(after_help = help::RUN)]
    Run(Box<run::RunArgs>),
    /// Search for the perturbations (faults, injected content) that break an agent; shrink
    /// each failure to a minimal reproducer (`--regress DIR` plays reproducers again).
    #[command(after_help = help::FUZZ)]
    Fuzz(Box<fuzz::FuzzArgs>),
    /// Serve one trial of a task to an MCP client (stdio or streamable HTTP): its tools and
    /// `finish`; judged when the client finishes or closes the session.
    #[command(after_help = help::MCP)]
    Mcp(Box<mcp::McpArgs>),
    /// Summarise run folders (shards merged): table, JSON, Markdown, HTML.
    #[command(after_help = help::REPORT)]
    Report(report::ReportArgs),
    /// A local page over a folder of runs: each run's status and report, any two compared.
    #[command(after_help = help::VIEW)]
    View(view::ViewArgs),
    /// Export a run as an Inspect log, Harbor trajectories (ATIF) or OTLP/JSON spans.
    #[command(after_help = help::EXPORT)]
    Export(export::ExportArgs),
    /// Re-run recorded trials from their traces and demand identical hashes and scores.
    #[command(after_help = help::REPLAY)]
    Replay(replay::ReplayArgs),
    /// Print recorded traces (JSONL) of a run, a task or one trial (`RUN/TASK/TRIAL`).
    #[command(after_help = help::TRACE)]
    Trace(trace::TraceArgs),
    /// Re-score a finished run with an LLM judge from its traces (no agent runs again) into
    /// a new run folder.
    #[command(after_help = help::JUDGE)]
    Judge(Box<judge::JudgeArgs>),
    /// Check tasks: schema, judge firewall, the oracle passes, a do-nothing agent fails.
    #[command(after_help = help::VALIDATE)]
    Validate(validate::ValidateArgs),
    /// List the tasks of a suite.
    #[command(after_help = help::LIST)]
    List(list::ListArgs),
    /// Show or merge recorded web cassettes (`run --web record`).
    #[command(after_help = help::CASSETTE)]
    Cassette(cassette::CassetteArgs),
    /// Serve a scripted mock LLM (OpenAI and Anthropic protocols) on loopback.
    #[command(after_help = help::MOCK_LLM)]
    MockLlm(mock_llm::MockLlmArgs),
    /// Get what runs need besides clawrun: the sandbox's Python (`setup python`), a Claw-Eval
    /// checkout's media (`setup claw-eval-media`).
    #[command(after_help = help::SETUP)]
    Setup(setup::SetupArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    #[command(after_help = help::COMPLETIONS)]
    Completions(completions::CompletionsArgs),
    /// Print the man page clawrun(1), or write it and one page per command into a folder.
    #[command(after_help = help::MAN)]
    Man(completions::ManArgs),
}

/// `e` with a "similar subcommand" tip when clap found none: clap's measure (Jaro) misses
/// short slips such as `rnu` or `rn` for `run`, which an edit distance catches.
fn with_subcommand_suggestion(mut e: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidSubcommand {
        return e;
    }
    let suggested = matches!(
        e.get(ContextKind::SuggestedSubcommand),
        Some(ContextValue::Strings(s)) if !s.is_empty()
    );
    let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand) else {
        return e;
    };
    if suggested {
        return e;
    }
    let command = <Cli as clap::CommandFactory>::command();
    let names: Vec<&str> = command
        .get_subcommands()
        .map(clap::Command::get_name)
        .collect();
    if let Some(best) = clawrun_agents::spelling::closest(typed, names.iter().copied()) {
        let best = best.to_string();
        e.insert(
            ContextKind::SuggestedSubcommand,
            ContextValue::Strings(vec![best]),
        );
    }
    e
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
    let cli = Cli::try_parse().unwrap_or_else(|e| with_subcommand_suggestion(e).exit());
    logging::init(&cli.verbosity);
    progress::print_every_retry(cli.verbosity.verbose > 0);
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
        Command::Setup(args) => setup::run(args, quiet),
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
