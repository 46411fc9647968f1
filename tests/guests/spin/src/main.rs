//! spin: prints `spinning` and then loops forever (the host must stop it via
//! fuel / epoch interruption / timeout). `black_box` keeps the loop from
//! being optimised away.
use std::hint::black_box;
use std::io::Write;

fn main() {
    println!("spinning");
    let _ = std::io::stdout().flush();
    let mut x: u64 = 0;
    loop {
        x = black_box(x.wrapping_add(1));
    }
}
