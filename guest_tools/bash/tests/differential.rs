//! Differential test: every command in `tests/corpus.txt` runs through our shell and through
//! the host's real `/bin/bash -c` (with `LC_ALL=C TZ=UTC`), each in a fresh copy of the same
//! fixture tree. Stdout, the exit status and the resulting files must be identical (after
//! replacing each run's directory with `<DIR>` and normalising `ls -l` owners and times).
//!
//! Set `DIFF_FILTER=substring` to run only matching commands, `DIFF_VERBOSE=1` to print all.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use clawrun_tool_bash::io::{Input, Io, Stream};

const FIXTURE: &[(&str, &str)] = &[
    (
        "data/users.csv",
        "id,name,email,age,city\n1,Alice,alice@example.com,34,Paris\n2,Bob,bob@example.org,27,London\n3,Carol,carol@example.com,45,Paris\n4,Dave,dave@test.net,19,Berlin\n5,Eve,eve@example.org,31,London\n6,Frank,frank@example.com,52,Madrid\n7,Grace,grace@test.net,38,Paris\n",
    ),
    (
        "data/sales.csv",
        "date,region,product,units,price\n2024-01-03,north,widget,10,2.50\n2024-01-04,south,gadget,3,10.00\n2024-01-04,north,gadget,7,10.00\n2024-01-05,east,widget,1,2.50\n2024-01-06,south,widget,12,2.50\n2024-01-06,west,doohickey,5,7.25\n2024-01-07,north,widget,8,2.50\n2024-01-08,east,gadget,2,10.00\n",
    ),
    (
        "data/config.json",
        "{\n  \"name\": \"demo\",\n  \"version\": \"1.4.2\",\n  \"debug\": false,\n  \"ports\": [8080, 8081, 9000],\n  \"database\": {\"host\": \"localhost\", \"port\": 5432, \"user\": \"admin\"},\n  \"features\": {\"auth\": true, \"cache\": false, \"search\": true}\n}\n",
    ),
    (
        "data/items.json",
        "[\n  {\"id\": 1, \"name\": \"apple\", \"price\": 1.2, \"tags\": [\"fruit\", \"red\"], \"stock\": 50},\n  {\"id\": 2, \"name\": \"banana\", \"price\": 0.5, \"tags\": [\"fruit\", \"yellow\"], \"stock\": 0},\n  {\"id\": 3, \"name\": \"carrot\", \"price\": 0.8, \"tags\": [\"vegetable\"], \"stock\": 120},\n  {\"id\": 4, \"name\": \"donut\", \"price\": 2.5, \"tags\": [], \"stock\": 7}\n]\n",
    ),
    (
        "data/events.jsonl",
        "{\"level\":\"info\",\"msg\":\"started\",\"ms\":12}\n{\"level\":\"error\",\"msg\":\"db timeout\",\"ms\":3000}\n{\"level\":\"warn\",\"msg\":\"slow query\",\"ms\":850}\n{\"level\":\"error\",\"msg\":\"disk full\",\"ms\":5}\n{\"level\":\"info\",\"msg\":\"stopped\",\"ms\":1}\n",
    ),
    (
        "logs/app.log",
        "2024-03-01 10:00:01 INFO  server started on port 8080\n2024-03-01 10:00:05 DEBUG loading config from /etc/app.conf\n2024-03-01 10:01:12 WARN  cache miss rate high: 0.42\n2024-03-01 10:02:33 ERROR failed to connect to db: timeout\n2024-03-01 10:02:34 INFO  retrying connection (attempt 2)\n2024-03-01 10:02:40 ERROR failed to connect to db: refused\n2024-03-01 10:03:00 INFO  connection established\n2024-03-01 10:05:00 WARN  slow request /api/users took 1200ms\n2024-03-01 10:06:00 INFO  request /api/items ok\n2024-03-01 10:07:30 ERROR unhandled exception in worker 3\n",
    ),
    (
        "logs/access.log",
        "192.168.1.10 - - [01/Mar/2024:10:00:01 +0000] \"GET /index.html HTTP/1.1\" 200 1043\n192.168.1.11 - - [01/Mar/2024:10:00:02 +0000] \"GET /api/users HTTP/1.1\" 200 512\n10.0.0.5 - - [01/Mar/2024:10:00:03 +0000] \"POST /api/login HTTP/1.1\" 401 89\n192.168.1.10 - - [01/Mar/2024:10:00:04 +0000] \"GET /favicon.ico HTTP/1.1\" 404 0\n10.0.0.5 - - [01/Mar/2024:10:00:05 +0000] \"POST /api/login HTTP/1.1\" 200 230\n192.168.1.12 - - [01/Mar/2024:10:00:06 +0000] \"GET /api/items HTTP/1.1\" 500 45\n192.168.1.10 - - [01/Mar/2024:10:00:07 +0000] \"GET /index.html HTTP/1.1\" 304 0\n",
    ),
    (
        "src/main.py",
        "#!/usr/bin/env python3\n\"\"\"Entry point.\"\"\"\nimport sys\nfrom utils import parse_args, load_config\n\n\ndef main():\n    # TODO: handle errors\n    args = parse_args(sys.argv[1:])\n    config = load_config(args.config)\n    print(\"running with\", config)\n    return 0\n\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n",
    ),
    (
        "src/utils.py",
        "import json\n\n\ndef parse_args(argv):\n    # FIXME: use argparse\n    return argv\n\n\ndef load_config(path):\n    with open(path) as f:\n        return json.load(f)\n\n\ndef helper_one():\n    pass\n\n\ndef helper_two():\n    # TODO: implement\n    pass\n",
    ),
    (
        "src/lib/helpers.js",
        "// helpers\nfunction add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n\n// TODO: mul\nmodule.exports = { add, sub };\n",
    ),
    (
        "src/lib/format.js",
        "const pad = (s, n) => String(s).padStart(n);\nexport function fmt(x) {\n  return pad(x, 8);\n}\n",
    ),
    (
        "README.md",
        "# Demo project\n\nA small project used by the differential tests.\n\n## Usage\n\nRun `python3 src/main.py --config data/config.json`.\n\n## Notes\n\n- item one\n- item two\n",
    ),
    (
        "notes.txt",
        "the quick brown fox\njumps over the lazy dog\nThe Quick Brown Fox\n\nhello world\nhello again world\n  indented line\ntrailing spaces   \nfoo=bar\nkey: value\n",
    ),
    ("numbers.txt", "10\n2\n33\n4\n-5\n2\n100\n7.5\n0\n2\n"),
    (
        "words.txt",
        "pear\napple\nfig\napple\nbanana\nfig\napple\ncherry\n",
    ),
    ("empty.txt", ""),
    ("dir with space/file one.txt", "spaced content\n"),
    (".hidden", "secret\n"),
];

fn write_fixture(root: &Path) {
    for (path, content) in FIXTURE {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
    }
}

/// Snapshot of a tree: relative path -> file content (or `<dir>` / `<link target>`).
fn snapshot(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_symlink() {
                let t = std::fs::read_link(&p).unwrap();
                out.insert(rel, format!("<link {}>", t.display()));
            } else if meta.is_dir() {
                out.insert(rel.clone(), "<dir>".to_owned());
                walk(root, &p, out);
            } else {
                let data = std::fs::read(&p).unwrap();
                out.insert(rel, String::from_utf8_lossy(&data).into_owned());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Replaces owner/group and time columns of `ls -l` lines so both sides compare equal.
fn normalise(text: &str, dir: &str) -> String {
    let ls_line = regex::Regex::new(
        r"(?m)^([-dlcbps][rwxsStT-]{9}[.+]?)\s+(\d+)\s+\S+\s+\S+\s+(\d+)\s+\w{3}\s+\d+\s+[\d:]+\s",
    )
    .unwrap();
    let text = text.replace(dir, "<DIR>");
    ls_line
        .replace_all(&text, "$1 $2 OWNER GROUP $3 TIME ")
        .into_owned()
}

struct Outcome {
    stdout: String,
    status: i32,
    files: BTreeMap<String, String>,
}

fn run_ours(cmd: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let dir_str = dir.path().to_string_lossy().into_owned();
    let mut cwd = dir_str.clone();
    let mut env = BTreeMap::new();
    let out = Stream::buffer();
    let err = Stream::buffer();
    let io = Io {
        stdin: Input::empty(),
        stdout: out.clone(),
        stderr: err.clone(),
    };
    let r = clawrun_tool_bash::run_with_io(cmd, &mut cwd, &mut env, &io, &out);
    Outcome {
        stdout: normalise(&String::from_utf8_lossy(&r.output), &dir_str),
        status: r.status,
        files: snapshot(dir.path()),
    }
}

fn run_host(cmd: &str) -> Outcome {
    let dir = tempfile::tempdir().unwrap();
    write_fixture(dir.path());
    let dir_str = dir.path().to_string_lossy().into_owned();
    let out = Command::new("/bin/bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(dir.path())
        .env_clear()
        .env("LC_ALL", "C")
        .env("TZ", "UTC")
        .env("HOME", "/root")
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("USER", "user")
        .env("SHELL", "/bin/bash")
        .env("PWD", &dir_str)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Outcome {
        stdout: normalise(&String::from_utf8_lossy(&out.stdout), &dir_str),
        status: out.status.code().unwrap_or(-1),
        files: snapshot(dir.path()),
    }
}

fn corpus() -> Vec<String> {
    let text = include_str!("corpus.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.replace('⏎', "\n"))
        .collect()
}

#[test]
fn corpus_matches_host_bash() {
    if !Path::new("/bin/bash").exists() {
        eprintln!("skipping: /bin/bash not found");
        return;
    }
    let filter = std::env::var("DIFF_FILTER").ok();
    let verbose = std::env::var("DIFF_VERBOSE").is_ok();
    let cmds = corpus();
    assert!(cmds.len() >= 150, "corpus has only {} commands", cmds.len());
    let mut failures = Vec::new();
    let mut ran = 0;
    for cmd in &cmds {
        if filter.as_ref().is_some_and(|f| !cmd.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        let ours = run_ours(cmd);
        let host = run_host(cmd);
        let mut problems = Vec::new();
        if ours.stdout != host.stdout {
            problems.push(format!(
                "stdout differs:\n--- bash\n{}\n--- ours\n{}",
                host.stdout, ours.stdout
            ));
        }
        if ours.status != host.status {
            problems.push(format!("status: bash {} ours {}", host.status, ours.status));
        }
        if ours.files != host.files {
            let mut d = String::new();
            for (k, v) in &host.files {
                match ours.files.get(k) {
                    None => d.push_str(&format!("  missing in ours: {k}\n")),
                    Some(o) if o != v => d.push_str(&format!(
                        "  {k} differs:\n    bash: {v:?}\n    ours: {o:?}\n"
                    )),
                    _ => {}
                }
            }
            for k in ours.files.keys() {
                if !host.files.contains_key(k) {
                    d.push_str(&format!("  extra in ours: {k}\n"));
                }
            }
            problems.push(format!("files differ:\n{d}"));
        }
        if verbose || !problems.is_empty() {
            eprintln!(
                "{} {cmd}\n{}",
                if problems.is_empty() { "ok  " } else { "FAIL" },
                problems.join("\n")
            );
        }
        if !problems.is_empty() {
            failures.push(cmd.clone());
        }
    }
    eprintln!("differential: {} commands, {} failed", ran, failures.len());
    assert!(
        failures.is_empty(),
        "failing commands:\n{}",
        failures.join("\n")
    );
}
