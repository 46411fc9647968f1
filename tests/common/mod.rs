//! Shared helpers of the integration tests: one sandbox per test process and the guest test
//! programs of `tests/guests`, built once for wasm32-wasip2 and wasm32-wasip1.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{LazyLock, Mutex};

use clawrun::sandbox::{Mount, Program, RunConfig, RunOutcome, Sandbox, SandboxConfig};
use clawrun::vfs::Vfs;

/// The process-wide sandbox (one engine, as in production).
pub static SANDBOX: LazyLock<Sandbox> = LazyLock::new(|| {
    Sandbox::new(SandboxConfig {
        cache_dir: Some(target_dir().join("clawrun-test-cache")),
        pooling: true,
    })
    .expect("sandbox")
});

/// The WASI targets guests are built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Components.
    P2,
    /// Core modules run through the preview1 adapter.
    P1,
}

impl Target {
    fn triple(self) -> &'static str {
        match self {
            Target::P2 => "wasm32-wasip2",
            Target::P1 => "wasm32-wasip1",
        }
    }
}

/// Both targets.
pub const TARGETS: [Target; 2] = [Target::P2, Target::P1];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where the guest workspace builds (beside the host's target dir).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"))
}

fn guests_target() -> PathBuf {
    target_dir().join("test-guests")
}

static BUILT: Mutex<[bool; 3]> = Mutex::new([false; 3]);

/// Builds the guest workspace for `target` (or natively with `None`) once per process.
fn build_guests(target: Option<Target>) {
    let slot = match target {
        Some(Target::P2) => 0,
        Some(Target::P1) => 1,
        None => 2,
    };
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if built[slot] {
        return;
    }
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.arg("build")
        .arg("--release")
        .arg("--quiet")
        .arg("--manifest-path")
        .arg(repo().join("tests/guests/Cargo.toml"))
        .arg("--target-dir")
        .arg(guests_target());
    if let Some(t) = target {
        cmd.arg("--target").arg(t.triple());
    }
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd.status().expect("running cargo for tests/guests");
    assert!(
        status.success(),
        "building tests/guests for {target:?} failed"
    );
    built[slot] = true;
}

/// The bytes of guest program `name` built for `target`.
pub fn guest(name: &str, target: Target) -> Vec<u8> {
    build_guests(Some(target));
    let path = guests_target()
        .join(target.triple())
        .join("release")
        .join(format!("{name}.wasm"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// The native build of guest program `name` (the reference for differential tests).
pub fn native_guest(name: &str) -> PathBuf {
    build_guests(None);
    guests_target().join("release").join(name)
}

/// Loads guest `name` for `target` into the shared sandbox.
pub fn program(name: &str, target: Target) -> Program {
    SANDBOX.load(&guest(name, target)).expect("load guest")
}

/// Runs `program` with `args` over `vfs`, with the given mounts and defaults otherwise.
pub fn run(program: &Program, vfs: Vfs, mounts: &[(&str, bool)], args: &[&str]) -> RunOutcome {
    run_with(program, vfs, mounts, args, RunConfig::default())
}

/// Like [`run`], starting from `config`.
pub fn run_with(
    program: &Program,
    vfs: Vfs,
    mounts: &[(&str, bool)],
    args: &[&str],
    config: RunConfig,
) -> RunOutcome {
    let mut argv = vec!["guest".to_string()];
    argv.extend(args.iter().map(|s| s.to_string()));
    SANDBOX
        .run(
            program,
            vfs,
            RunConfig {
                args: argv,
                mounts: mounts
                    .iter()
                    .map(|(p, w)| Mount {
                        guest_path: p.to_string(),
                        writable: *w,
                    })
                    .collect(),
                ..config
            },
        )
        .expect("run")
}

/// A VFS holding an empty directory at each of `dirs`.
pub fn vfs_with_dirs(dirs: &[&str]) -> Vfs {
    let mut vfs = Vfs::new();
    for d in dirs {
        vfs.create_dir_all(d).expect("mkdir");
    }
    vfs
}

/// stdout as text.
pub fn stdout(o: &RunOutcome) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// stderr as text.
pub fn stderr(o: &RunOutcome) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a native program and returns its stdout.
pub fn run_native(program: &Path, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .expect("native run");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The trace of trial `trial` of `task` in run folder `run`, as its latest journal record
/// names it (a span of a trace pack, or a file of its own).
pub fn trial_trace(run: &Path, task: &str, trial: u32) -> Vec<u8> {
    let mut journals: Vec<PathBuf> = std::fs::read_dir(run)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("journal") && name.ends_with(".jsonl")
        })
        .collect();
    journals.sort();
    let record = journals
        .iter()
        .flat_map(|j| {
            let text = std::fs::read_to_string(j).unwrap();
            clawrun::report::read_journal(text.as_bytes(), "journal")
                .unwrap()
                .0
        })
        .map(|s| s.record)
        .rfind(|r| r.task_id == task && r.trial == trial)
        .unwrap_or_else(|| panic!("{}: no record of {task}/{trial}", run.display()));
    record.trace_bytes(run).unwrap()
}
