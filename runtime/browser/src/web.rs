//! Where a page's `http`/`https` requests go: nowhere by default (refused), or to the caller's
//! web (clawrun's run-wide web layer: off, replay from a cassette, record, live behind its
//! address guard), which answers `GET`s.

/// An answer of the web to a `GET`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebAnswer {
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` (`application/octet-stream` when the server gave none).
    pub content_type: String,
    /// The body.
    pub body: Vec<u8>,
}

/// The web a page's `http(s)` requests are asked of.
pub trait PageWeb {
    /// The answer to a `GET` of `url`, or why there is none (the request is then refused).
    fn get(&self, url: &str) -> Result<WebAnswer, String>;
}
