//! MCP over stdin and stdout (`clawrun mcp --stdio`): one JSON-RPC message per line, each at
//! most [`MAX_MESSAGE_BYTES`]. A longer line is skipped without being held in memory and
//! answered with a JSON-RPC error (Invalid Request, naming the limit; with the request's id
//! when its first [`ID_WINDOW`] bytes name one), and the session goes on. rmcp's own stdio
//! transport drops such a line without a word, leaving the client waiting.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ErrorData, NumberOrString, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest message read (rmcp's limit for stdio, 16 MiB), without its newline.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// How much of an oversized message is kept to find its request id.
pub const ID_WINDOW: usize = 64 << 10;

/// What one bounded line read gave.
enum LineRead {
    /// A whole line is in the buffer.
    Line,
    /// A line over the limit was skipped: its first bytes and its length.
    Oversized(Vec<u8>, usize),
    /// The peer closed the stream (or it failed).
    End,
}

/// An oversized line being skipped: its first [`ID_WINDOW`] bytes and its length so far.
struct Skipping {
    start: Vec<u8>,
    len: usize,
}

/// The server side of MCP over a pair of byte streams, every message bounded.
pub struct BoundedLines<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    skipping: Option<Skipping>,
    max: usize,
    write: Arc<Mutex<W>>,
}

impl<R, W> BoundedLines<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    /// Messages read from `read` (at most [`MAX_MESSAGE_BYTES`] each), written to `write`.
    pub fn new(read: R, write: W) -> Self {
        Self::with_limit(read, write, MAX_MESSAGE_BYTES)
    }

    /// As [`BoundedLines::new`], with messages of at most `max` bytes.
    pub fn with_limit(read: R, write: W, max: usize) -> Self {
        BoundedLines {
            read: BufReader::new(read),
            line: Vec::new(),
            skipping: None,
            max,
            write: Arc::new(Mutex::new(write)),
        }
    }

    /// Reads one line without holding more than `max` bytes of it. Cancel-safe: the state of
    /// a line read in part stays in `self` (each copy and its `consume` happen together).
    async fn read_line(&mut self) -> LineRead {
        loop {
            let (consumed, done) = {
                let Ok(available) = self.read.fill_buf().await else {
                    return LineRead::End;
                };
                if available.is_empty() {
                    return LineRead::End;
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let take = newline.map_or(available.len(), |i| i + 1);
                let content = take - usize::from(newline.is_some());
                if self.skipping.is_none() && self.line.len() + content > self.max {
                    let mut start = std::mem::take(&mut self.line);
                    start.truncate(ID_WINDOW);
                    let len = start.len();
                    self.skipping = Some(Skipping { start, len });
                }
                if let Some(skip) = &mut self.skipping {
                    let room = ID_WINDOW.saturating_sub(skip.start.len());
                    skip.start
                        .extend_from_slice(&available[..content.min(room)]);
                    skip.len += content;
                } else {
                    self.line.extend_from_slice(&available[..content]);
                }
                (take, newline.is_some())
            };
            self.read.consume(consumed);
            if done {
                return match self.skipping.take() {
                    Some(skip) => LineRead::Oversized(skip.start, skip.len),
                    None => LineRead::Line,
                };
            }
        }
    }

    /// Sends `message` on a task of its own, so that a cancelled `receive` cannot cut it.
    fn reply(&self, message: TxJsonRpcMessage<RoleServer>) {
        let write = self.write.clone();
        tokio::spawn(async move {
            let _ = write_message(&write, &message).await;
        });
    }
}

/// Writes `message` as one line.
async fn write_message<W: AsyncWrite + Unpin>(
    write: &Mutex<W>,
    message: &TxJsonRpcMessage<RoleServer>,
) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut write = write.lock().await;
    write.write_all(&line).await?;
    write.flush().await
}

impl<R, W> Transport<RoleServer> for BoundedLines<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move { write_message(&write, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                LineRead::End => return None,
                LineRead::Oversized(start, len) => {
                    let message = format!(
                        "clawrun: this message is {len} bytes, over the limit of {} bytes for one MCP message over stdio; it was not read. Send smaller arguments (write large content to a file with the tools instead).",
                        self.max
                    );
                    self.reply(TxJsonRpcMessage::<RoleServer>::error(
                        ErrorData::invalid_request(message, None),
                        request_id(&start),
                    ));
                }
                LineRead::Line => {
                    let line = std::mem::take(&mut self.line);
                    let text = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&line);
                    let text = text.strip_suffix(b"\r").unwrap_or(text);
                    if text.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
                        Ok(message) => return Some(message),
                        // Not JSON: no id to answer, and answering garbage can start an error
                        // storm with a peer that echoes it (rmcp and the other SDKs ignore it).
                        Err(e) if e.is_syntax() || e.is_eof() => {}
                        Err(e) => {
                            let value: serde_json::Value =
                                serde_json::from_slice(text).unwrap_or_default();
                            let notification = value
                                .get("method")
                                .and_then(serde_json::Value::as_str)
                                .is_some_and(|m| m.starts_with("notifications/"));
                            if !notification {
                                self.reply(TxJsonRpcMessage::<RoleServer>::error(
                                    ErrorData::invalid_request(
                                        format!("clawrun: not an MCP message: {e}"),
                                        None,
                                    ),
                                    request_id(text),
                                ));
                            }
                        }
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

/// The id of the JSON-RPC request that `start` (its first bytes) begins, when they name one:
/// the top-level `"id"` member, a number or a string.
pub fn request_id(start: &[u8]) -> Option<RequestId> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < start.len() {
        match start[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = string_end(start, i)?;
                if depth == 1 && &start[i + 1..end] == b"id" {
                    let mut j = skip_space(start, end + 1);
                    if start.get(j) == Some(&b':') {
                        j = skip_space(start, j + 1);
                        return id_value(start, j);
                    }
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the quote that closes the string opening at `open`.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The first index from `i` that is not JSON whitespace.
fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|b| b" \t\r\n".contains(b)) {
        i += 1;
    }
    i
}

/// A request id (a JSON string or integer) starting at `i`.
fn id_value(bytes: &[u8], i: usize) -> Option<RequestId> {
    match bytes.get(i)? {
        b'"' => {
            let end = string_end(bytes, i)?;
            let text: String = serde_json::from_slice(&bytes[i..=end]).ok()?;
            Some(NumberOrString::String(text.into()))
        }
        b'-' | b'0'..=b'9' => {
            let digits = bytes[i + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let text = std::str::from_utf8(&bytes[i..=i + digits]).ok()?;
            text.parse().ok().map(NumberOrString::Number)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_of_a_request_is_found_at_its_top_level() {
        let id = |s: &str| request_id(s.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call"#),
            Some(NumberOrString::Number(7))
        );
        assert_eq!(
            id(r#"{"params":{"id":1,"x":"\"id\":3"}, "id" : "a\"b", "#),
            Some(NumberOrString::String("a\"b".into()))
        );
        assert_eq!(id(r#"{"method":"x","params":{"id":1}"#), None);
        assert_eq!(id(r#"{"id":null}"#), None);
        assert_eq!(id(r#"{"id":"#), None);
        assert_eq!(id(""), None);
    }

    #[tokio::test]
    async fn an_oversized_message_is_answered_and_the_next_one_read() {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let (read, write) = tokio::io::split(server);
        let mut lines = BoundedLines::with_limit(read, write, 1000);
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"tools/call\",\"params\":{{\"x\":\"{}\"}}}}\n",
            "a".repeat(5000)
        );
        let small = "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"ping\"}\n";
        let sender = tokio::spawn(async move {
            client.write_all(big.as_bytes()).await.unwrap();
            client.write_all(small.as_bytes()).await.unwrap();
            let mut reply = vec![0u8; 4096];
            let mut got = Vec::new();
            while !got.contains(&b'\n') {
                let n = tokio::io::AsyncReadExt::read(&mut client, &mut reply)
                    .await
                    .unwrap();
                got.extend_from_slice(&reply[..n]);
            }
            String::from_utf8(got).unwrap()
        });
        let next = lines.receive().await.unwrap();
        let text = serde_json::to_string(&next).unwrap();
        assert!(text.contains("\"id\":42"), "{text}");
        let reply = sender.await.unwrap();
        let reply: serde_json::Value = serde_json::from_str(reply.trim()).unwrap();
        assert_eq!(reply["id"], 41, "{reply}");
        assert_eq!(reply["error"]["code"], -32600, "{reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("over the limit of 1000 bytes"),
            "{message}"
        );
        assert!(lines.line.capacity() <= 1000 + (1 << 16), "bounded buffer");
    }
}
