//! A cassette is untrusted input (a shared folder, a download): whatever its index lines say,
//! opening it and replaying from it never panics, never opens a file outside its `bodies/`
//! folder and never reads more than a recorded body's size. Property-tested over index lines
//! built from hostile field values (the hashes that once panicked or escaped among them).

use std::path::Path;

use clawrun_web::{Cassette, Fetched, WebRequest};
use proptest::prelude::*;
use serde_json::{Value, json};

/// What the file outside the cassette holds: never to be served.
const SECRET: &[u8] = b"host secret outside the cassette\n";
/// The one legitimate body.
const BODY: &[u8] = b"<html>the recorded page</html>";

fn hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// A cassette folder with one real body, a host file beside it, and symlinks inside `bodies/`
/// (under valid hash names) to that host file and to `/dev/zero`.
fn lay_out(root: &Path) -> (std::path::PathBuf, String, String) {
    let dir = root.join("cassette");
    let secret = root.join("secret");
    std::fs::write(&secret, SECRET).unwrap();
    let body = hex(BODY);
    let place = |hash: &str| {
        let folder = dir.join("bodies").join(&hash[..2]);
        std::fs::create_dir_all(&folder).unwrap();
        folder.join(hash)
    };
    std::fs::write(place(&body), BODY).unwrap();
    // The secret under its own hash: a symlink, so a read would leave the folder.
    let secret_hash = hex(SECRET);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, place(&secret_hash)).unwrap();
        let zero = hex(b"zero");
        std::os::unix::fs::symlink("/dev/zero", place(&zero)).unwrap();
    }
    (dir, body, secret_hash)
}

/// A body field an attacker would write: one naming this cassette's files (resolved once the
/// folder exists), or a text (ones that once panicked or escaped, paths, anything short).
#[derive(Clone, Debug)]
enum BodyField {
    /// The real body's hash.
    Real,
    /// The hash of the host file (its symlink in `bodies/`).
    Secret,
    /// The hash whose file in `bodies/` is a symlink to `/dev/zero`.
    Zero,
    /// The host file's absolute path.
    SecretPath,
    /// This text.
    Text(String),
}

fn body_field() -> impl Strategy<Value = BodyField> {
    prop_oneof![
        Just(BodyField::Real),
        Just(BodyField::Secret),
        Just(BodyField::Zero),
        Just(BodyField::SecretPath),
        prop_oneof![
            Just("aé".to_string()),
            Just("é".to_string()),
            Just(String::new()),
            Just("../../secret".to_string()),
            Just("../secret".to_string()),
            Just("/etc/hostname".to_string()),
            Just("/dev/zero".to_string()),
            "[0-9a-f]{64}",
            "[0-9a-fA-F./é]{0,70}",
            "\\PC{0,80}",
        ]
        .prop_map(BodyField::Text),
    ]
}

fn size_field() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(BODY.len() as u64),
        Just(SECRET.len() as u64),
        Just(0u64),
        Just(10u64 << 20),
        Just(u64::MAX),
        any::<u64>(),
    ]
}

fn request_field() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"kind": "fetch", "url": "https://example.com/"})),
        "\\PC{0,40}".prop_map(|u| json!({"kind": "fetch", "url": u})),
        (any::<u8>(), "\\PC{0,4}", "\\PC{0,4}", "\\PC{0,20}").prop_map(|(num, hl, gl, q)| {
            json!({"kind": "search", "query": q, "num": num, "hl": hl, "gl": gl})
        }),
        Just(json!({"kind": "search", "query": "q", "num": 3, "hl": "en", "gl": "us"})),
    ]
}

/// One index line: an entry built from hostile fields, or any text.
#[derive(Clone, Debug)]
enum Line {
    /// An entry; its response's body field resolved later.
    Entry(Value, Option<BodyField>),
    /// Any text.
    Text(String),
}

fn line() -> impl Strategy<Value = Line> {
    let entry = (
        request_field(),
        body_field(),
        size_field(),
        any::<u16>(),
        prop_oneof![Just("https://example.com/".to_string()), "\\PC{0,30}"],
        prop::option::of("\\PC{0,20}"),
        any::<bool>(),
    )
        .prop_map(|(request, body, size, status, url, content_type, failed)| {
            let mut e = json!({"request": request, "latency_ms": 1, "recorded_unix": 0});
            if failed {
                e["error"] = json!("connection refused");
                return Line::Entry(e, None);
            }
            e["response"] = json!({"status": status, "url": url, "size": size});
            if let Some(ct) = content_type {
                e["response"]["content_type"] = json!(ct);
            }
            Line::Entry(e, Some(body))
        });
    prop_oneof![8 => entry, 1 => "\\PC{0,200}".prop_map(Line::Text)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn hostile_index_lines_neither_panic_nor_escape_nor_read_unbounded(
        lines in prop::collection::vec(line(), 0..4),
    ) {
        let root = tempfile::tempdir().unwrap();
        let (dir, real, secret) = lay_out(root.path());
        let secret_path = root.path().join("secret").display().to_string();
        let mut index = String::new();
        for l in lines {
            let text = match l {
                Line::Text(t) => t,
                Line::Entry(mut e, body) => {
                    if let Some(body) = body {
                        e["response"]["body"] = json!(match body {
                            BodyField::Real => real.clone(),
                            BodyField::Secret => secret.clone(),
                            BodyField::Zero => hex(b"zero"),
                            BodyField::SecretPath => secret_path.clone(),
                            BodyField::Text(t) => t,
                        });
                    }
                    e.to_string()
                }
            };
            index.push_str(&text);
            index.push('\n');
        }
        std::fs::write(dir.join("index.jsonl"), &index).unwrap();
        check(&dir, &real);
    }
}

/// Opening the cassette at `dir` and replaying every entry it accepted: no panic (proptest
/// reports one as a failure), no read past a body's size (a `/dev/zero` read would take
/// seconds and gigabytes: every case is timed), and an answer only ever carries the real
/// body.
fn check(dir: &Path, real: &str) {
    let started = std::time::Instant::now();
    let Ok(cassette) = Cassette::open(dir) else {
        return;
    };
    for entry in cassette.entries() {
        if let Ok(Some(Fetched::Response(r))) = cassette.get(&entry.request) {
            assert_eq!(&*r.body, BODY, "served a body that is not the recorded one");
            assert_eq!(entry.response.as_ref().unwrap().body, real);
        }
    }
    // Merging runs the same reads.
    let into = tempfile::tempdir().unwrap();
    let target = Cassette::create(into.path()).unwrap();
    let _ = target.merge_from(&cassette);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "an unbounded read"
    );
}

#[test]
fn the_hashes_that_panicked_or_escaped_are_refused_naming_the_line_and_field() {
    let root = tempfile::tempdir().unwrap();
    let (dir, real, secret) = lay_out(root.path());
    let secret_path = root.path().join("secret").display().to_string();
    let entry = |body: &str, size: u64| {
        json!({"request": {"kind": "fetch", "url": "https://example.com/"},
               "response": {"status": 200, "url": "https://example.com/", "body": body, "size": size},
               "latency_ms": 1, "recorded_unix": 0})
        .to_string()
    };
    for (body, size) in [
        ("aé", 2),
        ("../../secret", SECRET.len() as u64),
        (secret_path.as_str(), SECRET.len() as u64),
        ("/etc/hostname", 10),
        ("/dev/zero", 10 << 20),
    ] {
        std::fs::write(dir.join("index.jsonl"), entry(body, size) + "\n").unwrap();
        let err = Cassette::open(&dir).err().unwrap().to_string();
        assert!(
            err.contains("index.jsonl:1: response.body:") && err.contains("not a body hash"),
            "{body}: {err}"
        );
    }
    // Valid hash names whose files leave the folder or never end: refused when replayed.
    for (hash, size, why) in [
        (secret.as_str(), SECRET.len() as u64, "not a regular file"),
        (hex(b"zero").as_str(), 10 << 20, "not a regular file"),
        (real.as_str(), 1 << 20, "not the 1048576 its entry records"),
    ] {
        std::fs::write(dir.join("index.jsonl"), entry(hash, size) + "\n").unwrap();
        let cassette = Cassette::open(&dir).unwrap();
        let req = WebRequest::fetch("https://example.com/").unwrap();
        let started = std::time::Instant::now();
        let err = cassette.get(&req).unwrap_err().to_string();
        assert!(err.contains(why), "{hash}: {err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }
    let too_big = entry(&real, u64::MAX);
    std::fs::write(dir.join("index.jsonl"), too_big + "\n").unwrap();
    let err = Cassette::open(&dir).err().unwrap().to_string();
    assert!(err.contains("response.size:"), "{err}");
    // The real entry replays.
    std::fs::write(
        dir.join("index.jsonl"),
        entry(&real, BODY.len() as u64) + "\n",
    )
    .unwrap();
    let cassette = Cassette::open(&dir).unwrap();
    let req = WebRequest::fetch("https://example.com/").unwrap();
    match cassette.get(&req).unwrap() {
        Some(Fetched::Response(r)) => assert_eq!(&*r.body, BODY),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_index_that_is_not_a_file_or_has_an_endless_line_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("c");
    std::fs::create_dir_all(dir.join("bodies")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/dev/zero", dir.join("index.jsonl")).unwrap();
        let started = std::time::Instant::now();
        assert!(Cassette::open(&dir).is_err());
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        std::fs::remove_file(dir.join("index.jsonl")).unwrap();
    }
    std::fs::write(dir.join("index.jsonl"), vec![b'{'; (1 << 20) + 10]).unwrap();
    let err = Cassette::open(&dir).err().unwrap().to_string();
    assert!(
        err.contains("index.jsonl:1: the line is longer than"),
        "{err}"
    );
}
