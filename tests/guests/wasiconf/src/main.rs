//! wasiconf <dir> <scenario>: WASI preview1 conformance checks made with raw
//! `wasi_snapshot_preview1` calls (what std does not expose), one line per check:
//! `name: ERRNO` or `name: value`. Only meaningful on wasm32-wasip1; elsewhere it says so.
//!
//! Scenarios (`<dir>` is a writable, empty preopened directory):
//! - `trailing`: `path_link`/`path_symlink` to a missing name with a trailing `/`;
//! - `symlink_abs`: `path_symlink` with an absolute target;
//! - `dotdot`: `..` from a subdirectory handle may not climb above that handle;
//! - `sync`: SYNC/DSYNC/RSYNC given to `path_open` come back in `fd_fdstat_get`;
//! - `poll`: a clock subscription polled with ready stdout/stderr writes does not fire;
//! - `clock`: two monotonic readings in a row differ; a 50 ms sleep lasts 50 ms by them;
//! - `write0`: a zero-length `fd_write` to a descriptor that is not open;
//! - `plant <exit> [NAME=TARGET]...`: writes `planted.txt`, creates the symlinks (printing
//!   each one's errno), then exits with `<exit>` (for write-back tests).

#[cfg(all(target_os = "wasi", target_env = "p1"))]
mod p1;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(scenario)) = (args.next(), args.next()) else {
        eprintln!("usage: wasiconf <dir> <scenario>");
        std::process::exit(2);
    };
    #[cfg(all(target_os = "wasi", target_env = "p1"))]
    p1::run(&dir, &scenario);
    #[cfg(not(all(target_os = "wasi", target_env = "p1")))]
    {
        let _ = (dir, scenario);
        println!("wasiconf: needs wasm32-wasip1");
    }
}
