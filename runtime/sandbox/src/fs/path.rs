//! Path resolution inside a preopen: the capability boundary.
//!
//! Paths are resolved one component at a time from a directory descriptor. Absolute paths,
//! `..` above the boundary (the host passes the descriptor's own directory: every handle is a
//! sandbox, as the WIT's path resolution rules say) and symlinks with absolute targets are
//! refused with `not-permitted`; relative symlink targets are resolved like any other path, so
//! they cannot leave the boundary either. At most [`MAX_SYMLINKS`] symlinks are followed per path.

use std::collections::VecDeque;

use clawrun_vfs::{Ino, NodeKind, Vfs, VfsError};

use super::ErrorCode;

/// Symlinks followed while resolving one path before giving up with `loop` (as Linux).
pub const MAX_SYMLINKS: usize = 40;

/// Where a path led.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The directory holding the final entry (or the final directory itself when the path
    /// ends in `.` or `..`).
    pub parent: Ino,
    /// The final entry's name; `None` when the path ends in `.` or `..`.
    pub name: Option<String>,
    /// The final entry, if it exists.
    pub ino: Option<Ino>,
}

impl Resolved {
    /// The existing target, or `no-entry`.
    pub fn existing(&self) -> Result<Ino, ErrorCode> {
        self.ino.ok_or(ErrorCode::NoEntry)
    }

    /// The parent and the final name, for calls that create or remove an entry; `dot` is the
    /// error for paths ending in `.` or `..`.
    pub fn entry(&self, dot: ErrorCode) -> Result<(Ino, &str), ErrorCode> {
        match &self.name {
            Some(name) => Ok((self.parent, name.as_str())),
            None => Err(dot),
        }
    }
}

/// Resolves `path` from directory `start`, never leaving the subtree of `root`. The final
/// component is followed if it is a symlink only when `follow_last` is set (or the path ends
/// in `/`).
pub fn resolve(
    vfs: &Vfs,
    root: Ino,
    start: Ino,
    path: &str,
    follow_last: bool,
) -> Result<Resolved, ErrorCode> {
    if path.is_empty() {
        return Err(ErrorCode::NoEntry);
    }
    if path.starts_with('/') {
        return Err(ErrorCode::NotPermitted);
    }
    if !vfs.exists(start) {
        return Err(ErrorCode::NoEntry);
    }
    if !vfs.is_ancestor(root, start) {
        return Err(ErrorCode::NotPermitted);
    }
    let must_be_dir = path.ends_with('/');
    let mut pending: VecDeque<String> = components(path).collect();
    let mut dir = start;
    let mut followed = 0;
    while let Some(comp) = pending.pop_front() {
        let last = pending.is_empty();
        if comp == ".." {
            if dir == root {
                return Err(ErrorCode::NotPermitted);
            }
            dir = vfs.parent(dir).map_err(ErrorCode::from)?;
            continue;
        }
        let child = match vfs.lookup(dir, &comp) {
            Ok(ino) => ino,
            Err(VfsError::NotFound) if last => {
                return Ok(Resolved {
                    parent: dir,
                    name: Some(comp),
                    ino: None,
                });
            }
            Err(e) => return Err(e.into()),
        };
        let kind = vfs.kind(child).map_err(ErrorCode::from)?;
        if kind == NodeKind::Symlink && (!last || follow_last || must_be_dir) {
            followed += 1;
            if followed > MAX_SYMLINKS {
                return Err(ErrorCode::Loop);
            }
            let target = vfs.readlink(child).map_err(ErrorCode::from)?;
            if target.starts_with('/') {
                return Err(ErrorCode::NotPermitted);
            }
            if target.is_empty() {
                return Err(ErrorCode::NoEntry);
            }
            for (i, c) in components(&target).enumerate() {
                pending.insert(i, c);
            }
            continue;
        }
        if last {
            if must_be_dir && kind != NodeKind::Directory {
                return Err(ErrorCode::NotDirectory);
            }
            return Ok(Resolved {
                parent: dir,
                name: Some(comp),
                ino: Some(child),
            });
        }
        if kind != NodeKind::Directory {
            return Err(ErrorCode::NotDirectory);
        }
        dir = child;
    }
    Ok(Resolved {
        parent: dir,
        name: None,
        ino: Some(dir),
    })
}

/// The components of a relative path, without empty ones and `.`.
fn components(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (Vfs, Ino, Ino) {
        let mut vfs = Vfs::new();
        vfs.create_dir_all("/data/sub").unwrap();
        vfs.write_file("/data/a.txt", b"a").unwrap();
        vfs.write_file("/secret.txt", b"s").unwrap();
        let data = vfs.resolve("/data").unwrap();
        let sub = vfs.resolve("/data/sub").unwrap();
        vfs.create_symlink(sub, "up", "../a.txt").unwrap();
        vfs.create_symlink(sub, "out", "../../secret.txt").unwrap();
        vfs.create_symlink(sub, "abs", "/secret.txt").unwrap();
        vfs.create_symlink(sub, "self", "self").unwrap();
        (vfs, data, sub)
    }

    #[test]
    fn resolves_inside_and_refuses_escapes() {
        let (vfs, data, sub) = tree();
        let a = vfs.resolve("/data/a.txt").unwrap();
        assert_eq!(
            resolve(&vfs, data, data, "a.txt", true).unwrap().ino,
            Some(a)
        );
        assert_eq!(
            resolve(&vfs, data, sub, "../a.txt", true).unwrap().ino,
            Some(a)
        );
        assert_eq!(resolve(&vfs, data, sub, "up", true).unwrap().ino, Some(a));
        assert_eq!(
            resolve(&vfs, data, data, "./sub/../a.txt", true)
                .unwrap()
                .ino,
            Some(a)
        );
        let not_permitted = Err(ErrorCode::NotPermitted);
        assert_eq!(
            resolve(&vfs, data, data, "../secret.txt", true),
            not_permitted
        );
        assert_eq!(
            resolve(&vfs, data, data, "/secret.txt", true),
            not_permitted
        );
        assert_eq!(resolve(&vfs, data, sub, "out", true), not_permitted);
        assert_eq!(resolve(&vfs, data, sub, "abs", true), not_permitted);
        assert_eq!(resolve(&vfs, data, sub, "abs/x", false), not_permitted);
        assert_eq!(resolve(&vfs, data, sub, "self", true), Err(ErrorCode::Loop));
    }

    #[test]
    fn nofollow_and_missing_and_dots() {
        let (vfs, data, sub) = tree();
        let link = vfs.lookup(sub, "abs").unwrap();
        assert_eq!(
            resolve(&vfs, data, sub, "abs", false).unwrap().ino,
            Some(link)
        );
        let missing = resolve(&vfs, data, data, "new.txt", true).unwrap();
        assert_eq!(
            (missing.parent, missing.name.as_deref(), missing.ino),
            (data, Some("new.txt"), None)
        );
        assert_eq!(
            resolve(&vfs, data, data, "nope/x", true),
            Err(ErrorCode::NoEntry)
        );
        assert_eq!(
            resolve(&vfs, data, data, "a.txt/x", true),
            Err(ErrorCode::NotDirectory)
        );
        assert_eq!(
            resolve(&vfs, data, data, "a.txt/", true),
            Err(ErrorCode::NotDirectory)
        );
        let dot = resolve(&vfs, data, sub, "..", true).unwrap();
        assert_eq!((dot.name, dot.ino), (None, Some(data)));
        assert_eq!(resolve(&vfs, data, data, "", true), Err(ErrorCode::NoEntry));
    }
}
