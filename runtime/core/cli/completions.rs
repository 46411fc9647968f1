//! `clawrun completions SHELL` (a completion script on stdout, clap_complete) and `clawrun man`
//! (the roff man page on stdout, or every page into a folder, clap_mangen). Both describe the
//! binary that prints them, so they never go stale.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_complete::Shell;

use super::Cli;
use super::output;

/// Arguments of `clawrun completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

/// Arguments of `clawrun man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write clawrun.1 and one page per command (clawrun-run.1, ...) into this folder instead
    /// of printing clawrun.1.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Prints the completion script for `args.shell`.
pub fn completions_command(args: &CompletionsArgs) -> Result<i32> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "clawrun", &mut script);
    output::write_bytes(&script)?;
    Ok(0)
}

/// Prints clawrun(1), or writes every page into `--dir`.
pub fn man_command(args: &ManArgs) -> Result<i32> {
    let cmd = Cli::command();
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        clap_mangen::generate_to(cmd, dir)
            .with_context(|| format!("writing the man pages into {}", dir.display()))?;
        return Ok(0);
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut page)
        .context("rendering the man page")?;
    output::write_bytes(&page)?;
    Ok(0)
}
