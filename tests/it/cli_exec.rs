//! `clawrun exec` end to end through the real binary: output and exit status pass through,
//! `--hash` is reproducible, `--write-back` is the only way changes reach the host, and bad
//! input gets a one-line error with exit status 2.

use crate::common;
use std::path::Path;
use std::process::{Command, Output};

use common::{Target, guest, target_dir};

fn clawrun(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(args)
        .env("CLAWRUN_CACHE_DIR", target_dir().join("clawrun-test-cache"))
        .output()
        .expect("running clawrun")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Writes guest `name` for `target` to a file and returns its path.
fn guest_file(dir: &Path, name: &str, target: Target) -> String {
    let path = dir.join(format!("{name}-{target:?}.wasm"));
    std::fs::write(&path, guest(name, target)).unwrap();
    path.to_str().unwrap().to_string()
}

fn host_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("input.txt"), "hello clawrun\n").unwrap();
    std::fs::write(dir.path().join("log.txt"), "earlier\n").unwrap();
    dir
}

#[test]
fn runs_components_and_wasip1_modules_without_touching_the_host() {
    let bin = tempfile::tempdir().unwrap();
    for target in common::TARGETS {
        let data = host_tree();
        let prog = guest_file(bin.path(), "rmw", target);
        let spec = format!("{}::/data", data.path().display());
        let out = clawrun(&["exec", "--dir", &spec, "--hash", &prog, "--", "/data"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{target:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), "rmw: 14 bytes\n");
        let err = text(&out.stderr);
        let hash = err
            .lines()
            .find_map(|l| l.strip_prefix("root-hash: "))
            .expect("hash line");
        assert_eq!(hash.len(), 64);
        // Without --write-back the host is untouched.
        assert!(!data.path().join("output.txt").exists());
        assert_eq!(
            std::fs::read_to_string(data.path().join("log.txt")).unwrap(),
            "earlier\n"
        );
        // Same inputs, same hash, every time.
        let again = clawrun(&["exec", "--dir", &spec, "--hash", &prog, "--", "/data"]);
        assert_eq!(again.stdout, out.stdout);
        assert_eq!(again.stderr, out.stderr);
    }
}

#[test]
fn write_back_exports_exactly_the_changes() {
    let bin = tempfile::tempdir().unwrap();
    let data = host_tree();
    std::fs::write(data.path().join("untouched.txt"), "same\n").unwrap();
    let prog = guest_file(bin.path(), "rmw", Target::P2);
    let spec = format!("{}::/data", data.path().display());
    let out = clawrun(&["exec", "--dir", &spec, "--write-back", &prog, "--", "/data"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let read = |n: &str| std::fs::read_to_string(data.path().join(n)).unwrap();
    assert_eq!(read("output.txt"), "HELLO CLAWRUN\n");
    assert_eq!(read("log.txt"), "earlier\nrmw 14 bytes\n");
    assert_eq!(read("untouched.txt"), "same\n");
    assert_eq!(read("input.txt"), "hello clawrun\n");
}

/// Runs `wasiconf /data plant <exit> LINKS...` over `data` with `write_back` flags.
fn plant(data: &Path, write_back: &str, exit: &str, links: &[&str]) -> Output {
    let bin = tempfile::tempdir().unwrap();
    let prog = guest_file(bin.path(), "wasiconf", Target::P1);
    let spec = format!("{}::/data", data.display());
    let mut args = vec![
        "exec", "--dir", &spec, write_back, &prog, "--", "/data", "plant", exit,
    ];
    args.extend_from_slice(links);
    clawrun(&args)
}

#[test]
fn write_back_by_default_only_after_a_zero_exit() {
    let data = host_tree();
    let out = plant(data.path(), "--write-back", "3", &[]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("not writing changes back")
            && text(&out.stderr).contains("--write-back=always"),
        "{}",
        text(&out.stderr)
    );
    assert!(!data.path().join("planted.txt").exists());

    let out = plant(data.path(), "--write-back=always", "3", &[]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(data.path().join("planted.txt").exists());

    let data = host_tree();
    let out = plant(data.path(), "--write-back", "0", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(data.path().join("planted.txt").exists());
}

/// Asserts that a write-back was refused naming `link` and that nothing reached the host.
fn assert_refused(out: &Output, data: &Path, link: &str, why: &str) {
    let err = text(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("refusing to write back symlink \"{link}\""))
            && err.contains(why)
            && err.contains("nothing was written"),
        "{err}"
    );
    assert!(!data.join("planted.txt").exists(), "{err}");
    assert!(std::fs::symlink_metadata(data.join(link)).is_err(), "{err}");
}

#[test]
fn write_back_refuses_symlinks_leading_out_of_the_folder() {
    // Climbing above the folder, lexically.
    let data = host_tree();
    let out = plant(data.path(), "--write-back", "0", &["sub/up=../.."]);
    assert_refused(&out, data.path(), "sub/up", "climbs above");
    // Through a missing directory: the host could create it later.
    let data = host_tree();
    let out = plant(data.path(), "--write-back", "0", &["later=missing/../../x"]);
    assert_refused(&out, data.path(), "later", "climbs above");
    // Through a symlink the host folder already had, with an absolute target: the old link
    // itself is tolerated (it was there before), the new one leading through it is not.
    let data = host_tree();
    std::os::unix::fs::symlink("/etc", data.path().join("etc-link")).unwrap();
    let out = plant(data.path(), "--write-back", "0", &["pw=etc-link/passwd"]);
    assert_refused(&out, data.path(), "pw", "absolute target");
    // Through a new link that is itself fine (`a/s -> ..` is the folder itself).
    let data = host_tree();
    let out = plant(data.path(), "--write-back", "0", &["a/s=..", "b=a/s/../x"]);
    assert_refused(&out, data.path(), "b", "climbs above");
    // The same links staying inside are written back, next to the pre-existing absolute one.
    let data = host_tree();
    std::os::unix::fs::symlink("/etc", data.path().join("etc-link")).unwrap();
    let out = plant(
        data.path(),
        "--write-back",
        "0",
        &["a/s=..", "b=a/s/input.txt"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(data.path().join("b")).unwrap(),
        "hello clawrun\n"
    );
    assert!(data.path().join("planted.txt").exists());
}

#[cfg(unix)]
#[test]
fn write_back_swaps_in_a_staged_copy_and_leaves_no_stage_behind() {
    use std::os::unix::fs::MetadataExt;
    let parent = tempfile::tempdir().unwrap();
    let data = parent.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("input.txt"), "hello clawrun\n").unwrap();
    let before = std::fs::metadata(data.join("input.txt")).unwrap().ino();
    let folder_before = std::fs::metadata(&data).unwrap().ino();
    let out = plant(&data, "--write-back", "0", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // A new folder (the staged copy) took the old one's place; the unchanged file in it is
    // the same inode (hard-linked into the stage, never rewritten).
    assert_ne!(std::fs::metadata(&data).unwrap().ino(), folder_before);
    assert_eq!(
        std::fs::metadata(data.join("input.txt")).unwrap().ino(),
        before
    );
    assert!(data.join("planted.txt").exists());
    let names: Vec<String> = std::fs::read_dir(parent.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["data"]);
}

#[test]
fn read_only_dirs_are_not_written_back_and_refuse_writes() {
    let bin = tempfile::tempdir().unwrap();
    let data = host_tree();
    let prog = guest_file(bin.path(), "rmw", Target::P2);
    let spec = format!("{}::/data:ro", data.path().display());
    let out = clawrun(&["exec", "--dir", &spec, "--write-back", &prog, "--", "/data"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "rmw: err write ReadOnlyFilesystem\n");
    assert!(!data.path().join("output.txt").exists());
}

#[test]
fn traps_and_exit_codes_map_to_statuses() {
    let bin = tempfile::tempdir().unwrap();
    let spin = guest_file(bin.path(), "spin", Target::P2);
    let out = clawrun(&["exec", "--fuel", "1000000", &spin]);
    assert_eq!(out.status.code(), Some(137));
    assert!(
        text(&out.stderr).contains("ran out of fuel after 1000000 units"),
        "{}",
        text(&out.stderr)
    );
    let exit = guest_file(bin.path(), "exitcode", Target::P1);
    let out = clawrun(&["exec", &exit, "--", "42"]);
    // A wasip1 module's proc_exit keeps its status (a component's WASI 0.2 exit carries only
    // ok/err: any failure of a component is status 1).
    assert_eq!(out.status.code(), Some(42));
    assert_eq!(text(&out.stdout), "exiting 42\n");
    // A deadline of any size is a deadline (one whose ticks wrapped to 2^64 - 2 overflowed
    // the engine's epoch: exit 101).
    for deadline in ["3689348814741910323", "18446744073709551615"] {
        let out = clawrun(&["exec", "--deadline", deadline, &exit, "--", "7"]);
        assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
    }
}

#[test]
fn bad_input_gets_one_line_and_status_2() {
    let bin = tempfile::tempdir().unwrap();
    let prog = guest_file(bin.path(), "rmw", Target::P2);
    let garbage = bin.path().join("garbage.wasm");
    std::fs::write(&garbage, "#!/bin/sh\necho hi\n").unwrap();
    let garbage = garbage.to_str().unwrap();
    let data = host_tree();
    let ok_dir = format!("{}::/data", data.path().display());
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["exec", "/nonexistent/prog.wasm"],
            "cannot read program '/nonexistent/prog.wasm'",
        ),
        (vec!["exec", garbage], "not a WebAssembly binary"),
        (
            vec!["exec", "--dir", "nope", &prog],
            "--dir 'nope': expected HOST::GUEST",
        ),
        (
            vec!["exec", "--dir", "x::relative", &prog],
            "must be absolute",
        ),
        (
            vec!["exec", "--dir", "/nonexistent-host-dir::/data", &prog],
            "cannot open host folder '/nonexistent-host-dir'",
        ),
        (
            vec!["exec", "--dir", &ok_dir, "--dir", &ok_dir, &prog],
            "overlap",
        ),
        (
            vec!["exec", "--env", "novalue", &prog],
            "--env 'novalue': expected K=V",
        ),
    ];
    for (args, want) in cases {
        let out = clawrun(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("clawrun: error: "), "{err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
