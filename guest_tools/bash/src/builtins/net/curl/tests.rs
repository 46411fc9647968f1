//! curl against a fake transport: requests it builds, bytes it writes, codes it exits with.

use std::collections::BTreeMap;
use std::time::Duration;

use super::*;
use crate::builtins::net::Request;
use crate::io::{Input, Stream};

/// Answers like a small service at `svc.local` (and `localhost:9100`); every other host is
/// unknown. Records what it was sent.
struct Fake {
    seen: Vec<Request>,
}

fn json(status: u16, body: &str) -> Response {
    Response {
        status,
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("content-length".into(), body.len().to_string()),
        ],
        body: body.as_bytes().to_vec(),
    }
}

fn redirect(status: u16, to: &str) -> Response {
    Response {
        status,
        headers: vec![
            ("location".into(), to.into()),
            ("content-length".into(), "0".into()),
        ],
        body: Vec::new(),
    }
}

impl Transport for Fake {
    fn send(&mut self, request: &Request) -> Result<Response, NetError> {
        self.seen.push(request.clone());
        let authority = request.url.authority();
        if authority != "svc.local" && authority != "localhost:9100" {
            return Err(NetError::Resolve);
        }
        let path = request.url.path.as_str();
        Ok(match path {
            "/json" => json(200, r#"{"ok":true}"#),
            "/echo" => json(
                200,
                &format!(
                    r#"{{"method":"{}","query":"{}","body":"{}"}}"#,
                    request.method,
                    request.url.query.clone().unwrap_or_default(),
                    String::from_utf8_lossy(&request.body)
                ),
            ),
            "/bytes" => Response {
                status: 200,
                headers: vec![("content-type".into(), "application/octet-stream".into())],
                body: (0..=255u8).collect(),
            },
            "/missing" => json(404, r#"{"error":"not found"}"#),
            "/redir" => redirect(302, "/echo"),
            "/keep" => redirect(307, "/echo"),
            "/loop" => redirect(302, "/loop"),
            "/slow" => return Err(NetError::Timeout),
            "/reset" => return Err(NetError::Reset),
            "/flaky" => {
                let attempts = self.seen.iter().filter(|r| r.url.path == "/flaky").count();
                if attempts < 3 {
                    json(503, "busy")
                } else {
                    json(200, "fine")
                }
            }
            "/files/report.pdf" => Response {
                status: 200,
                headers: vec![("content-type".into(), "application/pdf".into())],
                body: b"%PDF-1.4 fake".to_vec(),
            },
            "/cut" => Response {
                status: 200,
                headers: vec![
                    ("content-length".into(), "4".into()),
                    ("x-clawrun-web".into(), "truncated".into()),
                ],
                body: b"star".to_vec(),
            },
            "/download" => Response {
                status: 200,
                headers: vec![(
                    "content-disposition".into(),
                    "attachment; filename=\"../paper.pdf\"".into(),
                )],
                body: b"paper".to_vec(),
            },
            _ => json(404, "{}"),
        })
    }

    fn stopwatch(&self) -> Stopwatch {
        Stopwatch(None)
    }

    fn pause(&mut self, _: Duration) {}
}

struct Run {
    stdout: Vec<u8>,
    stderr: String,
    code: i32,
    seen: Vec<Request>,
    dir: tempfile::TempDir,
}

impl Run {
    fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    fn file(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.dir.path().join(name)).unwrap()
    }
}

/// Runs curl in `dir` with stdout and stderr as given.
fn run_with(dir: &tempfile::TempDir, args: &[&str], io: &Io) -> (i32, Vec<Request>) {
    let mut sh = Shell::new(&dir.path().to_string_lossy(), &BTreeMap::new());
    let mut argv = vec!["curl".to_string()];
    argv.extend(args.iter().map(|s| s.to_string()));
    let mut fake = Fake { seen: Vec::new() };
    let code = run(&mut sh, &argv, io, &mut fake);
    (code, fake.seen)
}

fn curl_in(dir: tempfile::TempDir, args: &[&str], stdin: &[u8]) -> Run {
    let io = Io {
        stdin: Input::from_bytes(stdin.to_vec()),
        stdout: Stream::buffer(),
        stderr: Stream::buffer(),
    };
    let (code, seen) = run_with(&dir, args, &io);
    Run {
        stdout: io.stdout.take(),
        stderr: String::from_utf8_lossy(&io.stderr.take()).into_owned(),
        code,
        seen,
        dir,
    }
}

fn curl(args: &[&str]) -> Run {
    curl_in(tempfile::tempdir().unwrap(), args, b"")
}

/// stdout and stderr in the order written (what the model reads), and the exit code.
fn curl_terminal(args: &[&str]) -> (String, i32) {
    let dir = tempfile::tempdir().unwrap();
    let term = Stream::buffer();
    let io = Io {
        stdin: Input::empty(),
        stdout: term.clone(),
        stderr: term.clone(),
    };
    let (code, _) = run_with(&dir, args, &io);
    (String::from_utf8_lossy(&term.take()).into_owned(), code)
}

const METER_HEAD: &str = "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n";
const METER_ZERO: &str =
    "\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0";

fn header(r: &Request, name: &str) -> Option<String> {
    r.headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.clone())
}

#[test]
fn a_body_the_web_cut_is_written_and_curl_fails_with_63_saying_so() {
    let r = curl(&["-sS", "-o", "out.bin", "http://svc.local/cut"]);
    assert_eq!(r.code, 63, "{}", r.stderr);
    assert_eq!(r.file("out.bin"), b"star");
    assert!(
        r.stderr
            .contains("curl: (63) Maximum file size exceeded: the web keeps the first 4 bytes"),
        "{}",
        r.stderr
    );
    let silent = curl(&["-s", "http://svc.local/cut"]);
    assert_eq!(
        (silent.out().as_str(), silent.code, silent.stderr.as_str()),
        ("star", 63, "")
    );
}

#[test]
fn get_prints_the_body_and_sends_curls_headers() {
    let r = curl(&["-s", "http://svc.local/json"]);
    assert_eq!((r.out().as_str(), r.code), (r#"{"ok":true}"#, 0));
    assert_eq!(r.stderr, "");
    let req = &r.seen[0];
    assert_eq!(req.method, "GET");
    assert_eq!(req.url.authority(), "svc.local");
    assert_eq!(
        req.headers,
        [
            ("User-Agent".to_string(), "curl/7.88.1".to_string()),
            ("Accept".to_string(), "*/*".to_string())
        ]
    );
    assert!(req.body.is_empty());
}

#[test]
fn without_scheme_the_url_is_http() {
    let r = curl(&["-s", "localhost:9100/json"]);
    assert_eq!(r.out(), r#"{"ok":true}"#);
    assert_eq!(r.seen[0].url.scheme, "http");
}

#[test]
fn the_progress_meter_goes_to_stderr_before_the_body() {
    let (text, code) = curl_terminal(&["http://svc.local/json"]);
    assert_eq!(code, 0);
    assert_eq!(
        text,
        format!(
            "{METER_HEAD}{METER_ZERO}\r100    11  100    11    0     0  11000      0 --:--:-- --:--:-- --:--:-- 11000\n{{\"ok\":true}}"
        )
    );
}

#[test]
fn post_data_forms_and_json() {
    let r = curl(&["-s", "-d", "a=1", "-d", "b=2", "http://svc.local/echo"]);
    let req = &r.seen[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.body, b"a=1&b=2");
    assert_eq!(
        header(req, "content-type").unwrap(),
        "application/x-www-form-urlencoded"
    );
    assert_eq!(header(req, "content-length").unwrap(), "7");

    let r = curl(&["-s", "--json", r#"{"to":"a@b.c"}"#, "http://svc.local/echo"]);
    let req = &r.seen[0];
    assert_eq!(req.method, "POST");
    assert_eq!(
        req.headers
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>(),
        ["User-Agent", "Content-Type", "Accept", "Content-Length"]
    );
    assert_eq!(header(req, "accept").unwrap(), "application/json");
    assert_eq!(header(req, "content-type").unwrap(), "application/json");

    let r = curl_in(
        tempfile::tempdir().unwrap(),
        &[
            "-s",
            "-X",
            "PATCH",
            "-H",
            "Content-Type: text/plain",
            "-H",
            "Accept:",
            "-H",
            "X-Empty;",
            "--data-binary",
            "@-",
            "http://svc.local/echo",
        ],
        b"line\n",
    );
    let req = &r.seen[0];
    assert_eq!(req.method, "PATCH");
    assert_eq!(req.body, b"line\n");
    assert_eq!(header(req, "content-type").unwrap(), "text/plain");
    assert_eq!(header(req, "accept"), None);
    assert_eq!(header(req, "x-empty").unwrap(), "");
}

#[test]
fn get_moves_data_into_the_query_and_head_sends_head() {
    let r = curl(&[
        "-s",
        "-G",
        "-d",
        "q=1",
        "--data-urlencode",
        "s=a b",
        "http://svc.local/echo?x=0",
    ]);
    assert_eq!(r.seen[0].method, "GET");
    assert_eq!(r.seen[0].url.path_and_query(), "/echo?x=0&q=1&s=a+b");
    assert!(r.seen[0].body.is_empty());

    let r = curl(&["-sI", "http://svc.local/json"]);
    assert_eq!(r.seen[0].method, "HEAD");
    assert_eq!(
        r.out(),
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"
    );
}

#[test]
fn output_files_are_binary_exact() {
    let r = curl(&["-s", "-o", "data.bin", "http://svc.local/bytes"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.is_empty());
    assert_eq!(r.file("data.bin"), (0..=255u8).collect::<Vec<_>>());

    let r = curl(&["-s", "http://svc.local/bytes"]);
    assert_eq!(r.stdout, (0..=255u8).collect::<Vec<_>>());

    let r = curl(&["-sO", "http://svc.local/files/report.pdf"]);
    assert_eq!(r.file("report.pdf"), b"%PDF-1.4 fake");

    let r = curl(&["-sOJ", "http://svc.local/download"]);
    assert_eq!(r.file("paper.pdf"), b"paper");

    let r = curl(&[
        "-s",
        "--create-dirs",
        "-o",
        "a/b/c.json",
        "http://svc.local/json",
    ]);
    assert_eq!(r.file("a/b/c.json"), br#"{"ok":true}"#);
}

#[test]
fn output_failures_exit_23() {
    let r = curl(&["-sS", "-o", "no/such/dir/x", "http://svc.local/json"]);
    assert_eq!(r.code, 23);
    assert_eq!(
        r.stderr,
        "curl: (23) Failure writing output to destination\n"
    );
    let r = curl(&[
        "-S",
        "--no-progress-meter",
        "-o",
        "no/such/dir/x",
        "http://svc.local/json",
    ]);
    assert!(
        r.stderr.starts_with("Warning: Failed to open the file "),
        "{}",
        r.stderr
    );
    assert!(r.stderr.ends_with("/no/such/dir/x: No such file or directory\ncurl: (23) Failure writing output to destination\n"), "{}", r.stderr);

    let r = curl(&["-O", "--no-progress-meter", "http://svc.local/"]);
    assert_eq!(r.code, 23);
    assert_eq!(
        r.stderr,
        "curl: Remote file name has no length!\ncurl: (23) Failed writing received data to disk/application\n"
    );
}

#[test]
fn write_out_and_fail() {
    let r = curl(&[
        "-s",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "http://svc.local/missing",
    ]);
    assert_eq!((r.out().as_str(), r.code), ("404", 0));

    let r = curl(&["-sS", "-f", "http://svc.local/missing"]);
    assert_eq!(r.code, 22);
    assert_eq!(r.out(), "");
    assert_eq!(
        r.stderr,
        "curl: (22) The requested URL returned error: 404\n"
    );

    let r = curl(&["-sf", "http://svc.local/missing"]);
    assert_eq!((r.code, r.stderr.as_str()), (22, ""));

    let r = curl(&["-s", "--fail-with-body", "http://svc.local/missing"]);
    assert_eq!((r.code, r.out().as_str()), (22, r#"{"error":"not found"}"#));

    let (text, code) = curl_terminal(&["-f", "http://svc.local/missing"]);
    assert_eq!(code, 22);
    assert_eq!(
        text,
        format!(
            "{METER_HEAD}{METER_ZERO}\r  0    21    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0\ncurl: (22) The requested URL returned error: 404\n"
        )
    );
}

#[test]
fn unknown_hosts_are_curls_exit_6_and_addresses_exit_7() {
    let r = curl(&["-sS", "http://nowhere.example/x"]);
    assert_eq!(r.code, 6);
    assert_eq!(
        r.stderr,
        "curl: (6) Could not resolve host: nowhere.example\n"
    );
    let (text, _) = curl_terminal(&["https://nowhere.example/"]);
    assert_eq!(
        text,
        format!("{METER_HEAD}{METER_ZERO}curl: (6) Could not resolve host: nowhere.example\n")
    );
    let (text, _) = curl_terminal(&["http://127.0.0.1:1/"]);
    assert_eq!(
        text,
        format!(
            "{METER_HEAD}{METER_ZERO}{METER_ZERO}\ncurl: (7) Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server\n"
        )
    );
    let r = curl(&["-sS", "http://localhost:1/", "-w", "%{http_code}"]);
    assert_eq!(r.code, 7);
    assert_eq!(
        r.stderr,
        "curl: (7) Failed to connect to localhost port 1 after 0 ms: Couldn't connect to server\n"
    );
    assert_eq!(r.out(), "000");
    assert_eq!(curl(&["-s", "http://nowhere.example/"]).stderr, "");
}

#[test]
fn transport_failures_map_to_curl_codes() {
    let r = curl(&["-sS", "-m", "2", "http://svc.local/slow"]);
    assert_eq!(r.code, 28);
    assert_eq!(
        r.stderr,
        "curl: (28) Operation timed out after 2000 milliseconds with 0 bytes received\n"
    );
    assert_eq!(r.seen[0].timeout, Some(Duration::from_secs(2)));
    let r = curl(&["-sS", "http://svc.local/reset"]);
    assert_eq!(r.code, 56);
}

#[test]
fn redirects_are_followed_with_location_only() {
    let r = curl(&[
        "-s",
        "-w",
        "|%{http_code} %{redirect_url}",
        "http://svc.local/redir",
    ]);
    assert_eq!(r.out(), "|302 http://svc.local/echo");
    assert_eq!(r.seen.len(), 1);

    let r = curl(&[
        "-sL",
        "-d",
        "x=1",
        "-w",
        "|%{num_redirects} %{url_effective}",
        "http://svc.local/redir",
    ]);
    assert_eq!(
        r.out(),
        r#"{"method":"GET","query":"","body":""}|1 http://svc.local/echo"#
    );
    let r = curl(&["-sL", "-d", "x=1", "http://svc.local/keep"]);
    assert_eq!(r.out(), r#"{"method":"POST","query":"","body":"x=1"}"#);

    let r = curl(&["-sSL", "--max-redirs", "3", "http://svc.local/loop"]);
    assert_eq!(r.code, 47);
    assert_eq!(r.seen.len(), 4);
    assert_eq!(r.stderr, "curl: (47) Maximum (3) redirects followed\n");

    let r = curl(&["-sSiL", "http://svc.local/redir"]);
    assert!(
        r.out().starts_with(
            "HTTP/1.1 302 Found\r\nLocation: /echo\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\n"
        ),
        "{}",
        r.out()
    );
}

#[test]
fn several_urls_exit_with_the_last_result_and_flush_per_transfer() {
    let r = curl(&[
        "-sS",
        "http://svc.local/json",
        "http://nowhere.example/",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(r.code, 6);
    let r = curl(&["-sS", "http://nowhere.example/", "http://svc.local/json"]);
    assert_eq!((r.code, r.out().as_str()), (0, r#"{"ok":true}"#));
    let (text, _) = curl_terminal(&[
        "-sSf",
        "http://svc.local/json",
        "http://svc.local/missing",
        "-w",
        "[%{http_code}]",
    ]);
    assert_eq!(
        text,
        "{\"ok\":true}curl: (22) The requested URL returned error: 404\n[200][404]"
    );
    let r = curl(&[
        "-sS",
        "--fail-early",
        "-f",
        "http://svc.local/missing",
        "http://svc.local/json",
    ]);
    assert_eq!((r.code, r.seen.len()), (22, 1));
}

#[test]
fn command_line_and_url_errors() {
    let r = curl(&[]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "curl: try 'curl --help' or 'curl --manual' for more information\n"
    );
    let r = curl(&["-s"]);
    assert_eq!(
        r.stderr,
        "curl: no URL specified!\ncurl: try 'curl --help' or 'curl --manual' for more information\n"
    );
    let r = curl(&["--frobnicate", "http://svc.local/"]);
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "curl: option --frobnicate: is unknown\ncurl: try 'curl --help' or 'curl --manual' for more information\n"
    );
    let r = curl(&["-sS", "http://"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (3, "curl: (3) URL using bad/illegal format or missing URL\n")
    );
    let r = curl(&["-sS", "ftp://svc.local/x"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "curl: (1) Protocol \"ftp\" not supported or disabled in libcurl\n"
        )
    );
    let r = curl(&["-sI", "-d", "a", "http://svc.local/"]);
    assert_eq!((r.code, r.seen.len()), (2, 0));
    assert!(
        curl(&["--help"])
            .out()
            .starts_with("Usage: curl [options...] <url>\n")
    );
    assert!(curl(&["-V"]).out().starts_with("curl 7.88.1 "));
}

#[test]
fn auth_cookies_agent_and_range_headers() {
    let r = curl(&[
        "-s",
        "-u",
        "u:p",
        "-A",
        "agent/1",
        "-e",
        "http://ref/",
        "-b",
        "a=1",
        "-r",
        "0-9",
        "http://svc.local/json",
    ]);
    let req = &r.seen[0];
    assert_eq!(header(req, "authorization").unwrap(), "Basic dTpw");
    assert_eq!(header(req, "user-agent").unwrap(), "agent/1");
    assert_eq!(header(req, "referer").unwrap(), "http://ref/");
    assert_eq!(header(req, "cookie").unwrap(), "a=1");
    assert_eq!(header(req, "range").unwrap(), "bytes=0-9");
    let r = curl(&["-s", "--oauth2-bearer", "tok", "http://svc.local/json"]);
    assert_eq!(header(&r.seen[0], "authorization").unwrap(), "Bearer tok");
}

#[test]
fn uploads_and_multipart() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let r = curl_in(dir, &["-s", "-T", "notes.txt", "http://svc.local/up/"], b"");
    assert_eq!(r.seen[0].method, "PUT");
    assert_eq!(r.seen[0].url.path, "/up/notes.txt");
    assert_eq!(r.seen[0].body, b"hello");

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let r = curl_in(
        dir,
        &[
            "-s",
            "-F",
            "f=@notes.txt",
            "-F",
            "k=v",
            "http://svc.local/echo",
        ],
        b"",
    );
    let req = &r.seen[0];
    assert_eq!(req.method, "POST");
    assert!(
        header(req, "content-type")
            .unwrap()
            .starts_with("multipart/form-data; boundary=")
    );
    let body = String::from_utf8_lossy(&req.body).into_owned();
    assert!(
        body.contains(
            "name=\"f\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n"
        ),
        "{body}"
    );

    let r = curl(&["-sS", "-T", "missing.txt", "http://svc.local/up/"]);
    assert_eq!(r.code, 26);
}

#[test]
fn retries_transient_http_errors() {
    let r = curl(&[
        "-S",
        "--no-progress-meter",
        "--retry",
        "3",
        "http://svc.local/flaky",
    ]);
    assert_eq!((r.code, r.out().as_str()), (0, "fine"));
    assert_eq!(r.seen.len(), 3);
    assert_eq!(
        r.stderr,
        "Warning: Problem : HTTP error. Will retry in 1 seconds. 2 retries left.\n\
         Warning: Problem : HTTP error. Will retry in 2 seconds. 1 retries left.\n"
    );
}

#[test]
fn verbose_shows_the_exchange() {
    let r = curl(&["-sv", "http://svc.local/json"]);
    assert_eq!(
        r.stderr,
        "*   Trying svc.local:80...\n* Connected to svc.local (svc.local) port 80 (#0)\n\
         > GET /json HTTP/1.1\r\n> Host: svc.local\r\n> User-Agent: curl/7.88.1\r\n> Accept: */*\r\n> \r\n\
         < HTTP/1.1 200 OK\r\n< Content-Type: application/json\r\n< Content-Length: 11\r\n< \r\n\
         { [11 bytes data]\n\
         * Connection #0 to host svc.local left intact\n"
    );
}

#[test]
fn dump_header_and_include_into_files() {
    let r = curl(&["-s", "-D", "h.txt", "-o", "b.json", "http://svc.local/json"]);
    assert_eq!(
        r.file("h.txt"),
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
    );
    let r = curl(&["-si", "-o", "all.txt", "http://svc.local/json"]);
    assert_eq!(
        r.file("all.txt"),
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}"
    );
}
