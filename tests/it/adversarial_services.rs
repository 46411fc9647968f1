//! `clawrun services` against hostile clients, black box on loopback: huge or endless bodies
//! get 413 without being buffered, error bodies do not echo big input, slow and quiet clients
//! are disconnected, extra connections wait for a free slot, and running out of file
//! descriptors does not make the accept loop spin.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::time::Duration;

/// Kills the server when the test ends, however it ends.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn task_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("third_party/claw-eval/tasks/T002_email_triage")
}

/// A port that was free a moment ago.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `command` (which must exec `clawrun services` for T002 on `port`) and waits until it
/// serves.
fn start_command(mut command: Command, port: u16) -> Server {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start clawrun services");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut seen = Vec::new();
    loop {
        let mut line = String::new();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "server exited: {seen:?}"
        );
        if line.starts_with("serving ") {
            break;
        }
        seen.push(line);
    }
    Server { child, port }
}

/// `clawrun services` for T002 (gmail) on a free port, with `extra` arguments.
fn start(extra: &[&str]) -> Server {
    let port = free_port();
    let mut command = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    command
        .args(["services", "--task"])
        .arg(task_dir())
        .args(["--port-base", &port.to_string()])
        .args(extra);
    start_command(command, port)
}

fn connect(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    // The generous bound on anything the server should do.
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s
}

/// Everything the server sends until it closes the connection (a reset ends it too).
fn read_until_closed(s: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return got,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return got,
            Err(e) => panic!(
                "the server did not close the connection: {e} (got {:?})",
                String::from_utf8_lossy(&got)
            ),
        }
    }
}

/// The status and body of a raw HTTP/1.1 response.
fn parse(response: &[u8]) -> (u16, String) {
    let text = String::from_utf8_lossy(response);
    let status = text
        .strip_prefix("HTTP/1.1 ")
        .and_then(|r| r.get(..3))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {text:?}"));
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body.to_string())
}

/// One request on its own connection: `POST path` with `content_type` and `body`.
fn post(port: u16, path: &str, content_type: &str, body: &[u8]) -> (u16, String) {
    let mut s = connect(port);
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: {content_type}\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    parse(&read_until_closed(&mut s))
}

/// The server still answers an ordinary request.
fn assert_serves(port: u16) {
    let (status, body) = post(
        port,
        "/gmail/messages",
        "application/json",
        br#"{"max_results": 1}"#,
    );
    assert_eq!(status, 200, "{body}");
}

#[test]
fn a_huge_declared_body_gets_413_unread_and_the_server_stays_up() {
    let server = start(&[]);
    let mut s = connect(server.port);
    s.write_all(
        b"POST /gmail/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100000000000\r\n\r\n{\"max_results\": ",
    )
    .unwrap();
    let (status, body) = parse(&read_until_closed(&mut s));
    assert_eq!(status, 413);
    assert_eq!(
        body,
        r#"{"detail":"Request body too large: the limit is 8388608 bytes"}"#
    );
    assert_serves(server.port);
}

#[test]
fn a_chunked_body_past_the_limit_gets_413() {
    let server = start(&[]);
    let mut s = connect(server.port);
    s.write_all(
        b"POST /gmail/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Transfer-Encoding: chunked\r\n\r\n",
    )
    .unwrap();
    // 9 MiB in 64 KiB chunks, then the last chunk; the server may stop reading at any point.
    let mut writer = s.try_clone().unwrap();
    let sender = std::thread::spawn(move || {
        let chunk = vec![b' '; 64 << 10];
        for _ in 0..144 {
            let ok = writer
                .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                .is_ok()
                && writer.write_all(&chunk).is_ok()
                && writer.write_all(b"\r\n").is_ok();
            if !ok {
                return;
            }
        }
        let _ = writer.write_all(b"0\r\n\r\n");
    });
    let (status, body) = parse(&read_until_closed(&mut s));
    sender.join().unwrap();
    assert_eq!(status, 413, "{body}");
    assert_serves(server.port);
}

#[test]
fn a_422_does_not_echo_a_big_invalid_body() {
    let server = start(&[]);
    // `message_id` is missing: FastAPI would echo the whole 1 MiB object as the input.
    let pad = "x".repeat(1 << 20);
    let (status, body) = post(
        server.port,
        "/gmail/messages/get",
        "application/json",
        format!(r#"{{"pad": "{pad}"}}"#).as_bytes(),
    );
    assert_eq!(status, 422);
    assert!(body.len() < 4096, "{} bytes echoed", body.len());
    assert!(
        body.starts_with(r#"{"detail":[{"type":"missing","loc":["body","message_id"],"msg":"Field required","input":"{\"pad\":\"xxx"#),
        "{}",
        &body[..200.min(body.len())]
    );
    assert!(
        body.ends_with(r#"... (1048586 bytes in all)"}]}"#),
        "{body}"
    );
    // Not JSON: the raw text would be the input.
    let (status, body) = post(
        server.port,
        "/gmail/messages/get",
        "text/plain",
        pad.as_bytes(),
    );
    assert_eq!(status, 422);
    assert!(body.len() < 4096, "{} bytes echoed", body.len());
    // An id that is not found is not echoed whole either.
    let (status, body) = post(
        server.port,
        "/gmail/messages/get",
        "application/json",
        format!(r#"{{"message_id": "{pad}"}}"#).as_bytes(),
    );
    assert_eq!(status, 200);
    assert!(body.len() < 4096, "{} bytes echoed", body.len());
}

#[test]
fn slow_and_quiet_clients_are_disconnected() {
    let server = start(&["--read-timeout", "1"]);
    // Slowloris: half a header, then nothing.
    let mut s = connect(server.port);
    s.write_all(b"POST /gmail/messages HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    read_until_closed(&mut s);
    // A body that stops short of its declared length.
    let mut s = connect(server.port);
    s.write_all(
        b"POST /gmail/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n{\"max_results\"",
    )
    .unwrap();
    let got = read_until_closed(&mut s);
    if !got.is_empty() {
        assert_eq!(parse(&got).0, 408);
    }
    // A keep-alive connection left idle after its answer.
    let mut s = connect(server.port);
    s.write_all(
        b"POST /gmail/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
          Content-Length: 2\r\n\r\n{}",
    )
    .unwrap();
    let (status, _) = parse(&read_until_closed(&mut s));
    assert_eq!(status, 200);
    assert_serves(server.port);
}

#[test]
fn extra_connections_wait_for_a_free_slot() {
    let server = start(&["--max-connections", "2"]);
    let first = connect(server.port);
    let _second = connect(server.port);
    let mut third = connect(server.port);
    third
        .write_all(
            b"POST /gmail/messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
              Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
        )
        .unwrap();
    // While both slots are held the third is not served...
    third.set_nonblocking(true).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let mut buf = [0u8; 64];
    match third.read(&mut buf) {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the third connection was served while both slots were held: {other:?}"),
    }
    // ...and once one closes, it is.
    drop(first);
    third.set_nonblocking(false).unwrap();
    let (status, _) = parse(&read_until_closed(&mut third));
    assert_eq!(status, 200);
}

/// User plus system CPU time of process `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

fn clock_ticks_per_second() -> u64 {
    let out = Command::new("getconf").arg("CLK_TCK").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

fn read_all(stderr: ChildStderr) -> String {
    let mut s = String::new();
    let _ = BufReader::new(stderr).read_to_string(&mut s);
    s
}

#[test]
fn out_of_file_descriptors_the_accept_loop_backs_off_and_recovers() {
    let port = free_port();
    let mut command = Command::new("sh");
    command
        .args(["-c", r#"ulimit -n 48 && exec "$0" "$@""#])
        .arg(env!("CARGO_BIN_EXE_clawrun"))
        .args(["services", "--task"])
        .arg(task_dir())
        .args(["--port-base", &port.to_string()]);
    let mut server = start_command(command, port);
    let pid = server.child.id();
    // Far more connections than the server has descriptors for: the rest wait in the backlog.
    let clients: Vec<TcpStream> = (0..150).map(|_| connect(port)).collect();
    std::thread::sleep(Duration::from_millis(500));
    // A busy loop would burn a core; backing off costs next to nothing. The bound is generous
    // (a quarter of a core), this checks for spinning, not for speed.
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(1));
    let used = cpu_ticks(pid) - before;
    assert!(
        used * 4 < clock_ticks_per_second(),
        "the server used {used} clock ticks of CPU in one second while out of descriptors"
    );
    drop(clients);
    // Once the connections are gone it answers again.
    assert_serves(port);
    let _ = server.child.kill();
    let _ = server.child.wait();
    let stderr = read_all(server.child.stderr.take().unwrap());
    assert!(
        stderr.contains("cannot accept connections: Too many open files"),
        "{stderr}"
    );
}
