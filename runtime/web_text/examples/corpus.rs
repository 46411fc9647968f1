//! Write clawrun's text for every test page, for comparing with trafilatura's (tests/compare.py).
//!
//! `cargo run --release -p clawrun-web-text --example corpus -- OUT_DIR` writes
//! `OUT_DIR/<page>.clawrun.txt` for each page in tests/pages/pages.tsv and prints how long
//! `main_text` takes on each (median of 20 runs).

use std::path::{Path, PathBuf};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: corpus OUT_DIR (the folder for <page>.clawrun.txt)")?,
    );
    std::fs::create_dir_all(&out)?;
    let pages = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pages");
    let list = std::fs::read_to_string(pages.join("pages.tsv"))?;
    for line in list
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (name, url) = line
            .split_once('\t')
            .ok_or_else(|| format!("pages.tsv: `{line}` is not `page<TAB>url`"))?;
        let html = clawrun_web_text::decode(&std::fs::read(pages.join(name))?, None);
        let text = clawrun_web_text::main_text(&html, url);
        let mut times: Vec<f64> = (0..20)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(clawrun_web_text::main_text(&html, url));
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        times.sort_by(f64::total_cmp);
        println!(
            "{name}: {} KB html, {} chars text, {:.2} ms median",
            html.len() / 1024,
            text.chars().count(),
            times[times.len() / 2]
        );
        std::fs::write(out.join(format!("{name}.clawrun.txt")), text)?;
    }
    Ok(())
}
