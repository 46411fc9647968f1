//! The checks, on raw preview1 imports.

use std::os::fd::AsRawFd;

#[link(wasm_import_module = "wasi_snapshot_preview1")]
unsafe extern "C" {
    fn path_link(
        old_fd: u32,
        old_flags: u32,
        old_path: *const u8,
        old_len: usize,
        new_fd: u32,
        new_path: *const u8,
        new_len: usize,
    ) -> u16;
    fn path_symlink(old: *const u8, old_len: usize, fd: u32, new: *const u8, new_len: usize)
    -> u16;
    fn path_open(
        fd: u32,
        dirflags: u32,
        path: *const u8,
        path_len: usize,
        oflags: u32,
        rights_base: u64,
        rights_inheriting: u64,
        fdflags: u32,
        opened: *mut u32,
    ) -> u16;
    fn path_create_directory(fd: u32, path: *const u8, len: usize) -> u16;
    fn fd_fdstat_get(fd: u32, stat: *mut u8) -> u16;
    fn fd_close(fd: u32) -> u16;
    fn fd_write(fd: u32, iovs: *const u32, iovs_len: usize, written: *mut usize) -> u16;
    fn poll_oneoff(subs: *const u8, events: *mut u8, nsubs: usize, nevents: *mut usize) -> u16;
    fn clock_time_get(id: u32, precision: u64, time: *mut u64) -> u16;
}

const OFLAGS_CREAT: u32 = 1;
const OFLAGS_DIRECTORY: u32 = 2;
const FDFLAGS_DSYNC: u32 = 2;
const FDFLAGS_RSYNC: u32 = 8;
const FDFLAGS_SYNC: u32 = 16;
const RIGHTS_ALL: u64 = (1 << 30) - 1;
const RIGHTS_FD_WRITE: u64 = 1 << 6;
const CLOCK_MONOTONIC: u32 = 1;

fn errno(e: u16) -> String {
    let name = match e {
        0 => "SUCCESS",
        2 => "ACCES",
        8 => "BADF",
        20 => "EXIST",
        28 => "INVAL",
        44 => "NOENT",
        54 => "NOTDIR",
        58 => "NOTSUP",
        63 => "PERM",
        76 => "NOTCAPABLE",
        _ => "other",
    };
    format!("{name} ({e})")
}

fn open(fd: u32, path: &str, oflags: u32, fdflags: u32) -> Result<u32, u16> {
    let mut out = 0;
    // Directories are opened without the write right (the adapter would ask for write access).
    let rights = if oflags & OFLAGS_DIRECTORY != 0 {
        RIGHTS_ALL & !RIGHTS_FD_WRITE
    } else {
        RIGHTS_ALL
    };
    let e = unsafe {
        path_open(
            fd,
            0,
            path.as_ptr(),
            path.len(),
            oflags,
            rights,
            rights,
            fdflags,
            &mut out,
        )
    };
    if e == 0 { Ok(out) } else { Err(e) }
}

fn mkdir(fd: u32, path: &str) -> u16 {
    unsafe { path_create_directory(fd, path.as_ptr(), path.len()) }
}

fn link(fd: u32, old: &str, new: &str) -> u16 {
    unsafe { path_link(fd, 0, old.as_ptr(), old.len(), fd, new.as_ptr(), new.len()) }
}

fn symlink(fd: u32, target: &str, new: &str) -> u16 {
    unsafe { path_symlink(target.as_ptr(), target.len(), fd, new.as_ptr(), new.len()) }
}

fn fs_flags(fd: u32) -> Result<u16, u16> {
    let mut stat = [0u8; 24];
    match unsafe { fd_fdstat_get(fd, stat.as_mut_ptr()) } {
        0 => Ok(u16::from_le_bytes([stat[2], stat[3]])),
        e => Err(e),
    }
}

fn now() -> u64 {
    let mut t = 0;
    assert_eq!(unsafe { clock_time_get(CLOCK_MONOTONIC, 1, &mut t) }, 0);
    t
}

/// A clock subscription (relative timeout) or an fd_write subscription, 48 bytes each.
fn subscription(userdata: u64, clock_timeout_ns: Option<u64>, write_fd: u32) -> [u8; 48] {
    let mut s = [0u8; 48];
    s[..8].copy_from_slice(&userdata.to_le_bytes());
    match clock_timeout_ns {
        Some(ns) => {
            s[8] = 0; // eventtype clock
            s[16..20].copy_from_slice(&CLOCK_MONOTONIC.to_le_bytes());
            s[24..32].copy_from_slice(&ns.to_le_bytes());
        }
        None => {
            s[8] = 2; // eventtype fd_write
            s[16..20].copy_from_slice(&write_fd.to_le_bytes());
        }
    }
    s
}

/// Polls `subs`; returns the (userdata, error, type) of each event.
fn poll(subs: &[[u8; 48]]) -> Vec<(u64, u16, u8)> {
    let flat: Vec<u8> = subs.iter().flatten().copied().collect();
    let mut events = vec![0u8; 32 * subs.len()];
    let mut n = 0;
    let e = unsafe { poll_oneoff(flat.as_ptr(), events.as_mut_ptr(), subs.len(), &mut n) };
    assert_eq!(e, 0, "poll_oneoff: {}", errno(e));
    events[..n * 32]
        .chunks(32)
        .map(|ev| {
            (
                u64::from_le_bytes(ev[..8].try_into().unwrap()),
                u16::from_le_bytes([ev[8], ev[9]]),
                ev[10],
            )
        })
        .collect()
}

/// Runs one scenario in `dir`.
pub fn run(dir: &str, scenario: &str) {
    let root = std::fs::File::open(dir).expect("opening the directory");
    let fd = root.as_raw_fd() as u32;
    match scenario {
        "trailing" => {
            std::fs::write(format!("{dir}/file"), b"x").unwrap();
            println!("link_missing_slash: {}", errno(link(fd, "file", "link/")));
            println!("link_plain: {}", errno(link(fd, "file", "link")));
            println!(
                "symlink_missing_slash: {}",
                errno(symlink(fd, "source", "target/"))
            );
            println!(
                "symlink_file_slash: {}",
                errno(symlink(fd, "source", "file/"))
            );
            assert_eq!(mkdir(fd, "d"), 0);
            println!("symlink_dir_slash: {}", errno(symlink(fd, "source", "d/")));
            println!("symlink_plain: {}", errno(symlink(fd, "source", "target")));
        }
        "symlink_abs" => {
            println!("symlink_root: {}", errno(symlink(fd, "/", "symlink")));
            println!(
                "symlink_abs_file: {}",
                errno(symlink(fd, "/etc/passwd", "pw"))
            );
            println!("symlink_relative: {}", errno(symlink(fd, "a/b", "rel")));
            let exists = std::fs::symlink_metadata(format!("{dir}/symlink")).is_ok();
            println!("root_link_exists: {exists}");
        }
        "dotdot" => {
            assert_eq!(mkdir(fd, "d"), 0);
            assert_eq!(mkdir(fd, "d/n"), 0);
            std::fs::write(format!("{dir}/d/n/file"), b"x").unwrap();
            let sub = open(fd, "d/n", OFLAGS_DIRECTORY, 0).expect("opening d/n");
            let show = |path: &str| match open(sub, path, 0, 0) {
                Ok(f) => {
                    unsafe { fd_close(f) };
                    "ok".to_string()
                }
                Err(e) => errno(e),
            };
            println!("sub_file: {}", show("file"));
            println!("sub_up_up: {}", show("../../d/n/file"));
            println!("sub_up: {}", show("../n/file"));
            let from_root = match open(fd, "d/n/../../d/n/file", 0, 0) {
                Ok(f) => {
                    unsafe { fd_close(f) };
                    "ok".to_string()
                }
                Err(e) => errno(e),
            };
            println!("root_up_up: {from_root}");
        }
        "sync" => {
            for (name, flags) in [
                ("sync", FDFLAGS_SYNC),
                ("dsync", FDFLAGS_DSYNC),
                ("rsync", FDFLAGS_RSYNC),
                ("none", 0),
            ] {
                let result = match open(fd, name, OFLAGS_CREAT, flags) {
                    Ok(f) => match fs_flags(f) {
                        Ok(got) => format!("fs_flags {got:#x} (asked {flags:#x})"),
                        Err(e) => format!("fdstat {}", errno(e)),
                    },
                    Err(e) => format!("open {}", errno(e)),
                };
                println!("{name}: {result}");
            }
        }
        "poll" => {
            let before = now();
            let mixed = poll(&[
                subscription(1, Some(200_000_000), 0),
                subscription(2, None, 1),
                subscription(3, None, 2),
            ]);
            let mut ids: Vec<String> = mixed
                .iter()
                .map(|(u, e, t)| format!("{u}/type{t}/err{e}"))
                .collect();
            ids.sort();
            println!("mixed_events: {}", ids.join(" "));
            println!("mixed_elapsed_ms: {}", (now() - before) / 1_000_000);
            let before = now();
            let timers = poll(&[
                subscription(4, Some(500_000_000), 0),
                subscription(5, Some(100_000_000), 0),
            ]);
            let ids: Vec<String> = timers
                .iter()
                .map(|(u, _, t)| format!("{u}/type{t}"))
                .collect();
            println!("timers_events: {}", ids.join(" "));
            println!("timers_elapsed_ms: {}", (now() - before) / 1_000_000);
        }
        "clock" => {
            let first = now();
            let second = now();
            println!("readings_increase: {}", second > first);
            let before = now();
            let events = poll(&[subscription(6, Some(50_000_000), 0)]);
            let after = now();
            println!("sleep_events: {}", events.len());
            println!("sleep_at_least_50ms: {}", after - before >= 50_000_000);
        }
        "write0" => {
            let iov = [0u32, 0u32];
            let mut n = 0;
            let e = unsafe { fd_write(99, iov.as_ptr(), 1, &mut n) };
            println!("write0_bad_fd: {}", errno(e));
            let e = unsafe { fd_write(99, iov.as_ptr(), 0, &mut n) };
            println!("write_no_iovecs_bad_fd: {}", errno(e));
        }
        "plant" => {
            // plant <exit> [NAME=TARGET]...: writes planted.txt, creates the symlinks, exits.
            let rest: Vec<String> = std::env::args().skip(3).collect();
            let code: i32 = rest.first().and_then(|c| c.parse().ok()).unwrap_or(0);
            std::fs::write(format!("{dir}/planted.txt"), b"planted\n").unwrap();
            for spec in rest.iter().skip(1) {
                let (name, target) = spec.split_once('=').expect("NAME=TARGET");
                if let Some(parent) = name.rsplit_once('/').map(|(p, _)| p) {
                    std::fs::create_dir_all(format!("{dir}/{parent}")).unwrap();
                }
                println!("{name}: {}", errno(symlink(fd, target, name)));
            }
            std::process::exit(code);
        }
        other => {
            eprintln!("unknown scenario {other}");
            std::process::exit(2);
        }
    }
}
