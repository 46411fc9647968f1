//! exitcode <N>: prints `exiting N` and calls std::process::exit(N).
fn main() {
    let n: i32 = match std::env::args().nth(1).map(|s| s.parse()) {
        Some(Ok(n)) => n,
        _ => {
            eprintln!("usage: exitcode <N>");
            std::process::exit(2);
        }
    };
    println!("exiting {n}");
    std::process::exit(n);
}
