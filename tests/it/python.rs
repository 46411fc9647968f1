//! Python in the sandbox: the real interpreter (`clawrun setup python`) over the VFS, through
//! the library and through the Bash tool as an agent calls it.
//!
//! Needs the interpreter installed (`clawrun setup python` or `CLAWRUN_PYTHON`); the test
//! command (`scripts/test.sh`) sets it up first.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use clawrun::python::{PythonRuntime, install};
use clawrun::sandbox::cache::ComponentCache;
use clawrun::sandbox::fs::SharedFs;
use clawrun::sandbox::{RunConfig, RunOutcome};
use clawrun::vfs::Vfs;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/python");

fn runtime() -> &'static PythonRuntime {
    static RUNTIME: OnceLock<PythonRuntime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let cache = ComponentCache::default_dir();
        let found = install::find(cache.as_deref())
            .expect("looking for the interpreter")
            .expect("the interpreter is not installed: run `clawrun setup python`");
        PythonRuntime::load(&found, cache.as_deref()).expect("loading the interpreter")
    })
}

fn workspace(files: &[(&str, &[u8])]) -> Vfs {
    let mut vfs = Vfs::new();
    vfs.create_dir_all("/workspace").unwrap();
    vfs.create_dir_all("/tmp").unwrap();
    for (path, data) in files {
        if let Some((dir, _)) = path.rsplit_once('/') {
            vfs.create_dir_all(dir).unwrap();
        }
        vfs.write_file(path, data).unwrap();
    }
    vfs
}

fn python(vfs: Vfs, args: &[&str], config: RunConfig) -> (RunOutcome, String, String) {
    let fs = SharedFs::new(vfs, Default::default());
    let config = RunConfig {
        args: args.iter().map(|s| s.to_string()).collect(),
        ..config
    };
    let out = runtime().run(fs, "/workspace", config).expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

fn fuel(units: u64) -> RunConfig {
    RunConfig {
        fuel: units,
        ..RunConfig::default()
    }
}

/// Runs the Bash tool once through the CLI, as an agent's call; returns what the model sees.
fn bash(workspace: &Path, seed: u64, command: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .arg("tool")
        .arg("--workspace")
        .arg(workspace)
        .arg("--seed")
        .arg(seed.to_string())
        .arg("Bash")
        .arg(serde_json::json!({ "command": command }).to_string())
        .output()
        .expect("running clawrun tool");
    assert!(
        out.status.success(),
        "clawrun tool failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn pandas_over_a_workspace_csv_matches_native_pandas() {
    let csv = std::fs::read(format!("{FIXTURES}/sales.csv")).unwrap();
    let script = std::fs::read(format!("{FIXTURES}/analyse.py")).unwrap();
    let vfs = workspace(&[
        ("/workspace/sales.csv", &csv),
        ("/workspace/analyse.py", &script),
    ]);
    let (out, stdout, stderr) = python(vfs, &["analyse.py", "sales.csv"], fuel(40_000_000_000));
    assert_eq!(out.status.exit_code(), 0, "{stderr}");
    // Native pandas on the same data when this machine has it, else its recorded output.
    let native = Command::new("python3")
        .args(["analyse.py", "sales.csv"])
        .current_dir(FIXTURES)
        .output()
        .ok()
        .filter(|o| o.status.success());
    let expected = match native {
        Some(o) => String::from_utf8(o.stdout).unwrap(),
        None => std::fs::read_to_string(format!("{FIXTURES}/expected.txt")).unwrap(),
    };
    assert_eq!(stdout, expected);
}

#[test]
fn writes_land_in_the_callers_filesystem() {
    let vfs = workspace(&[]);
    let fs = SharedFs::new(vfs, Default::default());
    let config = RunConfig {
        args: vec![
            "-c".into(),
            "import os; os.makedirs('out'); open('out/r.txt','w').write('hi')".into(),
        ],
        ..RunConfig::default()
    };
    let out = runtime().run(fs.clone(), "/workspace", config).unwrap();
    assert_eq!(out.status.exit_code(), 0);
    assert_eq!(
        fs.snapshot().read_file("/workspace/out/r.txt").unwrap(),
        b"hi"
    );
    // The standard library is a layer of its own: the trial's filesystem never holds it.
    assert!(out.vfs.resolve("/usr").is_err());
}

#[test]
fn fuel_and_memory_limits_stop_the_program_with_a_clear_status() {
    let (out, _, _) = python(
        workspace(&[]),
        &["-c", "while True: pass"],
        fuel(2_000_000_000),
    );
    assert_eq!(out.status.limit(), Some("fuel"), "{:?}", out.status);
    assert_eq!(out.status.exit_code(), 137);

    let config = RunConfig {
        max_memory: 128 << 20,
        ..RunConfig::default()
    };
    let (out, _, stderr) = python(workspace(&[]), &["-c", "b = bytearray(512 << 20)"], config);
    assert_ne!(out.status.exit_code(), 0);
    assert!(stderr.contains("MemoryError"), "{stderr}");
}

#[test]
fn the_interpreter_cannot_leave_the_sandbox() {
    let probe = r#"
import os
def attempt(name, f):
    try:
        f()
        print(name, "ALLOWED")
    except BaseException as e:
        print(name, "refused", type(e).__name__)
attempt("etc-passwd", lambda: open("/etc/passwd").read())
attempt("stdlib-write", lambda: open("/usr/local/lib/python315.zip", "ab").write(b"x"))
attempt("socket", lambda: __import__("socket").create_connection(("127.0.0.1", 80), timeout=1))
attempt("subprocess", lambda: __import__("subprocess").run(["ls"]))
attempt("os-system", lambda: os.system("ls") == 0 or (_ for _ in ()).throw(OSError()))
attempt("ctypes", lambda: __import__("ctypes").CDLL(None))
print(sorted(os.listdir("/")), sorted(os.listdir("/usr/local/lib")))
"#;
    let (out, stdout, stderr) = python(workspace(&[]), &["-c", probe], RunConfig::default());
    assert_eq!(out.status.exit_code(), 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 7, "{stdout}");
    for line in &lines[..6] {
        assert!(line.contains(" refused "), "{line}");
    }
    // It sees the trial's own filesystem and the standard library, nothing of the host.
    assert_eq!(lines[6], "['tmp', 'workspace'] ['python315.zip']");
}

#[test]
fn descriptor_tricks_from_python_get_posix_errors_and_change_nothing() {
    // The interpreter runs on clawrun's preview 1 host: what an agent's script can do to its
    // descriptors (bad numbers, closing its preopens, writing where it may not, seeking before
    // the start, sleeping for days) gets the POSIX error and leaves the sandbox as it was.
    let probe = r#"
import errno, os, time
def attempt(name, f):
    try:
        f()
        print(name, "ok")
    except OSError as e:
        print(name, errno.errorcode[e.errno])
attempt("write-bad-fd", lambda: os.write(9999, b""))
attempt("pwrite-stdout", lambda: os.pwrite(1, b"x", 0))
d = os.open("/workspace", os.O_RDONLY | os.O_DIRECTORY)
attempt("read-dir", lambda: os.read(d, 10))
r = os.open("/workspace/in.txt", os.O_RDONLY)
attempt("empty-write-readonly", lambda: os.write(r, b""))
attempt("seek-before-start", lambda: os.lseek(r, -1, os.SEEK_SET))
for fd in range(3, 6):
    attempt("close-%d" % fd, lambda fd=fd: os.close(fd))
attempt("open-after-close", lambda: open("/etc/passwd").read())
t = time.time()
time.sleep(10 ** 6)
print("slept", round(time.time() - t))
"#;
    let started = std::time::Instant::now();
    let (out, stdout, stderr) = python(
        workspace(&[("/workspace/in.txt", b"data\n")]),
        &["-c", probe],
        RunConfig::default(),
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(out.status.exit_code(), 0, "{stderr}");
    let mut lines = stdout.lines();
    for want in [
        "write-bad-fd EBADF",
        "pwrite-stdout ESPIPE",
        "read-dir EISDIR",
        "empty-write-readonly EBADF",
        "seek-before-start EINVAL",
    ] {
        assert_eq!(lines.next(), Some(want), "{stdout}");
    }
    let rest: Vec<&str> = lines.collect();
    assert_eq!(rest.len(), 5, "{stdout}");
    assert!(
        rest[..3].iter().all(|l| l.starts_with("close-")),
        "{stdout}"
    );
    assert!(rest[3].starts_with("open-after-close E"), "{stdout}");
    assert_eq!(rest[4], "slept 1000000");
    // Nothing was added or changed.
    let vfs = out.vfs;
    assert_eq!(vfs.read_file("/workspace/in.txt").unwrap(), b"data\n");
    let workspace = vfs.resolve("/workspace").unwrap();
    assert_eq!(vfs.read_dir(workspace).unwrap().len(), 1);
}

#[test]
fn bash_runs_python_scripts_with_sibling_imports_stdin_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg/helper.py"), "X = 41\n").unwrap();
    std::fs::write(
        dir.path().join("pkg/main.py"),
        "import sys, helper\nprint(helper.X + int(sys.argv[1]))\nsys.exit(3)\n",
    )
    .unwrap();
    let seen = bash(
        dir.path(),
        0,
        "python3 pkg/main.py 1; echo status=$?; cd pkg && python main.py 2 | tr 4 X; \
         printf 'import sys\\nprint(sys.stdin.read().upper())\\n' > ../up.py; \
         echo shout | python3 ../up.py; python3 - <<'EOF'\nprint('heredoc', 6*7)\nEOF\n\
         python3 -c 'import os; print(os.getcwd())' > where.txt; cat where.txt; \
         python3 missing.py; echo status=$?; pip install requests; echo pip=$?",
    );
    let expected = [
        "42",
        "status=3",
        "X3",
        "SHOUT",
        "",
        "heredoc 42",
        "/workspace/pkg",
        "/usr/local/bin/python3: can't open file 'missing.py': [Errno 44] No such file or directory",
        "status=2",
    ];
    let lines: Vec<&str> = seen.lines().collect();
    assert_eq!(&lines[..expected.len()], expected, "{seen}");
    assert!(
        seen.contains("pip: installing packages is not possible"),
        "{seen}"
    );
    assert!(seen.contains("pip=1"), "{seen}");
}

#[test]
fn same_seed_same_randomness_across_processes() {
    let dir = tempfile::tempdir().unwrap();
    let probe = "python3 -c 'import random, os, time, uuid; \
                 print(random.random(), os.urandom(8).hex(), time.time(), uuid.uuid4(), \
                 hash(\"clawrun\"), list({str(i) for i in range(8)}))'";
    let a = bash(dir.path(), 11, probe);
    let b = bash(dir.path(), 11, probe);
    let c = bash(dir.path(), 12, probe);
    assert_eq!(a, b);
    assert_ne!(a, c);
    // Two calls within one command get different randomness.
    let twice = bash(dir.path(), 11, &format!("{probe}; {probe}"));
    let lines: Vec<&str> = twice.lines().collect();
    assert_ne!(lines[0], lines[1]);
}

#[test]
fn the_fault_plan_reaches_python_file_access() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.csv"), "a,b\n1,2\n").unwrap();
    let plan = dir.path().join("plan.yaml");
    std::fs::write(
        &plan,
        "rules:\n  - point: fs:open:/workspace/data.csv\n    kind: eio\n    calls: [1]\n",
    )
    .unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir(&workspace).unwrap();
    std::fs::rename(dir.path().join("data.csv"), workspace.join("data.csv")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .arg("tool")
        .arg("--workspace")
        .arg(&workspace)
        .arg("--faults")
        .arg(&plan)
        .arg("Bash")
        .arg(
            serde_json::json!({
                "command": "python3 -c \"print(open('data.csv').read())\"; \
                            python3 -c \"print(open('data.csv').read().split()[1])\""
            })
            .to_string(),
        )
        .output()
        .unwrap();
    let seen = String::from_utf8_lossy(&out.stdout);
    // The first open fails with the injected EIO (errno 29 in WASI); the retry reads the file.
    assert!(seen.contains("OSError: [Errno 29] I/O error"), "{seen}");
    assert!(seen.trim_end().ends_with("1,2"), "{seen}");
}

#[test]
fn exec_runs_the_interpreter_module_by_hand() {
    let cache = ComponentCache::default_dir();
    let installed = install::find(cache.as_deref()).unwrap().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("x.csv"), "a,b\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .arg("exec")
        .arg("--dir")
        .arg(format!("{}::/data", dir.path().display()))
        .arg(installed.module())
        .args([
            "--",
            "-c",
            "import os, sys; print(os.listdir('/data')); sys.exit(7)",
        ])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "['x.csv']\n");
    // A reactor's `run` result is the exit status, not collapsed to 0/1.
    assert_eq!(
        out.status.code(),
        Some(7),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Output reaches the shell in the order the program wrote it, so `2>&1` interleaves stdout
/// and stderr as a pipe would (stdout flushed explicitly, then stderr, then stdout again at
/// exit).
#[test]
fn stdout_and_stderr_keep_their_order_through_the_shell() {
    let dir = tempfile::tempdir().unwrap();
    let seen = bash(
        dir.path(),
        0,
        "python3 -c \"import sys; print('one', flush=True); print('two', file=sys.stderr); \
         print('three'); sys.stderr.write('four\\n')\" 2>&1 | cat",
    );
    let lines: Vec<&str> = seen.lines().collect();
    assert_eq!(&lines[..4], ["one", "two", "four", "three"], "{seen}");
}
