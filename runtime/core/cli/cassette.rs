//! `clawrun cassette`: look into recorded web cassettes and merge them.

use std::path::PathBuf;

use anyhow::Result;

use super::UsageError;
use super::output::outln;
use crate::web::Cassette;

/// `clawrun cassette show|merge`.
#[derive(Debug, clap::Args)]
pub struct CassetteArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// List a cassette's recordings (one line each: what was asked, what the web answered)
    /// and its content hash.
    Show {
        /// The cassette folder.
        #[arg(value_name = "DIR")]
        cassette: PathBuf,
    },
    /// Add to INTO every recording of the FROM cassettes it lacks (the first recording of a
    /// request wins); INTO is created when absent.
    Merge {
        /// The cassette that receives the recordings.
        #[arg(value_name = "INTO")]
        into: PathBuf,
        /// The cassettes to take recordings from.
        #[arg(value_name = "FROM", required = true)]
        from: Vec<PathBuf>,
    },
}

/// Runs `clawrun cassette`.
pub fn cassette_command(args: CassetteArgs) -> Result<i32> {
    match args.action {
        Action::Show { cassette } => {
            let c = Cassette::open(&cassette).map_err(|e| UsageError(e.to_string()))?;
            for entry in c.entries() {
                let what = match (&entry.response, &entry.error) {
                    (Some(r), _) => format!(
                        "{} {} ({} bytes{})",
                        r.status,
                        r.url,
                        r.size,
                        r.content_type
                            .as_deref()
                            .map(|t| format!(", {t}"))
                            .unwrap_or_default()
                    ),
                    (None, Some(e)) => format!("failed: {e}"),
                    (None, None) => "nothing".into(),
                };
                outln!("{} -> {what}", entry.request.describe())?;
            }
            outln!("{} recordings, hash {}", c.len(), c.hash())?;
        }
        Action::Merge { into, from } => {
            let target = Cassette::create(&into).map_err(|e| UsageError(e.to_string()))?;
            for dir in &from {
                let source = Cassette::open(dir).map_err(|e| UsageError(e.to_string()))?;
                let added = target
                    .merge_from(&source)
                    .map_err(|e| UsageError(e.to_string()))?;
                outln!("{}: {added} recordings added", dir.display())?;
            }
            target.sync().map_err(|e| UsageError(e.to_string()))?;
            outln!(
                "{}: {} recordings, hash {}",
                into.display(),
                target.len(),
                target.hash()
            )?;
        }
    }
    Ok(0)
}
