//! Print a saved page's title and main text as clawrun gives them to the agent.
//!
//! `cargo run --release -p clawrun-web-text --example extract -- PAGE.html URL [CONTENT-TYPE]`
//! prints the title, a blank line and the text; the time `main_text` took goes to stderr.

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(url)) = (args.next(), args.next()) else {
        return Err("usage: extract PAGE.html URL [CONTENT-TYPE]".into());
    };
    let content_type = args.next();
    let body = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
    let html = clawrun_web_text::decode(&body, content_type.as_deref());
    let start = Instant::now();
    let text = clawrun_web_text::main_text(&html, &url);
    eprintln!("main_text: {:.2} ms", start.elapsed().as_secs_f64() * 1e3);
    println!("{}\n\n{text}", clawrun_web_text::title(&html));
    Ok(())
}
