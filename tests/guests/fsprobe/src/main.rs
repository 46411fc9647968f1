//! fsprobe: exercises std::fs semantics and prints one deterministic line per
//! check. See README.md for the scenarios and the line format.
//!
//! Usage: fsprobe <root> <scenario> [arg]

mod plat;
mod scenarios;
mod util;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

type Scenario = (&'static str, fn(&Path));

/// Scenarios that run inside their own fresh subdirectory `<root>/<name>`.
const CORE: &[Scenario] = &[
    ("create", scenarios::create),
    ("rw", scenarios::rw),
    ("dirs", scenarios::dirs),
    ("stat", scenarios::stat),
    ("rename", scenarios::rename),
    ("unlink_open", scenarios::unlink_open),
    ("symlinks", scenarios::symlinks),
];

fn usage() -> ! {
    eprintln!(
        "usage: fsprobe <root> <scenario> [arg]\n  scenarios: create rw dirs stat rename unlink_open symlinks all escape readonly quota [max_mib]"
    );
    std::process::exit(2);
}

/// Make a fresh `<root>/<name>` (removing leftovers from an earlier native run).
fn fresh_subdir(root: &Path, name: &str) -> io::Result<PathBuf> {
    let d = root.join(name);
    if d.symlink_metadata().is_ok() {
        fs::remove_dir_all(&d)?;
    }
    fs::create_dir(&d)?;
    Ok(d)
}

fn run_core(root: &Path, name: &str, f: fn(&Path)) {
    util::header(name);
    match fresh_subdir(root, name) {
        Ok(d) => f(&d),
        Err(e) => {
            println!("setup: err {}", util::kind_name(&e));
            std::process::exit(1);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        usage();
    }
    let root = PathBuf::from(&args[1]);
    let scenario = args[2].as_str();
    let extra = args.get(3).map(String::as_str);

    if let Some(&(name, f)) = CORE.iter().find(|(n, _)| *n == scenario) {
        run_core(&root, name, f);
        return;
    }
    match scenario {
        "all" => {
            for &(name, f) in CORE {
                run_core(&root, name, f);
            }
        }
        "escape" => {
            util::header("escape");
            scenarios::escape(&root);
        }
        "readonly" => {
            util::header("readonly");
            scenarios::readonly(&root);
        }
        "quota" => {
            util::header("quota");
            let max = match extra.map(str::parse::<u64>) {
                None => 1024,
                Some(Ok(n)) => n,
                Some(Err(_)) => usage(),
            };
            scenarios::quota(&root, max);
        }
        _ => usage(),
    }
}
