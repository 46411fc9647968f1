//! Claw-Eval's media fixtures (issue 34): in a checkout without them, `clawrun list` calls the
//! tasks `needs-fixtures` (naming each file and the command that fetches it) and `clawrun run`
//! refuses them; `clawrun setup claw-eval-media` fetches them from a Hugging Face Hub, here a
//! loopback server speaking the Hub's API: a paginated tree listing, `resolve` URLs
//! redirecting to a second ("CDN") host, Range requests. A corrupted file is deleted and
//! named, an interrupted download resumes on the next run, the token goes only to the Hub.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sha1::Digest as _;

use crate::fs_support::copy_dir;

const TOKEN: &str = "hf_loopback_secret_7f3a";
const TREE: &str = "/api/datasets/claw-eval/Claw-Eval/tree/main";
const RESOLVE: &str = "/datasets/claw-eval/Claw-Eval/resolve/main/";
const VIDEO: &str = "tasks/M090_video_movie_qa_wedding/fixtures/video.mp4";
const VIDEO2: &str = "tasks/M095_video_movie_character_id/fixtures/video.mp4";
const SALES: &str =
    "tasks/T096_pinbench_business_metrics_summary/fixtures/docs/quarterly_sales.csv";
const EXPENSES_TXT: &str =
    "tasks/T096_pinbench_business_metrics_summary/fixtures/docs/company_expenses_extracted.txt";
const EXPENSES_XLSX: &str =
    "tasks/T096_pinbench_business_metrics_summary/fixtures/docs/company_expenses.xlsx";

/// A video task in the shape of Claw-Eval's M090 (its clip kept in the dataset, not in git).
fn video_task(id: &str) -> String {
    format!(
        "task_id: {id}
task_name: Movie scene QA
version: \"1.0\"
category: video_search
tags: [multimodal]
prompt:
  text: Watch /workspace/fixtures/video.mp4 and save your answers to /workspace/answer.txt.
  language: en
tools: []
tool_endpoints: []
services: []
sandbox_files:
  - fixtures/video.mp4
env_snapshot_files:
  - /workspace/answer.txt
scoring_components: []
safety_checks: []
judge_rubric: \"\"
"
    )
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A checkout in `tmp`: Claw-Eval's package (so it is a checkout), T002 (complete), T096
/// (its three `fixtures/docs/` files missing, as upstream) and two video tasks without their
/// clips.
fn checkout(tmp: &Path) -> PathBuf {
    let root = tmp.join("claw-eval");
    let vendored = repo().join("third_party/claw-eval");
    copy_dir(&vendored.join("src"), &root.join("src"));
    for id in [
        "T002_email_triage",
        "T096_pinbench_business_metrics_summary",
    ] {
        copy_dir(
            &vendored.join("tasks").join(id),
            &root.join("tasks").join(id),
        );
    }
    for id in [
        "M090_video_movie_qa_wedding",
        "M095_video_movie_character_id",
    ] {
        let dir = root.join("tasks").join(id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("task.yaml"), video_task(id)).unwrap();
    }
    root
}

/// Deterministic bytes that do not compress to nothing.
fn bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

/// How the server serves a file.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Normal,
    /// Other bytes than the listing's hash.
    Corrupt,
    /// A whole-file request gets half the body, then the connection closes; a Range request
    /// is closed unanswered.
    Cut,
}

struct File {
    content: Vec<u8>,
    lfs: bool,
    mode: Mode,
}

/// One request the servers saw.
#[derive(Clone, Debug)]
struct Seen {
    /// `hub` or `cdn`.
    host: &'static str,
    target: String,
    range: Option<String>,
    authorization: Option<String>,
}

#[derive(Default)]
struct State {
    /// Files by their path in the dataset, in listing order.
    files: Vec<(String, File)>,
    seen: Vec<Seen>,
}

/// A Hub on loopback: the API and `resolve` on one port, the content on another (as the Hub
/// redirects to its CDN).
struct Hub {
    url: String,
    state: Arc<Mutex<State>>,
}

impl Hub {
    fn start(files: Vec<(String, File)>) -> Hub {
        let state = Arc::new(Mutex::new(State {
            files,
            seen: Vec::new(),
        }));
        let cdn = TcpListener::bind("127.0.0.1:0").unwrap();
        let cdn_url = format!("http://{}", cdn.local_addr().unwrap());
        let hub = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", hub.local_addr().unwrap());
        for (listener, host) in [(cdn, "cdn"), (hub, "hub")] {
            let state = Arc::clone(&state);
            let (hub_url, cdn_url) = (url.clone(), cdn_url.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming().flatten() {
                    let state = Arc::clone(&state);
                    let (hub_url, cdn_url) = (hub_url.clone(), cdn_url.clone());
                    std::thread::spawn(move || serve(stream, host, &state, &hub_url, &cdn_url));
                }
            });
        }
        Hub { url, state }
    }

    fn set_mode(&self, path: &str, mode: Mode) {
        let mut s = self.state.lock().unwrap();
        s.files.iter_mut().find(|(p, _)| p == path).unwrap().1.mode = mode;
    }

    fn seen(&self) -> Vec<Seen> {
        self.state.lock().unwrap().seen.clone()
    }

    fn forget(&self) {
        self.state.lock().unwrap().seen.clear();
    }
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, String)], body: &[u8]) {
    let mut head = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

fn serve(
    mut stream: TcpStream,
    host: &'static str,
    state: &Mutex<State>,
    hub_url: &str,
    cdn_url: &str,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.is_empty() {
        return;
    }
    let target = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_lowercase(), v.trim().to_string());
        }
    }
    let range = headers.get("range").cloned();
    let authorization = headers.get("authorization").cloned();
    state.lock().unwrap().seen.push(Seen {
        host,
        target: target.clone(),
        range: range.clone(),
        authorization: authorization.clone(),
    });
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    if host == "hub" {
        if authorization.as_deref() != Some(&format!("Bearer {TOKEN}")) {
            let h = [(
                "X-Error-Message",
                "Invalid credentials in Authorization header".to_string(),
            )];
            return respond(&mut stream, "401 Unauthorized", &h, b"{}");
        }
        if path == TREE {
            let s = state.lock().unwrap();
            let mut entries = vec![
                json!({"type": "directory", "oid": "0".repeat(40), "size": 0, "path": "tasks"}),
            ];
            for (p, f) in &s.files {
                let blob = sha1::Sha1::new()
                    .chain_update(format!("blob {}\0", f.content.len()))
                    .chain_update(&f.content)
                    .finalize();
                let mut e =
                    json!({"type": "file", "path": p, "size": f.content.len(), "oid": hex(&blob)});
                if f.lfs {
                    // The entry's oid is then the pointer's blob; the content's hash is lfs.oid.
                    e["oid"] = json!("1".repeat(40));
                    e["size"] = json!(f.content.len());
                    e["lfs"] = json!({
                        "oid": hex(&sha2::Sha256::digest(&f.content)),
                        "size": f.content.len(),
                        "pointerSize": 134
                    });
                }
                entries.push(e);
            }
            // Two pages, the first pointing at the second.
            let half = entries.len() / 2;
            let (body, link) = if query.contains("cursor=page2") {
                (Value::from(entries[half..].to_vec()), None)
            } else {
                (
                    Value::from(entries[..half].to_vec()),
                    Some(format!(
                        "<{hub_url}{TREE}?recursive=true&cursor=page2>; rel=\"next\""
                    )),
                )
            };
            let mut h = vec![("Content-Type", "application/json".to_string())];
            if let Some(link) = link {
                h.push(("Link", link));
            }
            return respond(&mut stream, "200 OK", &h, body.to_string().as_bytes());
        }
        if let Some(file) = path.strip_prefix(RESOLVE) {
            let h = [("Location", format!("{cdn_url}/blob/{file}"))];
            return respond(&mut stream, "302 Found", &h, b"");
        }
        let h = [
            ("X-Error-Code", "RevisionNotFound".to_string()),
            ("X-Error-Message", "Invalid rev id".to_string()),
        ];
        return respond(&mut stream, "404 Not Found", &h, b"{}");
    }
    // The CDN: the file's bytes, whole or from a Range's first byte.
    let name = decode(path.strip_prefix("/blob/").unwrap_or(""));
    let (content, mode) = {
        let s = state.lock().unwrap();
        match s.files.iter().find(|(p, _)| *p == name) {
            Some((_, f)) => (f.content.clone(), f.mode),
            None => return respond(&mut stream, "404 Not Found", &[], b""),
        }
    };
    let content = if mode == Mode::Corrupt {
        let mut c = content;
        c[0] ^= 0xff;
        c
    } else {
        content
    };
    let start: Option<usize> = range
        .as_deref()
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .and_then(|r| r.parse().ok());
    if mode == Mode::Cut {
        if start.is_some() {
            let _ = stream.shutdown(Shutdown::Both);
            return;
        }
        let head = format!(
            "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
            content.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&content[..content.len() / 2]);
        let _ = stream.flush();
        let _ = stream.shutdown(Shutdown::Both);
        return;
    }
    match start {
        Some(start) if start < content.len() => {
            let h = [(
                "Content-Range",
                format!("bytes {start}-{}/{}", content.len() - 1, content.len()),
            )];
            respond(&mut stream, "206 Partial Content", &h, &content[start..]);
        }
        Some(_) => respond(&mut stream, "416 Range Not Satisfiable", &[], b""),
        None => respond(&mut stream, "200 OK", &[], &content),
    }
}

/// The dataset: the checkout's missing files (LFS videos and spreadsheet, git-stored text
/// files; one video listed without `tasks/`), a task file the checkout already has, a task it
/// does not hold and the dataset's own README.
fn dataset() -> Vec<(String, File)> {
    let file = |content: Vec<u8>, lfs| File {
        content,
        lfs,
        mode: Mode::Normal,
    };
    vec![
        (
            ".gitattributes".into(),
            file(b"*.mp4 filter=lfs\n".to_vec(), false),
        ),
        ("README.md".into(), file(b"# Claw-Eval\n".to_vec(), false)),
        (VIDEO.into(), file(bytes(3 << 20, 1), true)),
        (
            VIDEO2.trim_start_matches("tasks/").into(),
            file(bytes(1 << 20, 2), true),
        ),
        (
            SALES.into(),
            file(b"region,revenue\nnorth,10\n".to_vec(), false),
        ),
        (EXPENSES_TXT.into(), file(b"Q1 expenses\n".to_vec(), false)),
        (EXPENSES_XLSX.into(), file(bytes(40_000, 3), true)),
        (
            "tasks/T002_email_triage/task.yaml".into(),
            file(b"task_id: other\n".to_vec(), false),
        ),
        (
            "tasks/X999_not_here/fixtures/video.mp4".into(),
            file(bytes(1000, 4), true),
        ),
    ]
}

fn clawrun(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_clawrun"));
    c.args(args)
        .env_remove("HF_TOKEN")
        .env_remove("HF_ENDPOINT");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `clawrun list`'s rows by task id (the status column) and its last line.
fn list(root: &Path) -> (BTreeMap<String, String>, String) {
    let o = clawrun(&["list", "--json", "--suite", root.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let rows: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    let statuses = rows
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                format!(
                    "{}: {}",
                    r["status"].as_str().unwrap(),
                    r["reason"].as_str().unwrap_or("")
                ),
            )
        })
        .collect();
    let o = clawrun(&["list", "--suite", root.to_str().unwrap()], &[]);
    let out = text(&o.stdout);
    (statuses, out.lines().last().unwrap_or("").to_string())
}

fn parts(root: &Path) -> Vec<(String, u64)> {
    match std::fs::read_dir(root.join(".clawrun-media")) {
        Ok(dir) => dir
            .flatten()
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    e.metadata().unwrap().len(),
                )
            })
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn missing_media_is_a_status_and_setup_fetches_it_resumably_verified_by_hash() {
    let tmp = tempfile::tempdir().unwrap();
    let root = checkout(tmp.path());
    let suite = root.to_str().unwrap();

    // Before: the two video tasks and T096 need fixtures, each naming its files and the
    // command; T002 does not; the counts say so.
    let (before, counts) = list(&root);
    let fetch = format!("`clawrun setup claw-eval-media --checkout {suite}`");
    assert_eq!(
        before["M090_video_movie_qa_wedding"],
        format!(
            "needs-fixtures: a file it references is not in the checkout: {VIDEO} \
             (sandbox_files[0]); Claw-Eval keeps its videos and large files in its Hugging Face \
             dataset: fetch them with {fetch}"
        )
    );
    let t096 = &before["T096_pinbench_business_metrics_summary"];
    assert!(
        t096.starts_with("needs-fixtures: 3 files it references are not in the checkout: ")
            && t096.contains(&format!(
                "{SALES} (sandbox_files[0], prompt.attachments[0])"
            )),
        "{t096}"
    );
    assert!(!before["T002_email_triage"].starts_with("needs-fixtures"));
    assert!(
        counts.ends_with(", 3 needs-fixtures, 0 unsupported") && counts.starts_with("4 tasks: "),
        "{counts}"
    );

    // `run` refuses the task before anything runs, naming task, file and command.
    let out = tmp.path().join("run");
    let o = clawrun(
        &[
            "run",
            "M090_video_movie_qa_wedding",
            "--suite",
            suite,
            "--agent",
            "idle",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "clawrun: skipping M090_video_movie_qa_wedding: needs-fixtures: a file it references \
             is not in the checkout: {VIDEO} (sandbox_files[0])"
        )) && err.contains(&fetch)
            && err.contains("nothing to run"),
        "{err}"
    );
    assert!(!out.exists());

    // A dry run lists what would come and writes nothing.
    let hub = Hub::start(dataset());
    let o = clawrun(
        &["setup", "claw-eval-media", "--checkout", suite, "--dry-run"],
        &[("HF_ENDPOINT", &hub.url), ("HF_TOKEN", TOKEN)],
    );
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    let listed: Vec<&str> = stdout
        .lines()
        .map(|l| l.split("  ").next().unwrap())
        .collect();
    assert_eq!(
        listed,
        [VIDEO, VIDEO2, EXPENSES_XLSX, EXPENSES_TXT, SALES],
        "{stdout}"
    );
    assert!(
        stderr.contains("would fetch 5 files")
            && stderr.contains("1 already in the checkout")
            && stderr.contains("3 of the dataset's 9 files are not for its tasks"),
        "{stderr}"
    );
    assert!(!root.join(VIDEO).exists() && parts(&root).is_empty());
    // Both listing pages were read, with the token.
    let pages: Vec<Seen> = hub
        .seen()
        .into_iter()
        .filter(|s| s.target.starts_with(TREE))
        .collect();
    assert_eq!(pages.len(), 2, "{pages:?}");
    assert!(pages[1].target.contains("cursor=page2"));

    // First run: the first video breaks off half way (and so do the retries), the second
    // arrives corrupted; the rest is fetched and verified.
    hub.forget();
    hub.set_mode(VIDEO, Mode::Cut);
    hub.set_mode(VIDEO2.trim_start_matches("tasks/"), Mode::Corrupt);
    let o = clawrun(
        &[
            "setup",
            "claw-eval-media",
            "--checkout",
            suite,
            "--base-url",
            &hub.url,
        ],
        &[("HF_TOKEN", TOKEN)],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains(TOKEN), "the token was printed:\n{stderr}");
    assert!(
        stderr.contains(&format!(
            "{VIDEO}: the download stopped after {} of {} bytes",
            (3 << 20) / 2,
            3 << 20
        )) && stderr.contains("run the command again to resume"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{VIDEO2}: the download's sha256 is "))
            && stderr.contains("but the dataset lists")
            && stderr.contains(": deleted;"),
        "{stderr}"
    );
    assert!(stderr.contains("fetched 3 of 5 files"), "{stderr}");
    for (path, content) in [
        (SALES, &b"region,revenue\nnorth,10\n"[..]),
        (EXPENSES_TXT, b"Q1 expenses\n"),
    ] {
        assert_eq!(std::fs::read(root.join(path)).unwrap(), content, "{path}");
    }
    assert_eq!(
        std::fs::read(root.join(EXPENSES_XLSX)).unwrap(),
        bytes(40_000, 3)
    );
    // Nothing half-done under a final name: the corrupted file is gone, the cut one is a part.
    assert!(!root.join(VIDEO).exists() && !root.join(VIDEO2).exists());
    let kept = parts(&root);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(kept[0].0.starts_with("sha256-") && kept[0].0.ends_with(".part"));
    assert_eq!(kept[0].1, (3 << 20) / 2);
    // The file the checkout had is untouched; the token went to the Hub only, never to the CDN.
    assert!(
        std::fs::read_to_string(root.join("tasks/T002_email_triage/task.yaml"))
            .unwrap()
            .starts_with("task_id: T002_email_triage")
    );
    let seen = hub.seen();
    assert!(
        seen.iter()
            .filter(|s| s.host == "hub")
            .all(|s| s.authorization.as_deref() == Some(&*format!("Bearer {TOKEN}")))
    );
    assert!(seen.iter().any(|s| s.host == "cdn"));
    assert!(
        seen.iter()
            .filter(|s| s.host == "cdn")
            .all(|s| s.authorization.is_none()),
        "{seen:?}"
    );

    // In between: T096 is whole, the videos still need fixtures.
    let (between, _) = list(&root);
    assert!(!between["T096_pinbench_business_metrics_summary"].starts_with("needs-fixtures"));
    assert!(between["M090_video_movie_qa_wedding"].starts_with("needs-fixtures"));

    // Second run: the cut video resumes from its part with a Range request, the other comes
    // whole; both verified.
    hub.forget();
    hub.set_mode(VIDEO, Mode::Normal);
    hub.set_mode(VIDEO2.trim_start_matches("tasks/"), Mode::Normal);
    let o = clawrun(
        &["setup", "claw-eval-media", "--checkout", suite],
        &[("HF_ENDPOINT", &hub.url), ("HF_TOKEN", TOKEN)],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("2 files to fetch")
            && stderr.contains("1 resuming a partial download")
            && stderr.contains(&format!("resuming {VIDEO} at "))
            && stderr.contains("fetched 2 of 2 files")
            && stderr.contains("4 already in the checkout"),
        "{stderr}"
    );
    let ranges: Vec<Option<String>> = hub
        .seen()
        .into_iter()
        .filter(|s| s.host == "cdn" && s.target.ends_with("video.mp4"))
        .map(|s| s.range)
        .collect();
    assert!(
        ranges.contains(&Some(format!("bytes={}-", (3 << 20) / 2))),
        "{ranges:?}"
    );
    assert_eq!(std::fs::read(root.join(VIDEO)).unwrap(), bytes(3 << 20, 1));
    assert_eq!(std::fs::read(root.join(VIDEO2)).unwrap(), bytes(1 << 20, 2));
    assert!(!root.join(".clawrun-media").exists(), "{:?}", parts(&root));

    // After: no task needs fixtures any more.
    let (after, counts) = list(&root);
    assert!(
        after.values().all(|s| !s.starts_with("needs-fixtures")),
        "{after:?}"
    );
    assert!(
        counts.ends_with(", 0 needs-fixtures, 0 unsupported"),
        "{counts}"
    );

    // A third run (quiet: the summary only) has nothing to do and asks for no file.
    hub.forget();
    let o = clawrun(
        &[
            "setup",
            "claw-eval-media",
            "--checkout",
            suite,
            "--base-url",
            &hub.url,
            "-q",
        ],
        &[("HF_TOKEN", TOKEN)],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{stderr}");
    assert!(hub.seen().iter().all(|s| s.target.starts_with(TREE)));
    assert!(
        stderr.starts_with("claw-eval-media: fetched 0 of 0 files") && stderr.lines().count() == 1,
        "{stderr}"
    );
}

#[test]
fn setup_errors_name_the_url_the_status_and_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let root = checkout(tmp.path());
    let suite = root.to_str().unwrap();
    let hub = Hub::start(dataset());
    let setup = |extra: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["setup", "claw-eval-media", "--checkout", suite];
        args.extend(extra);
        let o = clawrun(&args, env);
        (o.status.code(), text(&o.stderr))
    };

    // No token for a Hub that wants one.
    let (code, err) = setup(&["--base-url", &hub.url], &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "{}{TREE}?recursive=true answered 401 Unauthorized",
            hub.url
        )) && err.contains("(Invalid credentials in Authorization header)")
            && err.contains("no token was sent: set HF_TOKEN"),
        "{err}"
    );
    // A revision the Hub does not have.
    let (code, err) = setup(
        &["--base-url", &hub.url, "--revision", "no-such-rev"],
        &[("HF_TOKEN", TOKEN)],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("answered 404 Not Found (Invalid rev id)")
            && err.contains("no dataset claw-eval/Claw-Eval with revision `no-such-rev`"),
        "{err}"
    );
    // Nothing listening.
    let closed = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let (code, err) = setup(&["--base-url", &format!("http://{closed}")], &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!(
            "cannot reach http://{closed}{TREE}?recursive=true: connection failed"
        )) && err.contains("--base-url or HF_ENDPOINT"),
        "{err}"
    );
    // Not a checkout, no checkout, a flag of the other setup.
    let o = clawrun(
        &[
            "setup",
            "claw-eval-media",
            "--checkout",
            tmp.path().to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("it has no tasks/ folder"),
        "{}",
        text(&o.stderr)
    );
    let o = clawrun(&["setup", "claw-eval-media"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("needs --checkout DIR"));
    let o = clawrun(&["setup", "python", "--checkout", suite], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--checkout is for `clawrun setup claw-eval-media`"));
    // A second fetch into a checkout being filled is refused (the first holds its lock).
    let held = std::fs::File::open(&root).unwrap();
    held.try_lock().unwrap();
    let (code, err) = setup(&["--base-url", &hub.url], &[("HF_TOKEN", TOKEN)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("another `clawrun setup claw-eval-media` is filling it now"),
        "{err}"
    );
    drop(held);
    // None of it wrote into the checkout.
    assert!(!root.join(".clawrun-media").exists() && !root.join(VIDEO).exists());
}
