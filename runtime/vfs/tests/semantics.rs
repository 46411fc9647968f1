//! Unit-style tests of POSIX semantics, orphans, quotas, paths and diffs.

mod common;

use clawrun_vfs::{Change, ChangeKind, Ino, NodeKind, Quota, Timestamp, Usage, Vfs, VfsError};
use common::{code, dump};

fn err<T: std::fmt::Debug>(r: Result<T, VfsError>) -> &'static str {
    code(&r.unwrap_err())
}

#[test]
fn vfs_is_send_sync_and_cheap_to_debug() {
    fn assert_send_sync<T: Send + Sync + Clone + Default>() {}
    assert_send_sync::<Vfs>();
    let vfs = Vfs::new();
    assert_eq!(
        format!("{vfs:?}"),
        "Vfs { inodes: 1, bytes: 0, now: Timestamp { secs: 0, nanos: 0 }, .. }"
    );
}

#[test]
fn error_messages_are_short_and_lower_case() {
    for e in [
        VfsError::NotFound,
        VfsError::Exists,
        VfsError::NotDir,
        VfsError::IsDir,
        VfsError::NotEmpty,
        VfsError::NoSpace,
        VfsError::InodeQuota,
        VfsError::InvalidName("a/b".into()),
        VfsError::InvalidArgument("bad"),
        VfsError::Loop,
        VfsError::NonUtf8Name("x".into()),
    ] {
        let msg = e.to_string();
        assert_eq!(msg, msg.to_lowercase(), "{msg}");
        assert!(msg.len() < 50, "{msg}");
    }
    assert_eq!(
        VfsError::InvalidName("a/b".into()).to_string(),
        "invalid file name \"a/b\""
    );
}

#[test]
fn inode_numbers_are_deterministic() {
    let build = || {
        let mut vfs = Vfs::new();
        let d = vfs.create_dir(vfs.root(), "d").unwrap();
        let f = vfs.create_file(d, "f").unwrap();
        vfs.unlink(d, "f").unwrap();
        let g = vfs.create_file(d, "g").unwrap();
        (vfs.root(), d, f, g)
    };
    assert_eq!(build(), build());
    assert_eq!(build(), (Ino(1), Ino(2), Ino(3), Ino(4)));
    assert_eq!(Ino(7).to_string(), "7");
}

#[test]
fn basic_lookup_errors_and_metadata() {
    let mut vfs = Vfs::new();
    let root = vfs.root();
    let f = vfs.create_file(root, "f").unwrap();
    let d = vfs.create_dir(root, "d").unwrap();
    let s = vfs.create_symlink(root, "s", "f").unwrap();
    assert_eq!(vfs.parent(root).unwrap(), root);
    assert_eq!(vfs.parent(d).unwrap(), root);
    assert_eq!(err(vfs.parent(f)), "NotDir");
    assert_eq!(err(vfs.lookup(f, "x")), "NotDir");
    assert_eq!(err(vfs.lookup(root, "x")), "NotFound");
    assert_eq!(err(vfs.lookup(root, "..")), "InvalidName");
    assert_eq!(err(vfs.create_file(root, "f")), "Exists");
    assert_eq!(err(vfs.create_dir(root, "s")), "Exists");
    assert_eq!(err(vfs.create_file(root, "a/b")), "InvalidName");
    assert_eq!(err(vfs.read(d, 0, &mut [0; 4])), "IsDir");
    assert_eq!(err(vfs.write(s, 0, b"x")), "InvalidArgument");
    assert_eq!(err(vfs.readlink(f)), "InvalidArgument");
    assert_eq!(vfs.readlink(s).unwrap(), "f");
    assert_eq!(err(vfs.unlink(root, "d")), "IsDir");
    assert_eq!(err(vfs.remove_dir(root, "f")), "NotDir");
    assert_eq!(err(vfs.link(d, root, "d2")), "InvalidArgument");
    assert_eq!(
        err(vfs.create_symlink(root, "t", "a\0b")),
        "InvalidArgument"
    );
    assert_eq!(
        vfs.read_dir(root).unwrap(),
        vec![
            ("d".to_owned(), d, NodeKind::Directory),
            ("f".to_owned(), f, NodeKind::File),
            ("s".to_owned(), s, NodeKind::Symlink)
        ]
    );
    let meta = |i| vfs.metadata(i).unwrap();
    assert_eq!(
        (meta(f).mode, meta(d).mode, meta(s).mode),
        (0o644, 0o755, 0o777)
    );
    assert_eq!((meta(root).nlink, meta(d).nlink, meta(f).nlink), (3, 2, 1));
    assert_eq!(meta(s).size, 1);
    vfs.remove_dir(root, "d").unwrap();
    assert!(!vfs.exists(d));
    assert_eq!(err(vfs.metadata(d)), "NotFound");
    assert_eq!(vfs.metadata(root).unwrap().nlink, 2);
}

#[test]
fn timestamps_follow_the_virtual_clock() {
    let mut vfs = Vfs::new();
    let root = vfs.root();
    let t = |s| Timestamp::new(s, 0);
    vfs.set_now(t(10));
    assert_eq!(vfs.now(), t(10));
    let f = vfs.create_file(root, "f").unwrap();
    let m = vfs.metadata(f).unwrap();
    assert_eq!((m.atime, m.mtime, m.ctime), (t(10), t(10), t(10)));
    assert_eq!(vfs.metadata(root).unwrap().mtime, t(10));

    vfs.set_now(t(20));
    vfs.write(f, 0, b"abc").unwrap();
    let m = vfs.metadata(f).unwrap();
    assert_eq!((m.atime, m.mtime, m.ctime), (t(10), t(20), t(20)));
    assert_eq!(
        vfs.metadata(root).unwrap().mtime,
        t(10),
        "writes do not touch the dir"
    );

    vfs.set_now(t(30));
    vfs.read_to_vec(f, 0, 10).unwrap();
    vfs.read_dir(root).unwrap();
    assert_eq!(vfs.metadata(f).unwrap(), m, "reads never change metadata");

    vfs.set_mode(f, 0o600).unwrap();
    let m = vfs.metadata(f).unwrap();
    assert_eq!((m.mode, m.mtime, m.ctime), (0o600, t(20), t(30)));

    vfs.set_now(t(40));
    vfs.set_times(f, Some(t(1)), None).unwrap();
    let m = vfs.metadata(f).unwrap();
    assert_eq!((m.atime, m.mtime, m.ctime), (t(1), t(20), t(40)));

    vfs.set_now(t(50));
    let d = vfs.create_dir(root, "d").unwrap();
    vfs.rename(root, "f", d, "g").unwrap();
    for ino in [root, d] {
        let m = vfs.metadata(ino).unwrap();
        assert_eq!((m.mtime, m.ctime), (t(50), t(50)));
    }
    assert_eq!(vfs.metadata(f).unwrap().ctime, t(50));
}

#[test]
fn orphans_live_until_released() {
    let mut vfs = Vfs::new();
    let root = vfs.root();
    let f = vfs.create_file(root, "f").unwrap();
    vfs.write(f, 0, b"hello").unwrap();
    let hash_without = {
        let mut empty = Vfs::new();
        empty.root_hash()
    };
    vfs.retain(f);
    vfs.retain(f);
    vfs.unlink(root, "f").unwrap();
    assert_eq!(err(vfs.lookup(root, "f")), "NotFound");
    assert!(vfs.exists(f));
    assert_eq!(vfs.metadata(f).unwrap().nlink, 0);
    assert_eq!(vfs.read_to_vec(f, 0, 100).unwrap(), b"hello");
    vfs.append(f, b" world").unwrap();
    assert_eq!(vfs.read_to_vec(f, 0, 100).unwrap(), b"hello world");
    assert_eq!(
        vfs.usage(),
        Usage {
            bytes: 11,
            inodes: 2
        }
    );
    assert_eq!(vfs.root_hash(), hash_without);
    assert_eq!(err(vfs.link(f, root, "again")), "NotFound");

    // A fork drops the orphan and the handles.
    let fork = vfs.fork();
    assert!(!fork.exists(f));
    assert_eq!(
        fork.usage(),
        Usage {
            bytes: 0,
            inodes: 1
        }
    );

    vfs.release(f);
    assert!(vfs.exists(f));
    vfs.release(f);
    assert!(!vfs.exists(f));
    assert_eq!(
        vfs.usage(),
        Usage {
            bytes: 0,
            inodes: 1
        }
    );
    vfs.release(f); // extra releases are harmless

    // Renaming over an open file orphans it as well.
    let a = vfs.create_file(root, "a").unwrap();
    let b = vfs.create_file(root, "b").unwrap();
    vfs.write(b, 0, b"old").unwrap();
    vfs.retain(b);
    vfs.rename(root, "a", root, "b").unwrap();
    assert_eq!(vfs.lookup(root, "b").unwrap(), a);
    assert_eq!(vfs.read_to_vec(b, 0, 10).unwrap(), b"old");
    vfs.release(b);
    assert!(!vfs.exists(b));

    // Closing a still-linked file frees nothing.
    vfs.retain(a);
    vfs.release(a);
    assert!(vfs.exists(a));
    // Hard links: the file survives until the last name goes.
    vfs.link(a, root, "c").unwrap();
    vfs.unlink(root, "b").unwrap();
    assert_eq!(vfs.metadata(a).unwrap().nlink, 1);
    vfs.unlink(root, "c").unwrap();
    assert!(!vfs.exists(a));
}

#[test]
fn quota_failures_leave_state_unchanged() {
    let mut vfs = Vfs::with_quota(Quota {
        max_bytes: 100,
        max_inodes: 4,
        ..Quota::default()
    });
    let root = vfs.root();
    let f = vfs.create_file(root, "f").unwrap();
    vfs.write(f, 0, &[1; 60]).unwrap();
    let d = vfs.create_dir(root, "d").unwrap();
    vfs.create_symlink(d, "s", "0123456789").unwrap();
    let before = (dump(&vfs), vfs.usage(), vfs.root_hash());
    let check = |vfs: &mut Vfs| {
        assert_eq!((dump(vfs), vfs.usage(), vfs.root_hash()), before);
    };

    assert_eq!(err(vfs.create_file(root, "g")), "InodeQuota");
    assert_eq!(err(vfs.create_dir(root, "g")), "InodeQuota");
    check(&mut vfs);
    assert_eq!(err(vfs.write(f, 50, &[2; 41])), "NoSpace");
    assert_eq!(err(vfs.append(f, &[2; 31])), "NoSpace");
    assert_eq!(err(vfs.set_len(f, 91)), "NoSpace");
    assert_eq!(err(vfs.write_file("/f", &[3; 91])), "NoSpace");
    assert_eq!(err(vfs.write(f, u64::MAX - 1, b"xy")), "NoSpace");
    check(&mut vfs);
    assert_eq!(err(vfs.create_dir_all("/d/x/y")), "InodeQuota");
    check(&mut vfs);

    // Exactly at the limit is fine; shrinking always works, even over a lowered quota.
    vfs.write(f, 0, &[1; 90]).unwrap();
    assert_eq!(
        vfs.usage(),
        Usage {
            bytes: 100,
            inodes: 4
        }
    );
    vfs.set_quota(Quota {
        max_bytes: 10,
        max_inodes: 2,
        ..Quota::default()
    });
    vfs.set_len(f, 50).unwrap();
    vfs.write(f, 0, b"overwrite in place").unwrap();
    vfs.unlink(d, "s").unwrap();
    assert_eq!(
        vfs.usage(),
        Usage {
            bytes: 50,
            inodes: 3
        }
    );
    assert_eq!(err(vfs.append(f, b"x")), "NoSpace");
    vfs.set_quota(Quota::default());
    vfs.write(f, 1 << 30, b"x").unwrap();
    assert_eq!(vfs.usage().bytes, (1 << 30) + 1);
}

#[test]
fn rename_edge_cases() {
    let mut vfs = Vfs::new();
    let root = vfs.root();
    let a = vfs.create_dir(root, "a").unwrap();
    let b = vfs.create_dir(a, "b").unwrap();
    let f = vfs.create_file(root, "f").unwrap();
    let g = vfs.create_file(root, "g").unwrap();
    vfs.write(g, 0, b"gg").unwrap();
    let e = vfs.create_dir(root, "e").unwrap();

    vfs.set_now(Timestamp::new(5, 0));
    let snapshot = dump(&vfs);
    vfs.rename(root, "f", root, "f").unwrap();
    vfs.link(f, root, "f2").unwrap();
    vfs.rename(root, "f", root, "f2").unwrap(); // same inode: no-op, both names stay
    assert_eq!(vfs.lookup(root, "f").unwrap(), f);
    assert_eq!(vfs.lookup(root, "f2").unwrap(), f);
    vfs.unlink(root, "f2").unwrap();
    assert_eq!(dump(&vfs), snapshot);

    assert_eq!(err(vfs.rename(root, "a", b, "x")), "InvalidArgument");
    assert_eq!(err(vfs.rename(root, "a", a, "x")), "InvalidArgument");
    assert_eq!(err(vfs.rename(root, "a", root, "f")), "NotDir");
    assert_eq!(err(vfs.rename(root, "f", root, "a")), "IsDir");
    assert_eq!(err(vfs.rename(root, "e", root, "a")), "NotEmpty");
    assert_eq!(err(vfs.rename(a, "b", root, "a")), "NotEmpty");
    assert_eq!(err(vfs.rename(root, "nope", root, "x")), "NotFound");
    assert_eq!(err(vfs.rename(root, "f", root, "..")), "InvalidName");
    assert_eq!(err(vfs.rename(f, "x", root, "y")), "NotDir");
    assert_eq!(dump(&vfs), snapshot);

    // Directory over an empty directory: the target is freed and link counts follow.
    vfs.rename(a, "b", root, "e").unwrap();
    assert!(!vfs.exists(e));
    assert_eq!(vfs.lookup(root, "e").unwrap(), b);
    assert_eq!(vfs.parent(b).unwrap(), root);
    assert_eq!(vfs.metadata(a).unwrap().nlink, 2);
    assert_eq!(vfs.metadata(root).unwrap().nlink, 4);

    // File over file: the old target is freed.
    vfs.rename(root, "f", root, "g").unwrap();
    assert_eq!(vfs.lookup(root, "g").unwrap(), f);
    assert!(!vfs.exists(g));
    assert_eq!(vfs.usage().bytes, 0);
    assert!(vfs.is_ancestor(root, b));
    assert!(vfs.is_ancestor(b, b));
    assert!(!vfs.is_ancestor(a, b));
}

#[test]
fn path_helpers() {
    let mut vfs = Vfs::new();
    let w = vfs.create_dir_all("/workspace/src").unwrap();
    assert_eq!(vfs.create_dir_all("workspace//src/").unwrap(), w);
    let file = vfs
        .write_file("/workspace/src/main.rs", b"fn main() {}")
        .unwrap();
    let root = vfs.root();
    let ws = vfs.resolve("/workspace").unwrap();
    vfs.create_symlink(ws, "rel", "src/main.rs").unwrap();
    vfs.create_symlink(ws, "abs", "/workspace/src").unwrap();
    vfs.create_symlink(ws, "up", "../../..").unwrap();
    vfs.create_symlink(ws, "dangling", "missing").unwrap();
    vfs.create_symlink(root, "loop", "loop").unwrap();

    assert_eq!(vfs.resolve("workspace/rel").unwrap(), file);
    assert_eq!(vfs.resolve("/workspace/abs/main.rs").unwrap(), file);
    assert_eq!(
        vfs.resolve("/workspace/up/workspace/./src/../src/main.rs")
            .unwrap(),
        file
    );
    assert_eq!(vfs.resolve("/../..").unwrap(), root);
    assert_eq!(vfs.resolve("").unwrap(), root);
    assert_eq!(vfs.resolve("/workspace/abs/").unwrap(), w);
    assert_eq!(err(vfs.resolve("/workspace/rel/")), "NotDir");
    assert_eq!(err(vfs.resolve("/workspace/src/main.rs/x")), "NotDir");
    assert_eq!(err(vfs.resolve("/loop")), "Loop");
    assert_eq!(err(vfs.resolve("/workspace/dangling")), "NotFound");
    assert_eq!(
        vfs.kind(vfs.resolve_nofollow("/loop").unwrap()).unwrap(),
        NodeKind::Symlink
    );
    assert_eq!(
        vfs.kind(vfs.resolve_nofollow("/workspace/abs").unwrap())
            .unwrap(),
        NodeKind::Symlink
    );
    assert_eq!(
        vfs.resolve_nofollow("/workspace/abs/main.rs").unwrap(),
        file
    );

    assert_eq!(vfs.read_file("/workspace/rel").unwrap(), b"fn main() {}");
    assert_eq!(vfs.write_file("/workspace/rel", b"new").unwrap(), file);
    assert_eq!(vfs.read_file("/workspace/src/main.rs").unwrap(), b"new");
    assert_eq!(err(vfs.write_file("/workspace/dangling", b"x")), "NotFound");
    assert_eq!(err(vfs.write_file("/workspace", b"x")), "IsDir");
    assert_eq!(err(vfs.write_file("/workspace/", b"x")), "IsDir");
    assert_eq!(err(vfs.write_file("/nope/x", b"x")), "NotFound");
    assert_eq!(err(vfs.create_dir_all("/workspace/src/main.rs")), "Exists");
    assert_eq!(
        err(vfs.create_dir_all("/workspace/src/main.rs/x")),
        "NotDir"
    );
    assert_eq!(
        vfs.create_dir_all("/workspace/abs/sub").unwrap(),
        vfs.resolve("/workspace/src/sub").unwrap()
    );

    let listing: Vec<_> = vfs
        .walk("/")
        .unwrap()
        .into_iter()
        .map(|(p, _, k)| (p, k))
        .collect();
    let expect = [
        ("/loop", NodeKind::Symlink),
        ("/workspace", NodeKind::Directory),
        ("/workspace/abs", NodeKind::Symlink),
        ("/workspace/dangling", NodeKind::Symlink),
        ("/workspace/rel", NodeKind::Symlink),
        ("/workspace/src", NodeKind::Directory),
        ("/workspace/src/main.rs", NodeKind::File),
        ("/workspace/src/sub", NodeKind::Directory),
        ("/workspace/up", NodeKind::Symlink),
    ];
    assert_eq!(listing, expect.map(|(p, k)| (p.to_owned(), k)));
    let below: Vec<_> = vfs
        .walk("/workspace/abs")
        .unwrap()
        .into_iter()
        .map(|(p, ..)| p)
        .collect();
    assert_eq!(below, ["/workspace/src/main.rs", "/workspace/src/sub"]);
    assert_eq!(err(vfs.walk("/workspace/rel")), "NotDir");

    vfs.remove_all("/workspace/abs").unwrap(); // removes the link, not the target
    assert!(vfs.resolve("/workspace/src/main.rs").is_ok());
    vfs.remove_all("/workspace/").unwrap();
    assert_eq!(err(vfs.resolve("/workspace")), "NotFound");
    assert_eq!(err(vfs.remove_all("/")), "InvalidArgument");
    assert_eq!(err(vfs.remove_all("/workspace")), "NotFound");
    assert_eq!(
        vfs.usage(),
        Usage {
            bytes: 4,
            inodes: 2
        }
    );
}

#[test]
fn diff_lists_changes_sorted() {
    let mut a = Vfs::new();
    a.create_dir_all("/w/keep").unwrap();
    a.write_file("/w/keep/same.txt", b"same").unwrap();
    a.write_file("/w/edit.txt", b"v1").unwrap();
    a.write_file("/w/mode.sh", b"#!").unwrap();
    a.create_dir_all("/w/gone/deep").unwrap();
    a.write_file("/w/gone/deep/x", b"x").unwrap();
    a.write_file("/w/kind", b"file").unwrap();
    let mut b = a.fork();
    b.write_file("/w/edit.txt", b"v2").unwrap();
    let sh = b.resolve("/w/mode.sh").unwrap();
    b.set_mode(sh, 0o755).unwrap();
    b.remove_all("/w/gone").unwrap();
    b.remove_all("/w/kind").unwrap();
    b.create_dir_all("/w/kind/sub").unwrap();
    b.write_file("/w/new-file", b"n").unwrap();
    let keep = b.resolve("/w/keep").unwrap();
    b.set_mode(keep, 0o700).unwrap();

    let changes = Vfs::diff(&mut a, &mut b);
    let got: Vec<_> = changes.iter().map(|c| (c.path.as_str(), c.kind)).collect();
    use ChangeKind::*;
    assert_eq!(
        got,
        [
            ("/w/edit.txt", Modified),
            ("/w/gone", Removed),
            ("/w/gone/deep", Removed),
            ("/w/gone/deep/x", Removed),
            ("/w/keep", Modified),
            ("/w/kind", Removed),
            ("/w/kind", Added),
            ("/w/kind/sub", Added),
            ("/w/mode.sh", Modified),
            ("/w/new-file", Added),
        ]
    );
    let mut same = a.clone();
    assert!(Vfs::diff(&mut a, &mut same).is_empty());
    let reverse = Vfs::diff(&mut b, &mut a);
    assert_eq!(reverse.len(), changes.len());
    let root = b.root();
    b.set_mode(root, 0o700).unwrap();
    let mut c = b.fork();
    c.set_mode(root, 0o755).unwrap();
    assert_eq!(
        Vfs::diff(&mut b, &mut c),
        [Change {
            path: "/".into(),
            kind: Modified
        }]
    );
}

#[test]
fn big_file_fork_and_sparse_extension() {
    let mut vfs = Vfs::new();
    let f = vfs.write_file("/big", &vec![9u8; 16 << 20]).unwrap();
    let h0 = vfs.root_hash();
    let mut fork = vfs.fork();
    fork.write(f, (5 << 20) + 3, b"!").unwrap();
    assert_ne!(fork.root_hash(), h0);
    assert_eq!(vfs.root_hash(), h0);
    assert_eq!(vfs.read_to_vec(f, (5 << 20) + 3, 1).unwrap(), [9]);
    assert_eq!(fork.read_to_vec(f, (5 << 20) + 2, 3).unwrap(), [9, b'!', 9]);

    let s = vfs.create_file(vfs.root(), "sparse").unwrap();
    vfs.write(s, 1 << 32, b"end").unwrap();
    assert_eq!(vfs.metadata(s).unwrap().size, (1 << 32) + 3);
    assert_eq!(
        vfs.read_to_vec(s, (1 << 32) - 2, 10).unwrap(),
        [0, 0, b'e', b'n', b'd']
    );
    vfs.root_hash();
}

#[test]
fn deep_trees_need_no_recursion() {
    let mut vfs = Vfs::new();
    let mut dir = vfs.root();
    for _ in 0..20_000 {
        dir = vfs.create_dir(dir, "d").unwrap();
    }
    vfs.create_file(dir, "leaf").unwrap();
    let mut base = Vfs::new();
    let h = vfs.root_hash();
    assert_ne!(h, base.root_hash());
    assert_eq!(vfs.walk("/").unwrap().len(), 20_001);
    let changes = Vfs::diff(&mut base, &mut vfs);
    assert_eq!(changes.len(), 20_001);
    assert!(changes.iter().all(|c| c.kind == ChangeKind::Added));
    vfs.remove_all("/d").unwrap();
    assert_eq!(vfs.root_hash(), base.root_hash());
    assert_eq!(
        vfs.usage(),
        Usage {
            bytes: 0,
            inodes: 1
        }
    );
}
