//! The `clawrun` command line.

mod exec;
mod services;
mod tool;

use clap::{Parser, Subcommand};

/// Exit status for bad input (flags, files), as clap uses for usage errors.
pub const EXIT_USAGE: i32 = 2;

/// clawrun: evaluate LLM agents in wasmtime sandboxes, without Docker.
#[derive(Debug, Parser)]
#[command(name = "clawrun", version, about, long_about = None)]
pub struct Cli {
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
    let result = match cli.command {
        Command::Exec(args) => exec::run(args),
        Command::Tool(args) => tool::run(args),
        Command::Services(args) => services::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("clawrun: error: {e:#}");
            if e.downcast_ref::<UsageError>().is_some() {
                EXIT_USAGE
            } else {
                1
            }
        }
    }
}
