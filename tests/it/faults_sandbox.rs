//! The fault injector as the sandbox's filesystem hook, end to end with a real guest: a plan
//! rule `fs:open:/data/input.txt` -> `eio` on call 1 fails the first `rmw` run; a second run
//! sharing the injector succeeds because that point's counter has moved on; the events record
//! what happened, timed on the trial's virtual clock.

use crate::common;
use clawrun::faults::{FaultInjector, FaultKind, PlanOptions, SharedInjector, plan_from_yaml};
use clawrun::sandbox::clock::VirtualClock;
use clawrun::sandbox::{RunConfig, Status};
use common::*;

const PLAN: &str = "\
rules:
  - name: input-eio
    point: fs:open:/data/input.txt
    kind: eio
    calls: [1]
  - point: fs:write:/data/output.txt
    kind: latency:1500
    calls: [1]
";

#[test]
fn an_injected_eio_fails_the_first_run_and_the_retry_succeeds() {
    for target in TARGETS {
        let plan = plan_from_yaml(PLAN, "plan.yaml", &PlanOptions::new(7)).unwrap();
        let clock = VirtualClock::default();
        let injector = SharedInjector::new(FaultInjector::new(plan).with_clock(clock.clone()));
        let mut vfs = vfs_with_dirs(&["/data"]);
        vfs.write_file("/data/input.txt", b"hello").unwrap();
        let program = program("rmw", target);
        let config = || RunConfig {
            clock: clock.clone(),
            fs_hook: injector.fs_hook(),
            ..RunConfig::default()
        };

        // Run 1: the first open of input.txt fails with EIO (Rust calls it `Uncategorized`).
        let first = run_with(
            &program,
            vfs.fork(),
            &[("/data", true)],
            &["/data"],
            config(),
        );
        assert_eq!(
            stdout(&first),
            "rmw: err read Uncategorized\n",
            "{target:?}"
        );
        assert_eq!(first.status, Status::Exited(1));
        assert!(first.vfs.read_file("/data/output.txt").is_err());
        let events = injector.drain_events();
        assert_eq!(events.len(), 1, "{target:?}: {events:?}");
        assert_eq!(&*events[0].point, "fs:open:/data/input.txt");
        assert_eq!(
            (events[0].rule, events[0].rule_name.as_deref()),
            (0, Some("input-eio"))
        );
        assert_eq!((events[0].kind, events[0].call), (FaultKind::Eio, 1));

        // Run 2, same injector: the point is at call 2, the rule (calls: [1]) stays quiet, and
        // the first write of output.txt costs 1.5 s of virtual time (nothing sleeps).
        let before = clock.elapsed_ns();
        let second = run_with(
            &program,
            vfs.fork(),
            &[("/data", true)],
            &["/data"],
            config(),
        );
        assert_eq!(stdout(&second), "rmw: 5 bytes\n", "{target:?}");
        assert_eq!(second.status, Status::Exited(0));
        assert_eq!(second.vfs.read_file("/data/output.txt").unwrap(), b"HELLO");
        let events = injector.drain_events();
        assert_eq!(events.len(), 1, "{target:?}: {events:?}");
        assert_eq!(&*events[0].point, "fs:write:/data/output.txt");
        assert_eq!(events[0].kind, FaultKind::Latency { millis: 1500 });
        assert!(events[0].at_virtual_ns >= before);
        assert!(clock.elapsed_ns() >= before + 1_500_000_000);

        let inj = injector.lock();
        assert_eq!(inj.calls("fs:open:/data/input.txt"), 2, "{target:?}");
        assert_eq!(inj.fired(0), 1);
        assert_eq!(inj.fired(1), 1);
        // Other fs points were counted as they went by (the log file, the preopen).
        assert!(
            inj.call_counts()
                .any(|(p, n)| p == "fs:write:/data/log.txt" && n >= 1)
        );
    }
}

#[test]
fn a_replay_with_the_same_seed_sees_the_same_faults() {
    // Probabilistic faults on every fs op under /data: two trials with the same seed behave
    // identically (output, final tree, events), a different seed differs somewhere.
    let plan_text =
        "rules:\n  - point: 'fs:*:/data/*'\n    kinds: {eio: 1, eacces: 1}\n    probability: 0.3\n";
    let trial = |seed: u64| {
        let plan = plan_from_yaml(plan_text, "plan.yaml", &PlanOptions::new(seed)).unwrap();
        let injector = SharedInjector::new(FaultInjector::new(plan));
        let mut outs = Vec::new();
        for _ in 0..4 {
            let mut vfs = vfs_with_dirs(&["/data"]);
            vfs.write_file("/data/input.txt", b"hello").unwrap();
            let out = run_with(
                &program("rmw", Target::P2),
                vfs,
                &[("/data", true)],
                &["/data"],
                RunConfig {
                    fs_hook: injector.fs_hook(),
                    ..RunConfig::default()
                },
            );
            let text = stdout(&out);
            let mut tree = out.vfs;
            outs.push((text, tree.root_hash()));
        }
        (outs, injector.drain_events())
    };
    let (a, events_a) = trial(1);
    let (b, events_b) = trial(1);
    assert_eq!(a, b);
    assert_eq!(events_a, events_b);
    assert!(!events_a.is_empty());
    let differs = (2..10).any(|seed| trial(seed).1 != events_a);
    assert!(differs);
}
