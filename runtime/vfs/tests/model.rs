//! Differential test: random operation sequences against a simple path-keyed reference model.

mod common;

use std::collections::BTreeMap;

use clawrun_vfs::{CHUNK_SIZE, ChangeKind, Hash, Ino, Vfs, VfsError};
use common::{Entry, code, dump, dump_diff};
use proptest::prelude::*;

const CS: u64 = CHUNK_SIZE as u64;

type R<T> = Result<T, &'static str>;

/// A path argument: an existing path of the model (by index, modulo the node count) or a raw,
/// usually missing, path.
#[derive(Clone, Debug)]
enum Pick {
    Existing(usize),
    Raw(Vec<&'static str>),
}

#[derive(Clone, Debug)]
enum Op {
    CreateFile(Pick, &'static str),
    CreateDir(Pick, &'static str),
    Symlink(Pick, &'static str, &'static str),
    Write(Pick, u64, usize, u8),
    Append(Pick, usize, u8),
    SetLen(Pick, u64),
    Unlink(Pick, &'static str),
    RemoveDir(Pick, &'static str),
    Rename(Pick, &'static str, Pick, &'static str),
    Link(Pick, Pick, &'static str),
    SetMode(Pick, u32),
    Read(Pick, u64, usize),
    Fork(bool),
}

/// An op with its path arguments made concrete.
#[derive(Clone, Debug)]
enum Cop {
    CreateFile(P, &'static str),
    CreateDir(P, &'static str),
    Symlink(P, &'static str, &'static str),
    Write(P, u64, usize, u8),
    Append(P, usize, u8),
    SetLen(P, u64),
    Unlink(P, &'static str),
    RemoveDir(P, &'static str),
    Rename(P, &'static str, P, &'static str),
    Link(P, P, &'static str),
    SetMode(P, u32),
    Read(P, u64, usize),
    Fork(bool),
}

type P = Vec<String>;

fn name() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        16 => prop::sample::select(vec!["a", "b", "c", "d"]),
        1 => prop::sample::select(vec!["", ".", "..", "x/y"]),
    ]
}

fn pick() -> impl Strategy<Value = Pick> {
    prop_oneof![
        8 => any::<usize>().prop_map(Pick::Existing),
        1 => prop::collection::vec(prop::sample::select(vec!["a", "b", "c"]), 0..=2)
            .prop_map(Pick::Raw),
    ]
}

fn offset() -> impl Strategy<Value = u64> {
    prop_oneof![0..8u64, CS - 8..CS + 8, 2 * CS - 4..2 * CS + 4, 0..3 * CS]
}

fn len() -> impl Strategy<Value = usize> {
    prop_oneof![6 => 0..16usize, 1 => CHUNK_SIZE - 4..CHUNK_SIZE + 4]
}

fn op() -> impl Strategy<Value = Op> {
    let target = prop::sample::select(vec!["a", "../b", "/a/b", "c/..", ""]);
    let mode = prop::sample::select(vec![0o644u32, 0o600, 0o755, 0o4700]);
    prop_oneof![
        6 => (pick(), name()).prop_map(|(d, n)| Op::CreateFile(d, n)),
        5 => (pick(), name()).prop_map(|(d, n)| Op::CreateDir(d, n)),
        1 => (pick(), name(), target).prop_map(|(d, n, t)| Op::Symlink(d, n, t)),
        5 => (pick(), offset(), len(), any::<u8>()).prop_map(|(p, o, l, s)| Op::Write(p, o, l, s)),
        2 => (pick(), len(), any::<u8>()).prop_map(|(p, l, s)| Op::Append(p, l, s)),
        2 => (pick(), offset()).prop_map(|(p, l)| Op::SetLen(p, l)),
        2 => (pick(), name()).prop_map(|(d, n)| Op::Unlink(d, n)),
        2 => (pick(), name()).prop_map(|(d, n)| Op::RemoveDir(d, n)),
        5 => (pick(), name(), pick(), name()).prop_map(|(a, b, c, d)| Op::Rename(a, b, c, d)),
        2 => (pick(), pick(), name()).prop_map(|(s, d, n)| Op::Link(s, d, n)),
        1 => (pick(), mode).prop_map(|(p, m)| Op::SetMode(p, m)),
        2 => (pick(), offset(), len()).prop_map(|(p, o, l)| Op::Read(p, o, l)),
        1 => any::<bool>().prop_map(Op::Fork),
    ]
}

/// What kind of path a pick prefers.
#[derive(Clone, Copy)]
enum Role {
    Dir,
    Leaf,
    Any,
}

/// Makes the path arguments of `op` concrete against the current model.
fn concrete(m: &Model, op: &Op) -> Cop {
    let p = |pick: &Pick, role: Role| -> P {
        let Pick::Existing(i) = pick else {
            let Pick::Raw(raw) = pick else { unreachable!() };
            return raw.iter().map(|s| (*s).to_owned()).collect();
        };
        let matching: Vec<&P> = m
            .nodes
            .iter()
            .filter(|(_, n)| match role {
                Role::Dir => matches!(n, MNode::Dir(_)),
                Role::Leaf => matches!(n, MNode::Leaf(_)),
                Role::Any => true,
            })
            .map(|(k, _)| k)
            .collect();
        let all: Vec<&P> = m.nodes.keys().collect();
        let list = if matching.is_empty() { &all } else { &matching };
        list[i % list.len()].clone()
    };
    // An existing entry split into (parent, name), or a dir pick and the generated name.
    let entry = |pick: &Pick, name: &'static str| -> (P, &'static str) {
        if let Pick::Existing(i) = pick
            && i % 4 != 0
            && m.nodes.len() > 1
        {
            let keys: Vec<&P> = m.nodes.keys().skip(1).collect();
            let mut path = keys[i % keys.len()].clone();
            let last = path.pop().unwrap();
            let last: &'static str = ["a", "b", "c", "d"]
                .into_iter()
                .find(|n| *n == last)
                .unwrap();
            return (path, last);
        }
        (p(pick, Role::Dir), name)
    };
    match op {
        Op::CreateFile(d, n) => Cop::CreateFile(p(d, Role::Dir), n),
        Op::CreateDir(d, n) => Cop::CreateDir(p(d, Role::Dir), n),
        Op::Symlink(d, n, t) => Cop::Symlink(p(d, Role::Dir), n, t),
        Op::Write(f, o, l, s) => Cop::Write(p(f, Role::Leaf), *o, *l, *s),
        Op::Append(f, l, s) => Cop::Append(p(f, Role::Leaf), *l, *s),
        Op::SetLen(f, l) => Cop::SetLen(p(f, Role::Leaf), *l),
        Op::Unlink(d, n) => {
            let (d, n) = entry(d, n);
            Cop::Unlink(d, n)
        }
        Op::RemoveDir(d, n) => {
            let (d, n) = entry(d, n);
            Cop::RemoveDir(d, n)
        }
        Op::Rename(a, b, c, d) => {
            let (from_dir, from) = entry(a, b);
            let (to_dir, to) = entry(c, d);
            Cop::Rename(from_dir, from, to_dir, to)
        }
        Op::Link(s, d, n) => Cop::Link(p(s, Role::Leaf), p(d, Role::Dir), n),
        Op::SetMode(f, mode) => Cop::SetMode(p(f, Role::Any), *mode),
        Op::Read(f, o, l) => Cop::Read(p(f, Role::Leaf), *o, *l),
        Op::Fork(swap) => Cop::Fork(*swap),
    }
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| seed.wrapping_add(i as u8) | 1).collect()
}

// ---------------------------------------------------------------------------------------------
// Reference model

#[derive(Clone, Debug)]
enum MNode {
    Dir(u32),
    Leaf(u64),
}

#[derive(Clone, Debug)]
enum LeafData {
    File(Vec<u8>),
    Symlink(String),
}

#[derive(Clone, Debug)]
struct Leaf {
    data: LeafData,
    mode: u32,
}

#[derive(Clone, Debug)]
struct Model {
    nodes: BTreeMap<Vec<String>, MNode>,
    leaves: BTreeMap<u64, Leaf>,
    next: u64,
}

fn valid(name: &str) -> R<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') {
        Err("InvalidName")
    } else {
        Ok(())
    }
}

fn child(dir: &[String], name: &str) -> Vec<String> {
    let mut p = dir.to_vec();
    p.push(name.to_owned());
    p
}

impl Model {
    fn new() -> Self {
        let mut nodes = BTreeMap::new();
        nodes.insert(Vec::new(), MNode::Dir(0o755));
        Self {
            nodes,
            leaves: BTreeMap::new(),
            next: 0,
        }
    }

    fn resolve(&self, p: &[String]) -> R<Vec<String>> {
        let mut cur = Vec::new();
        for c in p {
            if !matches!(self.nodes[&cur], MNode::Dir(_)) {
                return Err("NotDir");
            }
            cur.push(c.clone());
            if !self.nodes.contains_key(&cur) {
                return Err("NotFound");
            }
        }
        Ok(cur)
    }

    fn dir(&self, p: &[String]) -> R<()> {
        match self.nodes[p] {
            MNode::Dir(_) => Ok(()),
            MNode::Leaf(_) => Err("NotDir"),
        }
    }

    fn has_children(&self, p: &[String]) -> bool {
        self.nodes
            .range(p.to_vec()..)
            .nth(1)
            .is_some_and(|(k, _)| k.starts_with(p))
    }

    fn gc(&mut self, id: u64) {
        if !self
            .nodes
            .values()
            .any(|n| matches!(n, MNode::Leaf(i) if *i == id))
        {
            self.leaves.remove(&id);
        }
    }

    fn create(&mut self, d: &[String], name: &str, leaf: Option<LeafData>) -> R<()> {
        let d = self.resolve(d)?;
        self.dir(&d)?;
        valid(name)?;
        let p = child(&d, name);
        if self.nodes.contains_key(&p) {
            return Err("Exists");
        }
        let node = match leaf {
            None => MNode::Dir(0o755),
            Some(data) => {
                let mode = if matches!(data, LeafData::File(_)) {
                    0o644
                } else {
                    0o777
                };
                self.next += 1;
                self.leaves.insert(self.next, Leaf { data, mode });
                MNode::Leaf(self.next)
            }
        };
        self.nodes.insert(p, node);
        Ok(())
    }

    fn file(&mut self, p: &[String]) -> R<&mut Vec<u8>> {
        let p = self.resolve(p)?;
        match self.nodes[&p] {
            MNode::Dir(_) => Err("IsDir"),
            MNode::Leaf(id) => match &mut self.leaves.get_mut(&id).unwrap().data {
                LeafData::File(data) => Ok(data),
                LeafData::Symlink(_) => Err("InvalidArgument"),
            },
        }
    }

    fn write(&mut self, p: &[String], offset: u64, data: &[u8]) -> R<()> {
        let file = self.file(p)?;
        if !data.is_empty() {
            let end = offset as usize + data.len();
            if file.len() < end {
                file.resize(end, 0);
            }
            file[offset as usize..end].copy_from_slice(data);
        }
        Ok(())
    }

    fn lookup(&self, d: &[String], name: &str) -> R<(Vec<String>, MNode)> {
        let d = self.resolve(d)?;
        self.dir(&d)?;
        valid(name)?;
        let p = child(&d, name);
        let node = self.nodes.get(&p).ok_or("NotFound")?.clone();
        Ok((p, node))
    }

    fn unlink(&mut self, d: &[String], name: &str) -> R<()> {
        let (p, node) = self.lookup(d, name)?;
        let MNode::Leaf(id) = node else {
            return Err("IsDir");
        };
        self.nodes.remove(&p);
        self.gc(id);
        Ok(())
    }

    fn remove_dir(&mut self, d: &[String], name: &str) -> R<()> {
        let (p, node) = self.lookup(d, name)?;
        if !matches!(node, MNode::Dir(_)) {
            return Err("NotDir");
        }
        if self.has_children(&p) {
            return Err("NotEmpty");
        }
        self.nodes.remove(&p);
        Ok(())
    }

    fn rename(&mut self, fd: &[String], from: &str, td: &[String], to: &str) -> R<()> {
        let fd = self.resolve(fd)?;
        let td = self.resolve(td)?;
        self.dir(&fd)?;
        self.dir(&td)?;
        valid(from)?;
        valid(to)?;
        let src = child(&fd, from);
        let src_node = self.nodes.get(&src).ok_or("NotFound")?.clone();
        let dst = child(&td, to);
        let dst_node = self.nodes.get(&dst).cloned();
        let same = src == dst
            || matches!((&src_node, &dst_node), (MNode::Leaf(a), Some(MNode::Leaf(b))) if a == b);
        if same {
            return Ok(());
        }
        let src_is_dir = matches!(src_node, MNode::Dir(_));
        if src_is_dir && td.starts_with(&src) {
            return Err("InvalidArgument");
        }
        match (&src_node, &dst_node) {
            (MNode::Dir(_), Some(MNode::Leaf(_))) => return Err("NotDir"),
            (MNode::Leaf(_), Some(MNode::Dir(_))) => return Err("IsDir"),
            (MNode::Dir(_), Some(MNode::Dir(_))) if self.has_children(&dst) => {
                return Err("NotEmpty");
            }
            _ => {}
        }
        self.nodes.remove(&dst);
        let moved: Vec<_> = self
            .nodes
            .keys()
            .filter(|k| k.starts_with(&src))
            .cloned()
            .collect();
        for k in moved {
            let node = self.nodes.remove(&k).unwrap();
            let mut nk = dst.clone();
            nk.extend_from_slice(&k[src.len()..]);
            self.nodes.insert(nk, node);
        }
        if let Some(MNode::Leaf(id)) = dst_node {
            self.gc(id);
        }
        Ok(())
    }

    fn link(&mut self, s: &[String], d: &[String], name: &str) -> R<()> {
        let s = self.resolve(s)?;
        let d = self.resolve(d)?;
        let MNode::Leaf(id) = self.nodes[&s] else {
            return Err("InvalidArgument");
        };
        self.dir(&d)?;
        valid(name)?;
        let p = child(&d, name);
        if self.nodes.contains_key(&p) {
            return Err("Exists");
        }
        self.nodes.insert(p, MNode::Leaf(id));
        Ok(())
    }

    fn set_mode(&mut self, p: &[String], mode: u32) -> R<()> {
        let p = self.resolve(p)?;
        match self.nodes.get_mut(&p).unwrap() {
            MNode::Dir(m) => *m = mode,
            MNode::Leaf(id) => self.leaves.get_mut(id).unwrap().mode = mode,
        }
        Ok(())
    }

    fn dump(&self) -> BTreeMap<String, Entry> {
        let mut out = BTreeMap::new();
        for (p, node) in &self.nodes {
            if p.is_empty() {
                continue;
            }
            let key = format!("/{}", p.join("/"));
            let entry = match node {
                MNode::Dir(mode) => {
                    let subdirs = self
                        .nodes
                        .iter()
                        .filter(|(k, n)| {
                            k.len() == p.len() + 1 && k.starts_with(p) && matches!(n, MNode::Dir(_))
                        })
                        .count() as u64;
                    Entry::Dir(*mode, 2 + subdirs)
                }
                MNode::Leaf(id) => {
                    let links = self
                        .nodes
                        .values()
                        .filter(|n| matches!(n, MNode::Leaf(i) if i == id))
                        .count() as u64;
                    let leaf = &self.leaves[id];
                    match &leaf.data {
                        LeafData::File(d) => Entry::File(leaf.mode, links, d.clone()),
                        LeafData::Symlink(t) => Entry::Symlink(leaf.mode, links, t.clone()),
                    }
                }
            };
            out.insert(key, entry);
        }
        out
    }

    fn root_mode(&self) -> u32 {
        match self.nodes[&Vec::new()] {
            MNode::Dir(m) => m,
            MNode::Leaf(_) => unreachable!(),
        }
    }

    /// (bytes, inodes) usage.
    fn usage(&self) -> (u64, u64) {
        let bytes = self
            .leaves
            .values()
            .map(|l| match &l.data {
                LeafData::File(d) => d.len() as u64,
                LeafData::Symlink(t) => t.len() as u64,
            })
            .sum();
        let dirs = self
            .nodes
            .values()
            .filter(|n| matches!(n, MNode::Dir(_)))
            .count();
        (bytes, (dirs + self.leaves.len()) as u64)
    }

    /// A fresh VFS with the same tree, built in path order (a different history).
    fn build(&self) -> Vfs {
        let mut vfs = Vfs::new();
        let mut made: BTreeMap<u64, Ino> = BTreeMap::new();
        for (p, node) in &self.nodes {
            let Some((name, parent)) = p.split_last() else {
                vfs.set_mode(vfs.root(), self.root_mode()).unwrap();
                continue;
            };
            let dir = vfs.resolve(&parent.join("/")).unwrap();
            match node {
                MNode::Dir(mode) => {
                    let ino = vfs.create_dir(dir, name).unwrap();
                    vfs.set_mode(ino, *mode).unwrap();
                }
                MNode::Leaf(id) => {
                    if let Some(&ino) = made.get(id) {
                        vfs.link(ino, dir, name).unwrap();
                        continue;
                    }
                    let leaf = &self.leaves[id];
                    let ino = match &leaf.data {
                        LeafData::File(data) => {
                            let ino = vfs.create_file(dir, name).unwrap();
                            vfs.write(ino, 0, data).unwrap();
                            ino
                        }
                        LeafData::Symlink(t) => vfs.create_symlink(dir, name, t).unwrap(),
                    };
                    vfs.set_mode(ino, leaf.mode).unwrap();
                    made.insert(*id, ino);
                }
            }
        }
        vfs
    }
}

// ---------------------------------------------------------------------------------------------
// Applying an op to the VFS

fn walk(vfs: &Vfs, p: &[String]) -> Result<Ino, VfsError> {
    p.iter().try_fold(vfs.root(), |dir, c| vfs.lookup(dir, c))
}

/// Outcome of one op: error code or a value rendered as bytes.
type Outcome = R<Vec<u8>>;

fn run_vfs(vfs: &mut Vfs, op: &Cop) -> Outcome {
    let r: Result<Vec<u8>, VfsError> = (|| {
        Ok(match op {
            Cop::CreateFile(d, n) => {
                let d = walk(vfs, d)?;
                vfs.create_file(d, n)?;
                vec![]
            }
            Cop::CreateDir(d, n) => {
                let d = walk(vfs, d)?;
                vfs.create_dir(d, n)?;
                vec![]
            }
            Cop::Symlink(d, n, t) => {
                let d = walk(vfs, d)?;
                vfs.create_symlink(d, n, t)?;
                vec![]
            }
            Cop::Write(p, o, l, s) => {
                let f = walk(vfs, p)?;
                vfs.write(f, *o, &pattern(*l, *s))?;
                vec![]
            }
            Cop::Append(p, l, s) => {
                let f = walk(vfs, p)?;
                vfs.append(f, &pattern(*l, *s))?.to_le_bytes().to_vec()
            }
            Cop::SetLen(p, l) => {
                let f = walk(vfs, p)?;
                vfs.set_len(f, *l)?;
                vec![]
            }
            Cop::Unlink(d, n) => {
                let d = walk(vfs, d)?;
                vfs.unlink(d, n)?;
                vec![]
            }
            Cop::RemoveDir(d, n) => {
                let d = walk(vfs, d)?;
                vfs.remove_dir(d, n)?;
                vec![]
            }
            Cop::Rename(fd, f, td, t) => {
                let fd = walk(vfs, fd)?;
                let td = walk(vfs, td)?;
                vfs.rename(fd, f, td, t)?;
                vec![]
            }
            Cop::Link(s, d, n) => {
                let s = walk(vfs, s)?;
                let d = walk(vfs, d)?;
                vfs.link(s, d, n)?;
                vec![]
            }
            Cop::SetMode(p, m) => {
                let i = walk(vfs, p)?;
                vfs.set_mode(i, *m)?;
                vec![]
            }
            Cop::Read(p, o, l) => {
                let f = walk(vfs, p)?;
                let mut buf = vec![0; *l];
                let n = vfs.read(f, *o, &mut buf)?;
                buf.truncate(n);
                assert_eq!(buf, vfs.read_to_vec(f, *o, *l)?);
                buf
            }
            Cop::Fork(_) => vec![],
        })
    })();
    r.map_err(|e| code(&e))
}

fn run_model(m: &mut Model, op: &Cop) -> Outcome {
    match op {
        Cop::CreateFile(d, n) => m
            .create(d, n, Some(LeafData::File(vec![])))
            .map(|()| vec![]),
        Cop::CreateDir(d, n) => m.create(d, n, None).map(|()| vec![]),
        Cop::Symlink(d, n, t) => m
            .create(d, n, Some(LeafData::Symlink((*t).to_owned())))
            .map(|()| vec![]),
        Cop::Write(p, o, l, s) => m.write(p, *o, &pattern(*l, *s)).map(|()| vec![]),
        Cop::Append(p, l, s) => {
            let end = m.file(p)?.len() as u64;
            m.write(p, end, &pattern(*l, *s))?;
            Ok((end + *l as u64).to_le_bytes().to_vec())
        }
        Cop::SetLen(p, l) => m.file(p).map(|f| {
            f.resize(*l as usize, 0);
            vec![]
        }),
        Cop::Unlink(d, n) => m.unlink(d, n).map(|()| vec![]),
        Cop::RemoveDir(d, n) => m.remove_dir(d, n).map(|()| vec![]),
        Cop::Rename(fd, f, td, t) => m.rename(fd, f, td, t).map(|()| vec![]),
        Cop::Link(s, d, n) => m.link(s, d, n).map(|()| vec![]),
        Cop::SetMode(p, mode) => m.set_mode(p, *mode).map(|()| vec![]),
        Cop::Read(p, o, l) => {
            let f = m.file(p)?;
            let start = (*o as usize).min(f.len());
            let end = (start + l).min(f.len());
            Ok(f[start..end].to_vec())
        }
        Cop::Fork(_) => Ok(vec![]),
    }
}

// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn vfs_matches_model(ops in prop::collection::vec(op(), 1..80)) {
        let mut vfs = Vfs::new();
        let mut model = Model::new();
        let mut saved: Option<(Vfs, BTreeMap<String, Entry>, Hash)> = None;
        let mut cur_dump = dump(&vfs);
        for op in &ops {
            let op = &concrete(&model, op);
            let mut prev = vfs.fork();
            let prev_dump = cur_dump.clone();
            if let Cop::Fork(swap) = op {
                let fork = vfs.fork();
                let hash = vfs.root_hash();
                saved = Some(if *swap {
                    (std::mem::replace(&mut vfs, fork), cur_dump.clone(), hash)
                } else {
                    (fork, cur_dump.clone(), hash)
                });
            }
            let got = run_vfs(&mut vfs, op);
            let want = run_model(&mut model, op);
            prop_assert_eq!(&got, &want, "op {:?}", op);

            cur_dump = dump(&vfs);
            prop_assert_eq!(&cur_dump, &model.dump(), "tree after {:?}", op);
            let usage = vfs.usage();
            prop_assert_eq!((usage.bytes, usage.inodes), model.usage());
            prop_assert_eq!(vfs.metadata(vfs.root()).unwrap().mode, model.root_mode());

            // Incremental hash equals the hash of the same tree built from scratch.
            let mut fresh = model.build();
            prop_assert_eq!(vfs.root_hash(), fresh.root_hash(), "hash after {:?}", op);

            // The fork taken before the op is unchanged, and diff reports exactly the model diff.
            prop_assert_eq!(&dump(&prev), &prev_dump);
            let mut diff = Vfs::diff(&mut prev, &mut vfs);
            let root_mode_changed = prev.metadata(prev.root()).unwrap().mode
                != vfs.metadata(vfs.root()).unwrap().mode;
            if root_mode_changed {
                prop_assert_eq!(diff.remove(0).kind, ChangeKind::Modified);
            }
            prop_assert_eq!(diff, dump_diff(&prev_dump, &cur_dump));

            if let Some((saved_vfs, saved_dump, saved_hash)) = &mut saved {
                prop_assert_eq!(&dump(saved_vfs), &*saved_dump);
                prop_assert_eq!(saved_vfs.root_hash(), *saved_hash);
            }
        }
    }
}
