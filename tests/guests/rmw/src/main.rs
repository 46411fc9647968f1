//! rmw <dir>: read-modify-write used by benchmarks. Reads `<dir>/input.txt`,
//! ASCII-uppercases it, writes `<dir>/output.txt`, appends one line to
//! `<dir>/log.txt`, and prints `rmw: <N> bytes`. On error prints
//! `rmw: err <step> <ErrorKind>` and exits 1.
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::PathBuf;

fn fail(step: &str, e: std::io::Error) -> ! {
    println!("rmw: err {step} {:?}", e.kind());
    std::process::exit(1);
}

fn main() {
    let Some(dir) = std::env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: rmw <dir>");
        std::process::exit(2);
    };
    let input = fs::read(dir.join("input.txt")).unwrap_or_else(|e| fail("read", e));
    let output = input.to_ascii_uppercase();
    fs::write(dir.join("output.txt"), &output).unwrap_or_else(|e| fail("write", e));
    let mut log = OpenOptions::new()
        .append(true)
        .create(true)
        .open(dir.join("log.txt"))
        .unwrap_or_else(|e| fail("log_open", e));
    writeln!(log, "rmw {} bytes", output.len()).unwrap_or_else(|e| fail("log_append", e));
    println!("rmw: {} bytes", output.len());
}
