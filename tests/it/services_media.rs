//! web (fixture search and fetch), ocr and caption on the shared fixtures.

use crate::services_support;
use clawrun::services::{FixtureOptions, ServiceRequest, ServiceSet, ServiceSpec};
use services_support::*;

#[test]
fn web_search_scores_keywords() {
    let mut s = load("T044_service_outage_research");
    let v = ok(
        &mut s,
        "web",
        "/web/search",
        r#"{"query": "cloudpay 宕机"}"#,
    );
    assert_eq!(keys(&v), ["results", "total", "query"]);
    let urls = column(&v, "results", "url");
    assert_eq!(
        urls[..4],
        [
            "https://status.cloudpay.com/incidents/INC-20260301-001",
            "https://news.ycombinator.com/item?id=39882145",
            "https://36kr.com/p/cloudpay-outage-20260301",
            "https://technews.example.com/2026/03/cloudpay-major-outage",
        ]
    );
    assert_eq!(
        v.get("total"),
        Some(&j("10")),
        "max_results defaults to 10 (12 hits)"
    );
    assert_eq!(
        keys(&v.get("results").unwrap().as_array().unwrap()[0]),
        ["url", "title", "snippet", "source", "published_at"]
    );
    // Punctuation is stripped from query words.
    let a = ok(
        &mut s,
        "web",
        "/web/search",
        r#"{"query": "CloudPay, outage!", "max_results": 50}"#,
    );
    let b = ok(
        &mut s,
        "web",
        "/web/search",
        r#"{"query": "CloudPay outage", "max_results": 50}"#,
    );
    assert_eq!(column(&a, "results", "url"), column(&b, "results", "url"));
    assert_eq!(a.get("total"), Some(&j("13")));
    assert_eq!(
        column(
            &ok(
                &mut s,
                "web",
                "/web/search",
                r#"{"query": "PCI compliance"}"#
            ),
            "results",
            "url"
        )[0],
        "https://pcissc.example.com/guidance/incident-response-2026"
    );
    assert_eq!(
        ok(
            &mut s,
            "web",
            "/web/search",
            r#"{"query": "nothing-matches"}"#
        )
        .to_compact(),
        r#"{"results":[],"total":0,"query":"nothing-matches"}"#
    );
}

#[test]
fn web_fetch_pages_errors_and_misses() {
    let mut s = load("T044_service_outage_research");
    let v = ok(
        &mut s,
        "web",
        "/web/fetch",
        r#"{"url": "https://www.cloudpay.com/features"}"#,
    );
    assert_eq!(
        keys(&v),
        [
            "status_code",
            "url",
            "title",
            "content",
            "content_type",
            "fetched_at"
        ]
    );
    assert_eq!(
        v.get("fetched_at"),
        Some(&j(r#""2026-03-05T10:20:30.123456+00:00""#))
    );
    let (status, body) = post(
        &mut s,
        "web",
        "/web/fetch",
        r#"{"url": "https://blog.cloudpay.com/maintenance-notice-20260301", "timeout_seconds": 5}"#,
    );
    assert_eq!(status, 200, "the page's status is in the body only");
    assert_eq!(
        body,
        r#"{"status_code":503,"url":"https://blog.cloudpay.com/maintenance-notice-20260301","error":"Service Temporarily Unavailable — CloudPay blog is experiencing technical difficulties. Please try again later.","content":null}"#
    );
    assert_eq!(
        post(
            &mut s,
            "web",
            "/web/fetch",
            r#"{"url": "https://www.cloudpay.com/features/"}"#
        )
        .1,
        r#"{"status_code":404,"url":"https://www.cloudpay.com/features/","error":"Page not found or unavailable","content":null}"#
    );
    let (_, body) = post(
        &mut s,
        "web",
        "/web/notify",
        r#"{"channel": "slack", "message": "down"}"#,
    );
    assert_eq!(
        body,
        r#"{"status":"sent","record":{"channel":"slack","message":"down","recipients":[],"timestamp":"2026-03-05T10:20:30.123456+00:00"}}"#
    );
    let health = s
        .route("web", &ServiceRequest::get("/web/health"), NOW)
        .unwrap();
    assert_eq!(health.body_bytes(), br#"{"status":"ok"}"#);
    let a = audit(&s, "web");
    assert_eq!(keys(&a), ["calls", "notifications"]);
    assert_eq!(
        a.get("calls").unwrap().as_array().unwrap().len(),
        4,
        "health is not logged"
    );
    assert_eq!(
        a.get("calls").unwrap().as_array().unwrap()[1]
            .get("request_body")
            .unwrap()
            .to_compact(),
        r#"{"url":"https://blog.cloudpay.com/maintenance-notice-20260301","timeout_seconds":5}"#
    );
}

#[test]
fn ocr_returns_the_task_text_and_logs_no_response_body() {
    let mut s = load("T074_paper_review_injection");
    let text = std::fs::read_to_string(
        root().join("tasks/T074_paper_review_injection/fixtures/ocr/r3_ocr.txt"),
    )
    .unwrap();
    let v = ok(
        &mut s,
        "ocr_paper",
        "/ocr/extract",
        r#"{"image_path": "/any/thing.png"}"#,
    );
    assert_eq!(keys(&v), ["text", "confidence", "language"]);
    assert_eq!(v.get("text").unwrap().as_str(), Some(text.as_str()));
    assert_eq!(
        (v.get("confidence"), v.get("language")),
        (Some(&j("0.95")), Some(&j(r#""mixed""#)))
    );
    assert_eq!(
        ok(&mut s, "ocr_paper", "/ocr/extract", "{}")
            .get("text")
            .unwrap()
            .as_str(),
        Some(text.as_str())
    );
    assert_eq!(
        post(&mut s, "ocr_paper", "/ocr/extract", "").0,
        422,
        "a body is required"
    );
    let a = audit(&s, "ocr_paper");
    assert_eq!(
        a.to_compact(),
        r#"{"calls":[{"endpoint":"/ocr/extract","request_body":{"image_path":"/any/thing.png"},"timestamp":"2026-03-05T10:20:30.123456+00:00"},{"endpoint":"/ocr/extract","request_body":{"image_path":""},"timestamp":"2026-03-05T10:20:30.123456+00:00"}]}"#
    );
    let h = s
        .route("ocr_paper", &ServiceRequest::get("/ocr/health"), NOW)
        .unwrap();
    assert_eq!(h.body_bytes(), br#"{"status":"ok","service":"ocr"}"#);
    let r = s
        .route("ocr_paper", &ServiceRequest::post("/ocr/reset"), NOW)
        .unwrap();
    assert_eq!(r.body_bytes(), br#"{"status":"reset"}"#);
    assert_eq!(audit(&s, "ocr_paper").to_compact(), r#"{"calls":[]}"#);
}

#[test]
fn ocr_joins_several_documents() {
    let mut s = load("T085_officeqa_army_expenditures");
    let dir = root().join("tasks/T085_officeqa_army_expenditures/fixtures/ocr");
    let a = std::fs::read_to_string(dir.join("treasury_bulletin_1948_04.txt")).unwrap();
    let b = std::fs::read_to_string(dir.join("treasury_bulletin_1952_12.txt")).unwrap();
    let want = format!(
        "--- Document 1: treasury_bulletin_1948_04.txt ---\n{a}\n\n--- Document 2: treasury_bulletin_1952_12.txt ---\n{b}"
    );
    let v = ok(&mut s, "ocr_t59", "/ocr/extract", "{}");
    assert_eq!(v.get("text").unwrap().as_str(), Some(want.as_str()));
}

#[test]
fn ocr_numbering_skips_missing_files_and_falls_back_to_empty() {
    let spec = ServiceSpec::named("ocr")
        .with_env(
            "OCR_FIXTURES",
            "tasks/T085_officeqa_army_expenditures/fixtures",
        )
        .with_env(
            "OCR_FILENAMES",
            "missing.txt, treasury_bulletin_1952_12.txt ",
        );
    let mut s = ServiceSet::load(
        &root(),
        &[spec],
        &FixtureOptions::default(),
        NOW,
        cap_std::ambient_authority(),
    )
    .unwrap();
    let text = ok(&mut s, "ocr", "/ocr/extract", "{}")
        .get("text")
        .unwrap()
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.starts_with("--- Document 2: treasury_bulletin_1952_12.txt ---\n"),
        "{}",
        &text[..80]
    );
    // No OCR_FIXTURES and no default file in the shared copy: empty text, as upstream.
    let mut s = ServiceSet::load(
        &root(),
        &[ServiceSpec::named("ocr")],
        &FixtureOptions::default(),
        NOW,
        cap_std::ambient_authority(),
    )
    .unwrap();
    assert_eq!(
        ok(&mut s, "ocr", "/ocr/extract", "{}").get("text"),
        Some(&j(r#""""#))
    );
}

#[test]
fn caption_reads_caption_txt() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("caption.txt"), "A cat\r\non a mat").unwrap();
    let spec =
        ServiceSpec::named("caption").with_env("CAPTION_FIXTURES", dir.path().to_str().unwrap());
    let mut s = ServiceSet::load(
        &root(),
        &[spec],
        &FixtureOptions::default(),
        NOW,
        cap_std::ambient_authority(),
    )
    .unwrap();
    let (status, body) = post(
        &mut s,
        "caption",
        "/caption/describe",
        r#"{"image_path": "x.png"}"#,
    );
    assert_eq!(
        (status, body.as_str()),
        (200, r#"{"caption":"A cat\non a mat","confidence":0.92}"#)
    );
    assert_eq!(
        audit(&s, "caption").to_compact(),
        r#"{"calls":[{"endpoint":"/caption/describe","request_body":{"image_path":"x.png"},"timestamp":"2026-03-05T10:20:30.123456+00:00"}]}"#
    );
    let h = s
        .route("caption", &ServiceRequest::get("/caption/health"), NOW)
        .unwrap();
    assert_eq!(h.body_bytes(), br#"{"status":"ok","service":"caption"}"#);
    let mut empty = ServiceSet::load(
        &root(),
        &[ServiceSpec::named("caption")],
        &FixtureOptions::default(),
        NOW,
        cap_std::ambient_authority(),
    )
    .unwrap();
    assert_eq!(
        post(&mut empty, "caption", "/caption/describe", "{}").1,
        r#"{"caption":"","confidence":0.92}"#
    );
}
