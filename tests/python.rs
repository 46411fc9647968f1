//! Python in the sandbox: the real interpreter over the VFS.
//!
//! Needs the interpreter installed (`clawrun setup python`, or `CLAWRUN_PYTHON`); CI installs
//! it before the tests.

use std::sync::OnceLock;

use clawrun::python::{PythonRuntime, install};
use clawrun::sandbox::cache::ComponentCache;
use clawrun::sandbox::fs::SharedFs;
use clawrun::sandbox::{RunConfig, RunOutcome};
use clawrun::vfs::Vfs;

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

fn workspace(files: &[(&str, &str)]) -> Vfs {
    let mut vfs = Vfs::new();
    vfs.create_dir_all("/workspace").unwrap();
    vfs.create_dir_all("/tmp").unwrap();
    for (path, data) in files {
        if let Some((dir, _)) = path.rsplit_once('/') {
            vfs.create_dir_all(dir).unwrap();
        }
        vfs.write_file(path, data.as_bytes()).unwrap();
    }
    vfs
}

fn python(vfs: Vfs, cwd: &str, args: &[&str], stdin: &str) -> (RunOutcome, String, String) {
    let fs = SharedFs::new(vfs, Default::default());
    let config = RunConfig {
        args: args.iter().map(|s| s.to_string()).collect(),
        stdin: stdin.as_bytes().to_vec(),
        fuel: 50_000_000_000,
        ..RunConfig::default()
    };
    let out = runtime().run(fs, cwd, config).expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

#[test]
fn prints_and_exits() {
    let (out, stdout, stderr) = python(workspace(&[]), "/workspace", &["-c", "print(1+1)"], "");
    assert_eq!(stdout, "2\n", "{stderr}");
    assert_eq!(out.status.exit_code(), 0);
}

#[test]
fn probe() {
    let files = [
        ("/workspace/pkg/helper.py", "X = 41\n"),
        (
            "/workspace/pkg/main.py",
            "import sys, os\nprint(sys.path[:3], os.getcwd())\nimport helper\nprint(helper.X + 1)\nsys.exit(3)\n",
        ),
    ];
    let (out, stdout, stderr) = python(workspace(&files), "/workspace", &["pkg/main.py", "a"], "");
    println!("status {:?}\nstdout {stdout}\nstderr {stderr}", out.status);
    let (out, stdout, stderr) = python(
        workspace(&files),
        "/workspace",
        &["-", "x"],
        "import sys; print(sys.argv, sys.stdin.read() if False else 'ok'); raise SystemExit(5)",
    );
    println!("status {:?}\nstdout {stdout}\nstderr {stderr}", out.status);
    let (out, stdout, stderr) = python(
        workspace(&files),
        "/workspace",
        &[
            "-c",
            "import random, os, time, uuid; print(random.random(), os.urandom(4).hex(), time.time(), uuid.uuid4(), hash('abc'))",
        ],
        "",
    );
    println!("status {:?}\nstdout {stdout}\nstderr {stderr}", out.status);
    let (out, stdout, stderr) = python(
        workspace(&files),
        "/workspace",
        &["-c", "open('/etc/passwd')"],
        "",
    );
    println!("status {:?}\nstdout {stdout}\nstderr {stderr}", out.status);
}

#[test]
fn probe_pandas() {
    let mut csv = String::from("city,amount\n");
    for i in 0..10000 {
        csv.push_str(&format!("c{},{}\n", i % 7, i));
    }
    let files = [("/workspace/data.csv", csv.as_str())];
    let t = std::time::Instant::now();
    let (out, stdout, stderr) = python(
        workspace(&files),
        "/workspace",
        &[
            "-c",
            "import pandas as pd; df = pd.read_csv('data.csv'); g = df.groupby('city')['amount'].sum(); g.to_csv('out.csv'); print(g.to_string())",
        ],
        "",
    );
    println!(
        "status {:?} fuel {} {:?}\nstdout {stdout}\nstderr {stderr}",
        out.status,
        out.fuel_used,
        t.elapsed()
    );
}
