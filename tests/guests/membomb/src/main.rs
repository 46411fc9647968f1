//! membomb <MiB> [abort]: allocates <MiB> MiB in one Vec and touches every page, then
//! prints `allocated N MiB`. If the allocation is refused (e.g. the host's
//! memory limit makes memory.grow fail) it prints `alloc failed N MiB` and
//! exits 2 instead of aborting; the host may also trap on its own.
use std::hint::black_box;

const MIB: usize = 1 << 20;
const PAGE: usize = 4096;

fn main() {
    let n: usize = match std::env::args().nth(1).map(|s| s.parse()) {
        Some(Ok(n)) => n,
        _ => {
            eprintln!("usage: membomb <MiB>");
            std::process::exit(2);
        }
    };
    let Some(bytes) = n.checked_mul(MIB) else {
        println!("alloc failed {n} MiB");
        std::process::exit(2);
    };
    // `membomb <MiB> abort`: allocate the way most programs do, which aborts (traps) when the
    // allocator is refused memory, instead of checking with try_reserve.
    if std::env::args().nth(2).as_deref() == Some("abort") {
        let v = black_box(vec![1u8; bytes]);
        println!("allocated {n} MiB ({} bytes)", v.len());
        return;
    }
    let mut v: Vec<u8> = Vec::new();
    if v.try_reserve_exact(bytes).is_err() {
        println!("alloc failed {n} MiB");
        std::process::exit(2);
    }
    // Touch every page (write a non-zero byte), then read them back through
    // black_box so nothing is elided.
    v.resize(bytes, 0);
    let mut i = 0;
    while i < bytes {
        v[i] = black_box(1);
        i += PAGE;
    }
    let mut sum: usize = 0;
    let mut i = 0;
    while i < bytes {
        sum += usize::from(black_box(v[i]));
        i += PAGE;
    }
    black_box(sum);
    println!("allocated {n} MiB");
}
