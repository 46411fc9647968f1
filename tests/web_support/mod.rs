//! A small HTTP/1.1 server on loopback for the web tests: a search API in the shape of the
//! ScraperAPI-compatible Google results endpoint, and pages. It records every request line
//! and stops when dropped.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// An answer: status, content type, body; `location` for redirects.
pub struct Page {
    /// HTTP status.
    pub status: u16,
    /// Content-Type.
    pub content_type: &'static str,
    /// Body.
    pub body: Vec<u8>,
    /// `Location` header.
    pub location: Option<String>,
}

impl Page {
    /// A 200 answer.
    pub fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Page {
            status: 200,
            content_type,
            body: body.into(),
            location: None,
        }
    }
}

type Handler = dyn Fn(&str, u16) -> Page + Send + Sync;

/// A running server.
pub struct Server {
    port: u16,
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Vec<String>>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Serves `handler(path_and_query, own_port)` on 127.0.0.1.
    pub fn start(handler: impl Fn(&str, u16) -> Page + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let (s, q) = (stop.clone(), seen.clone());
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if s.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (h, q) = (handler.clone(), q.clone());
                std::thread::spawn(move || serve(conn, &*h, &q, port));
            }
        });
        Server {
            port,
            stop,
            seen,
            thread: Some(thread),
        }
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The request targets seen so far (`GET /path?query`).
    pub fn seen(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn serve(conn: TcpStream, handler: &Handler, seen: &Mutex<Vec<String>>, port: u16) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    seen.lock().unwrap().push(format!("{method} {target}"));
    let page = handler(&target, port);
    let mut head = format!(
        "HTTP/1.1 {} X\r\ncontent-type: {}\r\ncontent-length: {}\r\nconnection: close\r\n",
        page.status,
        page.content_type,
        page.body.len()
    );
    if let Some(l) = &page.location {
        head.push_str(&format!("location: {l}\r\n"));
    }
    head.push_str("\r\n");
    let mut conn = conn;
    let _ = conn.write_all(head.as_bytes());
    if method != "HEAD" {
        let _ = conn.write_all(&page.body);
    }
}

/// A port nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}
