//! Our `wasi:filesystem` host, exercised by real guests (Rust std, built for wasm32-wasip2 and
//! wasm32-wasip1): behaviour equals native Linux for the POSIX scenarios, escapes are refused,
//! read-only mounts refuse changes, quotas surface as "storage full", and the fault hook
//! reaches the guest.

use crate::common;
use std::sync::{Arc, Mutex};

use clawrun::sandbox::RunConfig;
use clawrun::sandbox::Status;
use clawrun::sandbox::fault::{FsCall, FsErrno, FsFault, FsOp};
use clawrun::vfs::{Quota, Vfs};
use common::*;

/// The POSIX scenarios whose output must equal a native run on Linux.
const SCENARIOS: &[&str] = &[
    "create",
    "rw",
    "dirs",
    "stat",
    "rename",
    "unlink_open",
    "symlinks",
];

/// Lines allowed to differ from native Linux, and why (tests/guests/expected/README.md):
/// - `read_dir_order`: Linux (ext4) lists in hash order, the VFS sorted (the sorted listing on
///   the next line must still match);
/// - `append_read_handle` (wasip2): wasi-libc's p2 build keeps a read+append descriptor at EOF,
///   a guest-side behaviour that stock wasmtime over a real directory shows too;
fn expected_difference(target: Target, line: &str) -> bool {
    let name = line.split(':').next().unwrap_or_default();
    name == "read_dir_order" || (target == Target::P2 && name == "append_read_handle")
}

/// Drops the lines of `text` that may legitimately differ for `target`.
fn comparable(target: Target, text: &str) -> String {
    text.lines()
        .filter(|l| !expected_difference(target, l))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn sandbox_probe(target: Target, scenario: &str) -> String {
    let out = run(
        &program("fsprobe", target),
        vfs_with_dirs(&["/data"]),
        &[("/data", true)],
        &["/data", scenario],
    );
    assert_eq!(
        out.status,
        Status::Exited(0),
        "{target:?} {scenario}: {}",
        stderr(&out)
    );
    stdout(&out)
}

#[test]
fn posix_scenarios_match_native_linux() {
    let native = native_guest("fsprobe");
    for scenario in SCENARIOS {
        let dir = tempfile::tempdir().unwrap();
        let want = run_native(&native, &[dir.path().to_str().unwrap(), scenario]);
        assert!(
            want.lines().count() > 3,
            "native {scenario} printed too little: {want}"
        );
        for target in TARGETS {
            let got = sandbox_probe(target, scenario);
            assert_eq!(
                comparable(target, &got),
                comparable(target, &want),
                "{target:?} {scenario}: sandbox vs native"
            );
            let dropped = got
                .lines()
                .filter(|l| expected_difference(target, l))
                .count();
            assert!(
                dropped <= 1,
                "{target:?} {scenario}: too many exempt lines\n{got}"
            );
        }
    }
}

#[test]
fn escapes_are_refused() {
    for target in TARGETS {
        let mut vfs = vfs_with_dirs(&["/data", "/secret"]);
        vfs.write_file("/outside.txt", b"outside").unwrap();
        vfs.write_file("/secret/key.txt", b"key").unwrap();
        let out = run(
            &program("fsprobe", target),
            vfs,
            &[("/data", true)],
            &["/data", "escape"],
        );
        let text = stdout(&out);
        let checks: Vec<&str> = text.lines().filter(|l| l.contains(": ")).collect();
        assert!(checks.len() >= 5, "{target:?}: {text}");
        for line in &checks {
            let name = line.split(':').next().unwrap_or_default();
            // Creating a symlink whose relative target points outside is allowed (as on
            // Linux); following it is what must fail. An absolute target is refused at
            // creation already (the WIT's `not-permitted`, as stock wasmtime).
            if name.ends_with("_create") && name != "symlink_abs_create" {
                assert!(line.ends_with(": ok"), "{line}");
                continue;
            }
            assert!(
                line.contains(": err "),
                "{target:?} escaped: {line}\n{text}"
            );
        }
        assert!(
            text.contains("symlink_abs_create: err PermissionDenied"),
            "{text}"
        );
        assert!(
            text.contains("dotdot_outside_txt: err PermissionDenied"),
            "{text}"
        );
        assert!(!text.contains("outside\""), "{text}");
        assert!(!text.contains("key"), "{text}");
    }
}

#[test]
fn read_only_mount_refuses_every_change() {
    for target in TARGETS {
        let mut vfs = vfs_with_dirs(&["/data"]);
        vfs.write_file("/data/existing.txt", b"seed\n").unwrap();
        let before = vfs.fork().root_hash();
        let out = run(
            &program("fsprobe", target),
            vfs,
            &[("/data", false)],
            &["/data", "readonly"],
        );
        let text = stdout(&out);
        let mut after = out.vfs;
        assert_eq!(
            after.root_hash(),
            before,
            "{target:?}: a read-only mount changed\n{text}"
        );
        assert!(
            text.contains("\"seed"),
            "{target:?}: existing file unreadable: {text}"
        );
        let refusals = text
            .lines()
            .filter(|l| l.contains("err ReadOnlyFilesystem"))
            .count();
        assert!(refusals >= 4, "{target:?}: {text}");
    }
}

#[test]
fn quota_exhaustion_is_storage_full() {
    for target in TARGETS {
        let mut vfs = Vfs::with_quota(Quota {
            max_bytes: 3 << 20,
            max_inodes: 100,
            ..Quota::default()
        });
        vfs.create_dir_all("/data").unwrap();
        let out = run(
            &program("fsprobe", target),
            vfs,
            &[("/data", true)],
            &["/data", "quota"],
        );
        let text = stdout(&out);
        // The host returns `insufficient-space`. Our preview 1 host hands it on as ENOSPC;
        // wasi-libc's p2 build turns every stream write error into EIO (guest-side).
        let want = match target {
            Target::P1 => "quota: err StorageFull after 3 MiB",
            Target::P2 => "quota: err Uncategorized after 3 MiB",
        };
        assert!(text.contains(want), "{target:?}: {text}");
        assert!(out.vfs.usage().bytes <= 3 << 20);
    }
}

#[test]
fn injected_eio_on_open_reaches_the_guest_and_is_seen_by_the_hook() {
    for target in TARGETS {
        let mut vfs = vfs_with_dirs(&["/data"]);
        vfs.write_file("/data/input.txt", b"hello").unwrap();
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = seen.clone();
        let hook = move |call: &FsCall<'_>| {
            log.lock()
                .unwrap()
                .push(format!("{}:{}", call.op, call.path));
            (call.op == FsOp::Open && call.path == "/data/input.txt")
                .then_some(FsFault::Error(FsErrno::Io))
        };
        let out = run_with(
            &program("rmw", target),
            vfs,
            &[("/data", true)],
            &["/data"],
            RunConfig {
                fs_hook: Box::new(hook),
                ..RunConfig::default()
            },
        );
        // Rust names EIO `Uncategorized` (on Linux too).
        assert_eq!(stdout(&out), "rmw: err read Uncategorized\n", "{target:?}");
        assert_eq!(out.status, Status::Exited(1));
        assert!(
            seen.lock()
                .unwrap()
                .contains(&"open:/data/input.txt".to_string())
        );
    }
}

#[test]
fn faults_on_reads_and_writes_and_short_writes() {
    for target in TARGETS {
        let mut vfs = vfs_with_dirs(&["/data"]);
        vfs.write_file("/data/input.txt", b"hello world").unwrap();
        // ENOSPC on the write of output.txt.
        let hook = |call: &FsCall<'_>| {
            (call.op == FsOp::Write && call.path == "/data/output.txt")
                .then_some(FsFault::Error(FsErrno::NoSpace))
        };
        let out = run_with(
            &program("rmw", target),
            vfs.fork(),
            &[("/data", true)],
            &["/data"],
            RunConfig {
                fs_hook: Box::new(hook),
                ..RunConfig::default()
            },
        );
        let want = match target {
            Target::P1 => "rmw: err write StorageFull\n",
            // wasi-libc's p2 build reports stream write errors as EIO (see the quota test).
            Target::P2 => "rmw: err write Uncategorized\n",
        };
        assert_eq!(stdout(&out), want, "{target:?}");
        // Short writes of 3 bytes: std's write_all retries, the result is complete.
        let short = |call: &FsCall<'_>| {
            (call.op == FsOp::Write).then_some(FsFault::ShortWrite { max_bytes: 3 })
        };
        let out = run_with(
            &program("rmw", target),
            vfs.fork(),
            &[("/data", true)],
            &["/data"],
            RunConfig {
                fs_hook: Box::new(short),
                ..RunConfig::default()
            },
        );
        assert_eq!(stdout(&out), "rmw: 11 bytes\n", "{target:?}");
        assert_eq!(
            out.vfs.read_file("/data/output.txt").unwrap(),
            b"HELLO WORLD"
        );
        assert_eq!(
            out.vfs.read_file("/data/log.txt").unwrap(),
            b"rmw 11 bytes\n"
        );
    }
}

#[test]
fn same_program_same_inputs_same_root_hash() {
    let mut hashes = Vec::new();
    for _ in 0..3 {
        let out = run(
            &program("fsprobe", Target::P2),
            vfs_with_dirs(&["/data"]),
            &[("/data", true)],
            &["/data", "all"],
        );
        let mut vfs = out.vfs;
        hashes.push(vfs.root_hash());
    }
    assert!(hashes.windows(2).all(|w| w[0] == w[1]), "{hashes:?}");
}

#[test]
fn stock_filesystem_never_serves_a_guest() {
    // Structural: ours collides with wasmtime-wasi's definitions, i.e. same interface versions,
    // so shadowing really replaces the stock host.
    SANDBOX.check_filesystem_shadows_stock().unwrap();
    // Behavioural: the stock host has no preopens at all in our stores, so a guest can only
    // see and change files that exist solely in the VFS through our host.
    for target in TARGETS {
        let mut vfs = vfs_with_dirs(&["/data"]);
        vfs.write_file("/data/input.txt", b"only in the vfs")
            .unwrap();
        let out = run(&program("rmw", target), vfs, &[("/data", true)], &["/data"]);
        assert_eq!(
            stdout(&out),
            "rmw: 15 bytes\n",
            "{target:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            out.vfs.read_file("/data/output.txt").unwrap(),
            b"ONLY IN THE VFS"
        );
    }
}
