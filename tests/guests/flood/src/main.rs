//! flood <bytes>: writes that many bytes of 'x' to stdout in 64 KiB writes,
//! then prints `done` to stderr. If a write fails (e.g. the host closes or
//! caps stdout) it prints `flood: err <ErrorKind> after <N> bytes` to stderr
//! and exits 1.
use std::io::{self, Write};

const CHUNK: usize = 64 * 1024;

fn main() {
    let total: u64 = match std::env::args().nth(1).map(|s| s.parse()) {
        Some(Ok(n)) => n,
        _ => {
            eprintln!("usage: flood <bytes>");
            std::process::exit(2);
        }
    };
    let buf = vec![b'x'; CHUNK];
    let mut out = io::stdout().lock();
    let mut written: u64 = 0;
    while written < total {
        let n = (total - written).min(CHUNK as u64) as usize;
        if let Err(e) = out.write_all(&buf[..n]) {
            eprintln!("flood: err {:?} after {written} bytes", e.kind());
            std::process::exit(1);
        }
        written += n as u64;
    }
    if let Err(e) = out.flush() {
        eprintln!("flood: err {:?} after {written} bytes", e.kind());
        std::process::exit(1);
    }
    eprintln!("done");
}
