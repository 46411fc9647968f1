//! Loads task folders of a suite and prints each one's errors and warnings:
//! `cargo run -p clawrun-task --example check_suite -- SUITE [TASK_DIR...]` (default: every
//! folder discovered under SUITE).

use clawrun_task::{Error, Suite};

fn main() {
    let root = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let suite = Suite::open(&root).unwrap_or_else(|e| panic!("{e}"));
    let (mut ok, mut failed) = (0, 0);
    let mut dirs: Vec<String> = std::env::args().skip(2).collect();
    if dirs.is_empty() {
        dirs = suite.discover().unwrap_or_else(|e| panic!("{e}"));
    }
    for dir in dirs {
        match suite.load(&dir) {
            Ok(t) => {
                ok += 1;
                let side = t
                    .sidecar
                    .as_ref()
                    .map(|s| format!("sidecar: {}", s.fields.join(", ")))
                    .unwrap_or_else(|| "no sidecar".into());
                println!("ok   {dir} ({side}; {} warnings)", t.warnings.len());
                for w in &t.warnings {
                    println!("     {w}");
                }
            }
            Err(Error::Invalid(d)) => {
                failed += 1;
                println!("FAIL {dir}");
                for d in d {
                    println!("     {d}");
                }
            }
            Err(e) => {
                failed += 1;
                println!("FAIL {dir}: {e}");
            }
        }
    }
    println!("{ok} loaded, {failed} failed");
}
