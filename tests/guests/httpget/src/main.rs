//! httpget <METHOD> <URL> [BODY] [RETRIES]: sends one request over wasi:http and, while the
//! answer is a 5xx or a transport error, retries up to RETRIES times (default 0). Prints one
//! line per attempt (`attempt N: status S` or `attempt N: error <ErrorCode>`) and finally the
//! last body as `body: <text>`. Only meaningful on wasm32-wasip2; elsewhere it says so.

#[cfg(all(target_os = "wasi", target_env = "p2"))]
mod client;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: httpget <METHOD> <URL> [BODY] [RETRIES]");
        std::process::exit(2);
    }
    let body = args.get(2).cloned().unwrap_or_default();
    let retries: u32 = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(0);
    run(&args[0], &args[1], body.as_bytes(), retries);
}

#[cfg(all(target_os = "wasi", target_env = "p2"))]
fn run(method: &str, url: &str, body: &[u8], retries: u32) {
    let mut last = Vec::new();
    for attempt in 1..=retries + 1 {
        match client::request(method, url, body) {
            Ok((status, bytes)) => {
                println!("attempt {attempt}: status {status}");
                last = bytes;
                if status < 500 {
                    break;
                }
            }
            Err(e) => println!("attempt {attempt}: error {e}"),
        }
    }
    println!("body: {}", String::from_utf8_lossy(&last));
}

#[cfg(not(all(target_os = "wasi", target_env = "p2")))]
fn run(_: &str, _: &str, _: &[u8], _: u32) {
    println!("httpget: wasi:http needs wasm32-wasip2");
}
