//! Import from and export to host directories.
#![cfg(unix)]

mod common;

use std::{
    fs,
    os::unix::{ffi::OsStrExt, fs::PermissionsExt},
    path::Path,
};

use cap_std::{ambient_authority, fs::Dir};
use clawrun_vfs::{Change, ChangeKind, NodeKind, Timestamp, Usage, Vfs, VfsError};
use common::dump;

fn open(path: &Path) -> Dir {
    Dir::open_ambient_dir(path, ambient_authority()).unwrap()
}

/// A host tree with nested dirs, an executable, and symlinks pointing outside.
fn sample_host() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir_all(root.join("src/empty")).unwrap();
    fs::write(root.join("README.md"), b"# hi\n").unwrap();
    fs::write(root.join("src/lib.rs"), vec![b'x'; 70_000]).unwrap();
    fs::write(root.join("run.sh"), b"#!/bin/sh\n").unwrap();
    fs::set_permissions(root.join("run.sh"), fs::Permissions::from_mode(0o700)).unwrap();
    fs::set_permissions(root.join("README.md"), fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::symlink("../../etc/passwd", root.join("src/escape")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", root.join("abs")).unwrap();
    std::os::unix::fs::symlink("src", root.join("src-link")).unwrap();
    tmp
}

#[test]
fn import_copies_symlinks_verbatim_and_normalises_modes() {
    let host = sample_host();
    let mut vfs = Vfs::new();
    vfs.set_now(Timestamp::new(1234, 5));
    let ws = vfs.create_dir_all("/workspace").unwrap();
    let added = vfs.import_dir(ws, &open(host.path())).unwrap();
    assert_eq!(
        added,
        Usage {
            bytes: 5 + 70_000 + 10 + 16 + 11 + 3,
            inodes: 8
        }
    );
    let listing: Vec<_> = vfs
        .walk("/workspace")
        .unwrap()
        .into_iter()
        .map(|(p, ino, k)| (p, ino.0, k))
        .collect();
    use NodeKind::*;
    let expect = [
        ("/workspace/README.md", 3, File),
        ("/workspace/abs", 4, Symlink),
        ("/workspace/run.sh", 5, File),
        ("/workspace/src", 6, Directory),
        ("/workspace/src/empty", 7, Directory),
        ("/workspace/src/escape", 8, Symlink),
        ("/workspace/src/lib.rs", 9, File),
        ("/workspace/src-link", 10, Symlink),
    ];
    assert_eq!(listing, expect.map(|(p, i, k)| (p.to_owned(), i, k)));
    let ino = |p: &str| vfs.resolve_nofollow(p).unwrap();
    assert_eq!(
        vfs.readlink(ino("/workspace/src/escape")).unwrap(),
        "../../etc/passwd"
    );
    assert_eq!(vfs.readlink(ino("/workspace/abs")).unwrap(), "/etc/passwd");
    // Inside the VFS the escaping links resolve (if at all) within the VFS only.
    assert!(matches!(
        vfs.resolve("/workspace/abs"),
        Err(VfsError::NotFound)
    ));
    assert_eq!(vfs.metadata(ino("/workspace/run.sh")).unwrap().mode, 0o755);
    assert_eq!(
        vfs.metadata(ino("/workspace/README.md")).unwrap().mode,
        0o644
    );
    assert_eq!(vfs.metadata(ino("/workspace/src")).unwrap().mode, 0o755);
    let meta = vfs.metadata(ino("/workspace/src/lib.rs")).unwrap();
    assert_eq!((meta.size, meta.mtime), (70_000, Timestamp::new(1234, 5)));
    assert_eq!(
        vfs.read_file("/workspace/src-link/lib.rs").unwrap(),
        vec![b'x'; 70_000]
    );

    // Deterministic: a second import into a fresh VFS gives identical inos and hash.
    let mut again = Vfs::new();
    again.set_now(Timestamp::new(1234, 5));
    let ws2 = again.create_dir_all("/workspace").unwrap();
    again.import_dir(ws2, &open(host.path())).unwrap();
    assert_eq!(again.walk("/").unwrap(), vfs.walk("/").unwrap());
    assert_eq!(again.root_hash(), vfs.root_hash());

    // Importing again merges directories but refuses to overwrite other entries.
    let before = dump(&vfs);
    assert!(matches!(
        vfs.import_dir(ws, &open(host.path())),
        Err(VfsError::Exists)
    ));
    assert_eq!(dump(&vfs), before, "failed imports leave no partial state");
}

#[test]
fn import_rejects_special_files_and_non_utf8_names() {
    let host = tempfile::tempdir().unwrap();
    fs::create_dir(host.path().join("sub")).unwrap();
    fs::write(host.path().join("a.txt"), b"a").unwrap();
    let _sock = std::os::unix::net::UnixListener::bind(host.path().join("sub/sock")).unwrap();
    let mut vfs = Vfs::new();
    let root = vfs.root();
    match vfs.import_dir(root, &open(host.path())) {
        Err(VfsError::Host { path, source }) => {
            assert_eq!(path, "sub/sock");
            assert_eq!(source.kind(), std::io::ErrorKind::Unsupported);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(
        vfs.usage(),
        Usage {
            bytes: 0,
            inodes: 1
        }
    );
    assert!(vfs.read_dir(root).unwrap().is_empty());

    let host = tempfile::tempdir().unwrap();
    let bad = std::ffi::OsStr::from_bytes(b"bad\xffname");
    if fs::write(host.path().join(bad), b"x").is_ok() {
        let err = vfs.import_dir(root, &open(host.path())).unwrap_err();
        assert!(
            matches!(&err, VfsError::NonUtf8Name(n) if n == "bad\u{fffd}name"),
            "{err:?}"
        );
    }
}

#[test]
fn export_dir_round_trips() {
    let host = sample_host();
    let mut vfs = Vfs::new();
    let root = vfs.root();
    vfs.import_dir(root, &open(host.path())).unwrap();
    let out = tempfile::tempdir().unwrap();
    fs::write(out.path().join("extra"), b"kept").unwrap();
    fs::create_dir(out.path().join("run.sh")).unwrap(); // replaced by the file
    vfs.export_dir(root, &open(out.path())).unwrap();
    assert_eq!(
        fs::read_link(out.path().join("src/escape")).unwrap(),
        Path::new("../../etc/passwd")
    );
    assert_eq!(
        fs::read_link(out.path().join("abs")).unwrap(),
        Path::new("/etc/passwd")
    );
    assert_eq!(fs::read(out.path().join("extra")).unwrap(), b"kept");
    let mode = fs::metadata(out.path().join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
    fs::remove_file(out.path().join("extra")).unwrap();

    let mut back = Vfs::new();
    let back_root = back.root();
    back.import_dir(back_root, &open(out.path())).unwrap();
    assert_eq!(back.root_hash(), vfs.root_hash());
    let file = vfs.resolve("/README.md").unwrap();
    assert!(matches!(
        vfs.export_dir(file, &open(out.path())),
        Err(VfsError::NotDir)
    ));
}

#[test]
fn export_changes_applies_the_diff() {
    let host = sample_host();
    let mut base = Vfs::new();
    base.write_file("/outside.txt", b"not exported").unwrap();
    let ws = base.create_dir_all("/workspace").unwrap();
    base.import_dir(ws, &open(host.path())).unwrap();

    let mut cur = base.fork();
    cur.write_file("/workspace/README.md", b"# changed\n")
        .unwrap();
    cur.remove_all("/workspace/src/lib.rs").unwrap();
    cur.remove_all("/workspace/src/empty").unwrap();
    cur.create_dir_all("/workspace/new/deeper").unwrap();
    cur.write_file("/workspace/new/deeper/file.txt", b"deep")
        .unwrap();
    cur.remove_all("/workspace/run.sh").unwrap();
    cur.create_dir_all("/workspace/run.sh").unwrap(); // file -> dir
    cur.remove_all("/workspace/src-link").unwrap();
    let w = cur.resolve("/workspace").unwrap();
    cur.create_symlink(w, "src-link", "new").unwrap(); // retargeted symlink
    cur.write_file("/outside.txt", b"changed outside").unwrap();
    let sh = cur.write_file("/workspace/tool", b"#!").unwrap();
    cur.set_mode(sh, 0o755).unwrap();

    let dir = open(host.path());
    let applied = Vfs::export_changes(&mut base, &mut cur, "/workspace/", &dir).unwrap();
    use ChangeKind::*;
    let expect = [
        ("README.md", Modified),
        ("new", Added),
        ("new/deeper", Added),
        ("new/deeper/file.txt", Added),
        ("run.sh", Removed),
        ("run.sh", Added),
        ("src-link", Modified),
        ("src/empty", Removed),
        ("src/lib.rs", Removed),
        ("tool", Added),
    ];
    assert_eq!(
        applied,
        expect.map(|(p, kind)| Change {
            path: p.to_owned(),
            kind
        })
    );
    assert!(!host.path().join("src/lib.rs").exists());
    assert!(!host.path().join("src/empty").exists());
    assert!(host.path().join("run.sh").is_dir());
    assert_eq!(
        fs::read_link(host.path().join("src-link")).unwrap(),
        Path::new("new")
    );
    assert_eq!(
        fs::read(host.path().join("new/deeper/file.txt")).unwrap(),
        b"deep"
    );
    assert!(!host.path().join("outside.txt").exists());

    // The host dir now mirrors the VFS subtree exactly.
    let mut mirror = Vfs::new();
    let mirror_root = mirror.root();
    mirror.import_dir(mirror_root, &open(host.path())).unwrap();
    let w = cur.resolve("/workspace").unwrap();
    assert_eq!(mirror.root_hash(), cur.hash_of(w).unwrap());

    // A whole-tree export skips the root itself (its mode is not a path below it).
    let mut moded = cur.fork();
    let root = moded.root();
    moded.set_mode(root, 0o700).unwrap();
    moded.write_file("/workspace/top.txt", b"t").unwrap();
    let all = tempfile::tempdir().unwrap();
    cur.export_dir(cur.root(), &open(all.path())).unwrap();
    let applied = Vfs::export_changes(&mut cur, &mut moded, "/", &open(all.path())).unwrap();
    assert_eq!(
        applied,
        [Change {
            path: "workspace/top.txt".into(),
            kind: Added
        }]
    );
    assert_eq!(
        fs::read(all.path().join("workspace/top.txt")).unwrap(),
        b"t"
    );

    // Nothing left to apply.
    let mut again = cur.fork();
    assert!(
        Vfs::export_changes(&mut cur, &mut again, "/workspace", &dir)
            .unwrap()
            .is_empty()
    );
    assert!(matches!(
        Vfs::export_changes(&mut cur, &mut again, "/workspace/..", &dir),
        Err(VfsError::InvalidArgument(_))
    ));
}

#[test]
fn export_refuses_symlinks_a_host_reader_could_follow_out() {
    let mut base = Vfs::new();
    base.create_dir_all("/workspace/sub").unwrap();
    let top = base.resolve("/workspace").unwrap();
    base.create_symlink(top, "old-abs", "/etc").unwrap();
    // An absolute link the host folder already had is tolerated; a new one is not.
    let mut unsafe_link = |target: &str, at: &str| {
        let mut cur = base.fork();
        let (dir, name) = at.rsplit_once('/').unwrap();
        let dir = cur.create_dir_all(&format!("/workspace/{dir}")).unwrap();
        cur.create_symlink(dir, name, target).unwrap();
        let host = tempfile::tempdir().unwrap();
        base.export_dir(top, &open(host.path())).unwrap();
        let listing = || {
            let mut names: Vec<_> = fs::read_dir(host.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            names
        };
        let before = listing();
        let result = Vfs::export_changes(&mut base, &mut cur, "/workspace", &open(host.path()));
        match result {
            Err(VfsError::UnsafeSymlink {
                path,
                target: t,
                why,
            }) => {
                assert_eq!((path.as_str(), t.as_str()), (at, target));
                assert_eq!(listing(), before, "nothing may be written after a refusal");
                Some(why)
            }
            Ok(_) => None,
            Err(e) => panic!("{at} -> {target}: {e}"),
        }
    };
    assert_eq!(
        unsafe_link("/etc/passwd", "sub/abs"),
        Some("its target is absolute")
    );
    assert!(
        unsafe_link("../..", "sub/up")
            .unwrap()
            .contains("climbs above")
    );
    assert!(
        unsafe_link("nope/../../../x", "x/dangling")
            .unwrap()
            .contains("climbs above")
    );
    assert_eq!(
        unsafe_link("../old-abs/passwd", "x/via"),
        Some("its target passes through a symlink with an absolute target")
    );
    assert_eq!(unsafe_link("../sub", "sub/ok"), None);
    assert_eq!(unsafe_link("..", "sub/top"), None);
}
