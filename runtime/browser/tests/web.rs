//! With a web handed in, a page's `http(s)` `GET`s are asked of it (clawrun's web layer in a
//! trial); what it does not answer stays refused, and host files stay out of reach.

mod support;

use std::sync::Mutex;

use clawrun_browser::{Capture, PageWeb, WebAnswer};
use support::{EPOCH, browser, pixels, workspace};

/// Answers one stylesheet URL; refuses everything else; keeps the URLs asked.
struct OneSheet {
    asked: Mutex<Vec<String>>,
}

impl PageWeb for OneSheet {
    fn get(&self, url: &str) -> Result<WebAnswer, String> {
        self.asked.lock().unwrap().push(url.to_string());
        if url == "https://cdn.example/site.css" {
            return Ok(WebAnswer {
                status: 200,
                content_type: "text/css".into(),
                body: b"body { background: rgb(10, 200, 30); margin: 0 }".to_vec(),
            });
        }
        Err("not in the cassette".into())
    }
}

#[test]
fn http_requests_go_to_the_web_given_and_the_rest_stays_refused() {
    let Some(browser) = browser() else { return };
    let vfs = workspace(&[(
        "page.html",
        b"<html><head><link rel=stylesheet href='https://cdn.example/site.css'>\
          <script src='http://127.0.0.1:8080/x.js'></script></head>\
          <body><img src='file:///etc/hostname'><p>styled</p></body></html>",
    )]);
    let web = OneSheet {
        asked: Mutex::new(Vec::new()),
    };
    let got = browser
        .capture_with_web(
            &vfs,
            Some(&web),
            &Capture::screenshot("file:///workspace/page.html", EPOCH, 0.0, 1),
        )
        .unwrap();
    let (_, _, px) = pixels(&got.frames[0].png);
    assert_eq!(
        &px[px.len() - 4..],
        &[10, 200, 30, 255],
        "the web's stylesheet was not used"
    );
    let asked = web.asked.lock().unwrap().clone();
    assert!(
        asked.contains(&"https://cdn.example/site.css".to_string()),
        "{asked:?}"
    );
    assert!(
        asked.contains(&"http://127.0.0.1:8080/x.js".to_string()),
        "{asked:?}"
    );
    // A host file is never asked of the web, and is refused; so is what the web refused.
    assert!(!asked.iter().any(|u| u.starts_with("file:")), "{asked:?}");
    let refused = got.refused.join("\n");
    assert!(refused.contains("file:///etc/hostname"), "{refused}");
    assert!(
        refused.contains("127.0.0.1:8080/x.js: refused by the web layer (not in the cassette)"),
        "{refused}"
    );
}
