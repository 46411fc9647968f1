//! wget against a fake transport.

use std::collections::BTreeMap;

use super::log::{decimal, eta, human_size, retr_rate};
use super::*;
use crate::io::{Input, Stream};

struct Fake {
    seen: Vec<Request>,
}

impl Transport for Fake {
    fn send(&mut self, request: &Request) -> Result<Response, NetError> {
        self.seen.push(request.clone());
        if request.url.host != "svc.local" {
            return Err(NetError::Resolve);
        }
        let ok = |ctype: &str, body: Vec<u8>| Response {
            status: 200,
            headers: vec![
                ("content-type".into(), ctype.into()),
                ("content-length".into(), body.len().to_string()),
            ],
            body,
        };
        Ok(match request.url.path.as_str() {
            "/json" | "/" => ok("application/json", br#"{"ok":true}"#.to_vec()),
            "/big.bin" => ok("application/octet-stream", vec![7u8; 123_456]),
            "/echo" => ok(
                "text/plain",
                format!(
                    "{} {}",
                    request.method,
                    String::from_utf8_lossy(&request.body)
                )
                .into_bytes(),
            ),
            "/redir" => Response {
                status: 302,
                headers: vec![("location".into(), "/json".into())],
                body: Vec::new(),
            },
            _ => Response {
                status: 404,
                headers: vec![("content-length".into(), "2".into())],
                body: b"no".to_vec(),
            },
        })
    }

    fn stopwatch(&self) -> super::super::Stopwatch {
        super::super::Stopwatch(None)
    }
}

struct Run {
    out: Vec<u8>,
    err: String,
    code: i32,
    seen: Vec<Request>,
    dir: tempfile::TempDir,
}

fn wget_in(dir: tempfile::TempDir, args: &[&str]) -> Run {
    let mut sh = Shell::new(&dir.path().to_string_lossy(), &BTreeMap::new());
    let io = Io {
        stdin: Input::empty(),
        stdout: Stream::buffer(),
        stderr: Stream::buffer(),
    };
    let mut argv = vec!["wget".to_string()];
    argv.extend(args.iter().map(|s| s.to_string()));
    let mut fake = Fake { seen: Vec::new() };
    let code = run(&mut sh, &argv, &io, &mut fake);
    Run {
        out: io.stdout.take(),
        err: String::from_utf8_lossy(&io.stderr.take()).into_owned(),
        code,
        seen: fake.seen,
        dir,
    }
}

fn wget(args: &[&str]) -> Run {
    wget_in(tempfile::tempdir().unwrap(), args)
}

/// The log with the virtual timestamps replaced by `<T>`.
fn log(r: &Run) -> String {
    let re = regex::Regex::new(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d").unwrap();
    re.replace_all(&r.err, "<T>").into_owned()
}

#[test]
fn downloads_to_the_urls_name_and_logs_like_wget() {
    let r = wget(&["http://svc.local/json"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        std::fs::read(r.dir.path().join("json")).unwrap(),
        br#"{"ok":true}"#
    );
    assert_eq!(
        log(&r),
        "--<T>--  http://svc.local/json\n\
         Connecting to svc.local:80... connected.\n\
         HTTP request sent, awaiting response... 200 OK\n\
         Length: 11 [application/json]\n\
         Saving to: ‘json’\n\
         \n     0K                                                       100% 10.7K=0s\n\
         \n<T> (10.7 KB/s) - ‘json’ saved [11/11]\n\n"
    );
    let req = &r.seen[0];
    assert_eq!(req.method, "GET");
    assert_eq!(req.headers[0], ("User-Agent".into(), "Wget/1.21.3".into()));
}

#[test]
fn names_index_html_then_numbered_copies() {
    let dir = tempfile::tempdir().unwrap();
    let r = wget_in(
        dir,
        &[
            "-q",
            "http://svc.local/",
            "http://svc.local/",
            "http://svc.local/json?x=1",
        ],
    );
    assert_eq!((r.code, r.err.as_str()), (0, ""));
    for name in ["index.html", "index.html.1", "json?x=1"] {
        assert!(r.dir.path().join(name).exists(), "{name}");
    }
    let r = wget(&["-q", "-P", "downloads/sub", "http://svc.local/json"]);
    assert!(r.dir.path().join("downloads/sub/json").exists());
}

#[test]
fn output_document_and_stdout() {
    let r = wget(&["-qO-", "http://svc.local/json"]);
    assert_eq!((r.out.as_slice(), r.code), (&br#"{"ok":true}"#[..], 0));
    let r = wget(&[
        "-q",
        "-O",
        "all.txt",
        "http://svc.local/json",
        "http://svc.local/json",
    ]);
    assert_eq!(
        std::fs::read(r.dir.path().join("all.txt")).unwrap(),
        br#"{"ok":true}{"ok":true}"#
    );
    let r = wget(&["-q", "-O", "e.txt", "http://svc.local/missing"]);
    assert_eq!(r.code, 8);
    assert_eq!(std::fs::read(r.dir.path().join("e.txt")).unwrap(), b"");
}

#[test]
fn post_data_and_headers() {
    let r = wget(&[
        "-qO-",
        "--post-data=a=1",
        "--header",
        "X-A: b",
        "http://svc.local/echo",
    ]);
    assert_eq!(r.out, b"POST a=1");
    let req = &r.seen[0];
    assert!(req.headers.contains(&("X-A".into(), "b".into())));
    assert!(req.headers.contains(&(
        "Content-Type".into(),
        "application/x-www-form-urlencoded".into()
    )));
}

#[test]
fn errors_and_exit_codes() {
    let r = wget(&["http://svc.local/missing"]);
    assert_eq!(r.code, 8);
    assert!(
        log(&r).ends_with(
            "HTTP request sent, awaiting response... 404 Not Found\n<T> ERROR 404: Not Found.\n\n"
        ),
        "{}",
        r.err
    );
    assert!(!r.dir.path().join("missing").exists());

    let r = wget(&["http://nowhere.example/"]);
    assert_eq!(r.code, 4);
    assert_eq!(
        log(&r),
        "--<T>--  http://nowhere.example/\nResolving nowhere.example (nowhere.example)... failed: Name or service not known.\nwget: unable to resolve host address ‘nowhere.example’\n"
    );
    let r = wget(&["-q", "http://localhost:1/"]);
    assert_eq!((r.code, r.err.as_str()), (4, ""));
    let r = wget(&["-nv", "http://localhost:1/"]);
    assert_eq!(
        r.err,
        "http://localhost:1/:\nConnecting to localhost:1... failed: Connection refused.\n"
    );

    let r = wget(&[]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.err,
        "wget: missing URL\nUsage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.\n"
    );
    let r = wget(&["-z", "u"]);
    assert_eq!(r.code, 2);
    assert!(r.err.starts_with("wget: invalid option -- 'z'\n"));
    let r = wget(&["--frob", "u"]);
    assert!(r.err.starts_with("wget: unrecognized option '--frob'\n"));
    let r = wget(&["-O"]);
    assert!(
        r.err
            .starts_with("wget: option requires an argument -- 'O'\n")
    );
    let r = wget(&["-r", "u"]);
    assert_eq!(r.code, 2);
    assert!(r.err.contains("not supported in this sandbox"));
    // The worst code other than 1 wins; network failures (4) beat server errors (8).
    let r = wget(&[
        "-q",
        "http://svc.local/missing",
        "http://nowhere.example/",
        "http://svc.local/json",
    ]);
    assert_eq!(r.code, 4);
}

#[test]
fn follows_redirects_saving_under_the_first_name() {
    let r = wget(&["http://svc.local/redir"]);
    assert_eq!(r.code, 0);
    assert!(log(&r).contains(
        "HTTP request sent, awaiting response... 302 Found\nLocation: /json [following]\n--<T>--  http://svc.local/json\nReusing existing connection to svc.local:80.\nHTTP request sent, awaiting response... 200 OK\n"
    ), "{}", r.err);
    assert_eq!(
        std::fs::read(r.dir.path().join("redir")).unwrap(),
        br#"{"ok":true}"#
    );
    let r = wget(&["-nv", "--max-redirect=0", "http://svc.local/redir"]);
    assert_eq!(r.code, 8);
}

#[test]
fn dot_progress_for_larger_files() {
    let r = wget(&["-O", "/dev/null", "http://svc.local/big.bin"]);
    let text = log(&r);
    assert!(
        text.contains("Length: 123456 (121K) [application/octet-stream]\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "\n     0K .......... .......... .......... .......... .......... 41% 48.8M 0s\
         \n    50K .......... .......... .......... .......... .......... 82% 48.8M 0s\
         \n   100K .......... ..........                                 100% 20.1M=0s\n"
        ),
        "{text}"
    );
}

#[test]
fn helpers_match_wget() {
    assert_eq!(human_size(3000), "2.9K");
    assert_eq!(human_size(123_456), "121K");
    assert_eq!(human_size(5 << 20), "5.0M");
    assert_eq!(decimal(0.04), "0.04");
    assert_eq!(decimal(0.0), "0");
    assert_eq!(decimal(2.34), "2.3");
    assert_eq!(eta(125), "2m5s");
    assert_eq!(retr_rate(11, 0.0), "10.7 KB/s");
}
