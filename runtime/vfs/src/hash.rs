//! Content hashing with per-inode caches.
//!
//! Invariant: if an inode has no cached hash, none of its ancestors (along every parent link)
//! has one. Filling proceeds bottom-up, and invalidation clears a node and walks up every parent
//! link, stopping at nodes that are already clear: by the invariant their ancestors are clear too.

use blake3::{Hash, Hasher};

use crate::{
    error::Result,
    node::{Ino, NodeData},
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
                    let pending = stack.len();
                    stack.extend(
                        dir.entries
                            .values()
                            .filter(|&&child| self.inode(child).hash.is_none()),
                    );
                    (stack.len() == pending).then(|| self.dir_hash(top))
                }
            };
            if let Some(hash) = computed {
                self.node_mut(top).hash = Some(hash);
                stack.pop();
            }
        }
        Ok(self.inode(ino).hash.unwrap_or_else(|| unreachable!("hash was just filled")))
    }

    /// Clears the cached hash of `ino` and of every ancestor along all parent links.
    pub(crate) fn invalidate(&mut self, ino: Ino) {
        let mut stack = vec![ino];
        self.clear_up(&mut stack);
    }

    /// Clears the cached hashes of the ancestors of `ino` (its mode changed, not its content).
    pub(crate) fn invalidate_parents(&mut self, ino: Ino) {
        let mut stack = self.parents_of(ino);
        self.clear_up(&mut stack);
    }

    /// Clears caches from the nodes on `stack` upwards, stopping at already-clear nodes.
    fn clear_up(&mut self, stack: &mut Vec<Ino>) {
        while let Some(ino) = stack.pop() {
            match self.inodes.get(&ino) {
                Some(node) if node.hash.is_some() => {}
                _ => continue,
            }
            self.node_mut(ino).hash = None;
            stack.extend(self.parents_of(ino));
        }
    }

    /// Directories linking to `ino` (a directory's parent, or a file's link parents).
    fn parents_of(&self, ino: Ino) -> Vec<Ino> {
        match self.inodes.get(&ino) {
            Some(node) => match node.as_dir() {
                Some(dir) if dir.parent != ino => vec![dir.parent],
                Some(_) => Vec::new(),
                None => node.parents.clone(),
            },
            None => Vec::new(),
        }
    }

    /// Hash of directory `dir` whose children all have cached hashes.
    fn dir_hash(&self, dir: Ino) -> Hash {
        let mut hasher = Hasher::new();
        hasher.update(b"clawrun-vfs/dir\0");
        if let Some(dir) = self.inode(dir).as_dir() {
            for (name, &child) in &dir.entries {
                let child = self.inode(child);
                let Some(hash) = child.hash else {
                    unreachable!("children are hashed before their directory");
                };
                hasher.update(&(name.len() as u32).to_le_bytes());
                hasher.update(name.as_bytes());
                hasher.update(&[child.kind().hash_byte()]);
                hasher.update(&child.mode.to_le_bytes());
                hasher.update(hash.as_bytes());
            }
        }
        hasher.finalize()
    }
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
        let cleared: Vec<_> = vfs.inodes.iter().filter(|(_, n)| n.hash.is_none()).map(|(i, _)| *i).collect();
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
