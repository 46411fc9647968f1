//! WASI conformance of our filesystem host, virtual clock and preview 1 host, checked with raw
//! preview1 calls (`tests/guests/wasiconf`, wasm32-wasip1 on our preview 1 host over our
//! preview 2 hosts) and hand-written modules: the cases issue 19 found where clawrun was more
//! permissive than the WIT and preview1, or where the preview1 component adapter it used to
//! wrap wasip1 modules in got them wrong.

use crate::common;
use clawrun::sandbox::Status;
use common::*;

/// Runs `wasiconf /data <scenario>` over an empty writable `/data`; returns stdout.
fn wasiconf(scenario: &str) -> String {
    let out = run(
        &program("wasiconf", Target::P1),
        vfs_with_dirs(&["/data"]),
        &[("/data", true)],
        &["/data", scenario],
    );
    assert_eq!(
        out.status,
        Status::Exited(0),
        "wasiconf {scenario}: {}",
        stderr(&out)
    );
    stdout(&out)
}

#[test]
fn link_and_symlink_to_a_missing_name_with_trailing_slash_are_noent() {
    assert_eq!(
        wasiconf("trailing"),
        "link_missing_slash: NOENT (44)\n\
         link_plain: SUCCESS (0)\n\
         symlink_missing_slash: NOENT (44)\n\
         symlink_file_slash: NOTDIR (54)\n\
         symlink_dir_slash: EXIST (20)\n\
         symlink_plain: SUCCESS (0)\n"
    );
}

#[test]
fn symlinks_with_absolute_targets_are_not_created() {
    assert_eq!(
        wasiconf("symlink_abs"),
        "symlink_root: PERM (63)\n\
         symlink_abs_file: PERM (63)\n\
         symlink_relative: SUCCESS (0)\n\
         root_link_exists: false\n"
    );
}

#[test]
fn a_directory_handle_confines_dotdot() {
    assert_eq!(
        wasiconf("dotdot"),
        "sub_file: ok\n\
         sub_up_up: PERM (63)\n\
         sub_up: PERM (63)\n\
         root_up_up: ok\n"
    );
}

#[test]
fn sync_flags_given_at_open_are_reported_by_fdstat() {
    assert_eq!(
        wasiconf("sync"),
        "sync: fs_flags 0x10 (asked 0x10)\n\
         dsync: fs_flags 0x2 (asked 0x2)\n\
         rsync: fs_flags 0x8 (asked 0x8)\n\
         none: fs_flags 0x0 (asked 0x0)\n"
    );
}

#[test]
fn monotonic_readings_strictly_increase_and_sleeps_last_their_duration() {
    // wasi-testsuite's C clock_gettime-monotonic: two readings in a row must differ (the
    // virtual clock stood still between sleeps); a sleep still counts from the last reading.
    assert_eq!(
        wasiconf("clock"),
        "readings_increase: true\n\
         sleep_events: 1\n\
         sleep_at_least_50ms: true\n"
    );
}

#[test]
fn virtual_time_advances_in_poll_only_when_nothing_else_is_ready() {
    assert_eq!(
        wasiconf("poll"),
        "mixed_events: 2/type2/err0 3/type2/err0\n\
         mixed_elapsed_ms: 0\n\
         timers_events: 5/type0\n\
         timers_elapsed_ms: 100\n"
    );
}

#[test]
fn a_write_to_a_descriptor_that_is_not_open_is_badf_even_with_nothing_to_write() {
    assert_eq!(
        wasiconf("write0"),
        "write0_bad_fd: BADF (8)\n\
         write_no_iovecs_bad_fd: BADF (8)\n"
    );
}

/// Runs a wasip1 module written in the text format with `args` (after argv\[0\]).
fn run_wat(wat: &str, args: &[&str]) -> clawrun::sandbox::RunOutcome {
    let bytes = wat::parse_str(wat).expect("valid wat");
    let program = SANDBOX.load(&bytes).expect("load module");
    run(&program, vfs_with_dirs(&[]), &[], args)
}

#[test]
fn proc_exit_keeps_its_status() {
    // wasi-testsuite's assemblyscript proc_exit-failure (the preview1 adapter made it 1).
    let exit = |status: u32| {
        run_wat(
            &format!(
                r#"(module
                  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
                  (memory (export "memory") 1)
                  (func (export "_start") (call $exit (i32.const {status}))))"#
            ),
            &[],
        )
        .status
    };
    assert_eq!(exit(33), Status::Exited(33));
    assert_eq!(exit(0), Status::Exited(0));
    assert_eq!(exit(255), Status::Exited(255));
    match exit(256) {
        Status::Trapped(msg) => assert!(msg.contains("proc_exit(256)"), "{msg}"),
        other => panic!("proc_exit(256) gave {other:?}"),
    }
}

#[test]
fn a_zero_length_write_to_a_bad_descriptor_is_badf() {
    // wasi-testsuite's assemblyscript fd_write-to-invalid-fd: fd -31337, no iovecs; the
    // module exits with the errno it got.
    let out = run_wat(
        r#"(module
          (import "wasi_snapshot_preview1" "fd_write"
            (func $write (param i32 i32 i32 i32) (result i32)))
          (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
          (memory (export "memory") 1)
          (func (export "_start")
            (call $exit (call $write (i32.const -31337) (i32.const 0) (i32.const 0) (i32.const 16)))))"#,
        &[],
    );
    assert_eq!(out.status, Status::Exited(8), "BADF is errno 8");
}

#[test]
fn a_module_that_owns_all_of_its_memory_still_gets_its_arguments_and_environment() {
    // wasi-testsuite's assemblyscript args_get-multiple-arguments / environ_get-multiple-
    // variables: the module exports no cabi_realloc, asks for the sizes, then (as
    // AssemblyScript's allocator does) claims every page of its memory and overwrites it
    // before asking for the strings. The preview1 adapter kept its own state in pages it grew
    // during the first call and failed an assertion; our host keeps nothing in guest memory.
    // The module prints argv[1] and the first environment variable, each on a line.
    let wat = r#"(module
      (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes (param i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "environ_sizes_get" (func $env_sizes (param i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "environ_get" (func $env_get (param i32 i32) (result i32)))
      (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
      (memory (export "memory") 1)
      (func $strlen (param $p i32) (result i32) (local $n i32)
        (block $done (loop $next
          (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (br $next)))
        (local.get $n))
      ;; Prints the NUL-terminated string at $p and a newline.
      (func $puts (param $p i32)
        (i32.store (i32.const 0) (local.get $p))
        (i32.store (i32.const 4) (call $strlen (local.get $p)))
        (i32.store (i32.const 8) (i32.const 24))
        (i32.store (i32.const 12) (i32.const 1))
        (i32.store8 (i32.const 24) (i32.const 10))
        (drop (call $write (i32.const 1) (i32.const 0) (i32.const 2) (i32.const 16))))
      (func (export "_start")
        (drop (call $args_sizes (i32.const 32) (i32.const 36)))
        (drop (call $env_sizes (i32.const 40) (i32.const 44)))
        ;; Claim the whole memory, grown by one page as an allocator would, and scribble on it.
        (drop (memory.grow (i32.const 1)))
        (memory.fill (i32.const 64) (i32.const 0xAA) (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 64)))
        (drop (call $args_get (i32.const 1024) (i32.const 2048)))
        (call $puts (i32.load (i32.const 1028)))
        (drop (call $env_get (i32.const 4096) (i32.const 8192)))
        (call $puts (i32.load (i32.const 4096)))))"#;
    let bytes = wat::parse_str(wat).expect("valid wat");
    let program = SANDBOX.load(&bytes).expect("load module");
    let out = SANDBOX
        .run(
            &program,
            vfs_with_dirs(&[]),
            clawrun::sandbox::RunConfig {
                args: vec!["prog".into(), "first-argument".into(), "second".into()],
                env: vec![("GREETING".into(), "hello".into())],
                ..clawrun::sandbox::RunConfig::default()
            },
        )
        .expect("run");
    assert_eq!(out.status, Status::Exited(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "first-argument\nGREETING=hello\n");
}
