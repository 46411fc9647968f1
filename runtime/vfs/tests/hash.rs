//! Property tests of the content hash: history independence, sensitivity and fork isolation.

mod common;

use std::collections::BTreeMap;

use clawrun_vfs::{CHUNK_SIZE, Vfs, VfsError};
use common::{Entry, dump};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Spec {
    File(Vec<u8>, u32),
    Dir(u32),
    Symlink(&'static str),
}

fn spec() -> impl Strategy<Value = Spec> {
    let data = prop_oneof![
        4 => prop::collection::vec(any::<u8>(), 0..40),
        1 => (CHUNK_SIZE - 2..CHUNK_SIZE + 3).prop_map(|n| vec![7; n]),
    ];
    let mode = prop::sample::select(vec![0o644u32, 0o755, 0o600]);
    prop_oneof![
        4 => (data, mode.clone()).prop_map(|(d, m)| Spec::File(d, m)),
        2 => mode.prop_map(Spec::Dir),
        1 => prop::sample::select(vec!["a", "../b", "/etc/passwd", ""]).prop_map(Spec::Symlink),
    ]
}

fn entries() -> impl Strategy<Value = Vec<(Vec<&'static str>, Spec)>> {
    let path = prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "d"]), 1..=3);
    prop::collection::vec((path, spec()), 1..24)
}

fn join(path: &[&str]) -> String {
    format!("/{}", path.join("/"))
}

/// History A: entries in generation order through the path helpers; conflicts are skipped.
fn build(entries: &[(Vec<&'static str>, Spec)]) -> Vfs {
    let mut vfs = Vfs::new();
    for (path, spec) in entries {
        let (name, parent) = path.split_last().unwrap();
        let Ok(dir) = vfs.create_dir_all(&join(parent)) else {
            continue;
        };
        if vfs.lookup(dir, name).is_ok() {
            continue;
        }
        let (ino, mode) = match spec {
            Spec::File(data, mode) => (vfs.write_file(&join(path), data).unwrap(), *mode),
            Spec::Dir(mode) => (vfs.create_dir(dir, name).unwrap(), *mode),
            Spec::Symlink(t) => (vfs.create_symlink(dir, name, t).unwrap(), 0o777),
        };
        vfs.set_mode(ino, mode).unwrap();
    }
    vfs
}

/// History B: the same tree rebuilt from its dump in a different order with detours.
fn rebuild(d: &BTreeMap<String, Entry>) -> Vfs {
    let mut vfs = Vfs::new();
    let mut dirs: Vec<_> = d
        .iter()
        .filter(|(_, e)| matches!(e, Entry::Dir(..)))
        .collect();
    dirs.sort_by_key(|(p, _)| (p.matches('/').count(), std::cmp::Reverse((*p).clone())));
    for (p, _) in &dirs {
        vfs.create_dir_all(p).unwrap();
        vfs.write_file(&format!("{p}/tmp"), b"scratch").unwrap();
    }
    for (p, e) in d.iter().rev() {
        let (parent, name) = p.rsplit_once('/').unwrap();
        let dir = vfs.resolve(parent).unwrap();
        match e {
            Entry::File(mode, _, data) => {
                let f = vfs.create_file(dir, name).unwrap();
                vfs.write(f, 0, &vec![1; data.len() + 70_000]).unwrap();
                vfs.set_len(f, 0).unwrap();
                let half = data.len() / 2;
                vfs.write(f, half as u64, &data[half..]).unwrap();
                vfs.write(f, 0, &data[..half]).unwrap();
                vfs.set_mode(f, *mode).unwrap();
            }
            Entry::Symlink(_, _, t) => {
                vfs.create_symlink(dir, name, t).unwrap();
            }
            Entry::Dir(..) => {}
        }
    }
    for (p, e) in dirs {
        vfs.remove_all(&format!("{p}/tmp")).unwrap();
        if let Entry::Dir(mode, _) = e {
            let ino = vfs.resolve(p).unwrap();
            vfs.set_mode(ino, *mode).unwrap();
        }
    }
    vfs
}

#[derive(Clone, Copy, Debug)]
enum Mutation {
    Content(usize, usize, u8),
    Rename(usize),
    Mode(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<usize>(), 1..=255u8)
            .prop_map(|(i, p, x)| Mutation::Content(i, p, x)),
        any::<usize>().prop_map(Mutation::Rename),
        any::<usize>().prop_map(Mutation::Mode),
    ]
}

/// Applies `m` to `vfs` (whose dump is `d`); with `undo`, reverts it instead.
fn apply(
    vfs: &mut Vfs,
    d: &BTreeMap<String, Entry>,
    m: Mutation,
    undo: bool,
) -> Result<(), VfsError> {
    let pick = |i: usize| d.iter().nth(i % d.len()).expect("non-empty tree");
    match m {
        Mutation::Content(i, pos, x) => {
            let (path, e) = pick(i);
            match e {
                Entry::File(_, _, data) if data.is_empty() => {
                    let f = vfs.resolve(path)?;
                    vfs.set_len(f, u64::from(!undo))?;
                }
                Entry::File(_, _, data) => {
                    let pos = pos % data.len();
                    let byte = if undo { data[pos] } else { data[pos] ^ x };
                    let f = vfs.resolve(path)?;
                    vfs.write(f, pos as u64, &[byte])?;
                }
                Entry::Dir(..) if undo => vfs.remove_all(&format!("{path}/zz"))?,
                Entry::Dir(..) => {
                    vfs.write_file(&format!("{path}/zz"), b"")?;
                }
                Entry::Symlink(_, _, target) => {
                    vfs.remove_all(path)?;
                    let (parent, name) = path.rsplit_once('/').expect("absolute path");
                    let dir = vfs.resolve(parent)?;
                    let target = if undo {
                        target.clone()
                    } else {
                        format!("{target}x")
                    };
                    vfs.create_symlink(dir, name, &target)?;
                }
            }
        }
        Mutation::Rename(i) => {
            let (path, _) = pick(i);
            let (parent, name) = path.rsplit_once('/').expect("absolute path");
            let dir = vfs.resolve(parent)?;
            let (from, to) = if undo { ("zz", name) } else { (name, "zz") };
            vfs.rename(dir, from, dir, to)?;
        }
        Mutation::Mode(i) => {
            let (path, e) = pick(i);
            let (Entry::Dir(mode, _) | Entry::File(mode, ..) | Entry::Symlink(mode, ..)) = e;
            let ino = vfs.resolve_nofollow(path)?;
            vfs.set_mode(ino, if undo { *mode } else { mode ^ 0o1 })?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn equal_trees_have_equal_hashes(entries in entries()) {
        let mut a = build(&entries);
        let d = dump(&a);
        let mut b = rebuild(&d);
        prop_assert_eq!(&dump(&b), &d);
        prop_assert_eq!(a.root_hash(), b.root_hash());
        prop_assert!(Vfs::diff(&mut a, &mut b).is_empty());
    }

    #[test]
    fn any_single_difference_changes_the_hash(entries in entries(), m in mutation()) {
        let mut vfs = build(&entries);
        let d = dump(&vfs);
        let h0 = vfs.root_hash();
        apply(&mut vfs, &d, m, false).unwrap();
        prop_assert_ne!(vfs.root_hash(), h0);
        apply(&mut vfs, &d, m, true).unwrap();
        prop_assert_eq!(&dump(&vfs), &d);
        prop_assert_eq!(vfs.root_hash(), h0);
    }

    #[test]
    fn forks_are_isolated(
        entries in entries(),
        on_fork in prop::collection::vec(mutation(), 1..6),
        on_orig in prop::collection::vec(mutation(), 1..6),
    ) {
        let mut orig = build(&entries);
        let d = dump(&orig);
        let h = orig.root_hash();
        let mut fork = orig.fork();
        prop_assert_eq!(fork.root_hash(), h);
        for m in &on_fork {
            let cur = dump(&fork);
            // Later mutations may collide with earlier ones; failures must not leak either way.
            let _ = apply(&mut fork, &cur, *m, false);
        }
        prop_assert_eq!(&dump(&orig), &d);
        prop_assert_eq!(orig.root_hash(), h);

        let fork_dump = dump(&fork);
        let fork_hash = fork.root_hash();
        for m in &on_orig {
            let cur = dump(&orig);
            let _ = apply(&mut orig, &cur, *m, false);
        }
        prop_assert_eq!(&dump(&fork), &fork_dump);
        prop_assert_eq!(fork.root_hash(), fork_hash);
    }
}
