//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use clawrun_vfs::{Change, ChangeKind, NodeKind, Vfs, VfsError};

/// Observable state of one path: mode, link count and content.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Entry {
    Dir(u32, u64),
    File(u32, u64, Vec<u8>),
    Symlink(u32, u64, String),
}

impl Entry {
    fn same_kind(&self, other: &Entry) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    /// Equal ignoring link counts.
    fn same_content(&self, other: &Entry) -> bool {
        match (self, other) {
            (Entry::Dir(a, _), Entry::Dir(b, _)) => a == b,
            (Entry::File(a, _, x), Entry::File(b, _, y)) => a == b && x == y,
            (Entry::Symlink(a, _, x), Entry::Symlink(b, _, y)) => a == b && x == y,
            _ => false,
        }
    }
}

/// Error variant name.
pub fn code(e: &VfsError) -> &'static str {
    match e {
        VfsError::NotFound => "NotFound",
        VfsError::Exists => "Exists",
        VfsError::NotDir => "NotDir",
        VfsError::IsDir => "IsDir",
        VfsError::NotEmpty => "NotEmpty",
        VfsError::NoSpace => "NoSpace",
        VfsError::InodeQuota => "InodeQuota",
        VfsError::TooDeep => "TooDeep",
        VfsError::InvalidName(_) => "InvalidName",
        VfsError::InvalidArgument(_) => "InvalidArgument",
        VfsError::Loop => "Loop",
        VfsError::Host { .. } => "Host",
        VfsError::UnsafeSymlink { .. } => "UnsafeSymlink",
        VfsError::NonUtf8Name(_) => "NonUtf8Name",
    }
}

/// Every path of the tree with its observable state.
pub fn dump(vfs: &Vfs) -> BTreeMap<String, Entry> {
    let mut out = BTreeMap::new();
    for (path, ino, kind) in vfs.walk("/").unwrap() {
        let meta = vfs.metadata(ino).unwrap();
        assert_eq!(meta.kind, kind);
        let entry = match kind {
            NodeKind::Directory => Entry::Dir(meta.mode, meta.nlink),
            NodeKind::File => {
                let data = vfs.read_to_vec(ino, 0, usize::MAX).unwrap();
                assert_eq!(data.len() as u64, meta.size);
                Entry::File(meta.mode, meta.nlink, data)
            }
            NodeKind::Symlink => Entry::Symlink(meta.mode, meta.nlink, vfs.readlink(ino).unwrap()),
        };
        assert!(out.insert(path, entry).is_none());
    }
    out
}

/// The diff specified for [`Vfs::diff`], computed naively from two dumps.
pub fn dump_diff(a: &BTreeMap<String, Entry>, b: &BTreeMap<String, Entry>) -> Vec<Change> {
    let mut out = Vec::new();
    let mut push = |path: &String, kind| {
        out.push(Change {
            path: path.clone(),
            kind,
        })
    };
    for (p, ea) in a {
        match b.get(p) {
            None => push(p, ChangeKind::Removed),
            Some(eb) if !ea.same_kind(eb) => {
                push(p, ChangeKind::Removed);
                push(p, ChangeKind::Added);
            }
            Some(eb) if !ea.same_content(eb) => push(p, ChangeKind::Modified),
            Some(_) => {}
        }
    }
    for p in b.keys() {
        if !a.contains_key(p) {
            push(p, ChangeKind::Added);
        }
    }
    let rank = |k: ChangeKind| match k {
        ChangeKind::Removed => 0,
        ChangeKind::Added => 1,
        ChangeKind::Modified => 2,
    };
    out.sort_by(|x, y| x.path.cmp(&y.path).then(rank(x.kind).cmp(&rank(y.kind))));
    out
}
