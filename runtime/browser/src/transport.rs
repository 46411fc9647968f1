//! The DevTools protocol over Chromium's `--remote-debugging-pipe`: JSON messages separated by
//! NUL bytes, written to the browser's fd 3 and read from its fd 4. No port is opened, so no
//! other process on the machine can reach the browser.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Instant;

use serde_json::{Value, json};

use crate::error::BrowserError;

/// Bytes of one message from the browser at most (a 1080x720 PNG in base64 is far smaller).
const MAX_MESSAGE: usize = 64 << 20;

/// One message from the browser: a command's answer or an event.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// The answer to command `id`.
    Answer {
        /// The command's id.
        id: u64,
        /// `result`, or the error's message.
        result: Result<Value, String>,
    },
    /// An event, with the session it belongs to (`None`: the browser's).
    Event {
        /// `method`.
        method: String,
        /// `params`.
        params: Value,
        /// `sessionId`.
        session: Option<String>,
    },
}

/// The writing end and the queue of what the reader thread read.
pub(crate) struct Transport {
    to_browser: std::io::PipeWriter,
    incoming: Receiver<Result<Incoming, BrowserError>>,
    next_id: u64,
}

impl Transport {
    /// Starts the reader thread over `from_browser`.
    pub(crate) fn new(to_browser: std::io::PipeWriter, from_browser: std::io::PipeReader) -> Self {
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("clawrun-browser-pipe".into())
            .spawn(move || read_loop(from_browser, tx))
            .expect("spawning the browser's reader thread");
        Transport {
            to_browser,
            incoming: rx,
            next_id: 0,
        }
    }

    /// Sends `method` with `params` (to `session`, or the browser); returns the command's id.
    pub(crate) fn send(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<u64, BrowserError> {
        self.next_id += 1;
        let mut msg = json!({"id": self.next_id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = Value::String(s.to_string());
        }
        let mut bytes =
            serde_json::to_vec(&msg).map_err(|e| BrowserError::Malformed(e.to_string()))?;
        bytes.push(0);
        self.to_browser
            .write_all(&bytes)
            .and_then(|()| self.to_browser.flush())
            .map_err(|e| BrowserError::Gone(format!("writing to its pipe: {e}")))?;
        Ok(self.next_id)
    }

    /// The next message, waiting until `deadline`; `Ok(None)` when it passed.
    pub(crate) fn next(&self, deadline: Instant) -> Result<Option<Incoming>, BrowserError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.incoming.recv_timeout(wait) {
            Ok(msg) => msg.map(Some),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => {
                Err(BrowserError::Gone("its pipe is closed".into()))
            }
        }
    }

    /// Drops every message already read (answers and events of an earlier page).
    pub(crate) fn drain(&self) {
        while self.incoming.try_recv().is_ok() {}
    }
}

/// Reads NUL-separated messages until the pipe closes, parsing each.
fn read_loop(from_browser: std::io::PipeReader, tx: Sender<Result<Incoming, BrowserError>>) {
    let mut reader = BufReader::with_capacity(1 << 20, from_browser);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = (&mut reader)
            .take(MAX_MESSAGE as u64 + 1)
            .read_until(0, &mut buf);
        match read {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => {
                let _ = tx.send(Err(BrowserError::Gone(format!("reading its pipe: {e}"))));
                return;
            }
        }
        if buf.last() != Some(&0) {
            let _ = tx.send(Err(BrowserError::Malformed(format!(
                "a message longer than {MAX_MESSAGE} bytes, or cut short"
            ))));
            return;
        }
        buf.pop();
        if tx.send(parse(&buf)).is_err() {
            return;
        }
    }
}

/// One message's JSON as an [`Incoming`].
fn parse(bytes: &[u8]) -> Result<Incoming, BrowserError> {
    let mut v: Value =
        serde_json::from_slice(bytes).map_err(|e| BrowserError::Malformed(e.to_string()))?;
    if let Some(id) = v.get("id").and_then(Value::as_u64) {
        let result = match v.get_mut("error") {
            Some(err) => Err(err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("unknown error")
                .to_string()),
            None => Ok(v.get_mut("result").map(Value::take).unwrap_or(Value::Null)),
        };
        return Ok(Incoming::Answer { id, result });
    }
    let method = v
        .get("method")
        .and_then(Value::as_str)
        .ok_or_else(|| BrowserError::Malformed("a message with neither id nor method".into()))?
        .to_string();
    Ok(Incoming::Event {
        method,
        params: v.get_mut("params").map(Value::take).unwrap_or(Value::Null),
        session: v
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}
