//! Writes the test fixture's reports to a folder: `cargo run -p clawrun-report --example
//! fixture_report -- OUT_DIR`.

#[path = "../tests/common/mod.rs"]
mod common;

use clawrun_report::{Summary, render_html, render_json, render_markdown, render_text};

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/report-fixture".into());
    std::fs::create_dir_all(&out).unwrap();
    let s =
        Summary::from_records(common::sourced("journal.jsonl", common::records()), None).unwrap();
    let dir = std::path::Path::new(&out);
    std::fs::write(dir.join("report.txt"), render_text(&s)).unwrap();
    std::fs::write(dir.join("report.json"), render_json(&s)).unwrap();
    std::fs::write(dir.join("report.md"), render_markdown(&s)).unwrap();
    std::fs::write(dir.join("report.html"), render_html(&s, &common::views())).unwrap();
    println!("{}", render_text(&s));
}
