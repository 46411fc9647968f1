//! clockrand: prints everything a host must virtualise for reproducible runs.
//!
//! Lines (in order):
//!   wall_before: <secs> <nanos>        SystemTime since UNIX_EPOCH
//!   sleep_ms: <ms>                     Instant elapsed across sleep(5 s)
//!   wall_after: <secs> <nanos>         SystemTime after the sleep
//!   wall_delta_ms: <ms>                wall_after - wall_before
//!   hashmap_order: [..]                iteration order of keys "a".."h"
//!   random_u64: [4 hex values]         RandomState-keyed hashes of 0..4
//!   argc: <n>                          args excluding argv[0]
//!   arg[i]: "<arg>"                    args excluding argv[0] (host-specific)
//!   env_count: <n>
//!   env: KEY="value"                   sorted by key
//!
//! Natively these vary run to run; under clawrun (virtual clock, seeded
//! randomness) two runs must print identical bytes, with sleep_ms and
//! wall_delta_ms both 5000 and no real 5 s wait.
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

fn main() {
    let w0 = SystemTime::now();
    println!("wall_before: {}", wall_of(w0));
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs(5));
    let el = t0.elapsed();
    let w1 = SystemTime::now();
    println!("sleep_ms: {}", el.as_millis());
    println!("wall_after: {}", wall_of(w1));
    match w1.duration_since(w0) {
        Ok(d) => println!("wall_delta_ms: {}", d.as_millis()),
        Err(_) => println!("wall_delta_ms: negative"),
    }

    let mut m = HashMap::new();
    for (i, k) in ["a", "b", "c", "d", "e", "f", "g", "h"]
        .into_iter()
        .enumerate()
    {
        m.insert(k, i);
    }
    let order: Vec<&str> = m.keys().copied().collect();
    println!("hashmap_order: [{}]", order.join(", "));

    let rs = std::hash::RandomState::new();
    let vals: Vec<String> = (0u64..4)
        .map(|i| format!("{:016x}", rs.hash_one(i)))
        .collect();
    println!("random_u64: [{}]", vals.join(", "));

    let args: Vec<String> = std::env::args().skip(1).collect();
    println!("argc: {}", args.len());
    for (i, a) in args.iter().enumerate() {
        println!("arg[{}]: {:?}", i + 1, a);
    }
    let mut env: Vec<(String, String)> = std::env::vars().collect();
    env.sort();
    println!("env_count: {}", env.len());
    for (k, v) in env {
        println!("env: {k}={v:?}");
    }
}

fn wall_of(t: SystemTime) -> String {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => format!("{} {}", d.as_secs(), d.subsec_nanos()),
        Err(_) => "before_epoch".to_string(),
    }
}
