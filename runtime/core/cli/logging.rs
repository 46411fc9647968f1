//! The log on stderr (tracing): warnings by default, more with `-v` (repeatable), errors only
//! with `-q`; `RUST_LOG` (or `CLAWRUN_LOG`), when set, decides instead with the usual
//! `tracing` filter syntax (`RUST_LOG=clawrun=debug,hyper=info`).

use tracing_subscriber::EnvFilter;

/// The verbosity flags every command takes.
#[derive(Debug, clap::Args)]
pub struct Verbosity {
    /// Log more on stderr: -v info, -vv debug, -vvv trace (clawrun's own crates), -vvvv
    /// everything. RUST_LOG, when set, decides instead.
    #[arg(short, long, action = clap::ArgAction::Count, global = true, help_heading = super::help::GLOBAL)]
    pub verbose: u8,
    /// Log only errors, and show no progress bar.
    #[arg(short, long, global = true, conflicts_with = "verbose", help_heading = super::help::GLOBAL)]
    pub quiet: bool,
}

/// clawrun's own crates, whose level `-v` raises.
const OWN_CRATES: &[&str] = &[
    "clawrun",
    "clawrun_vfs",
    "clawrun_hostcall",
    "clawrun_faults",
    "clawrun_web",
    "clawrun_services",
    "clawrun_task",
    "clawrun_agents",
    "clawrun_judge",
    "clawrun_report",
    "clawrun_web_text",
    "clawrun_pdf",
    "clawrun_sandbox",
    "clawrun_trial",
    "clawrun_external",
    "clawrun_run",
    "clawrun_fuzz",
    "clawrun_export",
    "clawrun_browser",
];

/// The filter the flags ask for (`RUST_LOG` aside).
pub fn directives(v: &Verbosity) -> String {
    let own = match (v.quiet, v.verbose) {
        (true, _) => return "error".into(),
        // rmcp's warnings are struct dumps of the JSON-RPC errors a server answers (an unknown
        // tool, bad params): clawrun says those in a line of its own; -v shows rmcp's.
        (false, 0) => return "warn,rmcp=error".into(),
        (false, 1) => "info",
        (false, 2) => "debug",
        (false, 3) => "trace",
        (false, _) => return "trace".into(),
    };
    let mut out = String::from("warn");
    for krate in OWN_CRATES {
        out.push_str(&format!(",{krate}={own}"));
    }
    out
}

/// Installs the stderr log.
pub fn init(v: &Verbosity) {
    let from_env = ["RUST_LOG", "CLAWRUN_LOG"]
        .into_iter()
        .find_map(|var| std::env::var(var).ok().filter(|s| !s.trim().is_empty()));
    let filter = match from_env {
        Some(text) => EnvFilter::new(text),
        None => EnvFilter::new(directives(v)),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::{Verbosity, directives};

    fn of(verbose: u8, quiet: bool) -> String {
        directives(&Verbosity { verbose, quiet })
    }

    #[test]
    fn each_v_raises_clawrun_s_own_level() {
        assert_eq!(of(0, false), "warn,rmcp=error");
        assert_eq!(of(0, true), "error");
        assert!(of(1, false).starts_with("warn,clawrun=info,"));
        assert!(of(2, false).contains(",clawrun_agents=debug"));
        assert!(of(3, false).contains(",clawrun_judge=trace"));
        assert_eq!(of(4, false), "trace");
    }

    /// Every crate of the workspace (and the pdf crate the services share with the guest
    /// tools) is one `-v` raises: a crate split off the root keeps its logs.
    #[test]
    fn every_workspace_crate_is_an_own_crate() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        let members = manifest
            .split_once("members = [")
            .and_then(|(_, rest)| rest.split_once(']'))
            .unwrap()
            .0;
        let mut folders: Vec<&str> = members
            .split(',')
            .map(|m| m.trim().trim_matches('"'))
            .filter(|m| !m.is_empty())
            .collect();
        folders.push("guest_tools/pdf");
        for folder in folders {
            let text = std::fs::read_to_string(root.join(folder).join("Cargo.toml")).unwrap();
            let name = text
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|n| n.strip_suffix('"'))
                .unwrap();
            let krate = name.replace('-', "_");
            assert!(
                super::OWN_CRATES.contains(&krate.as_str()),
                "{folder}: crate {krate} is missing from OWN_CRATES"
            );
        }
    }
}
