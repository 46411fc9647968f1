//! Content hashing with per-inode caches.
//!
//! Every inode caches its own hash, and every directory entry caches the hash of the child it
//! names (alongside mirrors of the child's kind and mode), so re-hashing a directory only looks
//! up children whose hash changed. Invariants:
//!
//! * an entry's cached hash, when present, equals the child's current hash;
//! * if an inode has no cached hash, then neither has any entry naming it, nor (recursively)
//!   any ancestor along any parent link.
//!
//! Filling proceeds bottom-up. Invalidation clears a node, the entries naming it and its
//! parents, walking up every link and stopping at nodes that were already clear: by the second
//! invariant, everything above them is clear too.

use blake3::{Hash, Hasher};

use crate::{
    error::Result,
    node::{DirData, Ino, Name, NodeData},
    tree::Vfs,
};

impl Vfs {
    /// Hash of the whole tree (see the crate docs); recomputes only changed paths.
    pub fn root_hash(&mut self) -> Hash {
        let root = self.root();
        match self.hash_of(root) {
            Ok(hash) => hash,
            Err(_) => unreachable!("the root always exists"),
        }
    }

    /// Hash of the subtree, file or symlink `ino`.
    pub fn hash_of(&mut self, ino: Ino) -> Result<Hash> {
        if let Some(hash) = self.node(ino)?.hash {
            return Ok(hash);
        }
        let mut stack = vec![ino];
        let mut buf = Vec::new();
        while let Some(&top) = stack.last() {
            let node = self.inode(top);
            if node.hash.is_some() {
                stack.pop();
                continue;
            }
            let computed = match &node.data {
                NodeData::File(content) => Some(content.hash()),
                NodeData::Symlink(target) => Some(symlink_hash(target)),
                NodeData::Dir(dir) => {
                    // Copy known child hashes into the entries; queue children still unhashed.
                    let pending = stack.len();
                    let mut known: Vec<(Name, Hash)> = Vec::new();
                    for (name, entry) in dir.entries.iter().filter(|(_, e)| e.hash.is_none()) {
                        match self.inode(entry.ino).hash {
                            Some(hash) => known.push((name.clone(), hash)),
                            None => stack.push(entry.ino),
                        }
                    }
                    if !known.is_empty() {
                        let entries = &mut self.dir_mut(top).entries;
                        for (name, hash) in known {
                            if let Some(entry) = entries.get_mut(&name) {
                                entry.hash = Some(hash);
                            }
                        }
                    }
                    if stack.len() > pending {
                        continue;
                    }
                    self.inode(top).as_dir().and_then(|d| dir_hash(d, &mut buf))
                }
            };
            if let Some(hash) = computed {
                self.node_mut(top).hash = Some(hash);
                stack.pop();
            }
        }
        Ok(self
            .inode(ino)
            .hash
            .unwrap_or_else(|| unreachable!("hash was just filled")))
    }

    /// Clears the cached hash of `ino`, of the entries naming it, and of every ancestor.
    pub(crate) fn invalidate(&mut self, ino: Ino) {
        let mut stack = vec![ino];
        while let Some(ino) = stack.pop() {
            match self.inodes.get(&ino) {
                Some(node) if node.hash.is_some() => {}
                _ => continue,
            }
            self.node_mut(ino).hash = None;
            for (parent, name) in self.parent_links(ino) {
                if let Some(entry) = self.dir_mut(parent).entries.get_mut(&name) {
                    entry.hash = None;
                }
                stack.push(parent);
            }
        }
    }

    /// `(directory, name)` links to `ino` (none for the root or an orphan).
    pub(crate) fn parent_links(&self, ino: Ino) -> Vec<(Ino, Name)> {
        match self.inodes.get(&ino) {
            Some(node) => match node.as_dir() {
                Some(dir) if dir.parent != ino => vec![(dir.parent, dir.name.clone())],
                Some(_) => Vec::new(),
                None => node.parents.clone(),
            },
            None => Vec::new(),
        }
    }
}

/// Hash of a directory whose entries all have cached hashes (`None` otherwise).
fn dir_hash(dir: &DirData, buf: &mut Vec<u8>) -> Option<Hash> {
    buf.clear();
    buf.extend_from_slice(b"clawrun-vfs/dir\0");
    for (name, entry) in &dir.entries {
        buf.extend_from_slice(&(name.len() as u32).to_le_bytes());
        buf.extend_from_slice(name.as_bytes());
        buf.push(entry.kind.hash_byte());
        buf.extend_from_slice(&entry.mode.to_le_bytes());
        buf.extend_from_slice(entry.hash?.as_bytes());
    }
    Some(blake3::hash(buf))
}

/// Hash of a symlink with `target`.
fn symlink_hash(target: &str) -> Hash {
    let mut hasher = Hasher::new();
    hasher.update(b"clawrun-vfs/symlink\0");
    hasher.update(target.as_bytes());
    hasher.finalize()
}

#[cfg(test)]
mod tests {
    use crate::Vfs;

    /// Builds `dirs` directories of `files` files each.
    fn tree(dirs: usize, files: usize) -> Vfs {
        let mut vfs = Vfs::new();
        for d in 0..dirs {
            let dir = vfs.create_dir(vfs.root(), &format!("d{d:03}")).unwrap();
            for f in 0..files {
                let file = vfs.create_file(dir, &format!("f{f:03}")).unwrap();
                vfs.write(file, 0, format!("{d}/{f}").as_bytes()).unwrap();
            }
        }
        vfs
    }

    #[test]
    fn incremental_rehash_touches_only_the_changed_path() {
        let mut vfs = tree(20, 20);
        let before = vfs.root_hash();
        let d3 = vfs.resolve("/d003").unwrap();
        let f = vfs.resolve("/d003/f007").unwrap();
        vfs.write(f, 0, b"X").unwrap();
        let cleared: Vec<_> = vfs
            .inodes
            .iter()
            .filter(|(_, n)| n.hash.is_none())
            .map(|(i, _)| *i)
            .collect();
        assert_eq!(cleared, vec![vfs.root(), d3, f]);
        let after = vfs.root_hash();
        assert_ne!(before, after);
        assert!(vfs.inodes.values().all(|n| n.hash.is_some()));
        vfs.write(f, 0, b"3").unwrap();
        assert_eq!(vfs.root_hash(), before);
    }

    #[test]
    fn hard_links_invalidate_every_parent() {
        let mut vfs = Vfs::new();
        let a = vfs.create_dir(vfs.root(), "a").unwrap();
        let b = vfs.create_dir(vfs.root(), "b").unwrap();
        let f = vfs.create_file(a, "f").unwrap();
        vfs.link(f, b, "g").unwrap();
        let h0 = vfs.root_hash();
        let hb0 = vfs.hash_of(b).unwrap();
        // Fill caches, then clear only `a` through a sibling so `a`'s chain is clear while `b`'s
        // is cached: a write to `f` must still reach `b`.
        vfs.create_file(a, "x").unwrap();
        vfs.hash_of(b).unwrap();
        vfs.write(f, 0, b"data").unwrap();
        assert_ne!(vfs.hash_of(b).unwrap(), hb0);
        let mut fresh = Vfs::new();
        let fa = fresh.create_dir(fresh.root(), "a").unwrap();
        let fb = fresh.create_dir(fresh.root(), "b").unwrap();
        fresh.create_file(fa, "x").unwrap();
        let ff = fresh.create_file(fa, "f").unwrap();
        fresh.write(ff, 0, b"data").unwrap();
        fresh.link(ff, fb, "g").unwrap();
        assert_eq!(vfs.root_hash(), fresh.root_hash());
        assert_ne!(vfs.root_hash(), h0);
    }
}
