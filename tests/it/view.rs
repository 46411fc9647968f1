//! `clawrun view`: the page over a folder of runs (each run's agent, trials, score and status,
//! a run in progress shown as such), each run's report, two runs compared; loopback only,
//! its own address only, nothing outside the reports it wrote.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A `clawrun view` process, killed when dropped.
struct Viewer(Child, u16);

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn clawrun(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    c.current_dir(env!("CARGO_MANIFEST_DIR")).args(args);
    c
}

fn run(out: &Path, agent: &str) {
    let o = clawrun(&[
        "run",
        "T002_email_triage",
        "--trials",
        "2",
        "--agent",
        agent,
    ])
    .args(["--report", "none", "--out"])
    .arg(out)
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn start(dir: &Path) -> Viewer {
    let mut child = clawrun(&["view", "--port", "0"])
        .arg(dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .split("127.0.0.1:")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    Viewer(child, port)
}

/// `GET path` with `Host: host`: (status, Location header, body).
fn get(port: u16, path: &str, host: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head[9..12].parse().unwrap();
    let location = head
        .lines()
        .find_map(|l| l.strip_prefix("location: "))
        .unwrap_or("")
        .to_string();
    (status, location, body.to_string())
}

#[test]
fn the_page_lists_runs_opens_reports_and_compares_two() {
    let dir = tempfile::tempdir().unwrap();
    run(&dir.path().join("good"), "oracle");
    run(&dir.path().join("lazy"), "idle");
    let v = start(dir.path());
    let me = format!("127.0.0.1:{}", v.1);

    let (status, _, index) = get(v.1, "/", &me);
    assert_eq!(status, 200);
    for (name, agent) in [("good", "oracle"), ("lazy", "idle")] {
        let row = &index[index
            .find(&format!("<tr data-run=\"{name}\">"))
            .expect(name)..];
        let row = &row[..row.find("</tr>").unwrap()];
        assert!(row.contains(&format!("<td>{agent}</td>")), "{row}");
        assert!(
            row.contains("<td class=\"num\">2</td>"),
            "two trials: {row}"
        );
        assert!(row.contains(">complete<"), "{row}");
    }
    assert!(
        index.contains("<td class=\"num\">1.000</td>"),
        "the oracle's mean score"
    );
    assert!(
        !index.contains("http-equiv=\"refresh\""),
        "nothing in progress"
    );

    let (status, to, _) = get(v.1, "/runs/good/", &me);
    assert_eq!(status, 303);
    let (status, _, page) = get(v.1, &to, &me);
    assert_eq!(status, 200);
    assert!(page.contains("<title>clawrun report</title>"));
    assert!(page.contains("T002_email_triage"));

    let (status, to, body) = get(v.1, "/compare?a=lazy&b=good", &me);
    assert_eq!(status, 303, "{body}");
    let (status, _, page) = get(v.1, &to, &me);
    assert_eq!(status, 200);
    assert!(page.contains("<title>clawrun comparison</title>"), "{page}");

    // A run being written shows as running, and the page refreshes itself.
    let lock = std::fs::File::create(dir.path().join("good/.clawrun.lock")).unwrap();
    lock.lock().unwrap();
    let (_, _, index) = get(v.1, "/", &me);
    let row = &index[index.find("<tr data-run=\"good\">").unwrap()..];
    assert!(row[..row.find("</tr>").unwrap()].contains(">running<"));
    assert!(index.contains("http-equiv=\"refresh\""));
    drop(lock);

    // Only its own address is answered (a page elsewhere cannot rebind a name to it), and
    // nothing outside the reports it wrote.
    assert_eq!(get(v.1, "/", "evil.example").0, 403);
    assert_eq!(get(v.1, "/reports/../../../etc/passwd", &me).0, 404);
    assert_eq!(get(v.1, "/runs/nosuch/", &me).0, 404);
}

#[test]
fn only_loopback_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let o = clawrun(&["view", "--host", "0.0.0.0", "--port", "0"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("loopback"));
    let o = clawrun(&["view", "/no/such/folder"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no such folder"));
}
