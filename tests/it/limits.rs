//! Resource limits: fuel stops endless loops, memory growth past the limit is refused, output
//! floods are cut with a marker. Each for components and for wasip1 modules.

use crate::common;
use clawrun::sandbox::{RunConfig, Status};
use common::*;

#[test]
fn endless_loop_is_stopped_by_fuel_with_a_clear_message() {
    for target in TARGETS {
        let out = run_with(
            &program("spin", target),
            vfs_with_dirs(&[]),
            &[],
            &[],
            RunConfig {
                fuel: 50_000_000,
                ..RunConfig::default()
            },
        );
        assert_eq!(
            out.status,
            Status::OutOfFuel { fuel: 50_000_000 },
            "{target:?}"
        );
        assert_eq!(out.status.exit_code(), 137);
        let msg = out.status.message().unwrap();
        assert!(
            msg.contains("ran out of fuel after 50000000 units"),
            "{msg}"
        );
        assert!(msg.contains("--fuel"), "{msg}");
        assert_eq!(out.fuel_used, 50_000_000);
    }
}

#[test]
fn memory_bomb_is_refused_and_small_allocations_work() {
    for target in TARGETS {
        let limited = RunConfig {
            max_memory: 64 << 20,
            ..RunConfig::default()
        };
        let bomb = run_with(
            &program("membomb", target),
            vfs_with_dirs(&[]),
            &[],
            &["1024"],
            limited,
        );
        assert_ne!(bomb.status, Status::Exited(0), "{target:?}");
        let said = stdout(&bomb) + &bomb.status.message().unwrap_or_default();
        assert!(
            said.contains("alloc failed 1024 MiB") || said.contains("exceeded the memory limit"),
            "{target:?}: {said}"
        );
        let small = run_with(
            &program("membomb", target),
            vfs_with_dirs(&[]),
            &[],
            &["8"],
            RunConfig {
                max_memory: 64 << 20,
                ..RunConfig::default()
            },
        );
        assert_eq!(small.status, Status::Exited(0), "{target:?}");
        assert!(stdout(&small).contains("allocated 8 MiB"));
    }
}

#[test]
fn allocation_abort_after_a_refused_growth_names_the_memory_limit() {
    for target in TARGETS {
        let out = run_with(
            &program("membomb", target),
            vfs_with_dirs(&[]),
            &[],
            &["256", "abort"],
            RunConfig {
                max_memory: 64 << 20,
                ..RunConfig::default()
            },
        );
        let Status::MemoryLimit { limit, requested } = out.status.clone() else {
            panic!("{target:?}: {:?} {}", out.status, stderr(&out));
        };
        assert_eq!(limit, 64 << 20);
        assert!(requested > 256 << 20, "{requested}");
        let msg = out.status.message().unwrap();
        assert!(
            msg.contains("the limit is 64 MiB (raise --memory)"),
            "{msg}"
        );
        assert_eq!(out.status.exit_code(), 134);
    }
}

#[test]
fn output_flood_is_truncated_with_a_marker() {
    for target in TARGETS {
        let out = run_with(
            &program("flood", target),
            vfs_with_dirs(&[]),
            &[],
            &["10000000"],
            RunConfig {
                stdout_cap: 100_000,
                ..RunConfig::default()
            },
        );
        assert_eq!(out.status, Status::Exited(0), "{target:?}");
        let text = stdout(&out);
        assert!(text.starts_with(&"x".repeat(100_000)));
        assert!(
            text.ends_with("\n[clawrun: output truncated, 9900000 more bytes cut]\n"),
            "{}",
            &text[100_000..]
        );
        assert!(stderr(&out).contains("done"));
    }
}

#[test]
fn exit_codes_pass_through() {
    for code in ["0", "1", "3", "42"] {
        let out = run(
            &program("exitcode", Target::P2),
            vfs_with_dirs(&[]),
            &[],
            &[code],
        );
        // WASI 0.2's `wasi:cli/exit.exit` only carries ok/err (rustc 1.95's std uses it), so
        // every non-zero code of a component arrives as 1.
        let want = if code == "0" { 0 } else { 1 };
        assert_eq!(out.status, Status::Exited(want), "p2 exit {code}");
        assert_eq!(stdout(&out), format!("exiting {code}\n"));
        let p1 = run(
            &program("exitcode", Target::P1),
            vfs_with_dirs(&[]),
            &[],
            &[code],
        );
        // A wasip1 module's `proc_exit` keeps its status on our preview 1 host.
        assert_eq!(
            p1.status,
            Status::Exited(code.parse().unwrap()),
            "p1 exit {code}"
        );
    }
}

#[test]
fn sockets_are_denied() {
    for target in TARGETS {
        let out = run(&program("netprobe", target), vfs_with_dirs(&[]), &[], &[]);
        let text = stdout(&out);
        assert!(!text.contains(": ok"), "{target:?}: {text}");
        assert!(text.lines().count() >= 2, "{text}");
    }
}

#[test]
fn a_real_time_deadline_stops_what_fuel_does_not() {
    // Fuel enough for hours; the deadline stops the program within its tick resolution.
    let out = run_with(
        &program("spin", TARGETS[0]),
        vfs_with_dirs(&[]),
        &[],
        &[],
        RunConfig {
            fuel: u64::MAX / 2,
            deadline: Some(std::time::Duration::from_millis(300)),
            ..RunConfig::default()
        },
    );
    assert_eq!(
        out.status,
        Status::Deadline {
            limit: std::time::Duration::from_millis(300)
        }
    );
    assert_eq!(out.status.exit_code(), 137);
    assert_eq!(out.status.limit(), Some("deadline"));
    let msg = out.status.message().unwrap();
    assert!(msg.contains("real-time deadline of 0.3 s"), "{msg}");
}
