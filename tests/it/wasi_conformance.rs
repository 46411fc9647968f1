//! WASI conformance of our filesystem host and virtual clock, checked with raw preview1 calls
//! (`tests/guests/wasiconf`, wasm32-wasip1 through the preview1 adapter onto our host): the
//! cases issue 19 found where clawrun was more permissive than the WIT and preview1.

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
