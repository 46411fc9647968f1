//! Same inputs and seed give byte-identical output; clocks are virtual and sleeps do not block.

use crate::common;

use clawrun::sandbox::{RunConfig, Status};
use common::*;

fn clockrand(target: Target, seed: u64) -> String {
    let out = run_with(
        &program("clockrand", target),
        vfs_with_dirs(&[]),
        &[],
        &["one", "two words"],
        RunConfig {
            seed,
            env: vec![("B".into(), "2".into()), ("A".into(), "1".into())],
            ..RunConfig::default()
        },
    );
    assert_eq!(out.status, Status::Exited(0), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn same_seed_same_bytes_and_sleep_is_virtual() {
    for target in TARGETS {
        // The sleep is on the virtual clock: the guest sees exactly 5,000 ms pass (no wall
        // time is measured here: a loaded machine must not fail the test).
        let a = clockrand(target, 7);
        let b = clockrand(target, 7);
        assert_eq!(a, b, "{target:?}");
        assert!(a.contains("sleep_ms: 5000\n"), "{a}");
        assert!(a.contains("wall_delta_ms: 5000\n"), "{a}");
        // The virtual epoch: 2026-01-01T00:00:00Z.
        assert!(a.contains("wall_before: 1767225600 0\n"), "{a}");
        assert!(a.contains("arg[2]: \"two words\""), "{a}");
        assert!(a.contains("env: A=\"1\"\nenv: B=\"2\"\n"), "{a}");
        assert!(a.contains("env_count: 2\n"), "{a}");
    }
}

#[test]
fn different_seeds_give_different_random_streams() {
    for target in TARGETS {
        let line = |s: &str| {
            s.lines()
                .find(|l| l.starts_with("random_u64"))
                .unwrap()
                .to_string()
        };
        let (a, b) = (clockrand(target, 1), clockrand(target, 2));
        assert_ne!(line(&a), line(&b), "{target:?}");
    }
}
