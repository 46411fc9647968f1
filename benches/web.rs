//! The web layer: what a replayed `web_fetch` costs (cassette lookup with its body read and
//! hash-checked, main-text extraction, the JSON answer), against extraction alone, on the
//! largest page of the web_text corpus; and a cassette lookup of a search.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use clawrun::services::{ServiceRequest, ServiceSet, ServiceSpec, UtcInstant};
use clawrun::web::{
    Cassette, Fetched, Web, WebMode, WebOptions, WebRequest, WebResponse, WebSession,
};
use criterion::Criterion;

const PAGE: &str = include_str!("../runtime/web_text/tests/pages/real_rustc_platform_support.html");
const URL: &str = "https://doc.example/rustc/platform-support.html";

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let dir = tempfile::tempdir().unwrap();
    let rec = Cassette::create(dir.path()).unwrap();
    let page = WebRequest::fetch(URL).unwrap();
    let body = |b: &[u8], ct: &str| {
        Fetched::Response(WebResponse {
            status: 200,
            url: URL.into(),
            content_type: Some(ct.into()),
            body: Arc::from(b),
            truncated: false,
        })
    };
    rec.put(&page, &body(PAGE.as_bytes(), "text/html"), 0, 0)
        .unwrap();
    let search = WebRequest::search("rust platform support", 10);
    rec.put(
        &search,
        &body(br#"{"organic_results": []}"#, "application/json"),
        0,
        0,
    )
    .unwrap();
    drop(rec);
    let options = WebOptions {
        mode: Some(WebMode::Replay),
        cassette: Some(dir.path().to_path_buf()),
        ..WebOptions::default()
    };
    let web = Arc::new(Web::open(&options, None).unwrap());
    let timeout = Duration::from_secs(30);

    let mut g = c.benchmark_group("web");
    g.bench_function("cassette_lookup_search", |b| {
        b.iter(|| black_box(web.get(&search, timeout).unwrap()))
    });
    g.bench_function("cassette_lookup_page_95k", |b| {
        b.iter(|| black_box(web.get(&page, timeout).unwrap()))
    });
    g.bench_function("main_text_page_95k", |b| {
        b.iter(|| black_box(clawrun_web_text::main_text(PAGE, URL)))
    });
    let now = UtcInstant::from_duration(Duration::from_secs(1_767_225_600));
    let mut services = ServiceSet::load(
        dir.path(),
        &[ServiceSpec::named("web_real")],
        &Default::default(),
        now,
        cap_std::ambient_authority(),
    )
    .unwrap();
    services.attach_web(&WebSession::new(Arc::clone(&web), 7));
    let request = ServiceRequest::post("/web/fetch")
        .with_header("content-type", "application/json")
        .with_body(format!(r#"{{"url": "{URL}"}}"#));
    g.bench_function("web_fetch_replayed_page_95k", |b| {
        b.iter_batched(
            || services.fork(),
            |mut s| {
                let answer = s.route("web_real", &request, now).unwrap();
                assert_eq!(answer.status, 200);
                black_box(answer)
            },
            criterion::BatchSize::SmallInput,
        )
    });
    g.finish();
    c.final_summary();
}
