//! Structural comparison of two filesystems.

use std::{cmp::Ordering, iter::Peekable};

use crate::{
    node::{Entry, Ino, Name, NodeKind},
    tree::Vfs,
};

/// How a path differs between two filesystems.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ChangeKind {
    /// Present only in the second filesystem.
    Added,
    /// Present only in the first filesystem.
    Removed,
    /// Present in both with different content or mode.
    Modified,
}

impl ChangeKind {
    /// Order of changes at the same path: a removal precedes the re-addition.
    fn rank(self) -> u8 {
        match self {
            Self::Removed => 0,
            Self::Added => 1,
            Self::Modified => 2,
        }
    }
}

/// One changed path.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Change {
    /// Absolute path from the VFS root (e.g. `/workspace/a.txt`), or relative to the subtree
    /// for [`Vfs::export_changes`].
    pub path: String,
    /// What happened to it.
    pub kind: ChangeKind,
}

impl Vfs {
    /// Changes turning `a` into `b`, sorted by path bytes (removals before additions at the
    /// same path); only subtrees whose hashes differ are visited.
    pub fn diff(a: &mut Vfs, b: &mut Vfs) -> Vec<Change> {
        let root_changed = a.root_hash() != b.root_hash();
        let (ra, rb) = (a.root(), b.root());
        let mut out = Vec::new();
        if a.inode(ra).mode != b.inode(rb).mode {
            out.push(change("/", ChangeKind::Modified));
        }
        if root_changed {
            diff_dirs(a, b, ra, rb, &mut out);
        }
        out.sort_by(|x, y| {
            x.path
                .cmp(&y.path)
                .then_with(|| x.kind.rank().cmp(&y.kind.rank()))
        });
        out
    }
}

/// Builds a change record.
fn change(path: &str, kind: ChangeKind) -> Change {
    Change {
        path: path.to_owned(),
        kind,
    }
}

/// Compares two directories whose hashes differ (all hashes cached), appending to `out`.
fn diff_dirs(a: &Vfs, b: &Vfs, ra: Ino, rb: Ino, out: &mut Vec<Change>) {
    let mut stack = vec![(String::new(), ra, rb)];
    while let Some((prefix, da, db)) = stack.pop() {
        let (Some(ea), Some(eb)) = (a.inode(da).as_dir(), b.inode(db).as_dir()) else {
            continue;
        };
        let mut ia = ea.entries.iter().peekable();
        let mut ib = eb.entries.iter().peekable();
        while let Some((name, ca, cb)) = next_pair(&mut ia, &mut ib) {
            let path = format!("{prefix}/{name}");
            match (ca, cb) {
                (Some(ca), None) => list_subtree(a, ca.ino, &path, ChangeKind::Removed, out),
                (None, Some(cb)) => list_subtree(b, cb.ino, &path, ChangeKind::Added, out),
                (Some(ca), Some(cb)) => {
                    if ca.kind != cb.kind {
                        list_subtree(a, ca.ino, &path, ChangeKind::Removed, out);
                        list_subtree(b, cb.ino, &path, ChangeKind::Added, out);
                        continue;
                    }
                    let content_differs = !same_hash(ca, cb);
                    if ca.kind == NodeKind::Directory {
                        if ca.mode != cb.mode {
                            out.push(change(&path, ChangeKind::Modified));
                        }
                        if content_differs {
                            stack.push((path, ca.ino, cb.ino));
                        }
                    } else if content_differs || ca.mode != cb.mode {
                        out.push(change(&path, ChangeKind::Modified));
                    }
                }
                (None, None) => {}
            }
        }
    }
}

/// Whether two entries have equal cached hashes (missing caches count as different).
fn same_hash(a: &Entry, b: &Entry) -> bool {
    matches!((a.hash, b.hash), (Some(x), Some(y)) if x == y)
}

/// The next name of a sorted merge of two entry lists, with its entry on each side.
fn next_pair<'a, I>(
    a: &mut Peekable<I>,
    b: &mut Peekable<I>,
) -> Option<(Name, Option<&'a Entry>, Option<&'a Entry>)>
where
    I: Iterator<Item = (&'a Name, &'a Entry)>,
{
    let order = match (a.peek(), b.peek()) {
        (None, None) => return None,
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (Some((x, _)), Some((y, _))) => x.cmp(y),
    };
    Some(match order {
        Ordering::Less => a.next().map(|(n, e)| (n.clone(), Some(e), None))?,
        Ordering::Greater => b.next().map(|(n, e)| (n.clone(), None, Some(e)))?,
        Ordering::Equal => {
            let (n, ea) = a.next()?;
            let (_, eb) = b.next()?;
            (n.clone(), Some(ea), Some(eb))
        }
    })
}

/// Lists `ino` at `path` and all its descendants with `kind`.
fn list_subtree(vfs: &Vfs, ino: Ino, path: &str, kind: ChangeKind, out: &mut Vec<Change>) {
    out.push(change(path, kind));
    if vfs.inode(ino).as_dir().is_some() {
        let mut below = Vec::new();
        vfs.walk_from(ino, path, &mut below);
        out.extend(below.into_iter().map(|(p, _, _)| Change { path: p, kind }));
    }
}
